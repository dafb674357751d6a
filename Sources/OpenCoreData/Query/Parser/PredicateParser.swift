/// The parser of Apple's predicate and expression format syntax.
///
/// It follows "Predicate Format String Syntax" and "BNF Definition of Cocoa Predicates" of
/// Apple's Predicate Programming Guide and builds the AST documented on `NSExpression.Node`.
///
/// Predicate grammar, loosest binding first:
/// ```
/// predicate   := and (("OR" | "||") and)*             one flat OR compound
/// and         := not (("AND" | "&&") not)*            one flat AND compound
/// not         := ("NOT" | "!") not | primary
/// primary     := TRUEPREDICATE | FALSEPREDICATE | "(" predicate ")"
///              | ("ANY" | "SOME" | "ALL" | "NONE") comparison | comparison
/// comparison  := expression ["NOT"] operator ["[" options "]"] expression
/// operator    := == | = | != | <> | < | <= | =< | > | >= | => | BETWEEN | IN | CONTAINS
///              | BEGINSWITH | ENDSWITH | LIKE | MATCHES | UTI-CONFORMS-TO | UTI-EQUALS
/// ```
/// `NONE p` and `a NOT op b` become `NOT(ANY p)` and `NOT(a op b)`. The expression grammar is
/// in `PredicateParser+Expressions.swift`.
///
/// The parser is a recursive-descent parser over the tokens of ``PredicateLexer``. A `(` in
/// predicate position is tried first as a parenthesized predicate, then as the start of an
/// expression (`(a + b) > 3`); when both fail, the error that got further is reported.
struct PredicateParser {
    let format: String
    let tokens: [PredicateToken]
    var index = 0
    /// How deeply the parser has recursed, bounded so that hostile input cannot overflow the stack.
    var depth = 0
    static let maximumDepth = 100
    /// Set when a format nests deeper than ``maximumDepth``: the parse then fails at once,
    /// without trying the other reading of a `(`.
    var depthExceeded = false
    /// What reading a `(` in predicate position at a token index gave: the predicate and the
    /// index after it, or the error. A `(` in predicate position is read twice (as a predicate, then as an
    /// expression), and an expression can hold predicates again (`TERNARY(…)`), so without this
    /// the work doubles at every level: 117 characters of `TERNARY((((((…` took minutes.
    private var parenthesizedReadings: [Int: Result<(predicate: NSPredicate, end: Int), PredicateParseError>] = [:]

    /// The greatest height of a parsed tree (``NSExpression/depth``, ``NSPredicate/depth``).
    ///
    /// The evaluator, the formatter, equality, hashing, substitution and the SQL compilers walk
    /// trees recursively, so a tree's height must fit the smallest stack they run on: a secondary
    /// thread's 512 KB in a debug build. Operand chains (`1 + 1 + … + 1`, `x[0][0]…[0]`) are read
    /// iteratively but build a tree one level deeper per operand; a format whose tree would be
    /// taller than this is refused with a ``PredicateParseError`` at the operator that crosses the
    /// limit. Flat `AND` and `OR` chains are one level however long, and long key paths
    /// (`SELF.SELF.….a`) are one node, so both stay unlimited. No real predicate comes close.
    static let maximumTreeDepth = 200

    init(format: String, arguments: [Any?]) {
        self.format = format
        self.tokens = PredicateLexer.tokenize(format, arguments: arguments)
    }

    // MARK: Entry points

    /// Parses a whole predicate format string.
    static func parsePredicate(_ format: String, arguments: [Any?]) throws -> NSPredicate {
        var parser = PredicateParser(format: format, arguments: arguments)
        let predicate = try parser.predicate()
        try parser.expectEnd(expected: "AND, OR or the end of the format")
        try parser.checkDepth(predicate.depth, at: parser.tokens[0])
        return predicate
    }

    /// Parses a whole expression format string.
    static func parseExpression(_ format: String, arguments: [Any?]) throws -> NSExpression {
        var parser = PredicateParser(format: format, arguments: arguments)
        let expression = try parser.expression()
        try parser.expectEnd(expected: "an operator or the end of the format")
        try parser.checkDepth(expression.depth, at: parser.tokens[0])
        return expression
    }

    /// Refuses a tree taller than ``maximumTreeDepth``, reporting the column of `token`.
    func checkDepth(_ depth: Int, at token: PredicateToken) throws {
        guard depth > Self.maximumTreeDepth else { return }
        throw PredicateParseError(
            format: format, column: token.column,
            message: "the format nests more than \(Self.maximumTreeDepth) levels deep (a chain of that many operators or subscripts builds a tree that deep); split it or use an aggregate such as sum:({…})")
    }

    func checkDepth(_ expression: NSExpression, at token: PredicateToken) throws {
        try checkDepth(expression.depth, at: token)
    }

    // MARK: Token access

    var current: PredicateToken { tokens[index] }

    func peek(_ offset: Int) -> PredicateToken {
        tokens[min(index + offset, tokens.count - 1)]
    }

    mutating func advance() {
        if index < tokens.count - 1 { index += 1 }
    }

    /// Consumes the current token if it is `symbol`.
    mutating func accept(_ symbol: String) -> Bool {
        guard current.isSymbol(symbol) else { return false }
        advance()
        return true
    }

    /// Consumes `symbol` or throws "expected <symbol> after 'x' <context> but found …".
    mutating func expect(_ symbol: String, _ context: String? = nil) throws {
        guard accept(symbol) else { throw unexpected("'\(symbol)'", context: context) }
    }

    mutating func expectEnd(expected: String) throws {
        guard case .end = current.kind else { throw unexpected(expected) }
    }

    /// The error for an unexpected current token: "expected X after 'Y' <context> but found Z".
    ///
    /// A lexing problem at the current token (an unterminated string, a missing argument, a
    /// stray character) is reported as itself, since it is the real cause.
    func unexpected(_ expected: String, after: String? = nil, context: String? = nil) -> PredicateParseError {
        if case .invalid(let error) = current.kind { return error }
        var message = "expected \(expected)"
        if let after {
            message += " after \(after)"
        } else if index > 0 {
            message += " after \(Self.quote(tokens[index - 1].text))"
        }
        if let context { message += " " + context }
        message += " but found \(current.quoted)"
        return PredicateParseError(format: format, column: current.column, message: message)
    }

    /// An error at a given token.
    func error(_ message: String, at token: PredicateToken) -> PredicateParseError {
        PredicateParseError(format: format, column: token.column, message: message)
    }

    /// Source text in quotes for a message, unless it already is a quoted string.
    static func quote(_ text: String) -> String {
        if let first = text.first, first == "\"" || first == "'" { return text }
        return "'\(text)'"
    }

    // MARK: Predicates

    /// Runs `parse` one nesting level deeper, refusing formats nested more than
    /// ``maximumDepth`` levels (no real predicate comes close).
    mutating func nested<T>(_ parse: (inout PredicateParser) throws -> T) throws -> T {
        guard depth < Self.maximumDepth else {
            depthExceeded = true
            throw PredicateParseError(
                format: format, column: current.column,
                message: "the format nests more than \(Self.maximumDepth) levels deep")
        }
        depth += 1
        defer { depth -= 1 }
        return try parse(&self)
    }

    mutating func predicate() throws -> NSPredicate {
        try nested { try $0.orPredicate() }
    }

    private mutating func orPredicate() throws -> NSPredicate {
        var operands = [try andPredicate()]
        while current.isKeyword("OR") || current.isSymbol("||") {
            advance()
            operands.append(try andPredicate())
        }
        return Self.compound(.or, operands)
    }

    private mutating func andPredicate() throws -> NSPredicate {
        var operands = [try notPredicate()]
        while current.isKeyword("AND") || current.isSymbol("&&") {
            advance()
            operands.append(try notPredicate())
        }
        return Self.compound(.and, operands)
    }

    /// One AND or OR compound over all operands; operands of the same type are spliced in, so
    /// that `a AND (b AND c)` and `a AND b AND c` are the same three-operand compound.
    private static func compound(_ type: NSCompoundPredicate.LogicalType, _ operands: [NSPredicate]) -> NSPredicate {
        guard operands.count > 1 else { return operands[0] }
        var flat: [NSPredicate] = []
        for operand in operands {
            if let compound = operand as? NSCompoundPredicate, compound.compoundPredicateType == type {
                flat.append(contentsOf: compound.predicates)
            } else {
                flat.append(operand)
            }
        }
        return NSCompoundPredicate(type: type, subpredicates: flat)
    }

    private mutating func notPredicate() throws -> NSPredicate {
        if current.isKeyword("NOT") || current.isSymbol("!") {
            advance()
            return NSCompoundPredicate(type: .not, subpredicates: [try nested { try $0.notPredicate() }])
        }
        return try primaryPredicate()
    }

    private mutating func primaryPredicate() throws -> NSPredicate {
        switch current.keyword {
        case "TRUEPREDICATE":
            advance()
            return NSPredicate(value: true)
        case "FALSEPREDICATE":
            advance()
            return NSPredicate(value: false)
        case "ANY", "SOME":
            advance()
            return try comparison(modifier: .any)
        case "ALL":
            advance()
            return try comparison(modifier: .all)
        case "NONE":
            advance()
            return NSCompoundPredicate(type: .not, subpredicates: [try comparison(modifier: .any)])
        default:
            break
        }
        if current.isSymbol("(") { return try parenthesizedPredicate() }
        return try comparison(modifier: .direct)
    }

    /// `( predicate )`, or a comparison whose left expression starts with `(`. Each `(` is read
    /// once (``parenthesizedReadings``).
    private mutating func parenthesizedPredicate() throws -> NSPredicate {
        let start = index
        if let reading = parenthesizedReadings[start] {
            let read = try reading.get()
            index = read.end
            return read.predicate
        }
        do {
            let predicate = try readParenthesizedPredicate()
            parenthesizedReadings[start] = .success((predicate, index))
            return predicate
        } catch let error as PredicateParseError {
            parenthesizedReadings[start] = .failure(error)
            throw error
        }
    }

    private mutating func readParenthesizedPredicate() throws -> NSPredicate {
        let start = index
        let open = current
        let predicateError: PredicateParseError
        do {
            advance()
            let inner = try predicate()
            try expect(")", "to close the '(' at column \(open.column)")
            return inner
        } catch let error as PredicateParseError {
            if depthExceeded { throw error }
            predicateError = error
        }
        index = start
        do {
            return try comparison(modifier: .direct)
        } catch let error as PredicateParseError {
            // The attempt that got further explains the problem better; on a tie, the
            // expression reading does ("expected ')'" rather than "expected an operator").
            throw error.column >= predicateError.column ? error : predicateError
        }
    }

    // MARK: Comparisons

    static let symbolOperators: [String: NSComparisonPredicate.Operator] = [
        "=": .equalTo, "==": .equalTo,
        "!=": .notEqualTo, "<>": .notEqualTo,
        "<": .lessThan, ">": .greaterThan,
        "<=": .lessThanOrEqualTo, "=<": .lessThanOrEqualTo,
        ">=": .greaterThanOrEqualTo, "=>": .greaterThanOrEqualTo,
    ]

    private static let keywordOperators: [String: NSComparisonPredicate.Operator] = [
        "BETWEEN": .between, "IN": .in, "CONTAINS": .contains, "BEGINSWITH": .beginsWith,
        "ENDSWITH": .endsWith, "LIKE": .like, "MATCHES": .matches,
    ]

    /// The hyphenated operators, as their words: `UTI-CONFORMS-TO` and `UTI-EQUALS`.
    private static let hyphenatedOperators: [(words: [String], type: NSComparisonPredicate.Operator)] = [
        (["UTI", "CONFORMS", "TO"], .utiConformsTo), (["UTI", "EQUALS"], .utiEquals),
    ]

    /// The operator starting `offset` tokens ahead and how many tokens it spans, or nil.
    ///
    /// `UTI-CONFORMS-TO` and `UTI-EQUALS` lex as words and `-` signs; they are operators only
    /// when written without spaces, as Apple spells them (case-insensitively).
    private func comparisonOperator(at offset: Int) -> (type: NSComparisonPredicate.Operator, tokens: Int)? {
        let token = peek(offset)
        if case .symbol(let symbol) = token.kind { return Self.symbolOperators[symbol].map { ($0, 1) } }
        guard let keyword = token.keyword else { return nil }
        if let type = Self.keywordOperators[keyword] { return (type, 1) }
        for (words, type) in Self.hyphenatedOperators where words[0] == keyword {
            var column = token.column + token.text.count
            var matched = true
            for (i, word) in words.dropFirst().enumerated() {
                let dash = peek(offset + 2 * i + 1), next = peek(offset + 2 * i + 2)
                guard dash.isSymbol("-"), dash.column == column, next.keyword == word, next.column == column + 1 else {
                    matched = false
                    break
                }
                column = next.column + next.text.count
            }
            if matched { return (type, 2 * words.count - 1) }
        }
        return nil
    }

    private static let expectedOperator =
        "a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES, UTI-CONFORMS-TO or UTI-EQUALS)"

    private mutating func comparison(modifier: NSComparisonPredicate.Modifier) throws -> NSPredicate {
        let lhs = try expression()
        // `a NOT IN b` and the like read as `NOT (a IN b)`.
        var negated = false
        if current.isKeyword("NOT"), comparisonOperator(at: 1) != nil {
            negated = true
            advance()
        }
        guard let (type, tokenCount) = comparisonOperator(at: 0) else { throw unexpected(Self.expectedOperator) }
        let operatorToken = current
        let operatorText = (0..<tokenCount).map { peek($0).text }.joined()
        for _ in 0..<tokenCount { advance() }
        let (options, letters) = try comparisonOptions(after: operatorToken)
        let spelled = operatorText + (letters.map { "[\($0)]" } ?? "")
        if case .end = current.kind { throw unexpected("an expression", after: Self.quote(spelled)) }
        let rhs = try expression()
        let comparison = NSComparisonPredicate(
            leftExpression: lhs, rightExpression: rhs, modifier: modifier, type: type, options: options)
        return negated ? NSCompoundPredicate(type: .not, subpredicates: [comparison]) : comparison
    }

    /// `[c]`, `[d]`, `[n]` and any combination such as `[cd]`, after an operator.
    private mutating func comparisonOptions(
        after operatorToken: PredicateToken
    ) throws -> (NSComparisonPredicate.Options, letters: String?) {
        guard accept("[") else { return ([], nil) }
        guard case .identifier(let letters) = current.kind, !PredicateToken.hasColon(letters) else {
            throw unexpected("comparison options such as c, d, n or cd")
        }
        var options: NSComparisonPredicate.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            default:
                throw error("unknown comparison option '\(letter)' in '[\(letters)]'; expected c, d or n", at: current)
            }
        }
        advance()
        try expect("]", "to close the options of \(Self.quote(operatorToken.text))")
        return (options, letters)
    }
}
