import Foundation
import PostgresNIO
import Testing
@testable import OpenCoreData
@testable import OpenCoreDataPostgres

/// Batch updates on the PostgreSQL store run as one `UPDATE … RETURNING` over the rows, not
/// through snapshots, when PostgreSQL computes every value as the evaluator would. (What every
/// store does alike is in `BatchRequestTests`.)
@Suite("PostgreSQL batch updates in SQL", .enabled(if: PostgresTestServer.unavailableReason == nil,
                                                 Comment(rawValue: PostgresTestServer.unavailableReason ?? "")))
struct PostgresBatchUpdateTests {
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
        #expect(compiled.computedIntegers == ["age"])
        #expect(compiled.statement.bindings.contains(.integer(3)))
    }

    @Test func whatPostgreSQLCannotComputeHasNoStatement() throws {
        #expect(try statement(update("Item", ["name": OpenCoreData.NSExpression(format: "uppercase:(name)")])) == nil, "a string function")
        #expect(try statement(update("Item", ["name": "x"], "name ==[cd] 'cafe'")) == nil, "a predicate only the evaluator runs")
        #expect(throws: NSError.self) { try statement(update("Item", ["age": "many"])) }
    }

    @Test func anUpdateRunsInOneStatementThatReadsNoRow() throws {
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

    @Test func anotherCoordinatorIsToldOfTheUpdatedObjects() throws {
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
    }
}
