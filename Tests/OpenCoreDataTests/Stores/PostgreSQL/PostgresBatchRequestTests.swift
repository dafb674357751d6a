import Foundation
import PostgresNIO
import Testing
@testable import OpenCoreData
@testable import OpenCoreDataPostgres

/// Batch requests on the PostgreSQL store run in SQL over sets of rows, not through snapshots:
/// an update is one `UPDATE … RETURNING` when PostgreSQL computes every value as the evaluator
/// would, a delete runs set by set. (What every store does alike is in `BatchRequestTests`.)
@Suite("PostgreSQL batch requests in SQL", .enabled(if: PostgresTestServer.unavailableReason == nil,
                                                 Comment(rawValue: PostgresTestServer.unavailableReason ?? "")))
struct PostgresBatchRequestTests {
    private func update(_ entityName: String, _ values: [String: Any], _ format: String? = nil) -> StoreBatchUpdate {
        let entity = PostgresCompiledFetchTests.model.entitiesByName[entityName]!
        return StoreBatchUpdate(entity: entity, predicate: format.map { NSPredicate(format: $0) }, includesSubentities: true,
                                values: values.sorted { $0.key < $1.key }.map { key, value in
                                    (entity.attributesByName[key]!, value as? OpenCoreData.NSExpression ?? OpenCoreData.NSExpression(forConstantValue: value))
                                })
    }

    private func statement(_ update: StoreBatchUpdate) throws -> SQLBatchUpdateStatement? {
        try SQLFetchStatements.postgresBatchUpdate(update, schema: PostgresCompiledFetchTests.schema, model: PostgresCompiledFetchTests.model)
    }

    @Test func constantsAreBoundInTheSetClauseAndArithmeticIsComputedInTheSelection() throws {
        let compiled = try #require(try statement(update("Item", ["isCompleted": true, "name": NSNull(), "age": OpenCoreData.NSExpression(format: "age * 2 + 1")], "age > 3")))
        let sql = compiled.statement.sql
        #expect(sql.hasPrefix("UPDATE \"ZITEM\" SET "), "\(sql)")
        #expect(sql.contains("\"ZISCOMPLETED\" = $") && sql.contains("\"ZNAME\" = $"), "constants in SET take the column's type: \(sql)")
        #expect(sql.contains("\"ZAGE\" = batch_rows.batch_v0") && sql.contains("\"Z_OPT\" = \"Z_OPT\" + 1"), "\(sql)")
        #expect(sql.hasSuffix("RETURNING \"ZITEM\".\"Z_PK\", \"ZITEM\".\"Z_ENT\""), "\(sql)")
        #expect(compiled.statement.bindings.filter { if case .constant = $0 { true } else { false } }.count == 2)
        #expect(compiled.constants.map(\.attribute.name) == ["isCompleted", "name"])
        #expect(compiled.constants.first?.value as? Bool == true && compiled.constants.last.map { $0.value == nil } == true)
        #expect(compiled.statement.bindings.contains(.integer(3)))
    }

    @Test func whatPostgreSQLCannotComputeHasNoStatement() throws {
        #expect(try statement(update("Item", ["name": OpenCoreData.NSExpression(format: "uppercase:(name)")])) == nil, "a string function")
        #expect(try statement(update("Item", ["name": "x"], "name ==[cd] 'cafe'")) == nil, "a predicate only the evaluator runs")
        #expect(throws: NSError.self) { try statement(update("Item", ["age": "many"])) }
    }

    @Test func anUpdateRunsInOneStatementThatReadsNoRow() throws {
        PostgresStore.registerStoreClass()
        let s = try CatalogScenario(storeType: NSPostgreSQLStoreType)
        for (title, views) in [("a", 1), ("b", 5), ("c", 10)] { s.insert("Post", ["title": title, "views": Int64(views), "score": 1.5]) }
        try s.save()
        let url = try #require(s.store.url)
        // A column that no longer reads as the model's type: any read of a Post's row fails.
        try PostgresStore.withServer(at: url) { connection, _, logger in
            try await connection.query("ALTER TABLE \"ZPOST\" ALTER COLUMN \"ZLONGDESCRIPTIONTEXT\" TYPE BIGINT USING 42", logger: logger)
        }
        let update = NSBatchUpdateRequest(entityName: "Post")
        update.predicate = NSPredicate(format: "views >= 5")
        update.propertiesToUpdate = ["views": OpenCoreData.NSExpression(format: "views * 2 + 1"), "score": NSNull(), "published": true,
                                     "created": OpenCoreData.NSExpression(format: "now()"), "title": "z"]
        update.resultType = .updatedObjectIDsResultType
        let ids = try s.context.performAndWait { try #require(try s.context.execute(update) as? NSBatchUpdateResult).result as? [NSManagedObjectID] }
        #expect(ids?.count == 2)
        let rows = try PostgresStore.withServer(at: url) { connection, _, logger in
            var rows: [String] = []
            let query = "SELECT \"ZTITLE\", \"ZVIEWS\", \"ZSCORE\", \"ZPUBLISHED\", \"ZCREATED\" IS NOT NULL, \"Z_OPT\" FROM \"ZPOST\" ORDER BY \"ZTITLE\", \"ZVIEWS\""
            for try await (title, views, score, published, created, version) in try await connection.query(PostgresQuery(unsafeSQL: query), logger: logger)
                .decode((String, Int64, Double?, Bool?, Bool, Int64).self) {
                rows.append("\(title) \(views) \(score.map { "\($0)" } ?? "nil") \(published.map { "\($0)" } ?? "nil") \(created) \(version)")
            }
            return rows
        }
        #expect(rows == ["a 1 1.5 nil false 1", "z 11 nil true true 2", "z 21 nil true true 2"])

        // The snapshot path reads the rows, and fails on the column that no longer reads.
        let snapshots = NSBatchUpdateRequest(entityName: "Post")
        snapshots.propertiesToUpdate = ["title": OpenCoreData.NSExpression(format: "uppercase:(title)")]
        #expect(throws: NSError.self) { try s.context.performAndWait { try s.context.execute(snapshots) } }
    }

    @Test func anotherCoordinatorIsToldOfTheUpdatedAndDeletedObjects() throws {
        let url = try PostgresRemoteChangeTests.freshURL()
        let watched = try PostgresRemoteChangeTests.coordinator(url, watched: true)
        let other = try PostgresRemoteChangeTests.coordinator(url, watched: false)
        let listener = RemoteChangeNotificationTests.Listener(watched)
        let inserted = try PostgresRemoteChangeTests.insertCounters(3, other)
        #expect(listener.next())
        let update = NSBatchUpdateRequest(entityName: "Counter")
        update.propertiesToUpdate = ["value": OpenCoreData.NSExpression(format: "value + 10")]
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = other
        _ = try context.performAndWait { try context.execute(update) }
        #expect(listener.next())
        let updated = try #require(listener.last?[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID>)
        #expect(Set(updated.map { $0.uriRepresentation() }) == inserted)

        let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Counter"))
        _ = try context.performAndWait { try context.execute(delete) }
        #expect(listener.next())
        let deleted = try #require(listener.last?[NSDeletedObjectIDsKey] as? Set<NSManagedObjectID>)
        #expect(Set(deleted.map { $0.uriRepresentation() }) == inserted)
    }

    @Test func aDeleteRunsSetBySetWithoutReadingTheRowsItNullifies() throws {
        PostgresStore.registerStoreClass()
        let s = try CatalogScenario(storeType: NSPostgreSQLStoreType, options: [NSPersistentHistoryTrackingKey: true]) { model in
            model.entitiesByName["Book"]?.attributesByName["title"]?.preservesValueInHistoryOnDeletion = true
        }
        let ann = try s.insertAuthorsAndBooks().ann
        let url = try #require(s.store.url)
        // A publisher's row no longer reads: the snapshot path would read it to nullify its books.
        try PostgresStore.withServer(at: url) { connection, _, logger in
            try await connection.query("ALTER TABLE \"ZPUBLISHER\" ALTER COLUMN \"ZNAME\" TYPE BIGINT USING 42", logger: logger)
        }
        let before = try s.context.performAndWait { try s.context.persistentStoreCoordinator?.currentPersistentHistoryToken(fromStores: nil) }
        let delete = NSBatchDeleteRequest(objectIDs: [s.context.performAndWait { ann.objectID }])
        delete.resultType = .resultTypeObjectIDs
        let deleted = try s.context.performAndWait { (try s.context.execute(delete) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID] }
        // Ann and her two books (cascade), in the order they were added.
        #expect(deleted?.map { $0.entity.name ?? "" } == ["Author", "Book", "Book"])
        #expect(try s.stored("Book", "title") == ["b1"])
        let versions = try PostgresStore.withServer(at: url) { connection, _, logger in
            var versions: [Int64] = []
            for try await version in try await connection.query("SELECT \"Z_OPT\" FROM \"ZPUBLISHER\"", logger: logger).decode(Int64.self) {
                versions.append(version)
            }
            return versions
        }
        #expect(versions == [2], "the publisher lost two books")

        let transactions = try #require(try s.context.performAndWait {
            (try s.context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: before)) as? NSPersistentHistoryResult)?.result
        } as? [NSPersistentHistoryTransaction])
        #expect(transactions.count == 1)
        let changes = transactions.first?.changes ?? []
        #expect(Set(changes.filter { $0.changeType == .delete }.compactMap { $0.tombstone?["title"] as? String }) == ["a1", "a2"])
        let updates = changes.filter { $0.changeType == .update }
        #expect(updates.map { $0.changedObjectID.entity.name } == ["Publisher"])
        #expect(updates.first?.updatedProperties?.map(\.name) == ["books"])
    }
}
