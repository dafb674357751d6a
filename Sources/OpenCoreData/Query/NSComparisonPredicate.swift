/// A predicate that compares two expressions with an operator.
open class NSComparisonPredicate: NSPredicate, @unchecked Sendable {
    /// How the left expression is applied when it is a collection (`ANY`, `ALL`), with Apple's raw values.
    ///
    /// `NONE` has no modifier of its own: the parser writes it as `NOT ANY`, as Apple does.
    public enum Modifier: UInt, Sendable {
        case direct = 0
        case all = 1
        case any = 2
    }

    /// The comparison operator, with Apple's raw values.
    public enum Operator: UInt, Sendable {
        case lessThan = 0
        case lessThanOrEqualTo = 1
        case greaterThan = 2
        case greaterThanOrEqualTo = 3
        case equalTo = 4
        case notEqualTo = 5
        case matches = 6
        case like = 7
        case beginsWith = 8
        case endsWith = 9
        case `in` = 10
        case customSelector = 11
        case contains = 99
        case between = 100
        /// `UTI-CONFORMS-TO`: the left type identifier conforms to the right one
        /// (see `TypeIdentifierConformance`). Not in Apple's public enum, whose parser makes
        /// a private operator for it; the raw value is OpenCoreData's.
        case utiConformsTo = 2000
        /// `UTI-EQUALS`: the two type identifiers are the same. Not in Apple's public enum.
        case utiEquals = 2001
    }

    /// String comparison options (`[c]`, `[d]`, `[n]`), with Apple's raw values.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// `[c]`: case-insensitive.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: diacritic-insensitive.
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`: the strings are already normalized, so comparison may skip folding.
        public static let normalized = Options(rawValue: 4)
    }

    public let leftExpression: NSExpression
    public let rightExpression: NSExpression
    public let comparisonPredicateModifier: Modifier
    public let predicateOperatorType: Operator
    public let options: Options

    /// Custom selectors are not supported; this is always `nil`.
    public var customSelector: String? { nil }

    /// Creates a comparison predicate.
    public init(leftExpression lhs: NSExpression, rightExpression rhs: NSExpression,
                modifier: Modifier, type: Operator, options: Options = []) {
        precondition(type != .customSelector,
                     "NSComparisonPredicate: custom selectors are not supported by OpenCoreData")
        leftExpression = lhs
        rightExpression = rhs
        comparisonPredicateModifier = modifier
        predicateOperatorType = type
        self.options = options
        super.init(subclassDepth: 1 + max(lhs.depth, rhs.depth))
    }

    override var shape: Shape { .comparison(self) }
}
