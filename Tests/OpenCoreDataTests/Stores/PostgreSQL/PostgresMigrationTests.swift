import Foundation
import Testing
@_spi(CLI) @testable import OpenCoreData
@testable import OpenCoreDataPostgres

/// Automatic migration of a PostgreSQL store: the migrated objects are written into a new
/// schema that replaces the store's in one transaction; a failure leaves the store as it was
/// and no working schema behind.
@Suite("PostgreSQL store: automatic migration", .enabled(if: PostgresTestServer.unavailableReason == nil,
                                                        Comment(rawValue: PostgresTestServer.unavailableReason ?? "")))
struct PostgresMigrationTests {
    static let type = NSPersistentStore.StoreType(rawValue: NSPostgreSQLStoreType)

    /// A store URL in a new schema, and the folder holding the versioned model.
    static func setUp(v2: String = AutomaticMigrationTests.v2Contents) throws -> (url: URL, folder: URL, package: URL) {
        PostgresStore.registerStoreClass()
        let folder = try Fixtures.temporaryDirectory()
        let package = try AutomaticMigrationTests.writePackage(in: folder, v2: v2)
        let url = try PostgresRemoteChangeTests.freshURL()
        return (url, folder, package)
    }

    /// The schemas whose names begin with the store's schema.
    static func schemas(like url: URL) throws -> [String] {
        let schema = try PostgresStoreLocation(url: url).schema
        return try PostgresStore.withServer(at: url) { connection, _, logger in
            let rows = try await connection.query("SELECT nspname::text FROM pg_namespace WHERE starts_with(nspname, \(schema)) ORDER BY 1",
                                                  logger: logger)
            var names: [String] = []
            for try await row in rows { names.append(try row.decode(String.self)) }
            return names
        }
    }

    @Test func aStoreOfAnOlderVersionMigratesAtOpenAndKeepsItsUUID() throws {
        let (url, folder, package) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: folder) }
        let uuid = try AutomaticMigrationTests.writeV1Store(Self.type, at: url, model: try ModelVersionList.read(at: package).versions[0].model)
        let model = try NSManagedObjectModel.load(contentsOf: package)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: Self.type, at: url, options: AutomaticMigrationTests.migrate)
        #expect(store.identifier == uuid, "a migrated store keeps its UUID")
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try AutomaticMigrationTests.checkMigrated(context)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: Self.type, at: url)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(try Self.schemas(like: url) == [try PostgresStoreLocation(url: url).schema], "no working or retired schema is left")
        // The migrated store takes new objects with keys after the copied ones.
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        person.setValue("Grace", forKey: "fullName")
        try context.save()
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 3)
    }

    /// `coredata store upgrade` on PostgreSQL: a step that can't be inferred fails the whole
    /// upgrade; the store reads as before with its UUID, and no copy schema is left.
    @Test func anUpgradeThatFailsLeavesTheStoreAndNoCopy() throws {
        let (url, folder, package) = try Self.setUp(v2: AutomaticMigrationTests.uninferableV2Contents)
        defer { try? FileManager.default.removeItem(at: folder) }
        let v1 = try ModelVersionList.read(at: package).versions[0].model
        let uuid = try AutomaticMigrationTests.writeV1Store(Self.type, at: url, model: v1)
        let error = try #require(throws: NSError.self) {
            try StoreUpgrade.upgrade(storeAt: url, type: NSPostgreSQLStoreType, modelAt: package, to: nil, mappings: [])
        }
        #expect(error.code == NSInferredMappingModelError, "the step that cannot be inferred names why")
        #expect(try Self.schemas(like: url) == [try PostgresStoreLocation(url: url).schema], "the copy's schema is gone")
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: Self.type, at: url)
        #expect(metadata[NSStoreUUIDKey] as? String == uuid)
        let context = try MigrationTestModels.open(Self.type, at: url, model: v1)
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 2, "version 1 still reads it")
    }

    @Test func withoutTheMigrateOptionTheStoreIsStillIncompatible() throws {
        let (url, folder, package) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: folder) }
        try AutomaticMigrationTests.writeV1Store(Self.type, at: url, model: try ModelVersionList.read(at: package).versions[0].model)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: package))
        let error = try #require(throws: NSError.self) { try coordinator.addPersistentStore(type: Self.type, at: url, options: nil) }
        #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
    }

    @Test func aChangeThatCannotBeInferredLeavesTheStoreAsItWas() throws {
        let (url, folder, package) = try Self.setUp(v2: AutomaticMigrationTests.uninferableV2Contents)
        defer { try? FileManager.default.removeItem(at: folder) }
        let v1 = try ModelVersionList.read(at: package).versions[0].model
        try AutomaticMigrationTests.writeV1Store(Self.type, at: url, model: v1)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: package))
        let error = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(type: Self.type, at: url, options: AutomaticMigrationTests.migrate)
        }
        #expect(error.code == NSMigrationMissingMappingModelError)
        let context = try MigrationTestModels.open(Self.type, at: url, model: v1)
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 2, "version 1 still reads it")
    }

    @Test func aMigrationThatFailsWhileCopyingDropsItsWorkingSchema() throws {
        let (url, folder, package) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: folder) }
        let versions = try ModelVersionList.read(at: package)
        try AutomaticMigrationTests.writeV1Store(Self.type, at: url, model: versions.versions[0].model)
        // A mapping whose Person mapping names an entity version 2 lacks fails in the middle.
        let mapping = try MigrationRunner.inferredMapping(from: versions.versions[0].model, to: versions.versions[1].model)
        mapping.entityMappings?.first { $0.sourceEntityName == "Person" }?.destinationEntityName = "Nobody"
        #expect(throws: (any Error).self) {
            try MigrationRunner.migrate(storeAt: url, type: NSPostgreSQLStoreType, options: nil, from: versions.versions[0].model,
                                        to: versions.versions[1].model, mapping: mapping)
        }
        #expect(try Self.schemas(like: url) == [try PostgresStoreLocation(url: url).schema], "the working schema is dropped")
        let context = try MigrationTestModels.open(Self.type, at: url, model: versions.versions[0].model)
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 2)
    }

    /// What a coordinator still on version 1 saves after another migrated the store.
    enum StaleChange: CaseIterable, Sendable {
        /// A new person: the server refuses the insert of version 1's columns.
        case insert
        /// A person read before the migration, renamed: the server refuses the update.
        case update
        /// A person read before the migration, deleted: the statement may succeed on the new
        /// schema, and the check at the end of the save refuses it.
        case delete
    }

    /// A coordinator still on version 1 when another migrates the store: its next save fails
    /// with 134020 and writes nothing, rather than writing old-model rows into the migrated
    /// store, whichever statement meets the new schema first.
    @Test(arguments: StaleChange.allCases)
    func aSaveAfterAnotherCoordinatorMigratedTheStoreFailsAndWritesNothing(_ change: StaleChange) throws {
        let (url, folder, package) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: folder) }
        let versions = try ModelVersionList.read(at: package)
        try AutomaticMigrationTests.writeV1Store(Self.type, at: url, model: versions.versions[0].model)
        let stale = try MigrationTestModels.open(Self.type, at: url, model: versions.versions[0].model)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let people = try stale.fetch(request)
        try #require(people.count == 2)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: package))
        try coordinator.addPersistentStore(type: Self.type, at: url, options: AutomaticMigrationTests.migrate)

        switch change {
        case .insert: NSEntityDescription.insertNewObject(forEntityName: "Person", into: stale).setValue("Grace", forKey: "name")
        case .update: people[0].setValue("Grace", forKey: "name")
        case .delete: stale.delete(people[0])
        }
        let error = try #require(throws: NSError.self) { try stale.save() }
        #expect(error.code == NSPersistentStoreIncompatibleSchemaError)
        #expect(error.localizedDescription.contains("migrated by another coordinator"))
        let migrated = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        migrated.persistentStoreCoordinator = coordinator
        try AutomaticMigrationTests.checkMigrated(migrated)
        #expect(try migrated.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 2, "nothing of the failed save")
    }

    /// A save that comes while a migration copies the store waits for the migration's lock
    /// (it is not written into the schema about to be retired, where it would be lost), then
    /// finds the schema swapped and fails with 134020.
    @Test func aSaveDuringAMigrationWaitsForItAndThenFails() throws {
        let (url, folder, package) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: folder) }
        let v1 = try ModelVersionList.read(at: package).versions[0].model
        try AutomaticMigrationTests.writeV1Store(Self.type, at: url, model: v1)
        let writer = NSPersistentStoreCoordinator(managedObjectModel: v1)
        try writer.addPersistentStore(type: Self.type, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = writer

        // The migration begins: it holds the store's lock and copies the store.
        let working = try #require(PostgresStore.workingLocation(for: url))
        try PostgresStore.lockForMigration(at: url, into: working)
        let copier = NSPersistentStoreCoordinator(managedObjectModel: v1)
        let source = try copier.addPersistentStore(type: Self.type, at: url, options: [NSReadOnlyPersistentStoreOption: true])
        try copier.remove(try copier.migratePersistentStore(source, to: working, options: nil, type: Self.type))

        // Meanwhile another writer saves.
        let outcome = LockedValue<NSError?>(nil)
        let saved = DispatchSemaphore(value: 0)
        context.perform {
            NSEntityDescription.insertNewObject(forEntityName: "Person", into: context).setValue("Grace", forKey: "name")
            do { try context.save() } catch { outcome.set(error as NSError) }
            saved.signal()
        }
        try Self.waitForALockWaiter(at: url)
        #expect(saved.wait(timeout: .now()) == .timedOut, "the save waits for the migration")

        try PostgresStore.swapInMigratedSchema(at: url, from: working)
        saved.wait()
        #expect(outcome.get()?.code == NSPersistentStoreIncompatibleSchemaError)
        let reader = try MigrationTestModels.open(Self.type, at: url, model: v1)
        #expect(try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 2, "the copy, without the refused save")
        #expect(try Self.schemas(like: url) == [try PostgresStoreLocation(url: url).schema])
    }

    /// Returns once a session waits for the store's advisory lock (the save blocked on the
    /// migration's lock), checking the server's lock table; fails after a minute.
    static func waitForALockWaiter(at url: URL) throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let waiting = try PostgresStore.withServer(at: url) { connection, location, logger in
                let key = PostgresStore.advisoryLockKey(schema: location.schema)
                let rows = try await connection.query("""
                    SELECT count(*)::int8 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
                    AND objid::int8 = (hashtext(\(key))::int8 & 4294967295)
                    """, logger: logger)
                var count: Int64 = 0
                for try await row in rows { count = try row.decode(Int64.self) }
                return count
            }
            if waiting > 0 { return }
        }
        Issue.record("no session waited for the store's advisory lock within a minute")
    }
}
