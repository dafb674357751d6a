import Testing
@testable import OpenCoreData

/// The one SQL dialect the schema and the compiler share: SQLite's spellings, and PostgreSQL's
/// (numbered placeholders, native columns read as SQLite's storage classes) plugging into the
/// compiler without changing it.
@Suite struct SQLDialectTests {
    @Test func theCompilerWritesInTheDialectItIsGiven() throws {
        let model = SQLTestModel.make()
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        request.entity = model.entitiesByName["Item"]
        request.predicate = NSPredicate(format: "age > 1 AND name ==[c] 'a?b' AND isCompleted == YES AND NOT TRUEPREDICATE")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:"))]
        request.fetchLimit = 5
        request.fetchOffset = 2
        let statement = try SQLFetchCompiler(mapping: TestSchemaMapping(model: model), dialect: PostgreSQLDialect())
            .objects(request, entity: request.entity!)
        #expect(statement.sql == #"SELECT t0."Z_PK", t0."Z_ENT" FROM "ZITEM" AS t0 WHERE ((t0."ZAGE" > $1) AND ((ocd_predicate(4, (t0."ZNAME" COLLATE "C"), $2, 1) <> 0)) AND (CAST(t0."ZISCOMPLETED" AS INTEGER) IS NOT DISTINCT FROM $3) AND (NOT (TRUE))) ORDER BY (t0."ZNAME" COLLATE "C") COLLATE "ocd_localizedStandardCompare" ASC NULLS FIRST, t0."Z_PK" ASC NULLS FIRST LIMIT $4 OFFSET $5"#)
        #expect(statement.bindings == [.integer(1), .text("a?b"), .integer(1), .integer(5), .integer(2)])
    }

    /// Bitwise operators on integers compile to the dialect's operators (PostgreSQL's `#` for
    /// exclusive or); on other numbers, to the evaluator's function.
    @Test func bitwiseOperatorsCompileThroughTheDialect() throws {
        let model = SQLTestModel.make()
        func sql(_ format: String, _ dialect: any SQLDialect) throws -> String {
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
            request.entity = model.entitiesByName["Item"]
            request.predicate = NSPredicate(format: format)
            return try SQLFetchCompiler(mapping: TestSchemaMapping(model: model), dialect: dialect).objects(request, entity: request.entity!).sql
        }
        #expect(try sql("age ^ 3 == 0", PostgreSQLDialect()).contains(#"(t0."ZAGE" # $1)"#))
        #expect(try sql("age ^ 3 == 0", SQLiteDialect()).contains("((t0.ZAGE | ?) - (t0.ZAGE & ?))"))
        #expect(try sql("(age & 4) != 0", SQLiteDialect()).contains("(t0.ZAGE & ?)"))
        #expect(try sql("~age << 2 > 1 OR age >> 1 | 1 == 3", SQLiteDialect()).contains("((~t0.ZAGE) << ?)"))
        #expect(try sql("price & 1 == 1", SQLiteDialect()).contains("ocd_function("), "a Double column goes through the evaluator")
    }

    @Test func finishNumbersOnlyPlaceholdersOutsideQuotes() {
        let fragment = SQLFragment(#"SELECT "a?" FROM t WHERE x = ? AND y = '?' AND z IN (?, ?)"#, [.integer(1), .integer(2), .integer(3)])
        #expect(PostgreSQLDialect().finish(fragment).sql == #"SELECT "a?" FROM t WHERE x = $1 AND y = '?' AND z IN ($2, $3)"#)
        #expect(SQLiteDialect().finish(fragment).sql == fragment.sql)
    }

    @Test func sqliteSpellings() {
        let dialect = SQLiteDialect()
        #expect(dialect.quote("ZNAME") == "ZNAME")
        #expect(dialect.quote("ORDER") == #""ORDER""#, "keywords are quoted")
        #expect(dialect.quote("Z A\"B") == #""Z A""B""#)
        #expect(SQLColumnType.allCases.map(dialect.typeName) == ["INTEGER", "DECIMAL", "FLOAT", "TIMESTAMP", "VARCHAR", "BLOB"])
        #expect(dialect.limitClause(limit: nil, offset: nil).sql == "")
        #expect(dialect.limitClause(limit: 0, offset: 0).sql == "")
        #expect(dialect.limitClause(limit: 3, offset: nil) == SQLFragment(" LIMIT ?", [.integer(3)]))
        #expect(dialect.limitClause(limit: nil, offset: 4) == SQLFragment(" LIMIT ? OFFSET ?", [.integer(-1), .integer(4)]))
        #expect(dialect.insertIgnoringDuplicates(into: "Z_1TAGS", columns: ["Z_1NOTES", "Z_2TAGS"], firstParameterIndex: 1)
                == "INSERT OR IGNORE INTO Z_1TAGS (Z_1NOTES, Z_2TAGS) VALUES (?, ?)")
        #expect(dialect.orderTerm(dialect.collate("t0.ZNAME", "ocd_compare"), ascending: false).sql == "t0.ZNAME COLLATE ocd_compare DESC")
    }

    @Test func schemaDDLUsesTheDialect() {
        let model = SQLTestModel.make()
        let schema = SQLiteSchema(model: model, configurationName: nil)
        let statements = schema.createStatements(dialect: PostgreSQLDialect())
        #expect(statements.contains { $0.hasPrefix(#"CREATE TABLE "ZITEM" ( Z_PK BIGINT PRIMARY KEY"#) })
        #expect(statements.contains { $0.contains(#""ZPAYLOAD" BYTEA"#) })
    }
}
