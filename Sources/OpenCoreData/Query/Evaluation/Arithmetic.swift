/// Arithmetic on ``NumericValue``s for the built-in functions and `@sum`/`@avg`.
///
/// The rule that keeps integers integral (as `NSNumber` arithmetic in Apple's expressions does
/// for integer operands):
/// - `add:to:`, `from:subtract:`, `multiply:by:`: two integers give an integer; if the result
///   overflows `Int64` it is computed in `Double` instead.
/// - `divide:by:`: two integers give an integer when the division is exact (`6 / 3 == 2`), and
///   the exact quotient as a `Double` otherwise (`7 / 2 == 3.5`), never a truncated one.
/// - `modulus:by:`: two integers give the integer remainder (with the sign of the dividend);
///   otherwise `fmod` in `Double`.
/// - `raise:toPower:`: an integer to a non-negative integer power is an integer when it fits.
/// - Any `Decimal` operand makes the operation `Decimal` (except `modulus:by:` and powers, done in
///   `Double`, and a `Double` operand `Decimal` cannot hold, such as infinity); any other operand
///   makes it `Double`.
/// - Dividing by zero (integer or floating) throws ``PredicateEvaluationError/divisionByZero(function:)``.
enum Arithmetic {
    static func add(_ a: NumericValue, _ b: NumericValue) -> NumericValue {
        combine(a, b, Int64.addingReportingOverflow, +, +)
    }

    static func subtract(_ a: NumericValue, _ b: NumericValue) -> NumericValue {
        combine(a, b, Int64.subtractingReportingOverflow, -, -)
    }

    static func multiply(_ a: NumericValue, _ b: NumericValue) -> NumericValue {
        combine(a, b, Int64.multipliedReportingOverflow, *, *)
    }

    private static func combine(
        _ a: NumericValue, _ b: NumericValue,
        _ integer: (Int64) -> (Int64) -> (partialValue: Int64, overflow: Bool),
        _ decimal: (Decimal, Decimal) -> Decimal,
        _ double: (Double, Double) -> Double
    ) -> NumericValue {
        switch (a, b) {
        case let (.integer(x), .integer(y)):
            let (result, overflow) = integer(x)(y)
            return overflow ? .double(double(Double(x), Double(y))) : .integer(result)
        case (.decimal, _), (_, .decimal):
            if let x = a.decimalValue, let y = b.decimalValue { return .decimal(decimal(x, y)) }
            return .double(double(a.doubleValue, b.doubleValue))
        default:
            return .double(double(a.doubleValue, b.doubleValue))
        }
    }

    static func divide(_ a: NumericValue, _ b: NumericValue, function: String, forceFraction: Bool = false) throws -> NumericValue {
        if b.doubleValue == 0 { throw PredicateEvaluationError.divisionByZero(function: function) }
        switch (a, b) {
        case let (.integer(x), .integer(y)) where !forceFraction:
            let (remainder, overflow) = x.remainderReportingOverflow(dividingBy: y)
            if !overflow && remainder == 0 { return .integer(x / y) }
            return .double(Double(x) / Double(y))
        case (.decimal, _), (_, .decimal):
            if let x = a.decimalValue, let y = b.decimalValue { return .decimal(x / y) }
            return .double(a.doubleValue / b.doubleValue)
        default:
            return .double(a.doubleValue / b.doubleValue)
        }
    }

    static func modulus(_ a: NumericValue, _ b: NumericValue, function: String) throws -> NumericValue {
        if b.doubleValue == 0 { throw PredicateEvaluationError.divisionByZero(function: function) }
        if case let (.integer(x), .integer(y)) = (a, b) {
            let (remainder, overflow) = x.remainderReportingOverflow(dividingBy: y)
            return .integer(overflow ? 0 : remainder)
        }
        return .double(a.doubleValue.truncatingRemainder(dividingBy: b.doubleValue))
    }

    static func power(_ a: NumericValue, _ b: NumericValue) -> NumericValue {
        if case let (.integer(base), .integer(exponent)) = (a, b), exponent >= 0 {
            switch base {
            case 0: return .integer(exponent == 0 ? 1 : 0)
            case 1: return .integer(1)
            case -1: return .integer(exponent % 2 == 0 ? 1 : -1)
            default:
                guard exponent < 64 else { break }
                var result: Int64 = 1
                var overflowed = false
                for _ in 0..<exponent where !overflowed {
                    (result, overflowed) = result.multipliedReportingOverflow(by: base)
                }
                if !overflowed { return .integer(result) }
            }
        }
        return .double(pow(a.doubleValue, b.doubleValue))
    }
}
