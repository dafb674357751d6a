import Foundation

/// SQLite, as Core Data writes it: bare upper-case identifiers, Apple's type names, `?`
/// placeholders, `LIMIT ? OFFSET ?`, `INSERT OR IGNORE`, 1 and 0 for true and false,
/// `IS` / `IS NOT` for null-safe equality, and the functions and collations the store
/// registers on every connection (``SQLFunctions/register(on:)``).
struct SQLiteDialect: SQLDialect {
    var name: String { "SQLite" }

    func quote(_ identifier: String) -> String {
        if Self.isBare(identifier) { return identifier }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func placeholder(_ index: Int) -> String { "?" }

    var trueLiteral: String { "1" }
    var falseLiteral: String { "0" }

    func typeName(_ type: SQLColumnType) -> String {
        switch type {
        case .integer: return "INTEGER"
        case .decimal: return "DECIMAL"
        case .float: return "FLOAT"
        case .timestamp: return "TIMESTAMP"
        case .varchar: return "VARCHAR"
        case .blob: return "BLOB"
        }
    }

    var primaryKeyDeclaration: String { "INTEGER PRIMARY KEY" }

    func insertIgnoringDuplicates(into table: String, columns: [String], firstParameterIndex: Int) -> String {
        "INSERT OR IGNORE INTO \(quote(table)) (\(columnList(columns))) VALUES (\(placeholders(count: columns.count, first: firstParameterIndex)))"
    }

    func limitClause(limit: Int?, offset: Int?) -> SQLFragment {
        let limit = limit.flatMap { $0 > 0 ? $0 : nil }, offset = offset.flatMap { $0 > 0 ? $0 : nil }
        if limit == nil && offset == nil { return "" }
        // SQLite needs a LIMIT before OFFSET; -1 means no limit.
        var fragment = " LIMIT " + SQLFragment.bind(.integer(Int64(limit ?? -1)))
        if let offset { fragment += " OFFSET " + SQLFragment.bind(.integer(Int64(offset))) }
        return fragment
    }

    func isNotDistinct(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment { a + " IS " + b }
    func isDistinct(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment { a + " IS NOT " + b }
    func nullAsFalse(_ condition: SQLFragment) -> SQLFragment { "COALESCE(" + condition + ", 0)" }
    /// Registered functions return 0 or 1, which SQLite takes as a condition.
    func booleanCall(_ call: SQLFragment) -> SQLFragment { call }
    func real(_ expression: SQLFragment) -> SQLFragment { "CAST(" + expression + " AS REAL)" }

    func collate(_ expression: SQLFragment, _ collation: String) -> SQLFragment {
        expression + SQLFragment(" COLLATE " + collation)
    }

    /// SQLite orders NULL first ascending and last descending, as the evaluator does.
    func orderTerm(_ expression: SQLFragment, ascending: Bool) -> SQLFragment {
        expression + (ascending ? " ASC" : " DESC")
    }

    func functionName(_ function: SQLFunctions.Registered) -> String { function.rawValue }

    /// SQLite's operators; exclusive or, which SQLite lacks, is `(a | b) - (a & b)`. Shifts by
    /// 64 or more give 0 (or -1 shifting a negative number right) and a negative count shifts
    /// the other way, as Swift's `<<` and `>>` do in the evaluator.
    func bitwise(_ op: SQLBitwiseOperator, _ operands: [SQLFragment]) -> SQLFragment {
        guard operands.count == 2 else { return ("~" + operands[0]).parenthesized }
        let (a, b) = (operands[0], operands[1])
        switch op {
        case .and: return (a + " & " + b).parenthesized
        case .or: return (a + " | " + b).parenthesized
        case .xor: return ((a + " | " + b).parenthesized + " - " + (a + " & " + b).parenthesized).parenthesized
        case .leftShift: return (a + " << " + b).parenthesized
        case .rightShift, .complement: return (a + " >> " + b).parenthesized
        }
    }

    /// SQLite keywords that Core Data names could collide with (an entity named `Order` maps to
    /// `ZORDER`, which is not one; `Z_` prefixes keep most names clear).
    private static let keywords: Set<String> = [
        "ABORT", "ACTION", "ADD", "AFTER", "ALL", "ALTER", "ANALYZE", "AND", "AS", "ASC", "ATTACH", "AUTOINCREMENT",
        "BEFORE", "BEGIN", "BETWEEN", "BY", "CASCADE", "CASE", "CAST", "CHECK", "COLLATE", "COLUMN", "COMMIT",
        "CONFLICT", "CONSTRAINT", "CREATE", "CROSS", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "DATABASE",
        "DEFAULT", "DEFERRABLE", "DEFERRED", "DELETE", "DESC", "DETACH", "DISTINCT", "DROP", "EACH", "ELSE", "END",
        "ESCAPE", "EXCEPT", "EXCLUSIVE", "EXISTS", "EXPLAIN", "FAIL", "FOR", "FOREIGN", "FROM", "FULL", "GLOB", "GROUP",
        "HAVING", "IF", "IGNORE", "IMMEDIATE", "IN", "INDEX", "INDEXED", "INITIALLY", "INNER", "INSERT", "INSTEAD",
        "INTERSECT", "INTO", "IS", "ISNULL", "JOIN", "KEY", "LEFT", "LIKE", "LIMIT", "MATCH", "NATURAL", "NO", "NOT",
        "NOTNULL", "NULL", "OF", "OFFSET", "ON", "OR", "ORDER", "OUTER", "PLAN", "PRAGMA", "PRIMARY", "QUERY", "RAISE",
        "RECURSIVE", "REFERENCES", "REGEXP", "REINDEX", "RELEASE", "RENAME", "REPLACE", "RESTRICT", "RIGHT", "ROLLBACK",
        "ROW", "SAVEPOINT", "SELECT", "SET", "TABLE", "TEMP", "TEMPORARY", "THEN", "TO", "TRANSACTION", "TRIGGER",
        "UNION", "UNIQUE", "UPDATE", "USING", "VACUUM", "VALUES", "VIEW", "VIRTUAL", "WHEN", "WHERE", "WITH", "WITHOUT",
    ]

    private static func isBare(_ identifier: String) -> Bool {
        guard let first = identifier.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        let simple = identifier.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
        return simple && !keywords.contains(identifier.uppercased())
    }
}
