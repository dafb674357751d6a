import Foundation
import Testing
@testable import OpenCoreData

/// The SQLite store's compiled statements by request shape (``SQLStatementCache``): requests
/// that differ only in their constants compile once and run one SQL text with their own values.
@Suite struct SQLiteStatementCacheTests {
    private func names(_ context: NSManagedObjectContext, _ format: String, _ arguments: [Any],
                       sortedBy key: String = "name", limit: Int = 0) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.predicate = NSPredicate(format: format, argumentArray: arguments)
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        request.fetchLimit = limit
        return try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "nil" }
    }

    private func statistics(_ fixture: SQLiteStatementFixture) -> (hits: Int, misses: Int) {
        fixture.store.statementCache.statistics
    }

    @Test func requestsDifferingInConstantsShareOneStatement() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let format = "salary >= %@ AND name != %@"
        let before = statistics(fixture)
        let (results, statements) = try fixture.selects {
            [try names(context, format, [100, "Bob"]), try names(context, format, [250, "Dee"]),
             try names(context, format, [0, "Zed"]), try names(context, format, [1000, "Ann"])]
        }
        #expect(results == [["Ann", "Cid", "Dee"], ["Cid"], ["Ann", "Bob", "Cid", "Dee", "Eve"], []])
        let after = statistics(fixture)
        #expect(after.misses - before.misses == 1, "compiled once")
        #expect(after.hits - before.hits == 3, "then reused")
        #expect(Set(statements).count == 1, "one SQL text, so one prepared statement per connection: \(statements)")
        #expect(statements.first?.contains("?") == true)
        #expect(statements.first?.contains("Bob") == false, "constants are bound, never in the text")
    }

    @Test func limitsOffsetsCountsAndIDsUseTheirValues() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        #expect(try names(context, "salary > %@", [0], limit: 2) == ["Ann", "Bob"])
        #expect(try names(context, "salary > %@", [150], limit: 2) == ["Bob", "Cid"])
        #expect(try names(context, "salary > %@", [150], limit: 3) == ["Bob", "Cid", "Dee"])

        let count = NSFetchRequest<NSNumber>(entityName: "Employee")
        count.resultType = .countResultType
        for (bound, expected) in [(100, 4), (300, 2), (500, 0)] {
            count.predicate = NSPredicate(format: "salary >= %@", argumentArray: [bound])
            #expect(try context.count(for: count) == expected)
        }
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Employee")
        ids.resultType = .managedObjectIDResultType
        for (name, expected) in [("Ann", 1), ("Nobody", 0)] {
            ids.predicate = NSPredicate(format: "name == %@", argumentArray: [name])
            #expect(try context.fetch(ids).count == expected)
        }
    }

    @Test func requestsOfAnotherShapeCompileTheirOwn() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let base = statistics(fixture)
        _ = try names(context, "salary >= %@", [100])
        _ = try names(context, "salary > %@", [100])                     // another operator
        _ = try names(context, "salary >= %@", [100], sortedBy: "salary")   // another sort
        _ = try names(context, "salary >= %@", [100], limit: 1)            // another limit
        _ = try names(context, "name >= %@", [100])                        // another key path
        _ = try names(context, "salary >= %@ OR salary < %@", [300, 100])  // another structure
        let after = statistics(fixture)
        #expect(after.misses - base.misses == 6)
        #expect(after.hits == base.hits)
        #expect(fixture.store.statementCache.count >= 6)
    }

    /// A nil constant compiles to `IS NULL`, a string and a number to different comparisons:
    /// each is its own shape, with its own results.
    @Test func nilAndOtherKindsOfConstantAreOtherShapes() throws {
        let fixture = try SQLiteStatementFixture()
        try fixture.company.insert("Employee", ["salary": Int64(70)])   // no name
        let context = fixture.context()
        #expect(try names(context, "name == %@", ["Ann"]) == ["Ann"])
        #expect(try names(context, "name == %@", [NSNull()]) == ["nil"])
        #expect(try names(context, "name == %@", ["Eve"]) == ["Eve"])
        #expect(try names(context, "name != %@", [NSNull()]).count == 5)
        #expect(try names(context, "name == %@", [5]) == [], "a number never equals a string")
        #expect(try names(context, "salary == %@", ["100"]) == [], "a string never equals a number")
        #expect(try names(context, "salary == %@", [100]) == ["Ann"])
        #expect(try names(context, "salary < %@", [100.5]) == ["nil", "Ann", "Eve"])
        #expect(try names(context, "salary < %@", [100]) == ["nil", "Eve"])
        #expect(try names(context, "salary < %@", [Decimal(string: "100.000000000000000000001")!]) == ["nil", "Ann", "Eve"])
    }

    @Test func inListsOfEachLengthAreOtherShapes() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let before = statistics(fixture)
        #expect(try names(context, "name IN %@", [["Ann"]]) == ["Ann"])
        #expect(try names(context, "name IN %@", [["Ann", "Cid"]]) == ["Ann", "Cid"])
        #expect(try names(context, "name IN %@", [["Bob", "Eve"]]) == ["Bob", "Eve"])
        #expect(try names(context, "name IN %@", [["Bob", "Eve", "Dee"]]) == ["Bob", "Dee", "Eve"])
        #expect(try names(context, "name IN %@", [["Dee"]]) == ["Dee"])
        #expect(try names(context, "name IN %@", [["Dee", NSNull()]]) == ["Dee"])
        #expect(try names(context, "salary IN %@", [Set([100, 400])]) == ["Ann", "Dee"])
        #expect(try names(context, "salary BETWEEN %@", [[100, 300]]) == ["Ann", "Bob", "Cid"])
        #expect(try names(context, "salary BETWEEN %@", [[50, 100]]) == ["Ann", "Eve"])
        let after = statistics(fixture)
        #expect(after.hits - before.hits == 3, "same lengths and kinds: ['Ann','Cid']/['Bob','Eve'], ['Ann']/['Dee'], the BETWEENs")
    }

    /// `now()` is read when the statement is compiled: a request using it is compiled each time.
    @Test func requestsWithNowAreNotShared() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let before = statistics(fixture)
        _ = try names(context, "hired < now() OR salary > %@", [0])
        _ = try names(context, "hired < now() OR salary > %@", [0])
        #expect(statistics(fixture) == before)
    }

    /// A context pinned to a query generation reads through its own connection with the same
    /// compiled statements, and still sees its generation's rows.
    @Test func pinnedContextsShareStatementsAndKeepTheirGeneration() throws {
        let fixture = try SQLiteStatementFixture()
        let pinned = fixture.context()
        try pinned.setQueryGenerationFrom(.current)
        #expect(try names(pinned, "salary >= %@", [300]) == ["Cid", "Dee"])

        let writer = fixture.context()
        let eve = try #require(try writer.fetch(fixture.request("Employee")).first { $0.value(forKey: "name") as? String == "Eve" })
        eve.setValue(Int64(900), forKey: "salary")
        try writer.save()

        let before = statistics(fixture)
        #expect(try names(fixture.context(), "salary >= %@", [300]) == ["Cid", "Dee", "Eve"])
        #expect(try names(pinned, "salary >= %@", [40]) == ["Ann", "Bob", "Cid", "Dee", "Eve"])
        #expect(try names(pinned, "salary >= %@", [300]) == ["Cid", "Dee"], "the generation's rows")
        #expect(statistics(fixture).hits - before.hits == 3)
    }

    @Test func aShapeKeepsOnlyWhatTheCompilerReads() throws {
        let entity = try #require(CompanyModel.make().entitiesByName["Employee"])
        func shape(_ format: String, _ arguments: [Any]) -> SQLRequestShape? {
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
            request.predicate = NSPredicate(format: format, argumentArray: arguments)
            return SQLRequestShape(request, entity: entity)
        }
        let first = try #require(shape("salary >= %@ AND name == %@", [1, "a"]))
        let second = try #require(shape("salary >= %@ AND name == %@", [2, "b"]))
        #expect(first.key == second.key)
        #expect(first.values == [.integer(1), .text("a")])
        #expect(second.values == [.integer(2), .text("b")])
        #expect(shape("salary >= %@ AND name == %@", [2.5, "b"])?.key != first.key, "a real is not an integer")
        #expect(shape("salary >= %@ AND name == %@", [2, NSNull()])?.key != first.key, "nil is IS NULL")
        #expect(shape("name IN %@", [["a", "b"]])?.key != shape("name IN %@", [["a"]])?.key)
        #expect(shape("name IN %@", [["a", "b"]])?.values == [.text("a"), .text("b")])
        #expect(shape("hired < now()", []) == nil)

        // One expression object in two places would have one parameter number for two values.
        let shared = NSExpression(forConstantValue: 3)
        let twice = NSCompoundPredicate(andPredicateWithSubpredicates: [
            NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "salary"), rightExpression: shared,
                                  modifier: .direct, type: .greaterThan, options: []),
            NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "salary"), rightExpression: shared,
                                  modifier: .direct, type: .lessThan, options: []),
        ])
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        request.predicate = twice
        #expect(SQLRequestShape(request, entity: entity) == nil)
    }
}
