/// Why a predicate or expression could not be evaluated.
///
/// Apple raises an Objective-C exception in these situations; OpenCoreData throws this error
/// from ``NSPredicate/evaluateThrowing(with:substitutionVariables:)`` and
/// ``NSExpression/expressionValueThrowing(with:variables:)``, and the trapping Apple-style entry
/// points print its description. Every case names what went wrong and where.
public enum PredicateEvaluationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Reading `keyPath` failed, for example because an object has no such key.
    case keyValueCoding(KeyValueCodingError, keyPath: String)
    /// `$name` is used but no substitution variable of that name was given.
    case unboundVariable(name: String)
    /// `construct` (`ANY`, `ALL`, `SUBQUERY`, `UNION`, `sum:`, …) needs a collection and got a value of `typeName`.
    case notACollection(construct: String, typeName: String)
    /// Argument `argument` (0-based) of `function` has type `typeName`, but `expected` was needed.
    case wrongArgumentType(function: String, argument: Int, expected: String, typeName: String)
    /// `function` takes `expected` arguments and was given `actual`.
    case wrongArgumentCount(function: String, expected: Int, actual: Int)
    /// `function` (`divide:by:`, `modulus:by:`) was asked to divide by zero.
    case divisionByZero(function: String)
    /// `name` is not a built-in function of `NSExpression`.
    case unknownFunction(name: String)
    /// `FUNCTION(receiver, 'selector', …)`: a value of `receiverType` does not answer `selector`.
    case unknownSelector(selector: String, receiverType: String)
    /// `collection[index]` is out of range for a collection of `count` elements.
    case indexOutOfRange(index: Int, count: Int)
    /// `BETWEEN` needs a two-element collection on its right; it got a value of `typeName`.
    case invalidBetweenBounds(typeName: String)
    /// `MATCHES` was given a pattern that is not a valid regular expression.
    case invalidRegularExpression(pattern: String, reason: String)
    /// `CAST(value, type)` cannot convert a value of `typeName` to `type`.
    case invalidCast(typeName: String, type: String)
    /// The construct evaluates only in other contexts (`ANYKEY`, a custom selector).
    case unsupported(construct: String)

    public var description: String {
        switch self {
        case let .keyValueCoding(error, keyPath):
            return "can't read key path '\(keyPath)': \(error)"
        case let .unboundVariable(name):
            return "variable $\(name) is not bound; pass it in the substitution variables"
        case let .notACollection(construct, typeName):
            return "\(construct) needs a collection (array, set or ordered set), not a value of type \(typeName)"
        case let .wrongArgumentType(function, argument, expected, typeName):
            return "argument \(argument + 1) of \(function) must be \(expected), not a value of type \(typeName)"
        case let .wrongArgumentCount(function, expected, actual):
            return "\(function) takes \(expected) argument\(expected == 1 ? "" : "s"), not \(actual)"
        case let .divisionByZero(function):
            return "\(function) divides by zero"
        case let .unknownFunction(name):
            return "'\(name)' is not a built-in function"
        case let .unknownSelector(selector, receiverType):
            return "FUNCTION: a value of type \(receiverType) does not respond to '\(selector)'"
        case let .indexOutOfRange(index, count):
            return "index \(index) is out of range for a collection of \(count) element\(count == 1 ? "" : "s")"
        case let .invalidBetweenBounds(typeName):
            return "BETWEEN needs a collection of exactly two bounds on its right, not a value of type \(typeName)"
        case let .invalidRegularExpression(pattern, reason):
            return "MATCHES: '\(pattern)' is not a valid regular expression (\(reason))"
        case let .invalidCast(typeName, type):
            return "CAST can't convert a value of type \(typeName) to \(type)"
        case let .unsupported(construct):
            return "\(construct) can't be evaluated in memory"
        }
    }
}

extension PredicateEvaluationError: LocalizedError {
    /// The same text as ``description``, so that `localizedDescription` names the problem too.
    public var errorDescription: String? { description }
}
