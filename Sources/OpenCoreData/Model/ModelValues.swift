/// Comparison of the loosely typed values a model holds (user info, defaults, warnings).
enum ModelValues {
    /// Whether two values are equal, as Foundation values and `NSNumber`s compare; collections
    /// compare element by element.
    static func isEqual(_ a: Any?, _ b: Any?) -> Bool {
        switch (ValueComparison.unwrap(a), ValueComparison.unwrap(b)) {
        case (nil, nil):
            return true
        case (nil, _), (_, nil):
            return false
        case let (x as [AnyHashable: Any], y as [AnyHashable: Any]):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { isEqual(value, $0) } ?? false }
        case let (x as [Any], y as [Any]):
            return x.count == y.count && zip(x, y).allSatisfy { isEqual($0, $1) }
        case let (x as NSPredicate, y as NSPredicate):
            return x.isEqual(y)
        case let (x as NSExpression, y as NSExpression):
            return x.isEqual(y)
        case let (x?, y?):
            return ValueComparison.isEqualConstant(x, y)
        }
    }
}
