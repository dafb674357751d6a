/// The built-in functions of `NSExpression` (`sum:`, `add:to:`, `uppercase:`, …), the
/// `objectFrom:withIndex:` and `castObject:toType:` functions the parser produces for `a[i]` and
/// `CAST`, and `FUNCTION(receiver, 'selector', …)`.
///
/// Conventions:
/// - **Statistics** (`sum:`, `count:`, `min:`, `max:`, `average:`, `median:`, `mode:`,
///   `stddev:`, `distinct:`, `random:`) take one collection argument, as Apple's do; given
///   several arguments (or one that is not a collection) they use the arguments themselves.
///   nil and `NSNull` elements are skipped, as SQL aggregates skip NULL, except by `count:` and
///   `distinct:`. Empty input: `sum:` is 0, `count:` 0, `mode:` and `distinct:` empty arrays,
///   the others nil. `median:` of an even count is the mean of the middle two; `stddev:` is the
///   population standard deviation; `mode:` returns an array of the most frequent values.
/// - **Arithmetic** follows ``Arithmetic`` (integers stay integral). A nil or `NSNull` operand
///   gives nil, as NULL does in SQL; a non-number throws
///   ``PredicateEvaluationError/wrongArgumentType(function:argument:expected:typeName:)``.
/// - `sqrt:`, `log:` (base 10), `ln:`, `exp:` give `Double`s; `floor:`, `ceiling:`, `trunc:`
///   and `abs:` keep integers integral.
/// - **Bitwise** functions need integers (integral doubles are accepted) and work on `Int64`;
///   shifts past 63 bits give 0 (or -1 for a negative right shift).
/// - `uppercase:`/`lowercase:` need strings; `now` is the current date, `random` a `Double` in
///   [0, 1); `noindex:` returns its argument.
/// - `distanceToLocation:fromLocation:` takes two locations (see ``GeographicCoordinate``) and
///   gives the great-circle distance in metres as a `Double`; nil when either is nil.
enum BuiltinFunctionName {
    /// Every function name ``BuiltinFunctions`` understands, with its number of arguments
    /// (`nil`: one collection or any number of values).
    static let arity: [String: Int?] = [
        "sum:": nil, "count:": nil, "min:": nil, "max:": nil, "average:": nil, "median:": nil,
        "mode:": nil, "stddev:": nil, "distinct:": nil, "random:": nil,
        "add:to:": 2, "from:subtract:": 2, "multiply:by:": 2, "divide:by:": 2, "modulus:by:": 2,
        "raise:toPower:": 2, "bitwiseAnd:with:": 2, "bitwiseOr:with:": 2, "bitwiseXor:with:": 2,
        "leftshift:by:": 2, "rightshift:by:": 2,
        "sqrt:": 1, "log:": 1, "ln:": 1, "exp:": 1, "floor:": 1, "ceiling:": 1, "abs:": 1, "trunc:": 1,
        "onesComplement:": 1, "uppercase:": 1, "lowercase:": 1, "canonical:": 1, "noindex:": 1,
        "random": 0, "now": 0, "distanceToLocation:fromLocation:": 2,
        "objectFrom:withIndex:": 2, "castObject:toType:": 2,
    ]
}

/// A value that answers `FUNCTION(receiver, 'selector', arguments…)` in predicates.
///
/// Apple sends the selector to the receiver through the Objective-C runtime; Swift on Linux has
/// none, so a type opts in by adopting this protocol. Selectors it does not answer fall back to
/// the built-in ones (see `BuiltinFunctions`), and otherwise throw
/// ``PredicateEvaluationError/unknownSelector(selector:receiverType:)``.
public protocol PredicateFunctionTarget {
    /// Whether the value answers `selector` (such as `"distanceTo:"`).
    func respondsToPredicateFunction(_ selector: String) -> Bool
    /// The result of `selector` with the evaluated `arguments`. Called only for selectors that
    /// ``respondsToPredicateFunction(_:)`` accepts.
    func performPredicateFunction(_ selector: String, arguments: [Any?]) throws -> Any?
}

/// Calls built-in functions for ``PredicateEvaluator``.
struct BuiltinFunctions {
    let evaluator: PredicateEvaluator

    /// Evaluates `name(arguments…)` for `object`.
    func call(_ name: String, _ arguments: [NSExpression], with object: Any?) throws -> Any? {
        if name == "objectFrom:withIndex:", arguments.count == 2, case .symbolic(let symbol) = arguments[1].node {
            return try Self.element(of: evaluator.value(of: arguments[0], with: object), at: .symbol(symbol))
        }
        return try apply(name, arguments.map { try evaluator.value(of: $0, with: object) })
    }

    /// `FUNCTION(receiver, selector, arguments…)`.
    ///
    /// In order: a ``PredicateFunctionTarget`` receiver that answers the selector; a method
    /// registered in ``PredicateFunctionRegistry`` for the receiver's type; a built-in function
    /// name, called with the receiver as its first argument (the receiver is ignored by `now` and
    /// `random`); and these Foundation selectors, with `NSString`'s and `NSNumber`'s meaning:
    /// - strings: `length`, `uppercaseString`, `lowercaseString`, `capitalizedString`,
    ///   `lastPathComponent`, `pathExtension`, `stringByDeletingPathExtension`,
    ///   `stringByDeletingLastPathComponent`, `stringByAppendingString:`,
    ///   `substringFromIndex:`, `substringToIndex:` (UTF-16 offsets; out of range throws, where
    ///   Apple raises), `stringByReplacingOccurrencesOfString:withString:`, and `intValue`,
    ///   `integerValue`, `longLongValue`, `doubleValue`, `floatValue`, `boolValue` (parsed as
    ///   `NSString` parses them);
    /// - numbers: `intValue`, `integerValue`, `longLongValue`, `doubleValue`, `floatValue`,
    ///   `boolValue`, `stringValue`;
    /// - dates: `timeIntervalSinceReferenceDate`, `timeIntervalSince1970`;
    /// - collections: `count`; anything: `description`, `valueForKey:`, `valueForKeyPath:`.
    ///
    /// A nil receiver answers nil to any selector that is not a built-in function, as a message
    /// to nil does; any other receiver throws
    /// ``PredicateEvaluationError/unknownSelector(selector:receiverType:)`` for a selector it does
    /// not answer.
    func perform(_ selector: String, on receiver: Any?, arguments: [Any?]) throws -> Any? {
        if let target = receiver as? PredicateFunctionTarget, target.respondsToPredicateFunction(selector) {
            return ValueComparison.unwrap(try target.performPredicateFunction(selector, arguments: arguments))
        }
        if let receiver = ValueComparison.unwrap(receiver), let body = PredicateFunctionRegistry.body(for: selector, receiver: receiver) {
            return ValueComparison.unwrap(try body(receiver, arguments))
        }
        if let arity = BuiltinFunctionName.arity[selector] {
            return try apply(selector, arity == 0 ? arguments : [receiver] + arguments)
        }
        // Objective-C messages to nil return nil; a missing value answers every selector so.
        if ValueComparison.unwrap(receiver) == nil { return nil }
        let unknown = PredicateEvaluationError.unknownSelector(selector: selector, receiverType: ValueComparison.typeName(receiver))
        if let string = ValueComparison.string(receiver) {
            switch selector {
            case "length": return string.utf16.count
            case "uppercaseString": return string.uppercased()
            case "lowercaseString": return string.lowercased()
            case "stringByAppendingString:":
                try Self.expectCount(selector, 1, arguments)
                return string + (try Self.string(selector, 1, arguments[0]) ?? "")
            default:
                if let result = try Self.stringMethod(selector, string, arguments) { return result }
            }
        }
        if let number = NumericValue(receiver) {
            switch selector {
            case "intValue", "integerValue", "longLongValue":
                if let integer = number.exactInteger ?? Int64(exactly: number.doubleValue.rounded(.towardZero)) {
                    return NumericValue.integer(integer).boxed
                }
                throw PredicateEvaluationError.wrongArgumentType(
                    function: selector, argument: 0, expected: "a number in the range of Int64", typeName: ValueComparison.typeName(receiver))
            case "doubleValue", "floatValue": return number.doubleValue
            case "boolValue": return number.doubleValue != 0
            case "stringValue": return Self.describe(receiver)
            default: break
            }
        }
        if let date = receiver as? Date {
            switch selector {
            case "timeIntervalSinceReferenceDate": return date.timeIntervalSinceReferenceDate
            case "timeIntervalSince1970": return date.timeIntervalSince1970
            default: break
            }
        }
        switch selector {
        case "count":
            guard let collection = CollectionValue(membershipOf: receiver) else { throw unknown }
            return collection.elements.count
        case "description":
            return Self.describe(receiver)
        case "valueForKey:", "valueForKeyPath:":
            try Self.expectCount(selector, 1, arguments)
            guard let key = try Self.string(selector, 1, arguments[0]) else { return nil }
            if selector == "valueForKeyPath:" { return try evaluator.read(key, of: receiver) }
            do {
                return try KeyValueAccess.value(forKey: key, of: receiver)
            } catch let error as KeyValueCodingError {
                throw PredicateEvaluationError.keyValueCoding(error, keyPath: key)
            }
        default:
            throw unknown
        }
    }

    /// Applies the built-in function `name` to evaluated arguments.
    func apply(_ name: String, _ args: [Any?]) throws -> Any? {
        guard let arity = BuiltinFunctionName.arity[name] else {
            throw PredicateEvaluationError.unknownFunction(name: name)
        }
        if let arity { try Self.expectCount(name, arity, args) }
        switch name {
        case "sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:", "distinct:", "random:":
            return try Statistics.apply(name, Self.elements(of: args))
        case "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:":
            guard let a = try Self.number(name, 0, args[0]), let b = try Self.number(name, 1, args[1]) else { return nil }
            switch name {
            case "add:to:": return Arithmetic.add(a, b).boxed
            case "from:subtract:": return Arithmetic.subtract(a, b).boxed
            case "multiply:by:": return Arithmetic.multiply(a, b).boxed
            case "divide:by:": return try Arithmetic.divide(a, b, function: name).boxed
            case "modulus:by:": return try Arithmetic.modulus(a, b, function: name).boxed
            default: return Arithmetic.power(a, b).boxed
            }
        case "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:":
            guard let a = try Self.integer(name, 0, args[0]), let b = try Self.integer(name, 1, args[1]) else { return nil }
            switch name {
            case "bitwiseAnd:with:": return NumericValue.integer(a & b).boxed
            case "bitwiseOr:with:": return NumericValue.integer(a | b).boxed
            case "bitwiseXor:with:": return NumericValue.integer(a ^ b).boxed
            case "leftshift:by:": return NumericValue.integer(a << b).boxed
            default: return NumericValue.integer(a >> b).boxed
            }
        case "onesComplement:":
            return try Self.integer(name, 0, args[0]).map { NumericValue.integer(~$0).boxed }
        case "sqrt:", "log:", "ln:", "exp:", "floor:", "ceiling:", "abs:", "trunc:":
            guard let x = try Self.number(name, 0, args[0]) else { return nil }
            return Self.unary(name, x).boxed
        case "uppercase:", "lowercase:":
            guard let s = try Self.string(name, 0, args[0]) else { return nil }
            return name == "uppercase:" ? s.uppercased() : s.lowercased()
        case "canonical:":
            // Core Data's derived-attribute normalization: case and diacritics folded.
            guard let s = try Self.string(name, 0, args[0]) else { return nil }
            return s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
        case "noindex:":
            return args[0]
        case "distanceToLocation:fromLocation:":
            if args.contains(where: ValueComparison.isNull) { return nil }
            var points: [(Double, Double)] = []
            for (index, value) in args.enumerated() {
                guard let point = GeographicDistance.coordinate(of: value) else {
                    throw PredicateEvaluationError.wrongArgumentType(
                        function: name, argument: index, expected: "a location with a latitude and a longitude",
                        typeName: ValueComparison.typeName(value))
                }
                points.append(point)
            }
            return GeographicDistance.metres(from: points[0], to: points[1])
        case "random":
            return Double.random(in: 0..<1)
        case "now":
            return Date()
        case "objectFrom:withIndex:":
            return try Self.element(of: args[0], at: .value(args[1]))
        default: // "castObject:toType:"
            guard let type = ValueComparison.string(args[1]) else {
                throw PredicateEvaluationError.wrongArgumentType(
                    function: name, argument: 1, expected: "a type name string", typeName: ValueComparison.typeName(args[1]))
            }
            return try Self.cast(args[0], to: type)
        }
    }

    private static func unary(_ name: String, _ x: NumericValue) -> NumericValue {
        let d = x.doubleValue
        switch name {
        case "sqrt:": return .double(d.squareRoot())
        case "log:": return .double(log10(d))
        case "ln:": return .double(log(d))
        case "exp:": return .double(exp(d))
        default: break
        }
        switch (name, x) {
        case ("abs:", .integer(let v)):
            return v == Int64.min ? .double(-Double(v)) : .integer(Swift.abs(v))
        case ("abs:", .decimal(let v)):
            return .decimal(v < 0 ? -v : v)
        case (_, .integer), (_, .unsigned):
            return x
        case ("abs:", _): return .double(Swift.abs(d))
        case ("floor:", _): return .double(d.rounded(.down))
        case ("ceiling:", _): return .double(d.rounded(.up))
        default: return .double(d.rounded(.towardZero))
        }
    }

    // MARK: Argument helpers

    static func expectCount(_ name: String, _ count: Int, _ args: [Any?]) throws {
        guard args.count == count else {
            throw PredicateEvaluationError.wrongArgumentCount(function: name, expected: count, actual: args.count)
        }
    }

    /// The argument as a number; nil for null; throws for anything else.
    static func number(_ name: String, _ index: Int, _ value: Any?) throws -> NumericValue? {
        if ValueComparison.isNull(value) { return nil }
        guard let number = NumericValue(value) else {
            throw PredicateEvaluationError.wrongArgumentType(
                function: name, argument: index, expected: "a number", typeName: ValueComparison.typeName(value))
        }
        return number
    }

    /// The argument as an integer; nil for null; throws for non-integers.
    static func integer(_ name: String, _ index: Int, _ value: Any?) throws -> Int64? {
        guard let number = try number(name, index, value) else { return nil }
        guard let integer = number.exactInteger else {
            throw PredicateEvaluationError.wrongArgumentType(
                function: name, argument: index, expected: "an integer", typeName: ValueComparison.typeName(value))
        }
        return integer
    }

    /// The argument as a string; nil for null; throws for anything else.
    static func string(_ name: String, _ index: Int, _ value: Any?) throws -> String? {
        if ValueComparison.isNull(value) { return nil }
        guard let string = ValueComparison.string(value) else {
            throw PredicateEvaluationError.wrongArgumentType(
                function: name, argument: index, expected: "a string", typeName: ValueComparison.typeName(value))
        }
        return string
    }

    /// The values a statistics function works on: the elements of a single collection argument,
    /// or the arguments themselves.
    static func elements(of args: [Any?]) -> [Any] {
        if args.count == 1 {
            if ValueComparison.isNull(args[0]) { return [] }
            if let collection = CollectionValue(args[0]) { return collection.elements }
        }
        return args.map { ValueComparison.unwrap($0) ?? NSNull() }
    }

    /// A value as `NSString`'s description would print it: integral doubles without `.0`.
    static func describe(_ value: Any?) -> String {
        guard let value = ValueComparison.unwrap(value) else { return "nil" }
        if let string = ValueComparison.string(value) { return string }
        if value is Bool { return (value as! Bool) ? "1" : "0" }
        if let number = NumericValue(value) {
            switch number {
            case .integer(let v): return String(v)
            case .unsigned(let v): return String(v)
            case .decimal(let v): return "\(v)"
            case .double(let v):
                if let i = number.exactInteger { return String(i) }
                return "\(v)"
            }
        }
        if let uuid = value as? UUID { return uuid.uuidString }
        if let url = value as? URL { return url.absoluteString }
        return String(describing: value)
    }
}
