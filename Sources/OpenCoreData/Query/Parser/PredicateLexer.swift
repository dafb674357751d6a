/// Splits a format string into ``PredicateToken``s and binds its format arguments.
///
/// Columns count `Character`s, 1-based. Quoted strings are taken verbatim apart from their
/// escapes: `%@`, `%K` and `$VARIABLE` inside quotes are not substituted, as in Apple's parser.
/// The first problem found ends the token list with an `.invalid` token (then `.end`).
struct PredicateLexer {
    let format: String
    /// Each character of the format; empty when ``isASCII`` (``character(at:)`` makes them
    /// from ``codes`` then: an array of `Character`s cost about a hundred instructions a
    /// character to build, more than lexing a short format).
    private let chars: [Character]
    /// The ASCII code of each character, ``nonASCII`` for any other: the common checks
    /// (whitespace, letters, digits, symbols) read these bytes instead of asking `Character`
    /// for Unicode properties.
    private let codes: [UInt8]
    /// Whether every character is one ASCII byte, as in nearly every format.
    private let isASCII: Bool
    private var position = 0
    private let arguments: [Any?]
    private var nextArgument = 0

    private static let nonASCII: UInt8 = 0x80

    init(format: String, arguments: [Any?]) {
        self.format = format
        // An ASCII string without carriage returns has one character per byte ("\r\n" is one
        // character): no grapheme breaking needed.
        isASCII = format.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D }
        if isASCII {
            codes = Array(format.utf8)
            chars = []
        } else {
            chars = Array(format)
            codes = chars.map { c in c.unicodeScalars.count == 1 && c.isASCII ? c.asciiValue ?? Self.nonASCII : Self.nonASCII }
        }
        self.arguments = arguments
    }

    /// All tokens, ending with `.end`.
    static func tokenize(_ format: String, arguments: [Any?]) -> [PredicateToken] {
        var lexer = PredicateLexer(format: format, arguments: arguments)
        var tokens: [PredicateToken] = []
        while true {
            let token = lexer.nextToken()
            tokens.append(token)
            switch token.kind {
            case .end: return tokens
            case .invalid:
                tokens.append(PredicateToken(kind: .end, text: "", column: lexer.codes.count + 1))
                return tokens
            default: continue
            }
        }
    }

    // MARK: Scanning

    private func peek(_ offset: Int = 0) -> Character? {
        let i = position + offset
        return i < codes.count ? character(at: i) : nil
    }

    /// The character at index `i` (in range).
    private func character(at i: Int) -> Character {
        isASCII ? Character(Unicode.Scalar(codes[i])) : chars[i]
    }

    /// The source text of the characters in `range`.
    private func text(in range: Range<Int>) -> String {
        if isASCII || codes[range].allSatisfy({ $0 != Self.nonASCII }) {
            return String(decoding: codes[range], as: UTF8.self)
        }
        return String(chars[range])
    }

    /// The ASCII code at `position + offset` (``nonASCII`` for another character), nil at the end.
    private func code(_ offset: Int = 0) -> UInt8? {
        let i = position + offset
        return i < codes.count ? codes[i] : nil
    }

    private func text(from start: Int) -> String {
        text(in: start..<position)
    }

    private func token(_ kind: PredicateToken.Kind, from start: Int) -> PredicateToken {
        PredicateToken(kind: kind, text: text(from: start), column: start + 1)
    }

    private func invalid(_ message: String, at index: Int) -> PredicateToken {
        let error = PredicateParseError(format: format, column: index + 1, message: message)
        return PredicateToken(kind: .invalid(error), text: "", column: index + 1)
    }

    static func isIdentifierStart(_ c: Character) -> Bool { c == "_" || c.isLetter }
    static func isIdentifierPart(_ c: Character) -> Bool { c == "_" || c.isLetter || c.isNumber }

    private static func isASCIILetter(_ code: UInt8) -> Bool { (0x41...0x5A).contains(code) || (0x61...0x7A).contains(code) }
    private static func isASCIIDigit(_ code: UInt8) -> Bool { (0x30...0x39).contains(code) }

    /// ``isIdentifierStart(_:)`` of the character at `position + offset`.
    private func isIdentifierStart(at offset: Int = 0) -> Bool {
        guard let code = code(offset) else { return false }
        if code != Self.nonASCII { return code == 0x5F || Self.isASCIILetter(code) }
        return Self.isIdentifierStart(character(at: position + offset))
    }

    /// ``isIdentifierPart(_:)`` of the character at `position`.
    private func isIdentifierPart() -> Bool {
        guard let code = code() else { return false }
        if code != Self.nonASCII { return code == 0x5F || Self.isASCIILetter(code) || Self.isASCIIDigit(code) }
        return Self.isIdentifierPart(character(at: position))
    }

    /// Whether the character at `position` is an ASCII digit.
    private func isDigit(at offset: Int = 0) -> Bool { code(offset).map(Self.isASCIIDigit) ?? false }

    private func isWhitespace() -> Bool {
        guard let code = code() else { return false }
        if code != Self.nonASCII { return code == 0x20 || (0x09...0x0D).contains(code) }
        return character(at: position).isWhitespace
    }

    private mutating func nextToken() -> PredicateToken {
        while isWhitespace() { position += 1 }
        let start = position
        // By ASCII code: a non-ASCII character is a letter (read above) or a stray symbol.
        guard let code = code() else { return PredicateToken(kind: .end, text: "", column: start + 1) }

        if isIdentifierStart() { return identifier() }
        if isDigit() { return number() }
        switch code {
        case UInt8(ascii: "\""), UInt8(ascii: "'"): return string(quote: character(at: position))
        case UInt8(ascii: "%"): return formatArgument()
        case UInt8(ascii: "$"):
            position += 1
            let name = scanWord()
            guard !name.isEmpty else {
                return invalid("expected a variable name after '$' but found \(describe(peek()))", at: position)
            }
            return token(.variable(name), from: start)
        case UInt8(ascii: "#"):
            position += 1
            let name = scanWord()
            guard !name.isEmpty else {
                return invalid("expected a key after '#' but found \(describe(peek()))", at: position)
            }
            return token(.escapedKey(name), from: start)
        case UInt8(ascii: "@"):
            position += 1
            let name = scanWord()
            guard !name.isEmpty else {
                return invalid("expected a key or collection operator after '@' but found \(describe(peek()))", at: position)
            }
            return token(.atKey("@" + name), from: start)
        default:
            return symbol()
        }
    }

    private func describe(_ c: Character?) -> String {
        c.map { "'\($0)'" } ?? "end of input"
    }

    private mutating func scanWord() -> String {
        let start = position
        while isIdentifierPart() { position += 1 }
        return text(from: start)
    }

    /// A bare word. A word followed by `:` (not `:=`) continues as a selector: `add:to:`.
    private mutating func identifier() -> PredicateToken {
        let start = position
        _ = scanWord()
        while code() == 0x3A && code(1) != 0x3D {   // ":" not followed by "="
            position += 1
            _ = scanWord()
        }
        return token(.identifier(text(from: start)), from: start)
    }

    // MARK: Symbols

    /// The two-character symbols, each as its two ASCII codes in one number (first code in
    /// the high byte): a scan of thirteen numbers, where a `Set<String>` hashed a string made
    /// for the lookup.
    private static let twoCharacterSymbols: [UInt16] = [
        "==", ">=", "=>", "<=", "=<", "!=", "<>", "&&", "||", "**", ":=", "<<", ">>",
    ].map { (symbol: String) in symbol.utf8.reduce(0) { $0 << 8 | UInt16($1) } }
    /// The one-character symbols, as ASCII codes.
    private static let oneCharacterSymbols: [UInt8] = Array("(){}[],.=<>!+-*/&|^~".utf8)

    private mutating func symbol() -> PredicateToken {
        let start = position
        if let a = code(), let b = code(1), a != Self.nonASCII, b != Self.nonASCII,
           Self.twoCharacterSymbols.contains(UInt16(a) << 8 | UInt16(b)) {
            position += 2
            return token(.symbol(text(from: start)), from: start)
        }
        guard let code = code(), code != Self.nonASCII, Self.oneCharacterSymbols.contains(code) else {
            return invalid("unexpected character '\(character(at: start))'", at: start)
        }
        position += 1
        return token(.symbol(text(from: start)), from: start)
    }

    // MARK: Numbers

    private mutating func number() -> PredicateToken {
        let start = position
        if code() == 0x30, let radixMark = peek(1), let radix = Self.radix(of: radixMark) {
            position += 2
            let digitsStart = position
            while let c = peek(), c.isHexDigit || c == "_" { position += 1 }
            let digits = text(in: digitsStart..<position).replacingOccurrences(of: "_", with: "")
            guard !digits.isEmpty else {
                return invalid("expected digits after '0\(radixMark)' but found \(describe(peek()))", at: position)
            }
            if let value = Int(digits, radix: radix) { return token(.number(value), from: start) }
            if let value = UInt64(digits, radix: radix) { return token(.number(value), from: start) }
            let kind = radix == 16 ? "hexadecimal" : radix == 8 ? "octal" : "binary"
            return invalid("the \(kind) number '\(text(from: start))' is not valid or too large", at: start)
        }
        scanDigits()
        var isInteger = true
        if code() == 0x2E, isDigit(at: 1) {
            isInteger = false
            position += 1
            scanDigits()
        }
        if code() == 0x65 || code() == 0x45 {   // "e", "E"
            let sign = peek(1)
            let hasSign = sign == "+" || sign == "-"
            if isDigit(at: hasSign ? 2 : 1) {
                isInteger = false
                position += hasSign ? 2 : 1
                scanDigits()
            }
        }
        let literal = text(from: start)
        if isInteger, let value = Int(literal) { return token(.number(value), from: start) }
        if isInteger, let value = UInt64(literal) { return token(.number(value), from: start) }
        guard let value = Double(literal) else {
            return invalid("the number '\(literal)' is not valid", at: start)
        }
        return token(.number(value), from: start)
    }

    private mutating func scanDigits() {
        while isDigit() { position += 1 }
    }

    private static func radix(of mark: Character) -> Int? {
        switch mark {
        case "x", "X": return 16
        case "o", "O": return 8
        case "b", "B": return 2
        default: return nil
        }
    }

    // MARK: Strings

    private mutating func string(quote: Character) -> PredicateToken {
        let start = position
        position += 1
        var value = ""
        while let c = peek() {
            position += 1
            if c == quote { return token(.string(value), from: start) }
            guard c == "\\" else {
                value.append(c)
                continue
            }
            guard let escaped = peek() else { break }
            position += 1
            switch escaped {
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            case "\"", "'", "\\": value.append(escaped)
            case "u":
                switch unicodeEscape() {
                case .success(let scalar): value.unicodeScalars.append(scalar)
                case .failure(let error): return invalid(error.message, at: error.index)
                }
            default:
                // Unknown escapes stay as written, so regular expressions such as '\d+' survive.
                value.append("\\")
                value.append(escaped)
            }
        }
        return invalid("unterminated string: expected a closing \(quote) for the string that starts here but found end of input", at: start)
    }

    private struct EscapeError: Error {
        let message: String
        let index: Int
    }

    /// The scalar of `\uXXXX` (after the `u`), joining a UTF-16 surrogate pair `\uD83D\uDE00`.
    private mutating func unicodeEscape() -> Result<Unicode.Scalar, EscapeError> {
        let escapeStart = position - 2
        guard let high = hexQuad() else {
            return .failure(EscapeError(message: "expected 4 hexadecimal digits after '\\u'", index: escapeStart))
        }
        if (0xD800...0xDBFF).contains(high) {
            if peek() == "\\", peek(1) == "u" {
                position += 2
                if let low = hexQuad(), (0xDC00...0xDFFF).contains(low),
                   let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) {
                    return .success(scalar)
                }
            }
            return .failure(EscapeError(message: "expected a low surrogate '\\uDC00'…'\\uDFFF' after the high surrogate", index: escapeStart))
        }
        guard let scalar = Unicode.Scalar(high) else {
            return .failure(EscapeError(message: "'\\u\(String(high, radix: 16, uppercase: true))' is not a Unicode scalar", index: escapeStart))
        }
        return .success(scalar)
    }

    private mutating func hexQuad() -> UInt32? {
        guard position + 4 <= codes.count else { return nil }
        let digits = text(in: position..<position + 4)
        guard digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else { return nil }
        position += 4
        return value
    }

    // MARK: Format arguments

    private mutating func formatArgument() -> PredicateToken {
        let start = position
        position += 1
        if code() == 0x25 {
            position += 1
            return token(.symbol("%"), from: start)
        }
        // Flags, width and precision mean nothing in a predicate; they are allowed and ignored.
        while let code = code(), code == 0x2D || code == 0x2B || code == 0x23 || code == 0x2E || Self.isASCIIDigit(code) { position += 1 }
        while let code = code(), FormatSpecifier.lengthModifiers.contains(code) { position += 1 }
        guard let conversion = code() else {
            if position == start + 1 {
                return invalid("expected a format specifier such as %@, %K, %d or %f after '%' but found end of input", at: start)
            }
            return invalid("unknown format specifier '\(text(from: start))'; expected %@, %K, %d, %i, %u, %f, %s or %%", at: start)
        }
        position += 1
        let text = text(from: start)
        guard let specifier = FormatSpecifier(conversion: conversion) else {
            return invalid("unknown format specifier '\(text)'; expected %@, %K, %d, %i, %u, %f, %s or %%", at: start)
        }
        guard nextArgument < arguments.count else {
            let count = arguments.count
            return invalid("\(text) needs argument \(nextArgument + 1) but only \(count) argument\(count == 1 ? " was" : "s were") given", at: start)
        }
        let argument = arguments[nextArgument]
        nextArgument += 1
        switch specifier.token(for: argument, specifier: text) {
        case .success(let kind): return token(kind, from: start)
        case .failure(let mismatch): return invalid(mismatch.message, at: start)
        }
    }
}
