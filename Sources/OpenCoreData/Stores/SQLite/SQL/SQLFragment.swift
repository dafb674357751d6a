/// A value bound to a statement parameter, independent of the database driver.
///
/// The compiler never splices a value into SQL text: every constant of a predicate, sort or
/// expression becomes one of these, bound in order to the statement's `?` placeholders.
enum SQLValue: Equatable, Sendable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    /// The value of the request's constant number `n`, in a statement compiled once for every
    /// request of a shape (``SQLStatementCache``); replaced by that value before the statement
    /// runs, never bound itself.
    case parameter(Int)

    var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        case .text(let v): return "'\(v)'"
        case .blob(let v): return "<\(v.count) bytes>"
        case .parameter(let n): return "?\(n)"
        }
    }
}

/// A piece of SQL text with the values bound to its `?` placeholders, in text order.
///
/// Fragments concatenate with `+`, which keeps the bindings in the order their placeholders
/// appear; the dialect renumbers placeholders when it needs `$1`, `$2` (``SQLDialect/finish(_:)``).
struct SQLFragment: Equatable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    var sql: String
    var bindings: [SQLValue]

    init(_ sql: String, _ bindings: [SQLValue] = []) {
        self.sql = sql
        self.bindings = bindings
    }

    init(stringLiteral value: String) {
        self.init(value)
    }

    /// One placeholder bound to `value`.
    static func bind(_ value: SQLValue) -> SQLFragment { SQLFragment("?", [value]) }

    static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(lhs.sql + rhs.sql, lhs.bindings + rhs.bindings)
    }

    static func += (lhs: inout SQLFragment, rhs: SQLFragment) {
        lhs = lhs + rhs
    }

    /// The fragments joined by `separator`.
    static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment("")
        for (index, part) in parts.enumerated() {
            if index > 0 { result.sql += separator }
            result += part
        }
        return result
    }

    /// The fragment in parentheses.
    var parenthesized: SQLFragment { SQLFragment("(" + sql + ")", bindings) }

    var description: String { sql + (bindings.isEmpty ? "" : " -- " + bindings.map(\.description).joined(separator: ", ")) }
}

/// A complete statement ready for the driver: text with dialect placeholders and its bindings.
struct SQLStatement: Equatable, Sendable, CustomStringConvertible {
    var sql: String
    var bindings: [SQLValue]

    var description: String { SQLFragment(sql, bindings).description }
}
