import Foundation

/// PostgreSQL, as the PostgreSQL store's schema has it: every identifier quoted (Core Data's
/// upper case kept), `$1, $2…` placeholders, native Boolean, UUID and NUMERIC columns.
///
/// The compiler's expressions assume SQLite's storage classes, so attribute columns are read
/// as those (``attributeValue(_:type:)``): a Boolean as 0 or 1, a UUID as its 16 bytes, text
/// in byte order (`COLLATE "C"`, SQLite's BINARY). Registered functions and collations
/// (``SQLFunctions``) don't exist in PostgreSQL: a statement that names one is not run there
/// (``SQLFetchStatements``), and the store evaluates the request in memory instead.
struct PostgreSQLDialect: SQLDialect {
    var name: String { "PostgreSQL" }

    func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func placeholder(_ index: Int) -> String { "$\(index)" }

    var trueLiteral: String { "TRUE" }
    var falseLiteral: String { "FALSE" }

    func typeName(_ type: SQLColumnType) -> String {
        switch type {
        case .integer: return "BIGINT"
        case .decimal: return "NUMERIC"
        case .float, .timestamp: return "DOUBLE PRECISION"
        case .varchar: return "TEXT"
        case .blob: return "BYTEA"
        }
    }

    var primaryKeyDeclaration: String { "BIGINT PRIMARY KEY" }

    func insertIgnoringDuplicates(into table: String, columns: [String], firstParameterIndex: Int) -> String {
        "INSERT INTO \(quote(table)) (\(columnList(columns))) VALUES (\(placeholders(count: columns.count, first: firstParameterIndex))) ON CONFLICT DO NOTHING"
    }

    func limitClause(limit: Int?, offset: Int?) -> SQLFragment {
        var fragment = SQLFragment("")
        if let limit, limit > 0 { fragment += " LIMIT " + SQLFragment.bind(.integer(Int64(limit))) }
        if let offset, offset > 0 { fragment += " OFFSET " + SQLFragment.bind(.integer(Int64(offset))) }
        return fragment
    }

    func isNotDistinct(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment { a + " IS NOT DISTINCT FROM " + b }
    func isDistinct(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment { a + " IS DISTINCT FROM " + b }
    func nullAsFalse(_ condition: SQLFragment) -> SQLFragment { "COALESCE(" + condition + ", FALSE)" }
    func booleanCall(_ call: SQLFragment) -> SQLFragment { "(" + call + " <> 0)" }
    func real(_ expression: SQLFragment) -> SQLFragment { "CAST(" + expression + " AS DOUBLE PRECISION)" }

    func collate(_ expression: SQLFragment, _ collation: String) -> SQLFragment {
        expression + SQLFragment(" COLLATE " + quote(collation))
    }

    func orderTerm(_ expression: SQLFragment, ascending: Bool) -> SQLFragment {
        expression + (ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
    }

    func functionName(_ function: SQLFunctions.Registered) -> String { function.rawValue }

    func bitwise(_ op: SQLBitwiseOperator, _ operands: [SQLFragment]) -> SQLFragment {
        guard operands.count == 2 else { return ("~" + operands[0]).parenthesized }
        let (a, b) = (operands[0], operands[1])
        switch op {
        case .and: return (a + " & " + b).parenthesized
        case .or: return (a + " | " + b).parenthesized
        case .xor: return (a + " # " + b).parenthesized
        case .leftShift: return (a + " << CAST(" + b + " AS INTEGER)").parenthesized
        case .rightShift, .complement: return (a + " >> CAST(" + b + " AS INTEGER)").parenthesized
        }
    }

    func attributeValue(_ column: SQLFragment, type: NSAttributeType) -> SQLFragment {
        switch type {
        case .booleanAttributeType: return "CAST(" + column + " AS INTEGER)"
        case .UUIDAttributeType: return "uuid_send(" + column + ")"
        case .stringAttributeType, .URIAttributeType: return (column + " COLLATE \"C\"").parenthesized
        case .decimalAttributeType: return "CAST(" + column + " AS DOUBLE PRECISION)"
        default: return column
        }
    }
}
