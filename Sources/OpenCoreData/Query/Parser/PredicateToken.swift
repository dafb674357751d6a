/// One token of a predicate or expression format string.
///
/// Format arguments (`%@`, `%K`, `%d`, …) are bound while lexing, in the order they appear
/// outside quoted strings, so the parser can backtrack freely without consuming arguments twice.
/// A lexing problem (an unterminated string, a missing argument) becomes an `.invalid` token that
/// the parser throws only when it reaches it, so errors are reported in textual order.
struct PredicateToken {
    enum Kind {
        /// A bare word: a key, a keyword, or a function name, possibly with colons (`add:to:`).
        case identifier(String)
        /// A `#`-escaped key, without the `#`.
        case escapedKey(String)
        /// A collection operator or `@`-key, with its `@`.
        case atKey(String)
        /// A `$VARIABLE`, without the `$`.
        case variable(String)
        case string(String)
        case number(Any)
        /// A `%@`, `%d`, `%f`, … argument, already turned into an expression.
        case argument(NSExpression)
        /// A `%K` argument: a key path.
        case keyPathArgument(String)
        /// Punctuation and operators: `(`, `)`, `{`, `}`, `[`, `]`, `,`, `.`, `==`, `**`, `%`, …
        case symbol(String)
        case invalid(PredicateParseError)
        case end
    }

    let kind: Kind
    /// The source text of the token, for error messages.
    let text: String
    /// The 1-based column of the token's first character.
    let column: Int
    /// The keyword this token spells, uppercased, if it is a bare word without colons: made
    /// once here, since the parser asks every token for it at several levels.
    let keyword: String?

    init(kind: Kind, text: String, column: Int) {
        self.kind = kind
        self.text = text
        self.column = column
        if case .identifier(let name) = kind, !PredicateToken.hasColon(name) {
            keyword = name.uppercased()
        } else {
            keyword = nil
        }
    }

    /// Whether `name` has a colon (a selector such as `add:to:`): its UTF-8 bytes are searched,
    /// where `String.contains(":")` is Foundation's `range(of:)` (about 3,000 instructions).
    static func hasColon(_ name: String) -> Bool { name.utf8.contains(UInt8(ascii: ":")) }

    /// The token as an error message names it.
    var quoted: String {
        if case .end = kind { return "end of input" }
        return "'\(text)'"
    }

    /// Whether the token is the given symbol.
    func isSymbol(_ symbol: String) -> Bool {
        if case .symbol(let s) = kind { return s == symbol }
        return false
    }

    /// Whether the token is the given keyword (case-insensitive).
    func isKeyword(_ word: String) -> Bool { keyword == word }
}
