import Foundation

/// The storage class of a column in Core Data's SQL schema (DESIGN decision 5).
///
/// The SQLite spelling of each class is what Apple's stores declare (`INTEGER`, `DECIMAL`,
/// `FLOAT`, `TIMESTAMP`, `VARCHAR`, `BLOB`); other dialects spell them their own way.
enum SQLColumnType: String, Sendable, Hashable, CaseIterable {
    /// Integers of every width, Booleans (0/1), primary and foreign keys, `Z_FOK_` orders.
    case integer
    /// Decimal attributes, held as REAL.
    case decimal
    /// Double and Float attributes.
    case float
    /// Date attributes: REAL seconds since 2001-01-01 00:00:00 UTC.
    case timestamp
    /// String and URI attributes.
    case varchar
    /// Binary, UUID (16 bytes) and Transformable attributes.
    case blob
}

/// What differs between the SQL databases the SQL stores speak: quoting, type names, parameter
/// placeholders, and the syntax of LIMIT/OFFSET and upserts.
///
/// The schema mapping (``SQLiteSchema``) only produces names; the dialect turns them into SQL
/// text. SQLite is the first implementation; the later PostgreSQL store adds its own
/// (DESIGN decision 3: the SQL generation must not assume SQLite).
protocol SQLDialect: Sendable {
    /// The dialect's name, for messages (`"SQLite"`).
    var name: String { get }

    /// An identifier as it appears in SQL text: bare when the database keeps it as written,
    /// quoted otherwise.
    func quote(_ identifier: String) -> String

    /// The declared type of a column of storage class `type`.
    func typeName(_ type: SQLColumnType) -> String

    /// The placeholder of the bound parameter at `index` (1-based).
    func placeholder(_ index: Int) -> String

    /// The declaration of the `Z_PK` column.
    var primaryKeyDeclaration: String { get }

    /// The clause that limits a SELECT, with the limit and offset as bound parameters at
    /// `limitIndex` and `limitIndex + 1`; `nil` parameters are left out.
    func limitClause(limit: Int?, offset: Int?, firstParameterIndex: Int) -> (sql: String, parameters: [Int])

    /// An INSERT that ignores a row whose primary key already exists (join-table rows).
    func insertIgnoringDuplicates(into table: String, columns: [String], firstParameterIndex: Int) -> String
}

extension SQLDialect {
    /// Column list `A, B, C` with each name quoted as needed.
    func columnList(_ columns: [String]) -> String {
        columns.map(quote).joined(separator: ", ")
    }

    /// Placeholders `?, ?, ?` for `count` parameters starting at `first`.
    func placeholders(count: Int, first: Int = 1) -> String {
        (0..<count).map { placeholder(first + $0) }.joined(separator: ", ")
    }
}

/// SQLite, as Core Data writes it: bare upper-case identifiers, Apple's type names, `?`
/// placeholders, `LIMIT ? OFFSET ?`, `INSERT OR IGNORE`.
struct SQLiteDialect: SQLDialect {
    var name: String { "SQLite" }

    func quote(_ identifier: String) -> String {
        if Self.isBare(identifier) { return identifier }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

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

    func placeholder(_ index: Int) -> String { "?" }

    var primaryKeyDeclaration: String { "INTEGER PRIMARY KEY" }

    func limitClause(limit: Int?, offset: Int?, firstParameterIndex: Int) -> (sql: String, parameters: [Int]) {
        switch (limit, offset) {
        case (nil, nil): return ("", [])
        case (let limit?, nil): return ("LIMIT \(placeholder(firstParameterIndex))", [limit])
        // SQLite needs a LIMIT before OFFSET; -1 means no limit.
        case (nil, let offset?): return ("LIMIT -1 OFFSET \(placeholder(firstParameterIndex))", [offset])
        case (let limit?, let offset?):
            return ("LIMIT \(placeholder(firstParameterIndex)) OFFSET \(placeholder(firstParameterIndex + 1))", [limit, offset])
        }
    }

    func insertIgnoringDuplicates(into table: String, columns: [String], firstParameterIndex: Int) -> String {
        "INSERT OR IGNORE INTO \(quote(table)) (\(columnList(columns))) VALUES (\(placeholders(count: columns.count, first: firstParameterIndex)))"
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
