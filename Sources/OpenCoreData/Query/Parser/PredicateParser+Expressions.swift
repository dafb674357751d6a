/// The expression grammar, loosest binding first:
/// ```
/// expression  := bitOr (("UNION" | "INTERSECT" | "MINUS") bitOr)*
/// bitOr       := bitXor ("|" bitXor)*                       bitwiseOr:with:
/// bitXor      := bitAnd ("^" bitAnd)*                       bitwiseXor:with:
/// bitAnd      := shift ("&" shift)*                         bitwiseAnd:with:
/// shift       := additive (("<<" | ">>") additive)*         leftshift:by:, rightshift:by:
/// additive    := product (("+" | "-") product)*
/// product     := power (("*" | "/" | "%%") power)*
/// power       := unary ["**" power]                         right-associative
/// unary       := "-" unary | "~" unary | postfix            -literal folds to a constant;
///                                                           ~x is onesComplement:(x)
/// postfix     := primary ("[" index "]" | "." keypath)*
/// primary     := number | string | %@ | %d | %f | … | $variable | keypath
///              | NULL | NIL | TRUE | YES | FALSE | NO | SELF | ANYKEY | "<null>"
///              | "{" [expression ("," expression)*] "}" | "(" expression ")"
///              | SUBQUERY "(" expression "," $variable "," predicate ")"
///              | FUNCTION "(" expression "," selector ["," expression]* ")"
///              | TERNARY "(" predicate "," expression "," expression ")"
///              | FETCH "(" expression "," expression "," (YES | NO) ")"
///              | CAST "(" expression "," type ")"
///              | function "(" [expression ("," expression)*] ")"
/// keypath     := key ("." key)*      key := word | #word | @word | %K
/// index       := FIRST | LAST | SIZE | expression
/// ```
///
/// The bitwise operators are not in Apple's documented grammar (its BNF leaves
/// `binary_expression` open), but format strings in real apps use them (`%K & %d == 0`,
/// `(flags & 4) != 0`). They read as the built-in functions `bitwiseAnd:with:`,
/// `bitwiseOr:with:`, `bitwiseXor:with:`, `leftshift:by:`, `rightshift:by:` and
/// `onesComplement:`, with C's relative precedence (shifts bind tighter than `&`, then `^`,
/// then `|`), all tighter than the comparison, so `flags & 4 == 0` is `(flags & 4) == 0`.
/// `predicateFormat` prints them in function form (`bitwiseAnd:with:(flags, 4)`), which parses
/// back to the same tree; `&&` and `||` stay the logical AND and OR.
extension PredicateParser {
    mutating func expression() throws -> NSExpression {
        try nested { try $0.setExpression() }
    }

    private mutating func setExpression() throws -> NSExpression {
        if let operand = loneOperand() { return operand }
        var left = try bitwise(0)
        while let keyword = current.keyword, Self.setOperators.contains(keyword) {
            let operatorToken = current
            advance()
            let right = try operand(after: operatorToken) { try $0.bitwise(0) }
            switch keyword {
            case "UNION": left = NSExpression(node: .unionSet(left, right))
            case "INTERSECT": left = NSExpression(node: .intersectSet(left, right))
            default: left = NSExpression(node: .minusSet(left, right))
            }
        }
        return left
    }

    /// The current token as the whole expression, consumed, when it is a plain operand (a
    /// format argument, a number, a string or a key) that no operator of the expression grammar
    /// follows; nil otherwise. It is what the levels below read for such a token (the
    /// predicate's `a >= %@` is two of them), without descending through the ten of them, each
    /// copying the current token to look at it: about 3,500 instructions an operand.
    private mutating func loneOperand() -> NSExpression? {
        guard Self.endsOperand(peek(1)) else { return nil }
        let operand: NSExpression
        switch current.kind {
        case .argument(let expression): operand = expression
        case .number(let value): operand = NSExpression(node: .constant(value))
        case .string(let value): operand = NSExpression(node: .constant(value))
        case .keyPathArgument(let key), .escapedKey(let key): operand = NSExpression(node: .keyPath(key))
        case .identifier(let key):
            // A word with a colon (a selector) has no keyword; literal and reserved words are
            // read by `word(_:)`.
            guard let keyword = current.keyword, !Self.wordsThatAreNotKeys.contains(keyword) else { return nil }
            operand = NSExpression(node: .keyPath(key))
        default: return nil
        }
        advance()
        return operand
    }

    /// The words ``word(_:)`` does not read as a key when no `(` follows: literals, `SELF`,
    /// `ANYKEY` and the reserved words.
    private static let wordsThatAreNotKeys = reservedWords.union(["NULL", "NIL", "TRUE", "YES", "FALSE", "NO", "SELF", "ANYKEY"])

    /// The words that continue an expression as set operators (``setExpression()``).
    private static let setOperators = ["UNION", "INTERSECT", "MINUS"]

    /// The symbols that end an expression after an operand: the comparison operators (the
    /// parser's own table), `&&`, `||`, closing brackets and the comma.
    private static let symbolsEndingAnOperand = Set(symbolOperators.keys).union(["&&", "||", ")", "]", "}", ","])

    /// Whether `token`, after an operand, ends the expression: the end, one of
    /// ``symbolsEndingAnOperand``, or a word other than a set operator (no other word continues
    /// an expression: `AND`, `NOT`, `IN`, `UTI-CONFORMS-TO`, … are read by the predicate
    /// grammar). Anything else (an arithmetic or bitwise operator, `[`, `.`, `(`, a literal
    /// after an operand, …) goes through the whole grammar, which reads it or reports it.
    private static func endsOperand(_ token: PredicateToken) -> Bool {
        switch token.kind {
        case .end: return true
        case .symbol(let symbol): return symbolsEndingAnOperand.contains(symbol)
        case .identifier: return !setOperators.contains(token.keyword ?? "")
        default: return false
        }
    }

    /// The right operand of a binary operator, with "expected an expression after '+'" on failure.
    private mutating func operand(
        after operatorToken: PredicateToken,
        _ parse: (inout PredicateParser) throws -> NSExpression
    ) throws -> NSExpression {
        if case .end = current.kind { throw unexpected("an expression", after: Self.quote(operatorToken.text)) }
        return try parse(&self)
    }

    /// How many levels of bitwise operators there are (see ``bitwiseFunction(_:level:)``).
    private static let bitwiseLevelCount = 4

    /// The function of bitwise operator `symbol` at binding level `level` (loosest first: `|`,
    /// `^`, `&`, then `<<` and `>>`), nil when it is not one of that level. A switch over
    /// literals, not a dictionary: every operand passes each level once and compares the symbol
    /// after it, and hashing a string costs more than comparing it with a few small ones.
    private static func bitwiseFunction(_ symbol: String, level: Int) -> String? {
        switch (level, symbol) {
        case (0, "|"): return "bitwiseOr:with:"
        case (1, "^"): return "bitwiseXor:with:"
        case (2, "&"): return "bitwiseAnd:with:"
        case (3, "<<"): return "leftshift:by:"
        case (3, ">>"): return "rightshift:by:"
        default: return nil
        }
    }

    /// One level of the bitwise operators, left-associative; past the last level, `additive`.
    private mutating func bitwise(_ level: Int) throws -> NSExpression {
        guard level < Self.bitwiseLevelCount else { return try additive() }
        var left = try bitwise(level + 1)
        while case .symbol(let symbol) = current.kind, let function = Self.bitwiseFunction(symbol, level: level) {
            let operatorToken = current
            advance()
            let right = try operand(after: operatorToken) { try $0.bitwise(level + 1) }
            left = try built(.function(function, [left, right]), at: operatorToken)
        }
        return left
    }

    /// The function of additive operator `symbol`, nil for another symbol (a switch, as in
    /// ``bitwiseFunction(_:level:)``).
    private static func additiveFunction(_ symbol: String) -> String? {
        switch symbol {
        case "+": return "add:to:"
        case "-": return "from:subtract:"
        default: return nil
        }
    }

    /// The function of multiplicative operator `symbol`, nil for another symbol.
    private static func productFunction(_ symbol: String) -> String? {
        switch symbol {
        case "*": return "multiply:by:"
        case "/": return "divide:by:"
        case "%": return "modulus:by:"
        default: return nil
        }
    }

    private mutating func additive() throws -> NSExpression {
        var left = try product()
        while case .symbol(let symbol) = current.kind, let function = Self.additiveFunction(symbol) {
            let operatorToken = current
            advance()
            let right = try operand(after: operatorToken) { try $0.product() }
            left = try built(.function(function, [left, right]), at: operatorToken)
        }
        return left
    }

    private mutating func product() throws -> NSExpression {
        var left = try power()
        while case .symbol(let symbol) = current.kind, let function = Self.productFunction(symbol) {
            let operatorToken = current
            advance()
            let right = try operand(after: operatorToken) { try $0.power() }
            left = try built(.function(function, [left, right]), at: operatorToken)
        }
        return left
    }

    private mutating func power() throws -> NSExpression {
        let base = try unary()
        guard current.isSymbol("**") else { return base }
        let operatorToken = current
        advance()
        let exponent = try operand(after: operatorToken) { try $0.nested { try $0.power() } }
        return NSExpression(node: .function("raise:toPower:", [base, exponent]))
    }

    /// Unary minus: a numeric constant is negated in place; anything else is `0 - x`.
    private mutating func unary() throws -> NSExpression {
        if current.isSymbol("~") {
            let operatorToken = current
            advance()
            let value = try operand(after: operatorToken) { try $0.nested { try $0.unary() } }
            return NSExpression(node: .function("onesComplement:", [value]))
        }
        guard current.isSymbol("-") else { return try postfix() }
        let operatorToken = current
        advance()
        let value = try operand(after: operatorToken) { try $0.nested { try $0.unary() } }
        if case .constant(let constant) = value.node, let negated = Self.negate(constant) {
            return NSExpression(node: .constant(negated))
        }
        return NSExpression(node: .function("from:subtract:", [NSExpression(node: .constant(0)), value]))
    }

    /// The negation of a numeric constant, keeping its type; `nil` for anything else.
    static func negate(_ value: Any?) -> Any? {
        switch value {
        case let v as Int where v != .min: return -v
        case let v as Double: return -v
        case let v as UInt64 where v == UInt64(Int64.max) + 1: return Int.min
        case let v as UInt64: return -Double(v)
        case let v as Float: return -v
        case let v as Int64 where v != .min: return -v
        case let v as Int32 where v != .min: return -v
        case let v as Int16 where v != .min: return -v
        case let v as Int8 where v != .min: return -v
        case let v as Decimal: return -v
        default: return nil
        }
    }

    // MARK: Postfix: indexes and key paths

    private mutating func postfix() throws -> NSExpression {
        var base = try primary()
        while true {
            let token = current
            if current.isSymbol("[") {
                base = try subscripted(base)
            } else if try atDotAndKey() {
                advance()
                base = Self.appending(try keyPath(), to: base)
            } else {
                return base
            }
            try checkDepth(base, at: token)
        }
    }

    /// A node built by one of the loops that chain operands (`a + b + …`, `x[0][0]…`): the
    /// loops read any number of operands without recursing, but the tree they build grows one
    /// level per operand, and evaluating, printing, comparing and compiling it recurse.
    mutating func built(_ node: NSExpression.Node, at token: PredicateToken) throws -> NSExpression {
        let expression = NSExpression(node: node)
        try checkDepth(expression, at: token)
        return expression
    }

    /// `base[FIRST]`, `base[LAST]`, `base[SIZE]`, `base[n]`, `base["key"]`.
    private mutating func subscripted(_ base: NSExpression) throws -> NSExpression {
        let open = current
        advance()
        let index: NSExpression
        if let keyword = current.keyword, let symbol = NSExpression.Symbol(rawValue: keyword), peek(1).isSymbol("]") {
            advance()
            index = NSExpression(node: .symbolic(symbol))
        } else {
            if current.isSymbol("]") || isAtEnd { throw unexpected("an index (a number, a key, FIRST, LAST or SIZE)") }
            index = try expression()
        }
        try expect("]", "to close the '[' at column \(open.column)")
        return NSExpression(node: .function("objectFrom:withIndex:", [base, index]))
    }

    private var isAtEnd: Bool {
        if case .end = current.kind { return true }
        return false
    }

    /// A key path continuing `base`: merged into a plain key path, or `.keyPathOn(base, path)`.
    static func appending(_ path: String, to base: NSExpression) -> NSExpression {
        switch base.node {
        case .keyPath(let prefix): return NSExpression(node: .keyPath(prefix + "." + path))
        case .evaluatedObject: return NSExpression(node: .keyPath(path))
        case .keyPathOn(let inner, let prefix): return NSExpression(node: .keyPathOn(inner, prefix + "." + path))
        default: return NSExpression(node: .keyPathOn(base, path))
        }
    }

    static func isKeyStart(_ token: PredicateToken) -> Bool {
        switch token.kind {
        case .identifier(let name): return !PredicateToken.hasColon(name)
        case .escapedKey, .atKey, .keyPathArgument: return true
        default: return false
        }
    }

    /// Whether a `.` and a key follow; a `.` followed by a malformed token (`a.@`) throws the
    /// token's own error.
    private func atDotAndKey() throws -> Bool {
        guard current.isSymbol(".") else { return false }
        let next = peek(1)
        if case .invalid(let error) = next.kind { throw error }
        return Self.isKeyStart(next)
    }

    /// `key(.key)*` from the current token, which is a key start; keywords are keys after a dot.
    private mutating func keyPath() throws -> String {
        let first = try key()
        guard try atDotAndKey() else { return first }
        var components = [first]
        while try atDotAndKey() {
            advance()
            components.append(try key())
        }
        return components.joined(separator: ".")
    }

    private mutating func key() throws -> String {
        switch current.kind {
        case .identifier(let name) where !PredicateToken.hasColon(name):
            advance()
            return name
        case .escapedKey(let name), .atKey(let name), .keyPathArgument(let name):
            advance()
            return name
        default:
            throw unexpected("a key")
        }
    }

    // MARK: Primaries

    /// Words that cannot start an expression unless escaped with `#`.
    private static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "ALL", "ANY", "SOME", "NONE", "LIKE", "MATCHES", "CONTAINS",
        "BEGINSWITH", "ENDSWITH", "BETWEEN", "TRUEPREDICATE", "FALSEPREDICATE", "UNION",
        "INTERSECT", "MINUS",
    ]

    private mutating func primary() throws -> NSExpression {
        let token = current
        switch token.kind {
        case .number(let value):
            advance()
            return NSExpression(node: .constant(value))
        case .string(let value):
            advance()
            return NSExpression(node: .constant(value))
        case .argument(let expression):
            advance()
            return expression
        case .variable(let name):
            advance()
            if current.isSymbol(":=") {
                throw error("assignment expressions ($\(name) := …) are not supported; bind variables with withSubstitutionVariables(_:) instead", at: current)
            }
            return NSExpression(node: .variable(name))
        case .escapedKey, .atKey, .keyPathArgument:
            return NSExpression(node: .keyPath(try keyPath()))
        case .identifier(let name):
            return try word(name)
        case .symbol("{"):
            advance()
            return NSExpression(node: .aggregate(try list(closing: "}", opened: token)))
        case .symbol("<") where peek(1).keyword == "NULL" && peek(2).isSymbol(">"):
            // `<null>` is how Apple's predicateFormat prints an NSNull constant. Apple's parser
            // rejects it; ours reads it back so that a printed predicate parses to an equal one.
            advance(); advance(); advance()
            return NSExpression(node: .constant(NSNull()))
        case .symbol("("):
            advance()
            let inner = try expression()
            try expect(")", "to close the '(' at column \(token.column)")
            return inner
        default:
            throw unexpected("an expression")
        }
    }

    /// A bare word: a literal keyword, a special form, a function call, or a key path.
    private mutating func word(_ name: String) throws -> NSExpression {
        let isCall = peek(1).isSymbol("(")
        // The current token is the word: its keyword is already uppercased.
        let upper = current.keyword ?? name.uppercased()
        if isCall {
            switch upper {
            case "SUBQUERY": return try subquery()
            case "FUNCTION": return try functionOn()
            case "TERNARY": return try ternary()
            case "FETCH": return try fetch()
            case "CAST": return try cast()
            default: return try builtInCall(name)
            }
        }
        if PredicateToken.hasColon(name) { throw error("expected '(' after the function name '\(name)'", at: peek(1)) }
        switch upper {
        case "NULL", "NIL":
            advance()
            return NSExpression(node: .constant(nil))
        case "TRUE", "YES":
            advance()
            return NSExpression(node: .constant(true))
        case "FALSE", "NO":
            advance()
            return NSExpression(node: .constant(false))
        case "SELF":
            advance()
            return NSExpression(node: .evaluatedObject)
        case "ANYKEY":
            advance()
            return NSExpression(node: .anyKey)
        case let keyword where Self.reservedWords.contains(keyword):
            throw unexpected("an expression")
        default:
            return NSExpression(node: .keyPath(try keyPath()))
        }
    }

    /// `expression ("," expression)*` up to `closing`, after the opening token was consumed.
    private mutating func list(closing: String, opened: PredicateToken) throws -> [NSExpression] {
        var items: [NSExpression] = []
        if accept(closing) { return items }
        while true {
            items.append(try expression())
            if accept(closing) { return items }
            guard accept(",") else {
                throw unexpected("',' or '\(closing)'", context: "to close the '\(opened.text)' at column \(opened.column)")
            }
        }
    }

    /// `name(args…)` for a built-in function; the name is resolved to its selector.
    private mutating func builtInCall(_ name: String) throws -> NSExpression {
        let nameToken = current
        advance()
        let open = current
        advance()
        let arguments = try list(closing: ")", opened: open)
        switch BuiltInFunctions.resolve(name, argumentCount: arguments.count) {
        case .success(let selector): return NSExpression(node: .function(selector, arguments))
        case .failure(let failure): throw error(failure.message, at: nameToken)
        }
    }

    /// Consumes `KEYWORD (` and returns the `(` token.
    private mutating func openSpecialForm() -> PredicateToken {
        advance()
        let open = current
        advance()
        return open
    }

    private mutating func closeSpecialForm(_ name: String, opened open: PredicateToken) throws {
        try expect(")", "to close \(name)( at column \(open.column)")
    }

    /// `SUBQUERY(collection, $x, predicate)`.
    private mutating func subquery() throws -> NSExpression {
        let open = openSpecialForm()
        let collection = try expression()
        try expect(",", "in SUBQUERY(collection, $variable, predicate)")
        guard case .variable(let variable) = current.kind else {
            throw unexpected("an iterator variable such as $x", context: "as the second argument of SUBQUERY")
        }
        advance()
        try expect(",", "in SUBQUERY(collection, $variable, predicate)")
        let predicate = try predicate()
        try closeSpecialForm("SUBQUERY", opened: open)
        return NSExpression(node: .subquery(collection, variable, predicate))
    }

    /// `FUNCTION(receiver, 'selector:', arguments…)`.
    private mutating func functionOn() throws -> NSExpression {
        let open = openSpecialForm()
        let receiver = try expression()
        try expect(",", "in FUNCTION(receiver, 'selector', arguments…)")
        let selector = try stringArgument("a selector name string such as 'lengthOfString:'")
        var arguments: [NSExpression] = []
        while accept(",") {
            arguments.append(try expression())
        }
        try closeSpecialForm("FUNCTION", opened: open)
        return NSExpression(node: .functionOn(receiver, selector, arguments))
    }

    /// `TERNARY(predicate, trueExpression, falseExpression)`.
    private mutating func ternary() throws -> NSExpression {
        let open = openSpecialForm()
        let condition = try predicate()
        try expect(",", "in TERNARY(predicate, trueValue, falseValue)")
        let whenTrue = try expression()
        try expect(",", "in TERNARY(predicate, trueValue, falseValue)")
        let whenFalse = try expression()
        try closeSpecialForm("TERNARY", opened: open)
        return NSExpression(node: .conditional(condition, whenTrue, whenFalse))
    }

    /// `FETCH(request, context, countOnly)`, Core Data's `NSFetchRequestExpression`; the last
    /// argument is a boolean constant (`YES`/`NO`, `TRUE`/`FALSE`).
    private mutating func fetch() throws -> NSExpression {
        let open = openSpecialForm()
        let request = try expression()
        try expect(",", "in FETCH(request, context, countOnly)")
        let context = try expression()
        try expect(",", "in FETCH(request, context, countOnly)")
        let flagToken = current
        let flag = try expression()
        guard case .constant(let value) = flag.node, let countOnly = value as? Bool else {
            throw error("the third argument of FETCH must be YES or NO", at: flagToken)
        }
        try closeSpecialForm("FETCH", opened: open)
        return NSFetchRequestExpression(node: .fetch(request, context, countOnly: countOnly))
    }

    /// The class names `CAST` converts to.
    static let castTypes: Set<String> = ["NSDate", "NSNumber", "NSString", "NSDecimalNumber"]

    /// `CAST(value, 'NSDate')`, the function `castObject:toType:`.
    ///
    /// `CAST(<number>, 'NSDate')` with a constant number is a `Date` constant (seconds since
    /// 2001-01-01 UTC), because that is how `predicateFormat` prints a date constant: the fold
    /// makes a printed predicate parse back to an equal tree.
    private mutating func cast() throws -> NSExpression {
        let open = openSpecialForm()
        let value = try expression()
        try expect(",", "in CAST(value, 'type')")
        let typeToken = current
        let type = try stringArgument("a class name string such as 'NSDate', 'NSNumber' or 'NSString'")
        guard Self.castTypes.contains(type) else {
            throw error("CAST converts to 'NSDate', 'NSNumber', 'NSString' or 'NSDecimalNumber', not '\(type)'", at: typeToken)
        }
        try closeSpecialForm("CAST", opened: open)
        if type == "NSDate", case .constant(let constant) = value.node, let seconds = Self.dateSeconds(constant) {
            return NSExpression(node: .constant(Date(timeIntervalSinceReferenceDate: seconds)))
        }
        return NSExpression(node: .function("castObject:toType:", [value, NSExpression(node: .constant(type))]))
    }

    /// The seconds of a numeric constant cast to a date; `nil` for anything else.
    private static func dateSeconds(_ value: Any?) -> Double? {
        guard let value, !(value is Bool), !(value is String) else { return nil }
        return FormatSpecifier.double(value)
    }

    /// A quoted string, or a `%@` argument holding a string.
    private mutating func stringArgument(_ expected: String) throws -> String {
        switch current.kind {
        case .string(let value):
            advance()
            return value
        case .argument(let expression):
            if case .constant(let value) = expression.node, let string = FormatSpecifier.string(value) {
                advance()
                return string
            }
        default:
            break
        }
        throw unexpected(expected)
    }
}
