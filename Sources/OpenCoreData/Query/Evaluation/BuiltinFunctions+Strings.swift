import Foundation

extension BuiltinFunctions {
    /// The `NSString` methods `FUNCTION(receiver, 'selector', …)` answers for a string receiver
    /// beyond `length` and the case conversions, computed by Foundation's `NSString`; nil for
    /// another selector, `.some(nil)` for a nil result.
    static func stringMethod(_ selector: String, _ string: String, _ arguments: [Any?]) throws -> Any?? {
        let ns = NSString(string: string)
        switch selector {
        case "capitalizedString": return ns.capitalized
        case "lastPathComponent": return ns.lastPathComponent
        case "pathExtension": return ns.pathExtension
        case "stringByDeletingPathExtension": return ns.deletingPathExtension
        case "stringByDeletingLastPathComponent": return ns.deletingLastPathComponent
        case "intValue": return Int(ns.intValue)
        case "integerValue": return ns.integerValue
        case "longLongValue": return Int(ns.longLongValue)
        case "doubleValue": return ns.doubleValue
        case "floatValue": return Double(ns.floatValue)
        case "boolValue": return ns.boolValue
        case "substringFromIndex:", "substringToIndex:":
            try expectCount(selector, 1, arguments)
            guard let index = NumericValue(arguments[0])?.exactInteger else {
                throw PredicateEvaluationError.wrongArgumentType(
                    function: selector, argument: 1, expected: "an integer index", typeName: ValueComparison.typeName(arguments[0]))
            }
            guard index >= 0, index <= ns.length else {
                throw PredicateEvaluationError.indexOutOfRange(index: Int(clamping: index), count: ns.length)
            }
            return selector == "substringFromIndex:" ? ns.substring(from: Int(index)) : ns.substring(to: Int(index))
        case "stringByReplacingOccurrencesOfString:withString:":
            try expectCount(selector, 2, arguments)
            guard let target = try Self.string(selector, 1, arguments[0]), let replacement = try Self.string(selector, 2, arguments[1]) else {
                return .some(nil)
            }
            guard !target.isEmpty else { return string }
            return ns.replacingOccurrences(of: target, with: replacement)
        default:
            return nil
        }
    }
}
