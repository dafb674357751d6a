import Foundation

/// A statement for a SQL store of another module (the PostgreSQL store): its text, with the
/// dialect's placeholders, and the values to bind, in order.
package struct SQLFetchStatement: Sendable {
    package let sql: String
    package let bindings: [SQLBindingValue]
}

/// A value bound to a statement parameter (``SQLValue`` for stores outside this module).
package enum SQLBindingValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    /// The constant number `n` of a batch update (``SQLBatchUpdateStatement/constants``),
    /// which the store binds with its own coding of the attribute's type.
    case constant(Int)
}

/// A batch update compiled for the PostgreSQL store: one `UPDATE … RETURNING "Z_PK", "Z_ENT"`.
package struct SQLBatchUpdateStatement {
    package let statement: SQLFetchStatement
    /// The attribute and value (converted to the attribute's type; nil: null) of each
    /// ``SQLBindingValue/constant(_:)`` of the statement, by number.
    package let constants: [(attribute: NSAttributeDescription, value: Any?)]
}

/// Fetch requests compiled by the one SQL compiler for the PostgreSQL store.
///
/// A request the compiler refuses, or whose statement needs a function or collation of
/// ``SQLFunctions`` (registered in SQLite only), gives nil: the store evaluates it in memory,
/// with the evaluator every store shares, so results never differ between stores.
package enum SQLFetchStatements {
    /// For a count request, `SELECT COUNT(*)` of the matching rows; otherwise
    /// `SELECT t0."Z_PK", t0."Z_ENT"` of them, sorted and windowed, or with `columns`, all of
    /// them as one record a row, `SELECT ROW(t0."Z_PK", t0."Z_ENT", <columns>)`. Nil when the
    /// request can't run in PostgreSQL. Only the statement the request needs is compiled (this
    /// runs on every fetch).
    package static func postgres(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription,
                                 schema: SQLiteSchema, model: NSManagedObjectModel, columns: [String] = []) -> SQLFetchStatement? {
        let compiler = SQLFetchCompiler(mapping: SQLiteCompilerMapping(schema: schema, model: model), dialect: PostgreSQLDialect())
        let compiled = request.resultType == .countResultType
            ? try? compiler.count(request, entity: entity) : try? compiler.objects(request, entity: entity, columns: columns, asRecord: !columns.isEmpty)
        return compiled.flatMap { statement($0) }
    }

    /// For an ID request whose rows are all of `entity` (it has no subentities, or the request
    /// leaves them out): one row, one value, the array of the matching rows' primary keys in
    /// the request's order, `SELECT ARRAY(SELECT t0."Z_PK" … ORDER BY … LIMIT …)`. A million
    /// keys come back as one 12 MB value instead of a million rows. Nil when the request
    /// can't run in PostgreSQL or may select rows of another entity.
    package static func postgresPrimaryKeyArray(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription,
                                                schema: SQLiteSchema, model: NSManagedObjectModel) -> SQLFetchStatement? {
        guard request.resultType == .managedObjectIDResultType, !request.includesSubentities || entity.subentities.isEmpty else { return nil }
        let compiler = SQLFetchCompiler(mapping: SQLiteCompilerMapping(schema: schema, model: model), dialect: PostgreSQLDialect())
        guard let compiled = (try? compiler.objects(request, entity: entity, keysOnly: true)).flatMap({ statement($0) }) else { return nil }
        return SQLFetchStatement(sql: "SELECT ARRAY(" + compiled.sql + ")", bindings: compiled.bindings)
    }

    /// A batch update in one statement when PostgreSQL computes every value as the evaluator
    /// would and the predicate runs there (``SQLBatchUpdatePlan``); nil otherwise, when the
    /// store updates through snapshots. A constant of the wrong type throws
    /// `NSManagedObjectValidationError` (1550).
    package static func postgresBatchUpdate(_ update: StoreBatchUpdate, schema: SQLiteSchema,
                                            model: NSManagedObjectModel) throws -> SQLBatchUpdateStatement? {
        guard let plan = try SQLBatchUpdatePlan(update, schema: schema) else { return nil }
        var constants: [(attribute: NSAttributeDescription, value: Any?)] = []
        let compiled = try plan.statement(mapping: SQLiteCompilerMapping(schema: schema, model: model), dialect: PostgreSQLDialect(),
                                          returning: []) { index, value in
            constants.append((plan.assignments[index].attribute, value))
            return .parameter(constants.count - 1)
        }
        guard let statement = compiled.flatMap({ statement($0, constants: true) }) else { return nil }
        return SQLBatchUpdateStatement(statement: statement, constants: constants)
    }

    /// `statement` for another module; nil when it names a registered function or collation
    /// or a value bound later (a statement compiled for a request shape), unless `constants`
    /// says its parameters are a batch update's constants.
    private static func statement(_ statement: SQLStatement, constants: Bool = false) -> SQLFetchStatement? {
        if statement.sql.contains("ocd_") { return nil }
        var bindings: [SQLBindingValue] = []
        for value in statement.bindings {
            switch value {
            case .null: bindings.append(.null)
            case .integer(let v): bindings.append(.integer(v))
            case .real(let v): bindings.append(.real(v))
            case .text(let v): bindings.append(.text(v))
            case .blob(let v): bindings.append(.blob(v))
            case .parameter(let n):
                guard constants else { return nil }
                bindings.append(.constant(n))
            }
        }
        return SQLFetchStatement(sql: statement.sql, bindings: bindings)
    }
}
