/// The storage class of a column in Core Data's SQL schema (DESIGN decision 5).
///
/// The SQLite spelling of each class is what Apple's stores declare (`INTEGER`, `DECIMAL`,
/// `FLOAT`, `TIMESTAMP`, `VARCHAR`, `BLOB`); other dialects spell them their own way.
package enum SQLColumnType: String, Sendable, Hashable, CaseIterable {
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

/// Everything that differs between the SQL databases the SQL stores speak, for both the schema
/// (DDL and the store's own statements) and the SQL compiler (DESIGN decision 3: generated SQL
/// must not assume SQLite).
///
/// One protocol, one conformance per database: ``SQLiteDialect`` today, a PostgreSQL dialect
/// with the later PostgreSQL store. It lives beside the compiler in `Stores/SQLite/SQL/`,
/// whose files (compiler, fragments, schema mapping, dialect) know nothing of SQLite but
/// through this protocol and ``SQLFunctions``; that folder moves to a shared `Stores/SQL/`
/// when a second SQL store needs it.
///
/// What a dialect decides:
/// - **text**: identifier quoting, parameter placeholders (`?` or `$1`, `$2`…), literals;
/// - **schema**: column type names, the primary-key declaration, "insert ignoring duplicates";
/// - **queries**: `LIMIT`/`OFFSET`, null-safe equality, two-valued conditions, collations,
///   `ORDER BY` terms, conversion to floating point, and the names of the functions and
///   collations the compiler calls (``SQLFunctions``, which the store registers).
///
/// Statements are built as ``SQLFragment``s whose placeholders are all `?`, in binding order;
/// ``finish(_:)`` turns one into the dialect's text. Statements the store writes by hand use
/// ``placeholder(_:)`` and ``placeholders(count:first:)`` directly.
protocol SQLDialect: Sendable {
    /// The dialect's name, for messages (`"SQLite"`).
    var name: String { get }

    // MARK: Text

    /// An identifier as it appears in SQL text: bare when the database keeps it as written,
    /// quoted otherwise.
    func quote(_ identifier: String) -> String

    /// The placeholder of the bound parameter at `index` (1-based).
    func placeholder(_ index: Int) -> String

    /// The literals for true and false.
    var trueLiteral: String { get }
    var falseLiteral: String { get }

    // MARK: Schema

    /// The declared type of a column of storage class `type`.
    func typeName(_ type: SQLColumnType) -> String

    /// The declaration of the `Z_PK` column.
    var primaryKeyDeclaration: String { get }

    /// An INSERT that ignores a row whose primary key already exists (join-table rows), with
    /// its parameters numbered from `firstParameterIndex`.
    func insertIgnoringDuplicates(into table: String, columns: [String], firstParameterIndex: Int) -> String

    // MARK: Queries

    /// The clause that limits a SELECT (with a leading space), the limit and offset bound as
    /// parameters; `nil` or non-positive values are left out; empty when both are.
    func limitClause(limit: Int?, offset: Int?) -> SQLFragment

    /// `a IS NOT DISTINCT FROM b`: equality where NULL equals NULL.
    func isNotDistinct(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment
    /// `a IS DISTINCT FROM b`.
    func isDistinct(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment
    /// A possibly-NULL boolean turned into false when NULL.
    func nullAsFalse(_ condition: SQLFragment) -> SQLFragment
    /// A condition from a call of a registered boolean function (``SQLFunctions/predicate``).
    func booleanCall(_ call: SQLFragment) -> SQLFragment
    /// `expression` converted to a floating-point number (so that division is exact).
    func real(_ expression: SQLFragment) -> SQLFragment

    /// `expression` compared, grouped, and taken the minimum or maximum of with the named
    /// collation (``SQLFunctions/collationName(_:)``).
    func collate(_ expression: SQLFragment, _ collation: String) -> SQLFragment
    /// The ORDER BY term for `expression`, with nulls first when ascending and last when
    /// descending (the evaluator's order).
    func orderTerm(_ expression: SQLFragment, ascending: Bool) -> SQLFragment

    /// The name under which the database calls `function` (registered by the store).
    func functionName(_ function: SQLFunctions.Registered) -> String

    /// `operands` combined by a bitwise operator, on 64-bit integers: two operands for the
    /// binary operators, one for ``SQLBitwiseOperator/complement``.
    func bitwise(_ op: SQLBitwiseOperator, _ operands: [SQLFragment]) -> SQLFragment

    /// An attribute's column as the compiler compares, sorts and computes with it: its value
    /// in SQLite's storage classes (Booleans as 0 and 1, UUIDs as 16 bytes, text in byte order).
    /// SQLite's columns are that already; a database with native types converts.
    func attributeValue(_ column: SQLFragment, type: NSAttributeType) -> SQLFragment
}

/// The bitwise functions of `NSExpression` that compile to SQL operators, by selector.
///
/// SQLite has `&`, `|`, `~`, `<<` and `>>` but no exclusive or (PostgreSQL spells it `#`).
enum SQLBitwiseOperator: String, Sendable, CaseIterable {
    case and = "bitwiseAnd:with:"
    case or = "bitwiseOr:with:"
    case xor = "bitwiseXor:with:"
    case leftShift = "leftshift:by:"
    case rightShift = "rightshift:by:"
    case complement = "onesComplement:"
}

extension SQLDialect {
    func attributeValue(_ column: SQLFragment, type: NSAttributeType) -> SQLFragment { column }

    /// Column list `A, B, C` with each name quoted as needed.
    func columnList(_ columns: [String]) -> String {
        columns.map(quote).joined(separator: ", ")
    }

    /// Placeholders `?, ?, ?` for `count` parameters starting at `first`.
    func placeholders(count: Int, first: Int = 1) -> String {
        (0..<count).map { placeholder(first + $0) }.joined(separator: ", ")
    }

    /// The final text of a statement built from fragments: each `?` outside quotes becomes the
    /// dialect's placeholder for its position.
    func finish(_ fragment: SQLFragment) -> SQLStatement {
        if placeholder(1) == "?" { return SQLStatement(sql: fragment.sql, bindings: fragment.bindings) }
        var sql = ""
        var index = 0
        var quote: Character? = nil
        for character in fragment.sql {
            if let open = quote {
                if character == open { quote = nil }
                sql.append(character)
            } else if character == "\"" || character == "'" {
                quote = character
                sql.append(character)
            } else if character == "?" {
                index += 1
                sql += placeholder(index)
            } else {
                sql.append(character)
            }
        }
        return SQLStatement(sql: sql, bindings: fragment.bindings)
    }
}
