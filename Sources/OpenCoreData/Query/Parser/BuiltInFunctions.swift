/// NSExpression's built-in functions, by selector, as the parser resolves a call `name(args…)`.
///
/// A call may spell the selector in full, as Apple prints it (`sum:({1, 2})`, `add:to:(1, 2)`,
/// `now()`), or by its first part (`sum({1, 2})`, `add(1, 2)`, `random(5)`). The first part is
/// resolved by the number of arguments (`random()` is `random`, `random(5)` is `random:`).
/// Names match case-insensitively; the AST always holds the canonical selector.
enum BuiltInFunctions {
    /// Every selector, in Apple's spelling. The number of colons is the number of arguments.
    static let selectors: [String] = [
        // Statistics over a collection.
        "sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:",
        // Arithmetic.
        "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:",
        "sqrt:", "log:", "ln:", "raise:toPower:", "exp:", "floor:", "ceiling:", "abs:", "trunc:",
        // Strings.
        "uppercase:", "lowercase:", "canonical:",
        // Random numbers and time.
        "random", "random:", "now",
        // Bits.
        "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:",
        "onesComplement:",
        // Core Data helpers.
        "noindex:", "distinct:",
        // Locations (CLLocation in Apple's; see GeographicCoordinate).
        "distanceToLocation:fromLocation:",
        // The selectors behind `CAST(x, 'NSDate')` and `a[i]`, accepted when spelled out.
        "castObject:toType:", "objectFrom:withIndex:",
    ]

    /// The number of arguments a selector takes.
    static func arity(of selector: String) -> Int {
        selector.reduce(0) { $1 == ":" ? $0 + 1 : $0 }
    }

    /// Lowercased selector → canonical selector.
    private static let bySelector: [String: String] = Dictionary(
        uniqueKeysWithValues: selectors.map { ($0.lowercased(), $0) })

    /// Lowercased first part → the canonical selectors starting with it.
    private static let byFirstPart: [String: [String]] = Dictionary(
        grouping: selectors, by: { firstPart(of: $0).lowercased() })

    private static func firstPart(of selector: String) -> String {
        String(selector.prefix { $0 != ":" })
    }

    /// Why a call does not name a built-in function.
    enum ResolutionError: Error, Equatable {
        case unknown(String)
        case wrongArgumentCount(String, expected: [Int], found: Int)

        var message: String {
            switch self {
            case .unknown(let name):
                return "unknown function '\(name)'; expected one of NSExpression's built-in functions such as sum:, count:, add:to:, uppercase: or now"
            case .wrongArgumentCount(let name, let expected, let found):
                let counts = expected.map(String.init).joined(separator: " or ")
                let noun = expected == [1] ? "argument" : "arguments"
                return "function '\(name)' takes \(counts) \(noun) but was given \(found)"
            }
        }
    }

    /// The canonical selector for a call of `name` with `argumentCount` arguments.
    static func resolve(_ name: String, argumentCount: Int) -> Result<String, ResolutionError> {
        let key = name.lowercased()
        if PredicateToken.hasColon(name) {
            guard let selector = bySelector[key] else { return .failure(.unknown(name)) }
            let expected = arity(of: selector)
            guard expected == argumentCount else {
                return .failure(.wrongArgumentCount(name, expected: [expected], found: argumentCount))
            }
            return .success(selector)
        }
        if let exact = bySelector[key], arity(of: exact) == argumentCount { return .success(exact) }
        guard let candidates = byFirstPart[key] else { return .failure(.unknown(name)) }
        if let match = candidates.first(where: { arity(of: $0) == argumentCount }) { return .success(match) }
        let expected = Set(candidates.map(arity(of:))).sorted()
        return .failure(.wrongArgumentCount(name, expected: expected, found: argumentCount))
    }
}
