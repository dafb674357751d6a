/// A number read from any Swift or Foundation numeric value, for comparison and arithmetic.
///
/// Every numeric width (`Int`, `Int8`…`Int64`, `UInt`…`UInt64`, `Float16`, `Float`, `Double`, `CGFloat`,
/// `Decimal`, `Bool`, `NSNumber`, `NSDecimalNumber`) maps to one of three cases, so that numbers
/// compare across widths and types as `NSNumber` does (`Int32(1) == 1.0`, `true == 1`).
///
/// Rules, shared with the SQL compilers:
/// - Integers (and `Bool`, as 0 and 1) stay exact: two integers compare and add as integers.
///   Unsigned values above `Int64.max` are kept as `.unsigned`.
/// - If either side is a `Decimal`, the other is converted to `Decimal`.
/// - Otherwise the comparison or operation is done in `Double`.
enum NumericValue: Sendable {
    case integer(Int64)
    case unsigned(UInt64)
    case double(Double)
    case decimal(Decimal)

    /// Reads a number from `value`, or returns `nil` when `value` is not numeric.
    /// Strings are not numbers here (`"1" == 1` is false, as with `NSString isEqual:`).
    init?(_ value: Any?) {
        guard let value else { return nil }
        // A real NSNumber object (not a Swift number that bridges to one) is read by its objCType,
        // so that NSDecimalNumber keeps its precision and unsigned values their range.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            self = number is NSDecimalNumber ? .decimal(number.decimalValue) : NumericValue(number: number)
            return
        }
        switch value {
        case let v as Int: self = .integer(Int64(v))
        case let v as Int64: self = .integer(v)
        case let v as Int32: self = .integer(Int64(v))
        case let v as Int16: self = .integer(Int64(v))
        case let v as Int8: self = .integer(Int64(v))
        case let v as UInt: self = NumericValue(unsigned: UInt64(v))
        case let v as UInt64: self = NumericValue(unsigned: v)
        case let v as UInt32: self = .integer(Int64(v))
        case let v as UInt16: self = .integer(Int64(v))
        case let v as UInt8: self = .integer(Int64(v))
        case let v as Bool: self = .integer(v ? 1 : 0)
        case let v as Double: self = .double(v)
        case let v as Float: self = .double(Double(v))
        case let v as CGFloat: self = .double(Double(v))
        case let v as Decimal: self = .decimal(v)
        default:
            #if !((os(macOS) || targetEnvironment(macCatalyst)) && arch(x86_64))
            if let v = value as? Float16 { self = .double(Double(v)); return }
            #endif
            return nil
        }
    }

    private init(unsigned v: UInt64) {
        self = v <= UInt64(Int64.max) ? .integer(Int64(v)) : .unsigned(v)
    }

    private init(number: NSNumber) {
        switch String(cString: number.objCType) {
        case "f", "d": self = .double(number.doubleValue)
        case "Q", "L", "I":
            self = NumericValue(unsigned: number.uint64Value)
        default: self = .integer(number.int64Value)
        }
    }

    /// The value as a `Double` (possibly rounded).
    var doubleValue: Double {
        switch self {
        case .integer(let v): return Double(v)
        case .unsigned(let v): return Double(v)
        case .double(let v): return v
        case .decimal(let v): return NSDecimalNumber(decimal: v).doubleValue
        }
    }

    /// The value as a `Decimal`, or `nil` for a `Double` that `Decimal` cannot hold (NaN,
    /// infinities, magnitudes beyond 1e120), which then is compared and computed in `Double`.
    var decimalValue: Decimal? {
        switch self {
        case .integer(let v): return Decimal(v)
        case .unsigned(let v): return Decimal(v)
        case .double(let v): return v.isFinite && Swift.abs(v) < 1e120 ? Decimal(v) : nil
        case .decimal(let v): return v.isNaN ? nil : v
        }
    }

    /// The value as an exact integer, if it is one (integral doubles and decimals included).
    var exactInteger: Int64? {
        switch self {
        case .integer(let v): return v
        case .unsigned: return nil
        case .double(let v): return v.rounded() == v && abs(v) < 9.2e18 ? Int64(v) : nil
        case .decimal(let v):
            let d = NSDecimalNumber(decimal: v)
            return Decimal(d.int64Value) == v ? d.int64Value : nil
        }
    }

    /// The value boxed back as a Swift value: `Int` when it fits, else `Int64`/`UInt64`, `Double`, `Decimal`.
    var boxed: Any {
        switch self {
        case .integer(let v): return Int(exactly: v).map { $0 as Any } ?? v
        case .unsigned(let v): return v
        case .double(let v): return v
        case .decimal(let v): return v
        }
    }

    /// Compares two numbers exactly where both are integers, in `Decimal` when either is one,
    /// and in `Double` otherwise. NaN is unordered: the result is `nil`.
    static func compare(_ a: NumericValue, _ b: NumericValue) -> ComparisonResult? {
        if a.doubleValue.isNaN || b.doubleValue.isNaN { return nil }
        switch (a, b) {
        case let (.integer(x), .integer(y)): return order(x, y)
        case let (.unsigned(x), .unsigned(y)): return order(x, y)
        case let (.integer(x), .unsigned(y)): return x < 0 ? .orderedAscending : order(UInt64(x), y)
        case let (.unsigned(x), .integer(y)): return y < 0 ? .orderedDescending : order(x, UInt64(y))
        case (.decimal, _), (_, .decimal):
            if let x = a.decimalValue, let y = b.decimalValue { return order(x, y) }
            return order(a.doubleValue, b.doubleValue)
        default: return order(a.doubleValue, b.doubleValue)
        }
    }

    private static func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
        x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
    }
}
