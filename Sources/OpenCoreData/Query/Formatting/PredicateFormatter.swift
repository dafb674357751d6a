/// Prints predicate and expression trees in Apple's canonical format syntax.
///
/// The output is what `predicateFormat` and `NSExpression.description` return, for example
/// `age > 3 AND name BEGINSWITH[c] "a"`. It follows Apple's spelling:
/// - keys unquoted, reserved words in key paths escaped with `#`;
/// - strings in double quotes, with `"` and `\` escaped;
/// - `nil`, numbers as `NSNumber` prints them (Booleans as `1`/`0`), dates as
///   `CAST(694224000.000000, "NSDate")`, collections as `{1, 2}`;
/// - compound subpredicates wrapped in parentheses;
/// - built-in functions as `name(args)`, arithmetic infix with parentheses only where
///   precedence needs them, `a[FIRST]`, `CAST(…)`, `TERNARY(…)`, `SUBQUERY(…)`, and
///   `FUNCTION(a, "pow:" , 3)` with Apple's space before the comma after the selector.
///
/// Parsing the output again gives an equal tree, except for what has no literal syntax
/// (block predicates and expressions, and constants such as `Data` or `UUID`, printed as their
/// description). `NSNull` prints as `<null>`, as Apple prints it; Apple's parser rejects
/// `<null>`, ours reads it back as the `NSNull` constant so that the round trip holds.
struct PredicateFormatter {
    // MARK: Predicates

    func format(_ predicate: NSPredicate) -> String {
        switch predicate.shape {
        case .constant(let value):
            return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .block:
            return "BLOCKPREDICATE(\(Self.address(of: predicate)))"
        case .comparison(let comparison):
            return format(comparison)
        case .compound(let compound):
            return format(compound)
        }
    }

    private func format(_ predicate: NSComparisonPredicate) -> String {
        var text = ""
        switch predicate.comparisonPredicateModifier {
        case .direct: break
        case .any: text += "ANY "
        case .all: text += "ALL "
        }
        text += format(predicate.leftExpression)
        text += " " + Self.operatorSymbol(predicate.predicateOperatorType)
        text += Self.optionsSuffix(predicate.options)
        text += " " + format(predicate.rightExpression)
        return text
    }

    private func format(_ predicate: NSCompoundPredicate) -> String {
        let parts = predicate.predicates.map { sub -> String in
            if case .compound = sub.shape { return "(" + format(sub) + ")" }
            return format(sub)
        }
        switch predicate.compoundPredicateType {
        case .not:
            return "NOT " + (parts.first ?? "TRUEPREDICATE")
        case .and:
            return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
        case .or:
            return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
        }
    }

    static func operatorSymbol(_ type: NSComparisonPredicate.Operator) -> String {
        switch type {
        case .lessThan: return "<"
        case .lessThanOrEqualTo: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqualTo: return ">="
        case .equalTo: return "=="
        case .notEqualTo: return "!="
        case .matches: return "MATCHES"
        case .like: return "LIKE"
        case .beginsWith: return "BEGINSWITH"
        case .endsWith: return "ENDSWITH"
        case .in: return "IN"
        case .customSelector: return "CUSTOMSELECTOR"
        case .contains: return "CONTAINS"
        case .between: return "BETWEEN"
        case .utiConformsTo: return "UTI-CONFORMS-TO"
        case .utiEquals: return "UTI-EQUALS"
        }
    }

    static func optionsSuffix(_ options: NSComparisonPredicate.Options) -> String {
        var letters = ""
        if options.contains(.caseInsensitive) { letters += "c" }
        if options.contains(.diacriticInsensitive) { letters += "d" }
        if options.contains(.normalized) { letters += "n" }
        return letters.isEmpty ? "" : "[\(letters)]"
    }

    // MARK: Expressions

    func format(_ expression: NSExpression) -> String {
        switch expression.node {
        case .constant(let value):
            return formatConstant(value)
        case .evaluatedObject:
            return "SELF"
        case .variable(let name):
            return "$" + name
        case .keyPath(let path):
            return Self.escapeKeyPath(path)
        case .keyPathOn(let base, let path):
            return postfixOperand(base) + "." + Self.escapeKeyPath(path)
        case .function(let name, let arguments):
            return formatFunction(name, arguments)
        case .functionOn(let target, let selector, let arguments):
            // Apple puts a space before the comma that follows the selector:
            // `FUNCTION(a, "pow:" , 3)`, but `FUNCTION("a", "uppercase")`.
            let head = "FUNCTION(" + format(target) + ", " + Self.quote(selector)
            if arguments.isEmpty { return head + ")" }
            return head + " , " + arguments.map(format).joined(separator: ", ") + ")"
        case .symbolic(let symbol):
            return symbol.rawValue
        case .aggregate(let items):
            return "{" + items.map(format).joined(separator: ", ") + "}"
        case .unionSet(let l, let r):
            return setOperand(l) + " UNION " + setOperand(r)
        case .intersectSet(let l, let r):
            return setOperand(l) + " INTERSECT " + setOperand(r)
        case .minusSet(let l, let r):
            return setOperand(l) + " MINUS " + setOperand(r)
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(format(collection)), $\(variable), \(format(predicate)))"
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return "TERNARY(\(format(predicate)), \(format(whenTrue)), \(format(whenFalse)))"
        case .block(_, let arguments):
            let args = (arguments ?? []).map(format).joined(separator: ", ")
            return "BLOCK(\(Self.address(of: expression)), {\(args)})"
        case .anyKey:
            return "ANYKEY"
        case .fetch(let request, let context, let countOnly):
            return "FETCH(\(format(request)), \(format(context)), \(countOnly ? "YES" : "NO"))"
        }
    }

    /// The infix arithmetic functions, with their symbol and binding strength.
    private static let infixOperators: [String: (symbol: String, precedence: Int)] = [
        "add:to:": ("+", 1),
        "from:subtract:": ("-", 1),
        "multiply:by:": ("*", 2),
        "divide:by:": ("/", 2),
        "raise:toPower:": ("**", 3),
    ]

    /// How an expression binds when it appears as an operand: arithmetic has its precedence,
    /// set operations are looser than anything, everything else is an atom.
    private func precedence(of expression: NSExpression) -> Int {
        switch expression.node {
        case .function(let name, let arguments) where arguments.count == 2:
            return Self.infixOperators[name]?.precedence ?? Int.max
        case .unionSet, .intersectSet, .minusSet:
            return 0
        case .constant(let value) where Self.isNegativeNumber(value):
            return 4
        default:
            return Int.max
        }
    }

    private func formatFunction(_ name: String, _ arguments: [NSExpression]) -> String {
        if arguments.count == 2, let infix = Self.infixOperators[name] {
            let p = infix.precedence
            // `-` and `/` are left-associative, so a right operand of equal strength needs
            // parentheses; `**` gets them on both sides so that associativity never matters.
            let left = precedence(of: arguments[0])
            let right = precedence(of: arguments[1])
            let leftNeedsParens = left < p || (p == 3 && left <= 4)
            let rightNeedsParens = right <= p
            return wrap(arguments[0], leftNeedsParens) + " \(infix.symbol) " + wrap(arguments[1], rightNeedsParens)
        }
        if name == "objectFrom:withIndex:", arguments.count == 2 {
            return postfixOperand(arguments[0]) + "[" + format(arguments[1]) + "]"
        }
        if name == "castObject:toType:", arguments.count == 2 {
            return "CAST(" + format(arguments[0]) + ", " + format(arguments[1]) + ")"
        }
        return name + "(" + arguments.map(format).joined(separator: ", ") + ")"
    }

    private func wrap(_ expression: NSExpression, _ parenthesize: Bool) -> String {
        parenthesize ? "(" + format(expression) + ")" : format(expression)
    }

    /// An operand followed by `.key` or `[index]`: anything infix gets parentheses.
    private func postfixOperand(_ expression: NSExpression) -> String {
        wrap(expression, precedence(of: expression) != Int.max)
    }

    /// An operand of UNION, INTERSECT or MINUS: infix operands get parentheses.
    private func setOperand(_ expression: NSExpression) -> String {
        wrap(expression, precedence(of: expression) <= 3)
    }

    // MARK: Constants

    func formatConstant(_ value: Any?) -> String {
        guard let value = ValueComparison.unwrap(value) else { return "nil" }
        switch value {
        case is NSNull:
            return "<null>"
        case let string as String:
            return Self.quote(string)
        case let expression as NSExpression:
            return format(expression)
        case let predicate as NSPredicate:
            return format(predicate)
        case let bool as Bool:
            return bool ? "1" : "0"
        case let date as Date:
            return "CAST(" + String(format: "%f", date.timeIntervalSinceReferenceDate) + ", \"NSDate\")"
        case let array as [Any]:
            return "{" + array.map { formatConstant($0) }.joined(separator: ", ") + "}"
        case let set as Set<AnyHashable>:
            // A set has no order; sorting the printed elements makes the output stable.
            return "{" + set.map { formatConstant($0.base) }.sorted().joined(separator: ", ") + "}"
        default:
            return Self.formatNumber(value) ?? String(describing: value)
        }
    }

    /// Numbers as `NSNumber` prints them: integers plainly, integral doubles without `.0`,
    /// Booleans as `1`/`0`. Any width is read through ``NumericValue``.
    static func formatNumber(_ value: Any) -> String? {
        // A Float keeps its own shortest form: 0.1 rather than 0.10000000149011612.
        if let float = value as? Float { return formatFloatingPoint(Double(float), float.description) }
        switch NumericValue(value) {
        case .integer(let v): return String(v)
        case .unsigned(let v): return String(v)
        case .double(let v): return formatFloatingPoint(v, v.description)
        case .decimal(let v): return v.description
        case nil: return nil
        }
    }

    private static func formatFloatingPoint(_ value: Double, _ shortest: String) -> String {
        // Integral doubles print as integers while every integer is exact (below 2^53).
        if value.isFinite, value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        return shortest
    }

    private static func isNegativeNumber(_ value: Any?) -> Bool {
        guard let value = ValueComparison.unwrap(value), !(value is Bool), let text = formatNumber(value) else { return false }
        return text.hasPrefix("-")
    }

    // MARK: Lexical helpers

    /// A string literal in double quotes, with `"` and `\` escaped.
    static func quote(_ string: String) -> String {
        var text = "\""
        for character in string {
            switch character {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            default: text.append(character)
            }
        }
        return text + "\""
    }

    /// The words of the format grammar; a key path component spelled like one is escaped with `#`.
    static let reservedWords: Set<String> = [
        "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "CASEINSENSITIVE", "CI",
        "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE",
        "YES", "FALSE", "NO", "FIRST", "LAST", "SIZE", "ANYKEY", "SUBQUERY", "FETCH", "CAST",
        "TRUEPREDICATE", "FALSEPREDICATE", "UTI-CONFORMS-TO", "UTI-EQUALS", "FUNCTION", "TERNARY",
        "UNION", "INTERSECT", "MINUS",
    ]

    static func escapeKeyPath(_ path: String) -> String {
        path.split(separator: ".", omittingEmptySubsequences: false).map { component in
            reservedWords.contains(component.uppercased()) ? "#" + component : String(component)
        }.joined(separator: ".")
    }

    /// The object's address, as Apple prints blocks.
    private static func address(of object: AnyObject) -> String {
        "0x" + String(UInt(bitPattern: ObjectIdentifier(object).hashValue), radix: 16)
    }
}
