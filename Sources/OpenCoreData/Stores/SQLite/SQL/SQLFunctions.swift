/// The SQL functions and collations the compiled SQL calls, and the evaluator code behind them.
///
/// Like Core Data's `NSCoreDataStringSearch`, string semantics the database does not have
/// (`[c]`, `[d]`, canonical equivalence, `LIKE` with `*`/`?`, `MATCHES` with ICU regular
/// expressions, `NSString` ordering for sorts) are registered functions that run the in-memory
/// evaluator's own code, so the SQL store and the in-memory store cannot disagree:
/// - `ocd_predicate(op, a, b, options)`: ``PredicateEvaluator/compare(_:_:_:options:)`` on two
///   values, 1 or 0 (an invalid regular expression fails the statement);
/// - `ocd_function(name, args…)`: a built-in function (`divide:by:`, `lowercase:`, …), throwing
///   where the evaluator throws (division by zero);
/// - collations `ocd_compare`, `ocd_caseInsensitiveCompare`, … : ``SortComparison`` on strings,
///   for ORDER BY with a sort descriptor's selector;
/// - `ocd_decimal_text`, the `ocd_decimal` collation and the `ocd_decimal_min`/`_max`
///   aggregates: Decimal columns, which hold REAL or (for more digits than REAL keeps) exact
///   text in a blob, sorted and taken extremes of by decimal value, not by storage class;
/// - collation `ocd_value`: ``ValueComparison``'s string order (Swift `String` order, equal
///   when canonically equivalent), for GROUP BY, DISTINCT, MIN and MAX of strings and URLs, so
///   that groups, distinct rows and extremes are the evaluator's and not SQLite's BINARY
///   (UTF-8 byte) order, which splits precomposed and decomposed accents and orders a
///   supplementary-plane character differently.
enum SQLFunctions {
    /// The functions the store registers and the compiler calls, by their SQLite names
    /// (a dialect may call them otherwise: ``SQLDialect/functionName(_:)``).
    enum Registered: String, Sendable, CaseIterable {
        /// `ocd_predicate(op, a, b, options)`.
        case predicate = "ocd_predicate"
        /// `ocd_function(name, args…)`.
        case function = "ocd_function"
        /// `ocd_decimal_text(x)`: a Decimal column value (REAL, or exact text in a blob) as the
        /// text of its decimal, ordered by the `ocd_decimal` collation.
        case decimalText = "ocd_decimal_text"
        /// `ocd_decimal_min(x)`, `ocd_decimal_max(x)`: aggregates returning the column value
        /// (REAL or blob) of the least or greatest decimal.
        case decimalMinimum = "ocd_decimal_min"
        case decimalMaximum = "ocd_decimal_max"
    }

    static let predicate = Registered.predicate.rawValue
    static let function = Registered.function.rawValue

    /// An `ocd_predicate` option bit (beyond Apple's) saying that blobs are decimals kept as text.
    static let decimalOperands = NSComparisonPredicate.Options(rawValue: 1 << 16)

    /// The collation that compares strings as the evaluator compares values.
    static let valueCollation = "ocd_value"

    /// The collation that orders the texts of decimals (``Registered/decimalText``) by value.
    static let decimalCollation = "ocd_decimal"

    /// The collation that orders strings as a sort descriptor with `comparison` does.
    static func collationName(_ comparison: SortComparison) -> String {
        "ocd_" + comparison.rawValue.dropLast()
    }

    /// A database value as the evaluator sees it (text as `String`, integers as `Int64`,
    /// reals as `Double`, blobs as `Data`, NULL as nil).
    static func value(_ value: SQLValue) -> Any? {
        switch value {
        case .null, .parameter: return nil
        case .integer(let v): return v
        case .real(let v): return v
        case .text(let v): return v
        case .blob(let v): return v
        }
    }

    /// An evaluator result as a database value; nil when it has none.
    static func sqlValue(_ value: Any?) -> SQLValue? {
        let value = ValueComparison.unwrap(value)
        if ValueComparison.isNull(value) { return .null }
        if let string = ValueComparison.string(value) { return .text(string) }
        if let number = NumericValue(value) {
            switch number {
            case .integer(let v): return .integer(v)
            case .unsigned(let v): return .real(Double(v))
            case .double(let v): return .real(v)
            case .decimal(let v): return .real(NSDecimalNumber(decimal: v).doubleValue)
            }
        }
        if let data = value as? Data { return .blob(data) }
        return nil
    }

    /// The body of `ocd_predicate`.
    static func evaluatePredicate(operator rawOperator: Int64, _ a: SQLValue, _ b: SQLValue, options rawOptions: Int64) throws -> Bool {
        guard let op = NSComparisonPredicate.Operator(rawValue: UInt(rawOperator)) else {
            throw SQLCompileError("operator \(rawOperator)", "it is not a comparison operator")
        }
        var options = NSComparisonPredicate.Options(rawValue: UInt(rawOptions))
        var (x, y) = (value(a), value(b))
        if options.contains(decimalOperands) {
            options.remove(decimalOperands)
            (x, y) = (decimal(a) ?? x, decimal(b) ?? y)
        }
        return try PredicateEvaluator.compare(x, op, y, options: options)
    }

    /// A decimal kept exactly as its text in a blob.
    private static func decimal(_ value: SQLValue) -> Decimal? {
        guard case .blob(let data) = value else { return nil }
        return Decimal(string: String(decoding: data, as: UTF8.self))
    }

    /// The decimal a Decimal column value holds: REAL and INTEGER as ``SQLiteValueCoding``
    /// reads them, the exact text of a blob or text value.
    static func decimalValue(_ value: SQLValue) -> Decimal? {
        switch value {
        case .null, .parameter: return nil
        case .integer(let v): return Decimal(v)
        case .real(let v): return Decimal(string: "\(v)") ?? Decimal(v)
        case .text(let v): return Decimal(string: v)
        case .blob: return decimal(value)
        }
    }

    /// The body of `ocd_decimal_text`.
    static func decimalText(_ value: SQLValue) -> SQLValue {
        guard let decimal = decimalValue(value) else { return .null }
        return .text(decimal.description)
    }

    /// The body of the `ocd_decimal` collation: decimal texts ordered by value.
    static func collateDecimals(_ a: String, _ b: String) -> ComparisonResult {
        guard let x = Decimal(string: a), let y = Decimal(string: b) else { return ValueComparison.order(a, b) }
        return ValueComparison.order(x, y)
    }

    /// The step of `ocd_decimal_min`/`ocd_decimal_max`: whether `candidate` replaces `best`
    /// (the first of equal values stays, as the evaluator's `min:`/`max:` keep it).
    static func isBetterDecimal(_ candidate: SQLValue, than best: SQLValue?, greatest: Bool) -> Bool {
        guard let x = decimalValue(candidate) else { return false }
        guard let best, let y = decimalValue(best) else { return true }
        return greatest ? x > y : x < y
    }

    /// The body of `ocd_function`.
    static func evaluateFunction(_ name: String, _ arguments: [SQLValue]) throws -> SQLValue {
        let expression = NSExpression(forFunction: name, arguments: arguments.map { NSExpression(forConstantValue: value($0)) })
        let result = try expression.expressionValueThrowing(with: nil)
        guard let converted = sqlValue(result) else {
            throw SQLCompileError("the function \(name)", "its result \(ValueComparison.typeName(result)) has no SQL value")
        }
        return converted
    }

    /// The body of the collations: strings ordered as a sort descriptor's selector orders them.
    static func collate(_ comparison: SortComparison, _ a: String, _ b: String) -> ComparisonResult {
        comparison.compare(a, b)
    }

    /// The body of `ocd_value`: strings ordered as ``ValueComparison`` orders them.
    static func collateValues(_ a: String, _ b: String) -> ComparisonResult {
        ValueComparison.compare(a, b, options: []) ?? .orderedSame
    }
}
