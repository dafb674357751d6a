import Foundation
import Testing
@testable import OpenCoreData

/// Migrations that fail: no mapping model (134140), a change Core Data can't infer (134190
/// naming the entity and property) and a migrated object the destination model finds invalid
/// (134110 with the validation error underneath, as Apple reports "Validation error missing
/// attribute values on mandatory destination attribute"). Each leaves the store byte-identical,
/// its `-wal` and `-shm` included, and no file behind.
@Suite struct MigrationFailureTests {
    static let fileTypes: [NSPersistentStore.StoreType] = [.sqlite, .xml, .binary]

    /// The folder's files and the store's bytes, to compare after the failure.
    struct Snapshot: Equatable {
        let files: [String]
        let bytes: [Data?]

        init(_ url: URL) throws {
            files = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).sorted()
            bytes = MigrationTestModels.bytes(url)
        }
    }

    /// Writes a store of `type` at `url` with `model`, `fill` inserting its objects.
    static func write(_ type: NSPersistentStore.StoreType, at url: URL, model: NSManagedObjectModel,
                      fill: (NSManagedObjectContext) -> Void) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: type, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        fill(context)
        try context.save()
        try coordinator.remove(store)
    }

    static func items(_ attributes: NSAttributeDescription...) -> NSManagedObjectModel {
        InferredMigrationTests.model(InferredMigrationTests.entity("Item", attributes))
    }

    // MARK: No mapping model

    @Test(arguments: fileTypes)
    func aMissingMappingModelIs134140(_ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store")
        try MigrationTestModels.writeV1Store(type, at: url)
        let before = try Snapshot(url)
        let manager = NSMigrationManager(sourceModel: MigrationTestModels.v1(), destinationModel: MigrationTestModels.v2())
        let error = try #require(throws: NSError.self) {
            try manager.migrateStore(from: url, sourceType: type.rawValue, with: nil, toDestinationURL: url,
                                     destinationType: type.rawValue)
        }
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSMigrationMissingMappingModelError)
        #expect(error.userInfo[NSURLErrorKey] as? URL == url)
        #expect(try Snapshot(url) == before)
    }

    /// The Apple-written fixture, its `-wal` and `-shm` beside it, stays byte-identical.
    @Test func anAppleStoreWithoutMappingModelIsUntouched() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try FixtureMigrationTests.copyStore("SampleModel_V1.sqlite", to: folder)
        let before = try Snapshot(url)
        #expect(before.bytes.allSatisfy { $0 != nil }, "the store, its -wal and its -shm")
        let manager = NSMigrationManager(sourceModel: try FixtureMigrationTests.version("SampleModel"),
                                         destinationModel: try FixtureMigrationTests.version("SampleModel2"))
        let error = try #require(throws: NSError.self) {
            try manager.migrateStore(from: url, sourceType: NSSQLiteStoreType, with: nil, toDestinationURL: url,
                                     destinationType: NSSQLiteStoreType)
        }
        #expect(error.code == NSMigrationMissingMappingModelError)
        #expect(try Snapshot(url) == before)
    }

    // MARK: Changes that can't be inferred

    /// A change Core Data does not infer: the models and the entity and property it names.
    struct Unmappable: Sendable, CustomTestStringConvertible {
        let name: String
        let v1: @Sendable () -> NSManagedObjectModel
        let v2: @Sendable () -> NSManagedObjectModel
        let entity: String
        let property: String?
        var testDescription: String { name }
    }

    static let unmappable: [Unmappable] = [
        Unmappable(name: "new non-optional attribute without default",
                   v1: { items(InferredMigrationTests.string("name")) },
                   v2: { items(InferredMigrationTests.string("name"), InferredMigrationTests.string("code", optional: false)) },
                   entity: "Item", property: "code"),
        Unmappable(name: "string becomes an integer",
                   v1: { items(InferredMigrationTests.string("name"), InferredMigrationTests.string("code")) },
                   v2: { items(InferredMigrationTests.string("name"), GraphTestModel.attribute("code", .integer64AttributeType)) },
                   entity: "Item", property: "code"),
        // Two existing entities made to share a parent: Apple's documentation says entity
        // hierarchies can't be merged by a lightweight migration.
        Unmappable(name: "merged entity hierarchies",
                   v1: { InferredMigrationTests.animals(dogIsAnAnimal: false) },
                   v2: { InferredMigrationTests.animals(dogIsAnAnimal: true) },
                   entity: "Dog", property: nil),
    ]

    @Test(arguments: unmappable, fileTypes)
    func anUnmappableChangeIs134190(_ change: Unmappable, _ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store")
        let v1 = change.v1()
        try Self.write(type, at: url, model: v1) { context in
            for entity in v1.entities {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity.name ?? "", into: context)
                object.setValue("x", forKey: entity.attributesByName["name"] != nil ? "name" : "breed")
            }
        }
        let before = try Snapshot(url)
        let error = try #require(throws: NSError.self) {
            try MigrationRunner.migrate(storeAt: url, type: type.rawValue, options: nil, from: v1, to: change.v2(), mapping: nil)
        }
        #expect(error.code == NSInferredMappingModelError)
        #expect(error.userInfo["entity"] as? String == change.entity)
        #expect(error.localizedDescription.contains("'\(change.entity)'"))
        if let property = change.property {
            #expect(error.userInfo["property"] as? String == property)
            #expect(error.localizedDescription.contains("'\(property)'"))
        }
        #expect(try Snapshot(url) == before)
    }

    // MARK: Invalid migrated objects

    /// An optional attribute made non-optional without a default: inferred, as Apple infers it,
    /// and refused when an object has no value, as Apple refuses it (134110, "missing attribute
    /// values on mandatory destination attribute").
    @Test(arguments: fileTypes)
    func aMissingMandatoryValueIs134110(_ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store")
        let v1 = Self.items(InferredMigrationTests.string("name"), InferredMigrationTests.string("code"))
        let v2 = Self.items(InferredMigrationTests.string("name"), InferredMigrationTests.string("code", optional: false))
        try Self.write(type, at: url, model: v1) { context in
            InferredMigrationTests.insert("Item", ["name": "a", "code": "A"], into: context)
            InferredMigrationTests.insert("Item", ["name": "b"], into: context)
        }
        let before = try Snapshot(url)
        _ = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        let error = try #require(throws: NSError.self) {
            try MigrationRunner.migrate(storeAt: url, type: type.rawValue, options: nil, from: v1, to: v2, mapping: nil)
        }
        Self.expectMissingMandatoryValue(error, key: "code")
        #expect(try Snapshot(url) == before)
        // The store still opens with v1 and holds both objects.
        let context = try MigrationTestModels.open(type, at: url, model: v1)
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) == 2)
    }

    /// The same on the Apple-written fixture: V2 with `Car.markedForDeletionAsOf` made
    /// mandatory, which no car has.
    @Test func anAppleStoreWithInvalidMigratedObjectsIsUntouched() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try FixtureMigrationTests.copyStore("SampleModel_V1.sqlite", to: folder)
        let before = try Snapshot(url)
        let v1 = try FixtureMigrationTests.version("SampleModel"), v2 = try FixtureMigrationTests.version("SampleModel2")
        v2.entitiesByName["Car"]?.attributesByName["markedForDeletionAsOf"]?.isOptional = false
        let error = try #require(throws: NSError.self) {
            try MigrationRunner.migrate(storeAt: url, type: NSSQLiteStoreType, options: nil, from: v1, to: v2, mapping: nil)
        }
        Self.expectMissingMandatoryValue(error, key: "markedForDeletionAsOf")
        #expect(error.userInfo["entity"] as? String == "Car")
        #expect(error.localizedDescription.contains("more validation errors"), "125 cars, one error each")
        #expect(try Snapshot(url) == before)
    }

    static func expectMissingMandatoryValue(_ error: NSError, key: String) {
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSMigrationError)
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        let validation = underlying?.code == NSValidationMultipleErrorsError
            ? (underlying?.userInfo[NSDetailedErrorsKey] as? [NSError])?.first : underlying
        #expect(validation?.code == NSValidationMissingMandatoryPropertyError)
        #expect(validation?.userInfo[NSValidationKeyErrorKey] as? String == key)
        #expect(error.userInfo["attribute"] as? String == key)
        #expect(error.localizedDescription.contains(key), "\(error.localizedDescription)")
    }
}
