import Foundation
import Testing
@testable import OpenCoreData

/// `NSMigrationManager` with a mapping model: every mapping type, a custom policy, relationships,
/// progress, the kept UUID and the failure paths, on every store type with a file.
@Suite struct MigrationManagerTests {
    static let fileTypes: [NSPersistentStore.StoreType] = [.sqlite, .xml, .binary]

    @Test(arguments: fileTypes)
    func migratesWithEveryMappingType(_ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("v1.store"), destination = folder.appendingPathComponent("v2.store")
        let uuid = try MigrationTestModels.writeV1Store(type, at: source)
        let sourceBytes = MigrationTestModels.bytes(source)

        let manager = NSMigrationManager(sourceModel: MigrationTestModels.v1(), destinationModel: MigrationTestModels.v2())
        try manager.migrateStore(from: source, type: type, mapping: MigrationTestModels.mapping(), to: destination, type: type)
        #expect(manager.migrationProgress == 1)
        #expect(manager.progress.fractionCompleted == 1)
        #expect(MigrationTestModels.bytes(source) == sourceBytes, "the source store is read, never written")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("migrating") }
        #expect(leftovers.isEmpty)

        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: type, at: destination)
        #expect(metadata[NSStoreUUIDKey] as? String == uuid, "a mapping-model migration keeps the store's UUID")

        let context = try MigrationTestModels.open(type, at: destination, model: MigrationTestModels.v2())
        let people = try MigrationTestModels.fetch("Person", in: context, sortedBy: "firstName")
        #expect(people.map { $0.value(forKey: "firstName") as? String } == ["Ada", "Alan"])
        #expect(people.map { $0.value(forKey: "lastName") as? String } == ["Lovelace", "Turing"])
        #expect(people.map { $0.value(forKey: "years") as? Int64 } == [36, 41])
        #expect(people.map { $0.value(forKey: "ageNextYear") as? Int64 } == [37, 42])
        let adaNotes = (people[0].value(forKey: "notes") as? Set<NSManagedObject> ?? []).compactMap { $0.value(forKey: "text") as? String }
        #expect(adaNotes.sorted() == ["engine", "poetry"])
        let notes = try MigrationTestModels.fetch("Note", in: context, sortedBy: "text")
        #expect(notes.map { ($0.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "firstName") as? String }
                == ["Ada", "Alan", "Ada"], "the copy mapping re-creates the to-one side too")
        let tags = try MigrationTestModels.fetch("Tag", in: context, sortedBy: "label")
        #expect(tags.map { $0.value(forKey: "label") as? String } == ["Countess", "Prof"])
        #expect(tags.map { ($0.value(forKey: "person") as? NSManagedObject)?.value(forKey: "firstName") as? String } == ["Ada", "Alan"])
        #expect(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Legacy"] == nil)
    }

    @Test(arguments: fileTypes)
    func migratesInPlaceWhenSourceAndDestinationAreTheSameFile(_ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store")
        let uuid = try MigrationTestModels.writeV1Store(type, at: url)
        try MigrationRunner.migrate(storeAt: url, type: type.rawValue, options: nil, from: MigrationTestModels.v1(),
                                    to: MigrationTestModels.v2(), mapping: MigrationTestModels.mapping())
        let context = try MigrationTestModels.open(type, at: url, model: MigrationTestModels.v2())
        #expect(try MigrationTestModels.fetch("Person", in: context, sortedBy: "firstName").count == 2)
        #expect(context.persistentStoreCoordinator?.persistentStores.first?.identifier == uuid)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("migrating") }.isEmpty)
    }

    @Test(arguments: fileTypes)
    func validationFailureLeavesTheSourceUntouched(_ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("v1.store"), destination = folder.appendingPathComponent("v2.store")
        try MigrationTestModels.writeV1Store(type, at: source, extraPerson: "Plato")
        let before = MigrationTestModels.bytes(source)
        let manager = NSMigrationManager(sourceModel: MigrationTestModels.v1(), destinationModel: MigrationTestModels.v2(lastNameRequired: true))
        let error = try #require(throws: NSError.self) {
            try manager.migrateStore(from: source, type: type, mapping: MigrationTestModels.mapping(), to: destination, type: type)
        }
        #expect(error.code == NSMigrationError)
        #expect((error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == NSValidationMissingMandatoryPropertyError)
        #expect(MigrationTestModels.bytes(source) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["v1.store"] || type == .sqlite)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func missingPolicyClassIsNamed() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("v1.sqlite"), destination = folder.appendingPathComponent("v2.sqlite")
        try MigrationTestModels.writeV1Store(.sqlite, at: source)
        let before = MigrationTestModels.bytes(source)
        let manager = NSMigrationManager(sourceModel: MigrationTestModels.v1(), destinationModel: MigrationTestModels.v2())
        let error = try #require(throws: NSError.self) {
            try manager.migrateStore(from: source, type: .sqlite, mapping: MigrationTestModels.mapping(policy: "OpenCoreDataTests.NoSuchPolicy"),
                                     to: destination, type: .sqlite)
        }
        #expect(error.code == NSEntityMigrationPolicyError)
        #expect(error.localizedDescription.contains("OpenCoreDataTests.NoSuchPolicy"))
        #expect(MigrationTestModels.bytes(source) == before)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func undefinedMappingAndCancellationAreErrors() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("v1.xml"), destination = folder.appendingPathComponent("v2.xml")
        try MigrationTestModels.writeV1Store(.xml, at: source)
        let undefined = MigrationTestModels.mapping()
        undefined.entityMappings[1].mappingType = .undefinedEntityMappingType
        let manager = NSMigrationManager(sourceModel: MigrationTestModels.v1(), destinationModel: MigrationTestModels.v2())
        let error = try #require(throws: NSError.self) {
            try manager.migrateStore(from: source, type: .xml, mapping: undefined, to: destination, type: .xml)
        }
        #expect(error.code == NSMigrationError)
        #expect(error.localizedDescription.contains("NoteToNote"))

        let cancelling = MigrationTestModels.mapping(policy: String(reflecting: CancellingPolicy.self))
        let cancelled = try #require(throws: NSError.self) {
            try manager.migrateStore(from: source, type: .xml, mapping: cancelling, to: destination, type: .xml)
        }
        #expect(cancelled.code == NSMigrationCancelledError)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func inMemoryDestinationStaysReadableThroughTheDestinationContext() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("v1.bin")
        try MigrationTestModels.writeV1Store(.binary, at: source)
        let manager = NSMigrationManager(sourceModel: MigrationTestModels.v1(), destinationModel: MigrationTestModels.v2())
        try manager.migrateStore(from: source, type: .binary, mapping: MigrationTestModels.mapping(),
                                 to: URL(fileURLWithPath: "/dev/null"), type: .inMemory)
        let people = try MigrationTestModels.fetch("Person", in: manager.destinationContext, sortedBy: "firstName")
        #expect(people.map { $0.value(forKey: "lastName") as? String } == ["Lovelace", "Turing"])
    }

    @Test func multiplePassesAddToTheDestination() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("v1.sqlite"), destination = folder.appendingPathComponent("v2.sqlite")
        try MigrationTestModels.writeV1Store(.sqlite, at: source)
        let full = MigrationTestModels.mapping()
        let first = NSMappingModel(), second = NSMappingModel()
        first.entityMappings = [full.entityMappings[0]]
        second.entityMappings = [full.entityMappings[1]]
        second.entityMappings[0].relationshipMappings = []
        second.entityMappings[0].mappingType = .transformEntityMappingType
        second.entityMappings[0].attributeMappings = [NSPropertyMapping(name: "text", valueExpression: NSExpression(format: "$source.text"))]
        for pass in [first, second] {
            let manager = NSMigrationManager(sourceModel: MigrationTestModels.v1(), destinationModel: MigrationTestModels.v2())
            try manager.migrateStore(from: source, type: .sqlite, mapping: pass, to: destination, type: .sqlite)
        }
        let context = try MigrationTestModels.open(.sqlite, at: destination, model: MigrationTestModels.v2())
        #expect(try MigrationTestModels.fetch("Person", in: context, sortedBy: "firstName").count == 2)
        #expect(try MigrationTestModels.fetch("Note", in: context, sortedBy: "text").count == 3)
    }
}

/// Cancels the migration from its first instance.
final class CancellingPolicy: NSEntityMigrationPolicy, @unchecked Sendable {
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping,
                                             manager: NSMigrationManager) throws {
        manager.cancelMigrationWithError(NSError(domain: NSCocoaErrorDomain, code: NSMigrationCancelledError))
    }
}
