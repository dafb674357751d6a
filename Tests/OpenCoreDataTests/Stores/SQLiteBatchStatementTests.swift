import Foundation
import Testing
@testable import OpenCoreData

/// Batch updates and deletes in the SQLite store run as SQL over sets of rows, not through
/// snapshots: what the statements the store runs show, and what they write. (What every
/// store does alike is in `BatchRequestTests`.)
@Suite("SQLite batch requests in SQL")
struct SQLiteBatchStatementTests {
    /// The SQL the store ran during `body`.
    private func statements(_ s: CatalogScenario, during body: () throws -> Void) throws -> [String] {
        let store = try #require(s.store as? SQLiteStore)
        let counter = SQLStatementCounter()
        let token = store.sqlLog.addObserver { counter.add($0) }
        defer { store.sqlLog.removeObserver(token) }
        try body()
        return counter.all.map(\.sql)
    }

    private func execute(_ s: CatalogScenario, _ request: NSPersistentStoreRequest) throws {
        _ = try s.context.performAndWait { try s.context.execute(request) }
    }

    /// Statements that read whole rows of Post (a snapshot read selects the title column).
    private func rowReads(_ sql: [String]) -> [String] {
        sql.filter { $0.hasPrefix("SELECT") && $0.contains("ZTITLE") }
    }

    @Test func anUpdateSQLiteCanComputeIsOneStatement() throws {
        let s = try CatalogScenario(storeType: NSSQLiteStoreType)
        for (title, views, score) in [("a", 1, 1.5), ("b", 5, 2.0), ("c", 10, 0.25)] {
            s.insert("Post", ["title": title, "views": Int64(views), "score": score])
        }
        s.insert("Post", ["title": "d", "views": Int64(7)])
        try s.save()
        let update = NSBatchUpdateRequest(entityName: "Post")
        update.predicate = NSPredicate(format: "views >= 5")
        update.propertiesToUpdate = ["views": NSExpression(format: "views * 2 + 1"), "score": NSExpression(format: "score * 2"),
                                     "published": true, "created": NSExpression(format: "now()")]
        let sql = try statements(s) { try execute(s, update) }
        #expect(sql.filter { $0.hasPrefix("UPDATE") && $0.contains("RETURNING") }.count == 1)
        #expect(rowReads(sql).isEmpty)
        #expect(try s.stored("Post", "views") == ["1", "11", "15", "21"])
        // A null operand gives null, as the evaluator's arithmetic does.
        #expect(try s.stored("Post", "score") == ["0.5", "1.5", "4.0", "nil"])
        #expect(try s.stored("Post", "title", "published == YES AND created != nil") == ["b", "c", "d"])
    }

    @Test func anExpressionSQLiteCannotComputeGoesThroughSnapshots() throws {
        let s = try CatalogScenario(storeType: NSSQLiteStoreType)
        s.insert("Post", ["title": "straße", "views": Int64(1)])
        try s.save()
        let update = NSBatchUpdateRequest(entityName: "Post")
        update.propertiesToUpdate = ["title": NSExpression(format: "uppercase:(title)")]
        let sql = try statements(s) { try execute(s, update) }
        #expect(!rowReads(sql).isEmpty)
        #expect(try s.stored("Post", "title") == ["STRASSE"])
    }

    @Test func aDeleteRunsSetBySetAndRecordsTombstonesAndNullifiedObjects() throws {
        let s = try CatalogScenario(storeType: NSSQLiteStoreType, options: [NSPersistentHistoryTrackingKey: true]) { model in
            model.entitiesByName["Book"]?.attributesByName["title"]?.preservesValueInHistoryOnDeletion = true
        }
        try s.insertAuthorsAndBooks()
        let before = try s.context.performAndWait { try s.context.persistentStoreCoordinator?.currentPersistentHistoryToken(fromStores: nil) }
        let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Author"))
        delete.fetchRequest.predicate = NSPredicate(format: "name == 'Ann'")
        delete.resultType = .resultTypeCount
        var deleted: Int?
        let sql = try statements(s) {
            deleted = try s.context.performAndWait { (try s.context.execute(delete) as? NSBatchDeleteResult)?.result as? Int }
        }
        // Ann and her two books (cascade); the publisher keeps only Bob's book.
        #expect(deleted == 3)
        #expect(sql.filter { $0.hasPrefix("DELETE FROM") }.count >= 2)
        // Whole rows are read only for the books' tombstones.
        let wholeRows = sql.filter { $0.hasPrefix("SELECT Z_PK, Z_ENT, Z_OPT") }
        #expect(!wholeRows.isEmpty && wholeRows.allSatisfy { $0.contains("FROM ZBOOK") })
        #expect(try s.stored("Book", "title") == ["b1"])
        #expect(try s.storedObject("Publisher", "name == 'House'")?["books"] as? [String] == ["b1"])

        let transactions = try #require(try s.context.performAndWait {
            (try s.context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: before)) as? NSPersistentHistoryResult)?.result
        } as? [NSPersistentHistoryTransaction])
        #expect(transactions.count == 1)
        let changes = transactions.first?.changes ?? []
        let deletions = changes.filter { $0.changeType == .delete }
        #expect(deletions.count == 3)
        #expect(Set(deletions.compactMap { $0.tombstone?["title"] as? String }) == ["a1", "a2"])
        let updates = changes.filter { $0.changeType == .update }
        #expect(updates.map { $0.changedObjectID.entity.name } == ["Publisher"])
        #expect(updates.first?.updatedProperties?.map(\.name) == ["books"])
    }

    @Test func aDeleteRefusesAMandatoryInverseAndWritesNothing() throws {
        let s = try CatalogScenario(storeType: NSSQLiteStoreType) { model in
            // Every publisher must keep a book.
            model.entitiesByName["Publisher"]?.relationshipsByName["books"]?.isOptional = false
        }
        let house = s.insert("Publisher", ["name": "House"])
        let book = s.insert("Book", ["title": "only"])
        s.context.performAndWait { book.setValue(house, forKey: "publisher") }
        try s.save()
        let delete = NSBatchDeleteRequest(objectIDs: [s.context.performAndWait { book.objectID }])
        let error = #expect(throws: NSError.self) { try execute(s, delete) }
        #expect(error?.code == NSPersistentStoreSaveError)
        #expect(error?.localizedDescription.contains("mandatory OTM nullify inverse on Publisher/books") == true)
        #expect(try s.stored("Book", "title") == ["only"])
    }
}
