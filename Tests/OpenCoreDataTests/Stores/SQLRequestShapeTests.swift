import Foundation
import Testing
@testable import OpenCoreData

/// A statement taken from the SQLite store's statement cache (``SQLStatementCache``) is the one
/// the compiler writes for the request on its own, whatever the constants; the cache is bounded,
/// new for a new schema, and emptied when the store is removed.
@Suite struct SQLRequestShapeTests {
    /// Formats with two sets of arguments of the same kinds: options, dates, to-one and to-many
    /// key paths, subqueries, aggregates, arithmetic, bitwise and evaluated functions, IN,
    /// BETWEEN, decimals, nil.
    static func pairs() -> [(format: String, first: [Any], second: [Any])] { [
        ("name ==[cd] %@", ["Ann"], ["éve"]),
        ("name BEGINSWITH[c] %@ OR name ENDSWITH[d] %@", ["a", "b"], ["c", "d"]),
        ("name LIKE[c] %@ AND NOT (name MATCHES %@)", ["A*", "B.*"], ["?ee", "E.*"]),
        ("name CONTAINS %@", ["n"], ["e"]),
        ("hired > %@ OR hired == %@", [Date(timeIntervalSinceReferenceDate: 0), NSNull()],
         [Date(timeIntervalSinceReferenceDate: 1e6), NSNull()]),
        ("department.name == %@ AND department.budget > %@", ["Sales", 100], ["Tech", 2000]),
        ("ANY department.employees.name ==[c] %@", ["ann"], ["dee"]),
        ("ALL department.employees.salary > %@", [60], [10]),
        ("SUBQUERY(department.employees, $e, $e.salary > %@ AND $e.name != %@).@count > %@", [100, "Bob", 1], [40, "Eve", 0]),
        ("department.employees.@count >= %@ AND department.employees.@max.salary < %@", [2, 500], [3, 350]),
        ("salary + %@ > %@ * 2", [10, 100], [-10, 75]),
        ("bitwiseAnd:with:(salary, %@) == %@", [4, 4], [8, 0]),
        ("uppercase:(name) == %@", ["ANN"], ["EVE"]),
        ("name IN %@ OR salary IN %@", [["Ann", "Bob"], [400]], [["Eve", "Zed"], [50]]),
        ("%@ CONTAINS name", [["Cid", "Dee"]], [["Ann", "Zed"]]),
        ("salary BETWEEN %@", [[100, 300]], [[0, 60]]),
        ("salary < %@", [Decimal(string: "100.000000000000000000001")!], [Decimal(string: "300.000000000000000000001")!]),
        ("salary > %@", [2.5], [299.75]),
        ("name == %@ OR name == %@", [NSNull(), "Bob"], [NSNull(), "Cid"]),
    ] }

    private func request(_ format: String, _ arguments: [Any], limit: Int, offset: Int) -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
        request.predicate = NSPredicate(format: format, argumentArray: arguments)
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false, selector: "localizedCaseInsensitiveCompare:"),
                                   NSSortDescriptor(key: "salary", ascending: true)]
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }

    @Test(arguments: pairs().indices)
    func aCachedStatementIsTheOneCompiledForTheRequest(_ index: Int) throws {
        let (format, first, second) = Self.pairs()[index]
        let fixture = try SQLiteStatementFixture()
        let store = fixture.store
        let entity = try #require(store.managedObjectModel?.entitiesByName["Employee"])
        let context = fixture.context()
        for (run, (arguments, limit, offset)) in [(first, 3, 0), (second, 3, 0), (first, 0, 1)].enumerated() {
            let request = request(format, arguments, limit: limit, offset: offset)
            let before = store.statementCache.statistics
            let cached = try store.statement(for: request, entity: entity) { try $0.objects(request, entity: entity) }
            let direct = try SQLFetchCompiler(mapping: store.compilerMapping).objects(request, entity: entity)
            #expect(cached.sql == direct.sql, "\(format) \(arguments)")
            #expect(cached.bindings == direct.bindings, "\(format) \(arguments)")
            #expect(!cached.bindings.contains { if case .parameter = $0 { true } else { false } })
            if run == 1 {
                #expect(store.statementCache.statistics.hits == before.hits + 1, "the second arguments reuse the first's statement: \(format)")
            }
            // And the fetch through a context, which goes the same way, gives the SQL's rows.
            let objects = try context.fetch(request)
            #expect(objects.count <= (limit == 0 ? 5 : limit))
        }
    }

    /// A request the compiler refuses fails the same way every time: no statement is cached.
    @Test func refusedRequestsFailAlikeEachTime() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let request = fixture.request("Employee")
        request.predicate = NSPredicate(format: "name CONTAINS %@", argumentArray: [["a"]])
        var messages: [String] = []
        for _ in 0..<2 {
            do {
                _ = try context.fetch(request)
                Issue.record("a collection is no string to look for")
            } catch {
                messages.append((error as NSError).localizedDescription)
            }
        }
        #expect(messages.count == 2 && messages[0] == messages[1], "\(messages)")
        #expect(fixture.store.statementCache.count == 0)
    }

    /// The shape limit: a full cache starts over rather than grow.
    @Test func theCacheIsBounded() throws {
        let entity = try #require(CompanyModel.make().entitiesByName["Employee"])
        let cache = SQLStatementCache(capacity: 2)
        var compiled = 0
        func run(_ format: String) throws {
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
            request.predicate = NSPredicate(format: format, argumentArray: [1])
            let shape = try #require(SQLRequestShape(request, entity: entity))
            _ = cache.statement(for: shape) { _ in
                compiled += 1
                return (SQLStatement(sql: format, bindings: [.parameter(0)]), true)
            }
        }
        try run("salary == %@")
        try run("salary == %@")
        #expect(compiled == 1)
        try run("salary > %@")
        try run("salary < %@")
        #expect(cache.count <= 2)
        try run("salary == %@")
        #expect(compiled == 4, "forgotten when the cache started over")
    }

    /// A new schema (an existing store's own, adopted when it opens) starts a new cache; a
    /// removed store forgets its statements.
    @Test func aNewSchemaOrARemovedStoreDropsTheStatements() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let request = fixture.request("Employee")
        request.predicate = NSPredicate(format: "salary > %@", argumentArray: [150])
        #expect(try context.fetch(request).count == 3)
        let old = fixture.store.statementCache
        #expect(old.count == 1)

        fixture.store.install(schema: fixture.store.schema)
        #expect(fixture.store.statementCache !== old)
        #expect(fixture.store.statementCache.count == 0)
        #expect(try context.fetch(request).count == 3)
        #expect(fixture.store.statementCache.statistics == (hits: 0, misses: 1))

        let current = fixture.store.statementCache
        try fixture.coordinator.remove(fixture.store)
        #expect(current.count == 0)
    }
}
