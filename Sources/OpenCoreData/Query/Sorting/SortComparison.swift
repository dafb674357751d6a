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
        let a = SortValueReader.nonNull(a)
        let b = SortValueReader.nonNull(b)
        switch (a, b) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        case let (a?, b?):
            if let result = compareValues(a, b) { return result }
            preconditionFailure(
                "NSSortDescriptor: \(rawValue) cannot compare \(a) (\(type(of: a))) with \(b) (\(type(of: b)))")
        }
    }

    private func compareValues(_ a: Any, _ b: Any) -> ComparisonResult? {
        if let x = a as? String, let y = b as? String {
            return compareStrings(x, y)
        }
        guard self == .compare else { return nil }
        if let x = a as? Date, let y = b as? Date {
            return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
        }
        if let x = a as? Decimal, let y = b as? Decimal {
            return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
        }
        if let x = Self.number(a), let y = Self.number(b) {
            return x.compare(y)
        }
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

    /// A Swift number or Boolean as an `NSNumber`, which compares across widths and types.
    /// Foundation bridges every Swift integer, floating-point, `Bool` and `Decimal` value.
    static func number(_ value: Any) -> NSNumber? {
        value is String ? nil : value as? NSNumber
    }

    private static func compareComparable<T: Comparable>(_ x: T, _ other: Any) -> ComparisonResult? {
        guard let y = other as? T else { return nil }
        return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
    }
}
