/// The comparison methods a sort descriptor may name, and how each orders two values.
///
/// Apple's sort descriptors send the selector to the first value; here the selector names one of
/// these comparisons. `nil` and `NSNull` sort before every other value, as Apple's do.
enum SortComparison: String, Sendable, CaseIterable {
    case compare = "compare:"
    case caseInsensitiveCompare = "caseInsensitiveCompare:"
    case localizedCompare = "localizedCompare:"
    case localizedCaseInsensitiveCompare = "localizedCaseInsensitiveCompare:"
    case localizedStandardCompare = "localizedStandardCompare:"

    /// Orders two values, `nil` first.
    ///
    /// Traps with a message naming both values when they cannot be compared (a string with a
    /// number, a type with no order), where Apple raises an unrecognized-selector exception.
    func compare(_ a: Any?, _ b: Any?) -> ComparisonResult {
        switch (Self.nonNull(a), Self.nonNull(b)) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        case let (a?, b?):
            if let result = compareValues(a, b) { return result }
            preconditionFailure(
                "NSSortDescriptor: \(rawValue) cannot compare \(a) (\(type(of: a))) with \(b) (\(type(of: b)))")
        }
    }

    /// `nil` for `nil`, `NSNull` and an empty optional boxed in `Any`; otherwise the value.
    static func nonNull(_ value: Any?) -> Any? {
        ValueComparison.isNull(value) ? nil : ValueComparison.unwrap(value)
    }

    private func compareValues(_ a: Any, _ b: Any) -> ComparisonResult? {
        if let x = ValueComparison.string(a), let y = ValueComparison.string(b) {
            return compareStrings(x, y)
        }
        guard self == .compare else { return nil }
        // Numbers across widths, dates, data, UUIDs and URLs, as the evaluator orders them.
        if let result = ValueComparison.compare(a, b, options: []) { return result }
        if let x = a as? any Comparable {
            return Self.compareComparable(x, b)
        }
        return nil
    }

    private func compareStrings(_ x: String, _ y: String) -> ComparisonResult {
        switch self {
        case .compare: return x.compare(y)
        case .caseInsensitiveCompare: return x.caseInsensitiveCompare(y)
        case .localizedCompare: return x.localizedCompare(y)
        case .localizedCaseInsensitiveCompare: return x.localizedCaseInsensitiveCompare(y)
        case .localizedStandardCompare: return x.localizedStandardCompare(y)
        }
    }

    private static func compareComparable<T: Comparable>(_ x: T, _ other: Any) -> ComparisonResult? {
        guard let y = other as? T else { return nil }
        return ValueComparison.order(x, y)
    }
}
