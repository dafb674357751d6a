import Foundation
import Testing
@testable import OpenCoreData

/// `NSStagedMigrationManager` with a custom stage, run when a store is added with
/// `NSPersistentStoreStagedMigrationManagerOptionKey`.
@Suite struct StagedMigrationTests {
    static func model(withCount: Bool) -> NSManagedObjectModel {
        let item = GraphTestModel.entity("Item")
        item.properties = [GraphTestModel.attribute("title", .stringAttributeType)]
            + (withCount ? [GraphTestModel.attribute("length", .integer64AttributeType)] : [])
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .xml, .binary])
    func customStageHandlersSeeTheOldAndNewStore(_ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("items")
        let v1 = Self.model(withCount: false), v2 = Self.model(withCount: true)
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v1)
            let store = try coordinator.addPersistentStore(type: type, at: url)
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            for title in ["one", "three"] {
                NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue(title, forKey: "title")
            }
            try context.save()
            try coordinator.remove(store)
        }

        let stage = NSCustomMigrationStage(migratingFrom: NSManagedObjectModelReference(model: v1, versionChecksum: v1.versionChecksum),
                                           to: NSManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum))
        stage.label = "add length"
        nonisolated(unsafe) var seenBefore: [String] = []
        nonisolated(unsafe) var hadLengthBefore = true
        stage.willMigrateHandler = { manager, stage in
            let context = try #require(manager.container?.viewContext)
            let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            seenBefore = items.compactMap { $0.value(forKey: "title") as? String }.sorted()
            hadLengthBefore = items.first?.entity.attributesByName["length"] != nil
        }
        stage.didMigrateHandler = { manager, _ in
            let context = try #require(manager.container?.viewContext)
            for item in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")) {
                item.setValue(Int64((item.value(forKey: "title") as? String ?? "").count), forKey: "length")
            }
            try context.save()
        }
        let manager = NSStagedMigrationManager([stage])

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v2)
        try coordinator.addPersistentStore(type: type, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
        #expect(seenBefore == ["one", "three"])
        #expect(!hadLengthBefore, "willMigrate sees the store with the stage's current model")
        #expect(manager.container == nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let items = try context.fetch(request)
        #expect(items.map { $0.value(forKey: "length") as? Int64 } == [3, 5])
    }

    @Test func storeOutsideTheStagesIsLeftAlone() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("items.sqlite")
        let v2 = Self.model(withCount: true)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v2)
        try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url))
        let v1 = Self.model(withCount: false)
        let stage = NSCustomMigrationStage(migratingFrom: NSManagedObjectModelReference(model: v1, versionChecksum: v1.versionChecksum),
                                           to: NSManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum))
        nonisolated(unsafe) var ran = false
        stage.willMigrateHandler = { _, _ in ran = true }
        let again = NSPersistentStoreCoordinator(managedObjectModel: v2)
        try again.addPersistentStore(type: .sqlite, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: NSStagedMigrationManager([stage])])
        #expect(!ran)
        #expect(NSLightweightMigrationStage([v1.versionChecksum]).versionChecksums == [v1.versionChecksum])
    }
}
