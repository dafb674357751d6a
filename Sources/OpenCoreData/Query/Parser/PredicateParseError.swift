/// A malformed predicate or expression format string.
///
/// `column` is 1-based and counts characters (not bytes) of `format`.
/// Not in Apple's API, where a malformed format raises `NSInvalidArgumentException`.
public struct PredicateParseError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The whole format string.
    public let format: String
    /// The 1-based column where the problem was found.
    public let column: Int
    /// What was wrong, e.g. "expected an expression after '=='".
    public let message: String

    public init(format: String, column: Int, message: String) {
        self.format = format
        self.column = column
        self.message = message
    }

    public var description: String {
        "Unable to parse the format string \"\(format)\": \(message) at column \(column)"
    }
}
