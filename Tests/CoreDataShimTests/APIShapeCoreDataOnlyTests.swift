// Imports CoreData alone, as much Apple code does: the shapes below must compile with only the
// shim's names (Foundation comes through it), and OpenCoreData's NSPredicate must be the one
// the collection filters take.
import CoreData
import Testing

/// Declared as Apple code declares managed object subclasses: the designated initializer
/// overridden, once privately.
final class ShimOnlyItem: NSManagedObject {
    private(set) var createdBy = "nobody"

    override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
        createdBy = "override"
    }
}

final class ShimOnlyHiddenItem: NSManagedObject {
    private(set) var createdBy = "nobody"

    private override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
        createdBy = "private override"
    }
}

extension NSPersistentStoreCoordinator {
    class func shimOnlyMake(model: NSManagedObjectModel) -> Self { self.init(managedObjectModel: model) }
}

/// A model with entities `Item` and `Hidden` (a `name` each), registered to the classes above.
func shimModel() -> NSManagedObjectModel {
    let model = NSManagedObjectModel()
    model.entities = ["Item", "Hidden"].map { name in
        let entity = NSEntityDescription()
        entity.name = name
        let attribute = NSAttributeDescription()
        attribute.name = "name"
        attribute.attributeType = .stringAttributeType
        entity.properties = [attribute]
        return entity
    }
    model.register(ShimOnlyItem.self, forEntityName: "Item")
    model.register(ShimOnlyHiddenItem.self, forEntityName: "Hidden")
    return model
}

@Test func coreDataOnlyFilters() {
    let predicate = NSPredicate(format: "SELF BEGINSWITH %@", "a")
    #expect(NSArray(array: ["ab", "ba", "ac"]).filtered(using: predicate).compactMap { $0 as? String } == ["ab", "ac"])
    #expect(NSSet(array: ["ab", "ba"]).filtered(using: predicate) == ["ab"])
    #expect(NSOrderedSet(array: ["ba", "ab"]).filtered(using: predicate).array.compactMap { $0 as? String } == ["ab"])
    let mutable = NSMutableArray(array: ["ab", "ba", "ac"])
    mutable.filter(using: predicate)
    #expect(mutable.count == 2)
    let mutableSet = NSMutableSet(array: ["ab", "ba"])
    mutableSet.filter(using: predicate)
    #expect(mutableSet.count == 1)
    let mutableOrdered = NSMutableOrderedSet(array: ["ba", "ab", "ac"])
    mutableOrdered.filter(using: predicate)
    #expect(mutableOrdered.array.compactMap { $0 as? String } == ["ab", "ac"])
    #expect((["xa", "ay"] as NSArray).filtered(using: predicate).compactMap { $0 as? String } == ["ay"])
}

@Test func coreDataOnlyStackShapes() throws {
    let coordinator = NSPersistentStoreCoordinator.shimOnlyMake(model: shimModel())
    try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
    let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    let item = ShimOnlyItem(context: context)
    item.setValue("first", forKey: "name")
    #expect(item.createdBy == "override")
    let hidden = NSEntityDescription.insertNewObject(forEntityName: "Hidden", into: context) as? ShimOnlyHiddenItem
    #expect(hidden?.createdBy == "private override")
    try context.save()

    let other = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    other.persistentStoreCoordinator = coordinator
    let fetched = try other.fetch(NSFetchRequest<ShimOnlyItem>(entityName: "Item"))
    #expect(fetched.map(\.createdBy) == ["override"])
}
