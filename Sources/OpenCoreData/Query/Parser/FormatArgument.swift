import Foundation

/// The printf-style specifiers a predicate format accepts, and how each turns its argument
/// into a token.
///
/// - `%@` takes any value: an `NSExpression` is used as the expression itself, `nil` becomes a
///   nil constant, anything else (strings, numbers, dates, arrays, sets, `NSNull`) a constant.
/// - `%K` takes a key path string.
/// - `%d %i %u %x %X %o %c`, with any length modifier (`%ld`, `%lld`, `%hd`, `%lu`, `%qd`, …), take
///   an integer; `%f %e %g %a` (and `%lf`, …) take a number, which becomes a `Double`;
///   `%s` takes a string, which becomes a string constant.
///
/// `%%`, a literal percent sign, takes no argument; the lexer makes it the modulus operator.
enum FormatSpecifier: Equatable {
    case object
    case keyPath
    case integer
    case floatingPoint
    case cString

    /// The length modifiers printf allows before a conversion character, as ASCII codes.
    static let lengthModifiers: [UInt8] = Array("hlqLztj".utf8)

    /// The specifier of a conversion character given by its ASCII code (any other character:
    /// the lexer's `nonASCII`), or `nil` if there is none.
    init?(conversion: UInt8) {
        switch Unicode.Scalar(conversion) {
        case "@": self = .object
        case "K": self = .keyPath
        case "d", "i", "u", "D", "U", "x", "X", "o", "O", "c": self = .integer
        case "f", "F", "e", "E", "g", "G", "a", "A": self = .floatingPoint
        case "s", "S": self = .cString
        default: return nil
        }
    }

    /// The token an argument becomes, or a message saying why it does not fit the specifier.
    func token(for argument: Any?, specifier: String) -> Result<PredicateToken.Kind, FormatArgumentMismatch> {
        let value = ValueComparison.unwrap(argument)   // the Optional layers an argument gains in `[Any]`
        switch self {
        case .object:
            if let value, FormatSpecifier.mayBeExpression(value), let expression = value as? NSExpression {
                return .success(.argument(expression))
            }
            return .success(.argument(NSExpression(node: .constant(value))))
        case .keyPath:
            guard let path = FormatSpecifier.string(value) else {
                return .failure(FormatArgumentMismatch(specifier: specifier, expected: "a key path string", found: value))
            }
            guard !path.isEmpty else {
                return .failure(FormatArgumentMismatch(specifier: specifier, expected: "a non-empty key path", found: value))
            }
            return .success(.keyPathArgument(path))
        case .integer:
            guard let number = FormatSpecifier.integer(value) else {
                return .failure(FormatArgumentMismatch(specifier: specifier, expected: "an integer", found: value))
            }
            return .success(.argument(NSExpression(node: .constant(number))))
        case .floatingPoint:
            guard let number = FormatSpecifier.double(value) else {
                return .failure(FormatArgumentMismatch(specifier: specifier, expected: "a number", found: value))
            }
            return .success(.argument(NSExpression(node: .constant(number))))
        case .cString:
            guard let string = FormatSpecifier.string(value) else {
                return .failure(FormatArgumentMismatch(specifier: specifier, expected: "a string", found: value))
            }
            return .success(.argument(NSExpression(node: .constant(string))))
        }
    }

    /// Whether `value` may cast to `NSExpression`: false for an instance of another class (an
    /// `NSNumber`, the usual argument), which the runtime's failing cast from `Any` took about
    /// 1,500 instructions to tell; true for an expression and for any value of a value type,
    /// which may box one (`AnyHashable`).
    private static func mayBeExpression(_ value: Any) -> Bool {
        let dynamicType = type(of: value)
        return dynamicType is NSExpression.Type || !(dynamicType is AnyClass)
    }

    /// A string argument, from a Swift `String` or an `NSString`.
    static func string(_ value: Any?) -> String? {
        if let string = value as? String { return string }
        if let string = value as? NSString { return String(string) }
        return nil
    }

    /// An integer argument: Swift integers (kept as `Int` when they fit) and integral `NSNumber`s.
    static func integer(_ value: Any?) -> Any? {
        switch value {
        case let v as Int: return v
        case let v as Bool: return v ? 1 : 0
        case let v as any BinaryInteger: return Int(exactly: v) ?? v
        case let v as NSNumber where !FormatSpecifier.isFloatingPoint(v): return v.intValue
        default: return nil
        }
    }

    /// A floating-point argument: any Swift or Foundation number, as a `Double`.
    static func double(_ value: Any?) -> Double? {
        switch value {
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as any BinaryFloatingPoint: return Double(v)
        case let v as any BinaryInteger: return Double(v)
        case let v as Decimal: return NSDecimalNumber(decimal: v).doubleValue
        case let v as NSNumber: return v.doubleValue
        default: return nil
        }
    }

    private static func isFloatingPoint(_ number: NSNumber) -> Bool {
        let type = String(cString: number.objCType)
        return type == "d" || type == "f"
    }
}

/// An argument that does not fit its specifier, e.g. `%K` given a number.
struct FormatArgumentMismatch: Error {
    let message: String

    init(specifier: String, expected: String, found: Any?) {
        let description = found.map { "\(type(of: $0)) \(String(reflecting: $0))" } ?? "nil"
        message = "\(specifier) expects \(expected) but the argument is \(description)"
    }
}
