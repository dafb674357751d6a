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
}
