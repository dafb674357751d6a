import Foundation
import Testing
@testable import OpenCoreData

/// `NSManagedObjectContext()`, Apple's deprecated confinement context, as old code creates it:
/// no argument, then a coordinator. (Its uses warn, as Apple's do.)
@Suite struct ContextConfinementTests {
    @Test func initWithoutArgumentMakesAConfinementContext() {
        let context = NSManagedObjectContext()
        #expect(context.concurrencyType == .confinementConcurrencyType)
        #expect(context.concurrencyType.rawValue == 0)
        #expect(NSManagedObjectContextConcurrencyType(rawValue: 0) == .confinementConcurrencyType)
        #expect(context.persistentStoreCoordinator == nil)
    }

    @Test func confinementContextInsertsSavesAndFetches() throws {
        let context = NSManagedObjectContext()
        context.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: GraphTestModel.make())
        try context.persistentStoreCoordinator!.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let run = GraphTestModel.insert("Run", context, ["processID": 7])
        try context.save()
        #expect(!run.objectID.isTemporaryID)

        var ranInline = false
        context.performAndWait {
            ranInline = true
        }
        #expect(ranInline)
        let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Run"))
        #expect(fetched.count == 1 && fetched.first === run)
        #expect(fetched.first?.value(forKey: "processID") as? Int32 == 7)
    }
}
