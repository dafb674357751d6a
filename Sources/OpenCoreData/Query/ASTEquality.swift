/// Structural equality of predicate and expression trees.
///
/// Two trees are equal when they have the same shape and equal constants, where constants
/// compare as `NSNumber` and Foundation values do (`3 == 3.0`, `Int32(1) == Int64(1)`).
/// Block predicates and block expressions are equal only to themselves.
enum ASTEquality {
    static func isEqual(_ a: NSPredicate, _ b: NSPredicate) -> Bool {
        if a === b { return true }
        switch (a.shape, b.shape) {
        case let (.constant(x), .constant(y)):
            return x == y
        case (.block, .block):
            return false
        case let (.comparison(x), .comparison(y)):
            return x.predicateOperatorType == y.predicateOperatorType
                && x.comparisonPredicateModifier == y.comparisonPredicateModifier
                && x.options == y.options
                && isEqual(x.leftExpression, y.leftExpression)
                && isEqual(x.rightExpression, y.rightExpression)
        case let (.compound(x), .compound(y)):
            return x.compoundPredicateType == y.compoundPredicateType
                && x.predicates.count == y.predicates.count
                && zip(x.predicates, y.predicates).allSatisfy { isEqual($0, $1) }
        default:
            return false
        }
    }

    static func isEqual(_ a: NSExpression, _ b: NSExpression) -> Bool {
        if a === b { return true }
        switch (a.node, b.node) {
        case let (.constant(x), .constant(y)):
            return ValueComparison.isEqualConstant(x, y)
        case (.evaluatedObject, .evaluatedObject), (.anyKey, .anyKey):
            return true
        case let (.variable(x), .variable(y)), let (.keyPath(x), .keyPath(y)):
            return x == y
        case let (.keyPathOn(xb, xp), .keyPathOn(yb, yp)):
            return xp == yp && isEqual(xb, yb)
        case let (.function(xn, xa), .function(yn, ya)):
            return xn == yn && isEqual(xa, ya)
        case let (.functionOn(xt, xn, xa), .functionOn(yt, yn, ya)):
            return xn == yn && isEqual(xt, yt) && isEqual(xa, ya)
        case let (.symbolic(x), .symbolic(y)):
            return x == y
        case let (.aggregate(x), .aggregate(y)):
            return isEqual(x, y)
        case let (.constant(value), .aggregate(items)), let (.aggregate(items), .constant(value)):
            // `%@` with an array or set is a constant; `predicateFormat` prints it as `{…}`, which
            // parses to an aggregate. They are equal when the aggregate holds the same constants.
            guard let values = constantValues(items) else { return false }
            return ValueComparison.isEqualConstant(value, values)
        case let (.unionSet(xl, xr), .unionSet(yl, yr)),
             let (.intersectSet(xl, xr), .intersectSet(yl, yr)),
             let (.minusSet(xl, xr), .minusSet(yl, yr)):
            return isEqual(xl, yl) && isEqual(xr, yr)
        case let (.subquery(xc, xv, xp), .subquery(yc, yv, yp)):
            return xv == yv && isEqual(xc, yc) && isEqual(xp, yp)
        case let (.conditional(xp, xt, xf), .conditional(yp, yt, yf)):
            return isEqual(xp, yp) && isEqual(xt, yt) && isEqual(xf, yf)
        case let (.fetch(xr, xc, xn), .fetch(yr, yc, yn)):
            return xn == yn && isEqual(xr, yr) && isEqual(xc, yc)
        default:
            return false
        }
    }

    /// The values of an aggregate made only of constants (and nested such aggregates).
    private static func constantValues(_ items: [NSExpression]) -> [Any]? {
        var values: [Any] = []
        for item in items {
            switch item.node {
            case .constant(let value): values.append(value ?? NSNull())
            case .aggregate(let nested):
                guard let nestedValues = constantValues(nested) else { return nil }
                values.append(nestedValues)
            default: return nil
            }
        }
        return values
    }

    private static func isEqual(_ a: [NSExpression], _ b: [NSExpression]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { isEqual($0, $1) }
    }
}
