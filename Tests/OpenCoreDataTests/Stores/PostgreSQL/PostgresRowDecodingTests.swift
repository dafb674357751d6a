import Foundation
import Testing
import PostgresNIO
@testable import OpenCoreData
@testable import OpenCoreDataPostgres

/// Rows the PostgreSQL store can't read: the error thrown while decoding on the connection's
/// event loop (``PostgresSnapshotReader``) reaches the caller with its context, and the
/// process goes on.
@Suite("PostgreSQL store: unreadable rows", .enabled(if: PostgresTestServer.unavailableReason == nil,
                                                     Comment(rawValue: PostgresTestServer.unavailableReason ?? "")))
struct PostgresRowDecodingTests {
    @Test func aRowNamingAnUnknownEntityFailsTheFaultWithTheTableAndRow() throws {
        PostgresStore.registerStoreClass()
        let url = try PostgresRemoteChangeTests.freshURL()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SQLTestModel.make())
        try coordinator.addPersistentStore(type: NSPersistentStore.StoreType(rawValue: NSPostgreSQLStoreType), at: url)
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        let id = try writer.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: writer)
            item.setValue("kept", forKey: "name")
            try writer.save()
            return item.objectID
        }
        let schema = try PostgresStoreLocation(url: url).schema
        try PostgresStore.withServer(at: url) { connection, _, logger in
            try await connection.query(PostgresQuery(unsafeSQL: "UPDATE \(PostgresSQL.qualified(schema, "ZITEM")) SET \"Z_ENT\" = 999"), logger: logger)
        }

        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        let error = try reader.performAndWait {
            try #require(throws: NSError.self) { try reader.existingObject(with: id) }
        }
        #expect(error.code == NSPersistentStoreOperationError || (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == NSPersistentStoreOperationError,
                "\(error)")
        let described = String(describing: error)
        #expect(described.contains("ZITEM") && described.contains("Z_ENT") && described.contains("999"), "\(described)")
    }

    /// Rows read by ID reuse the ID instances asked for (no new ID a row), whether the keys are
    /// a range (`BETWEEN`) or not (`= ANY`), in whatever order they were asked for.
    @Test func rowsReadByIDReuseTheIDsAskedFor() throws {
        PostgresStore.registerStoreClass()
        let url = try PostgresRemoteChangeTests.freshURL()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SQLTestModel.make())
        let store = try #require(try coordinator.addPersistentStore(type: NSPersistentStore.StoreType(rawValue: NSPostgreSQLStoreType), at: url) as? PostgresStore)
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        let ids = try writer.performAndWait {
            let items = (0..<5).map { index in
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: writer)
                item.setValue("item \(index)", forKey: "name")
                return item
            }
            try writer.save()
            return items.map(\.objectID)
        }
        for asked in [Array(ids.reversed()), [ids[3], ids[0], ids[4]]] {
            let read = try store.snapshots(for: asked)
            #expect(read.count == asked.count)
            for (snapshot, id) in zip(read, asked) {
                #expect(snapshot.objectID === id)
                #expect(snapshot["name"] as? String == "item \(ids.firstIndex(of: id) ?? -1)")
            }
        }
    }

    /// Rows read as one record (`SELECT ROW(…)`): plain columns, a record without the table's
    /// columns, and an `Integer 64` field holding text fail with the table (and the column and row).
    @Test func aRecordThatIsNotTheTablesRowFailsWithItsTableColumnAndRow() throws {
        PostgresStore.registerStoreClass()
        let url = try PostgresRemoteChangeTests.freshURL()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SQLTestModel.make())
        let store = try #require(try coordinator.addPersistentStore(type: NSPersistentStore.StoreType(rawValue: NSPostgreSQLStoreType), at: url) as? PostgresStore)
        let reading = try store.open().reading
        let table = try #require(reading.tables["ZITEM"])
        let (number, plan) = try #require(table.entities.first { $0.value.entity.name == "Item" })
        let score = try #require(plan.attributes.first { $0.name == "score" })
        func read(_ sql: String) throws -> NSError {
            try #require(throws: NSError.self) {
                try PostgresStore.withServer(at: url) { connection, _, logger in
                    _ = try await reading.snapshots(PostgresQuery(unsafeSQL: sql), table: table, store: store, on: connection, logger: logger)
                }
            }
        }
        let plain = String(describing: try read("SELECT 7::bigint, \(number)::integer, 1::integer"))
        #expect(plain.contains("ZITEM") && plain.contains("not one binary record"), "\(plain)")
        let short = String(describing: try read("SELECT ROW(7::bigint, \(number)::integer)"))
        #expect(short.contains("ZITEM") && short.contains("\(table.columns.count) columns"), "\(short)")
        let fields = table.columns.indices.map { index in
            switch index {
            case 0: "7::bigint"
            case 1: "\(number)::integer"
            case 2: "1::integer"
            case score.index: "'many'::text"
            default: "NULL"
            }
        }
        let wrong = String(describing: try read("SELECT ROW(\(fields.joined(separator: ", ")))"))
        #expect(wrong.contains("ZITEM") && wrong.contains(score.column) && wrong.contains("7"), "\(wrong)")
    }
}
