// Imports Foundation and CoreData side by side, as Apple code does: swift-corelibs-foundation
// declares `filtered(using:)` for its own NSPredicate too, and ours must win.
import Foundation
import CoreData
import Testing

@Test func foundationAndCoreDataFilters() {
    let predicate = NSPredicate(format: "age > %d", 20)
    let people: [[String: Any]] = [["age": 30, "name": "a"], ["age": 10, "name": "b"]]
    let array = people as NSArray
    #expect(array.filtered(using: predicate).count == 1)
    let mutable = NSMutableArray(array: people)
    mutable.filter(using: predicate)
    #expect((mutable.firstObject as? [String: Any])?["name"] as? String == "a")
    // Numbers come back as the NSNumbers the set holds (whose hash differs from Int's on Linux).
    let large = NSSet(array: [1, 25, 40]).filtered(using: NSPredicate(format: "SELF > 20"))
    #expect(Set(large.compactMap { $0.base as? Int }) == [25, 40])
    let ordered = NSMutableOrderedSet(array: [3, 30, 4])
    ordered.filter(using: NSPredicate(format: "SELF < 10"))
    #expect(ordered.array.compactMap { $0 as? Int } == [3, 4])
    let set = NSMutableSet(array: [3, 30])
    set.filter(using: NSPredicate(format: "SELF < 10"))
    #expect(set.allObjects.compactMap { $0 as? Int } == [3])
}

@Test func foundationAndCoreDataStackShapes() throws {
    let context = NSManagedObjectContext()
    context.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: shimModel())
    try context.persistentStoreCoordinator?.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
    let item = ShimOnlyItem(context: context)
    #expect(item.createdBy == "override")
    try context.save()
    #expect(!item.objectID.isTemporaryID)
}
