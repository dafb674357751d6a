import Foundation
import GRDB
import Testing
@testable import OpenCoreData
@testable import OpenCoreDataPostgres
import PostgresNIO

/// Persistent history in the SQLite store (Apple's `ATRANSACTION`/`ACHANGE` tables) and, the
/// same bodies, in the PostgreSQL store (its own tables) when a test server runs.
@Suite("Persistent history")
struct PersistentHistoryTests {
    /// The stores that record history.
    static let storeTypes = [NSSQLiteStoreType, NSPostgreSQLStoreType].filter(StoreTypesUnderTest.all.contains)

    static func scenario(_ storeType: String = NSSQLiteStoreType) throws -> CatalogScenario {
        try CatalogScenario(storeType: storeType, options: [NSPersistentHistoryTrackingKey: true]) { model in
            model.entitiesByName["Tag"]?.attributesByName["name"]?.preservesValueInHistoryOnDeletion = true
        }
    }

    private func history(_ s: CatalogScenario, _ request: NSPersistentHistoryChangeRequest) throws -> Any? {
        try s.context.performAndWait { (try s.context.execute(request) as? NSPersistentHistoryResult)?.result }
    }

    @Test(arguments: storeTypes)
    func everySaveIsATransactionWithItsChanges(storeType: String) throws {
        let s = try Self.scenario(storeType)
        s.context.performAndWait {
            s.context.name = "editor"
            s.context.transactionAuthor = "importer"
        }
        let tag = s.insert("Tag", ["name": "swift", "uses": Int64(1)])
        try s.save()
        s.context.performAndWait { tag.setValue(Int64(2), forKey: "uses") }
        try s.save()
        s.context.performAndWait { s.context.delete(tag) }
        try s.save()

        let transactions = try #require(try history(s, .fetchHistory(after: nil as NSPersistentHistoryToken?)) as? [NSPersistentHistoryTransaction])
        #expect(transactions.count == 3)
        #expect(transactions.allSatisfy { $0.author == "importer" && $0.contextName == "editor" && $0.storeID == s.store.identifier })
        #expect(transactions.map(\.transactionNumber) == [1, 2, 3])
        let changes = transactions.map { $0.changes ?? [] }
        #expect(changes.map { $0.map(\.changeType) } == [[.insert], [.update], [.delete]])
        let id = s.context.performAndWait { tag.objectID }
        #expect(changes.allSatisfy { $0.first?.changedObjectID == id })
        #expect(changes[1].first?.updatedProperties?.map(\.name) == ["uses"])
        #expect(changes[2].first?.tombstone?["name"] as? String == "swift")
        #expect(changes[0].first?.transaction === transactions[0])
    }

    @Test(arguments: storeTypes)
    func tokensDatesAndFetchRequestsSelectTransactions(storeType: String) throws {
        let s = try Self.scenario(storeType)
        s.insert("Post", ["title": "a"])
        try s.save()
        let token = try #require(s.coordinator.currentPersistentHistoryToken(fromStores: nil))
        // The token survives JSON.
        let decoded = try JSONDecoder().decode(NSPersistentHistoryToken.self, from: JSONEncoder().encode(token))
        #expect(decoded == token)
        s.context.performAndWait { s.context.transactionAuthor = "sync" }
        s.insert("Post", ["title": "b"])
        try s.save()
        let after = try #require(try history(s, .fetchHistory(after: decoded)) as? [NSPersistentHistoryTransaction])
        #expect(after.map(\.author) == ["sync"])
        let byAuthor = NSPersistentHistoryTransaction.fetchRequest
        byAuthor.predicate = NSPredicate(format: "author == 'sync'")
        let request = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: byAuthor)
        request.resultType = .count
        #expect(try history(s, request) as? Int == 1)
        let ids = NSPersistentHistoryChangeRequest.fetchHistory(after: Date.distantPast)
        ids.resultType = .objectIDs
        #expect((try history(s, ids) as? [NSManagedObjectID])?.count == 2)
    }

    @Test(arguments: storeTypes)
    func deletingHistoryBeforeATokenKeepsWhatFollows(storeType: String) throws {
        let s = try Self.scenario(storeType)
        s.insert("Post", ["title": "a"])
        try s.save()
        let token = try #require(s.coordinator.currentPersistentHistoryToken(fromStores: [s.store]))
        s.insert("Post", ["title": "b"])
        try s.save()
        let delete = NSPersistentHistoryChangeRequest.deleteHistory(before: token)
        delete.resultType = .count
        #expect(try history(s, delete) as? Int == 1)
        let left = try #require(try history(s, .fetchHistory(after: nil as NSPersistentHistoryToken?)) as? [NSPersistentHistoryTransaction])
        #expect(left.map(\.transactionNumber) == [2])
        #expect(left.first?.changes?.count == 1)
        let rows = try Self.changeRowCount(s)
        #expect(rows == 1, "the deleted transaction's changes went with it")
    }

    @Test(arguments: storeTypes)
    func batchRequestsAreRecordedAndMergeThroughNotifications(storeType: String) throws {
        let s = try Self.scenario(storeType)
        let insert = NSBatchInsertRequest(entityName: "Post", objects: [["title": "a"], ["title": "b"]])
        _ = try s.context.performAndWait { try s.context.execute(insert) }
        let update = NSBatchUpdateRequest(entityName: "Post")
        update.propertiesToUpdate = ["views": Int64(3)]
        _ = try s.context.performAndWait { try s.context.execute(update) }
        let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Post"))
        _ = try s.context.performAndWait { try s.context.execute(delete) }
        let transactions = try #require(try history(s, .fetchHistory(after: nil as NSPersistentHistoryToken?)) as? [NSPersistentHistoryTransaction])
        #expect(transactions.map { Set(($0.changes ?? []).map(\.changeType)) } == [[.insert], [.update], [.delete]])
        #expect(transactions.map { $0.changes?.count } == [2, 2, 2])
        #expect(transactions[1].changes?.first?.updatedProperties?.map(\.name) == ["views"])

        // A context holding an object merges a transaction's notification.
        let watcher = CatalogScenario.newContext(on: s.coordinator)
        let post = s.insert("Post", ["title": "c"], in: watcher)
        try s.save(watcher)
        let last = try #require(try history(s, .fetchHistory(after: transactions.last)) as? [NSPersistentHistoryTransaction])
        #expect(last.count == 1)
        let removal = NSBatchDeleteRequest(objectIDs: [watcher.performAndWait { post.objectID }])
        _ = try s.context.performAndWait { try s.context.execute(removal) }
        let newest = try #require((try history(s, .fetchHistory(after: last.last)) as? [NSPersistentHistoryTransaction])?.first)
        watcher.mergeChanges(fromContextDidSave: newest.objectIDNotification())
        #expect(watcher.performAndWait { !watcher.registeredObjects.contains(post) })
    }

    /// How many rows the store's `ACHANGE` table holds.
    static func changeRowCount(_ s: CatalogScenario) throws -> Int {
        let url = try #require(s.store.url)
        if s.store.type == NSPostgreSQLStoreType {
            return try PostgresStore.withServer(at: url) { connection, location, logger in
                let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \"\(location.schema)\".\"ACHANGE\""), logger: logger)
                var count: Int64 = -1
                for try await row in rows { count = try row.decode(Int64.self) }
                return Int(count)
            }
        }
        return try DatabaseQueue(path: url.path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ACHANGE") ?? -1 }
    }

    @Test func theTablesAreApplesAndAStoreWithoutTheKeyRefusesHistory() throws {
        let s = try Self.scenario()
        s.insert("Tag", ["name": "x"])
        try s.save()
        let url = try #require(s.store.url)
        let (tables, keys) = try DatabaseQueue(path: url.path).read { db in
            (try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'A%' ORDER BY name"),
             try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT")
                .map { "\($0[0] as Int64) \($0[1] as String) \($0[2] as Int64)" })
        }
        #expect(tables == ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"])
        #expect(keys.first == "16001 CHANGE 1" && keys.dropFirst().first == "16002 TRANSACTION 1")
        #expect(keys.last?.hasPrefix("16003 TRANSACTIONSTRING") == true)

        let plain = try CatalogScenario(storeType: NSSQLiteStoreType)
        let error = #expect(throws: NSError.self) {
            try plain.context.performAndWait { try plain.context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: Date.distantPast)) }
        }
        #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
        #expect(plain.coordinator.currentPersistentHistoryToken(fromStores: nil) == nil)
    }
}
