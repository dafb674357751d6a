import Foundation
import Testing
@testable import OpenCoreData
@testable import OpenCoreDataPostgres

/// The PostgreSQL store's fetches through the one SQL compiler: what runs in SQL, with
/// PostgreSQL's placeholders and conversions, and what is left to the in-memory evaluator.
/// (That the results equal the evaluator's is the SQL consistency corpus's job.)
@Suite struct PostgresCompiledFetchTests {
    static let model = SQLTestModel.make()
    static let schema = PostgresSchemaDefinition(model: model, configurationName: nil, schema: "s").layout

    static func statements(_ format: String, sort: [OpenCoreData.NSSortDescriptor] = [], limit: Int = 0) -> (objects: SQLFetchStatement, count: SQLFetchStatement)? {
        guard let objects = statement(format, sort: sort, limit: limit), let count = statement(format, sort: sort, limit: limit, count: true) else { return nil }
        return (objects, count)
    }

    static func statement(_ format: String, sort: [OpenCoreData.NSSortDescriptor], limit: Int, count: Bool = false) -> SQLFetchStatement? {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        request.entity = model.entitiesByName["Item"]
        request.predicate = NSPredicate(format: format)
        request.sortDescriptors = sort
        request.fetchLimit = limit
        if count { request.resultType = .countResultType }
        return SQLFetchStatements.postgres(request, entity: model.entitiesByName["Item"]!, schema: schema, model: model)
    }

    @Test func comparisonsSortsAndWindowsRunInSQLWithNumberedPlaceholders() throws {
        let compiled = try #require(Self.statements("age > 20 AND isCompleted == YES", sort: [OpenCoreData.NSSortDescriptor(key: "price", ascending: false)], limit: 5))
        #expect(compiled.objects.sql.contains("$1") && !compiled.objects.sql.contains("?"))
        #expect(compiled.objects.sql.contains("CAST(t0.\"ZISCOMPLETED\" AS INTEGER)"), "Booleans compare as 0 and 1")
        #expect(compiled.objects.sql.contains("DESC NULLS LAST") && compiled.objects.sql.contains(" LIMIT "))
        #expect(compiled.objects.bindings.contains(SQLBindingValue.integer(20)) && compiled.objects.bindings.contains(SQLBindingValue.integer(5)))
        #expect(compiled.count.sql.hasPrefix("SELECT COUNT(*)"))
        let uuid = try #require(Self.statements("id == %@".replacingOccurrences(of: "%@", with: "nil")))
        #expect(uuid.objects.sql.contains("uuid_send(t0.\"ZID\")"))
        #expect(try #require(Self.statements("name != nil")).objects.sql.contains("COLLATE \"C\""), "text columns are read in byte order, as SQLite's BINARY")
    }

    @Test func whatNeedsSQLitesRegisteredFunctionsIsLeftToTheEvaluator() {
        #expect(Self.statements("name ==[cd] 'cafe'").map { $0.objects.sql } == nil)
        #expect(Self.statements("name MATCHES '[A-Z].*'").map { $0.objects.sql } == nil)
        let sort = OpenCoreData.NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedCaseInsensitiveCompare:"))
        #expect(Self.statements("age > 3", sort: [sort]).map { $0.objects.sql } == nil)
    }
}
