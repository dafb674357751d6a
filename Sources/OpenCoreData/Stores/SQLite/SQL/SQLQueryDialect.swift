/// What the SQL compiler needs to know of the database's SQL dialect (DESIGN decision 3: the
/// generated SQL must not assume SQLite, so that a PostgreSQL store can reuse the compiler).
///
/// Booleans produced by the compiler are always two-valued (never NULL), so that `NOT` agrees
/// with the in-memory evaluator: null comparisons are false, not unknown.
protocol SQLQueryDialect: Sendable {
    /// A quoted identifier.
    func quote(_ identifier: String) -> String
    /// The literal for true and false.
    var trueLiteral: String { get }
    var falseLiteral: String { get }
    /// `a IS NOT DISTINCT FROM b`: equality where NULL equals NULL.
    func isNotDistinct(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment
    /// `a IS DISTINCT FROM b`.
    func isDistinct(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment
    /// A possibly-NULL boolean turned into false when NULL.
    func nullAsFalse(_ condition: SQLFragment) -> SQLFragment
    /// A boolean-valued call of a registered function (functions return 0/1 in SQLite).
    func booleanCall(_ call: SQLFragment) -> SQLFragment
    /// The ORDER BY term for `expression`, with nulls first when ascending and last when
    /// descending (the evaluator's order), and an optional collation for string comparisons.
    func orderTerm(_ expression: SQLFragment, ascending: Bool, collation: String?) -> SQLFragment
    /// `LIMIT … OFFSET …` for the window (`limit` 0: none).
    func window(limit: Int, offset: Int) -> SQLFragment
    /// `expression` converted to a floating-point number (so that division is exact).
    func real(_ expression: SQLFragment) -> SQLFragment
    /// The final text of a statement: placeholders renumbered when the dialect needs it.
    func finish(_ fragment: SQLFragment) -> SQLStatement
}

/// SQLite's dialect for the compiler.
struct SQLiteQueryDialect: SQLQueryDialect {
    func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    var trueLiteral: String { "1" }
    var falseLiteral: String { "0" }

    func isNotDistinct(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment { a + " IS " + b }
    func isDistinct(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment { a + " IS NOT " + b }
    func nullAsFalse(_ condition: SQLFragment) -> SQLFragment { "COALESCE(" + condition + ", 0)" }
    func booleanCall(_ call: SQLFragment) -> SQLFragment { call }

    func orderTerm(_ expression: SQLFragment, ascending: Bool, collation: String?) -> SQLFragment {
        // SQLite orders NULL first ascending and last descending, as the evaluator does.
        var term = expression
        if let collation { term.sql += " COLLATE " + collation }
        term.sql += ascending ? " ASC" : " DESC"
        return term
    }

    func window(limit: Int, offset: Int) -> SQLFragment {
        if limit <= 0 && offset <= 0 { return "" }
        var fragment = " LIMIT " + SQLFragment.bind(.integer(limit > 0 ? Int64(limit) : -1))
        if offset > 0 { fragment += " OFFSET " + SQLFragment.bind(.integer(Int64(offset))) }
        return fragment
    }

    func real(_ expression: SQLFragment) -> SQLFragment { "CAST(" + expression + " AS REAL)" }

    func finish(_ fragment: SQLFragment) -> SQLStatement {
        SQLStatement(sql: fragment.sql, bindings: fragment.bindings)
    }
}
