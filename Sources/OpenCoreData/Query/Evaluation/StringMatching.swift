/// String operators of the query language: folding for `[c]`/`[d]`/`[n]`, `BEGINSWITH`,
/// `ENDSWITH`, `CONTAINS`, `LIKE` and `MATCHES`.
///
/// - `[c]` folds case and `[d]` folds diacritics with `String.folding(options:locale:)` in no
///   locale, on both sides. `[n]` says the strings are already normalized: as Apple documents,
///   it supersedes `[c]` and `[d]`, so nothing is folded.
/// - `BEGINSWITH`, `ENDSWITH`, `CONTAINS` (and `IN` with a string on the right) are false for an
///   empty right-hand string, as `NSString`'s `hasPrefix:`, `hasSuffix:` and `rangeOfString:`
///   answer for an empty argument (Swift's `hasPrefix("")` would say true).
/// - `LIKE`: `*` matches any run of characters (including none), `?` exactly one character,
///   and `\` makes the next character literal. The whole string must match.
/// - `MATCHES`: an ICU regular expression (`NSRegularExpression`) that must match the whole
///   string. `[c]` makes it case-insensitive; `[d]` folds diacritics of the string and pattern.
enum StringMatching {
    typealias Options = NSComparisonPredicate.Options

    /// Folds `string` as the options ask.
    static func fold(_ string: String, _ options: Options) -> String {
        if options.contains(.normalized) { return string }
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding.isEmpty ? string : string.folding(options: folding, locale: nil)
    }

    static func beginsWith(_ string: String, _ prefix: String, _ options: Options) -> Bool {
        let prefix = fold(prefix, options)
        return !prefix.isEmpty && fold(string, options).hasPrefix(prefix)
    }

    static func endsWith(_ string: String, _ suffix: String, _ options: Options) -> Bool {
        let suffix = fold(suffix, options)
        return !suffix.isEmpty && fold(string, options).hasSuffix(suffix)
    }

    /// Substring search.
    static func contains(_ string: String, _ part: String, _ options: Options) -> Bool {
        let part = fold(part, options)
        return !part.isEmpty && fold(string, options).contains(part)
    }

    /// Whether `string` matches the `LIKE` pattern.
    static func like(_ string: String, _ pattern: String, _ options: Options) -> Bool {
        let text = Array(fold(string, options))
        var tokens: [LikeToken] = []
        var escaped = false
        for ch in fold(pattern, options) {
            if escaped { tokens.append(.literal(ch)); escaped = false; continue }
            switch ch {
            case "\\": escaped = true
            case "*": if tokens.last != .any { tokens.append(.any) }
            case "?": tokens.append(.one)
            default: tokens.append(.literal(ch))
            }
        }
        if escaped { tokens.append(.literal("\\")) }
        return likeMatch(text[...], tokens[...])
    }

    private enum LikeToken: Equatable {
        case literal(Character), one, any
    }

    /// Greedy wildcard matching with backtracking to the last `*`.
    private static func likeMatch(_ text: ArraySlice<Character>, _ tokens: ArraySlice<LikeToken>) -> Bool {
        var t = text.startIndex, p = tokens.startIndex
        var starP: Int? = nil, starT = 0
        while t < text.endIndex {
            if p < tokens.endIndex {
                switch tokens[p] {
                case .any:
                    starP = p; starT = t; p += 1; continue
                case .one:
                    t += 1; p += 1; continue
                case .literal(let c) where c == text[t]:
                    t += 1; p += 1; continue
                default: break
                }
            }
            guard let star = starP else { return false }
            p = star + 1; starT += 1; t = starT
        }
        while p < tokens.endIndex, tokens[p] == .any { p += 1 }
        return p == tokens.endIndex
    }

    /// Whether the whole of `string` matches the regular expression `pattern`.
    ///
    /// The pattern is first compiled on its own, so that an invalid one (`a)|(b`, `(`) throws
    /// ``PredicateEvaluationError/invalidRegularExpression(pattern:reason:)`` naming it instead of
    /// being completed by the wrapper. Only a pattern valid by itself is then wrapped as
    /// `(?:pattern)\z` and matched anchored at the start: its parentheses are balanced, so the
    /// wrapper's `)` closes the wrapper's group and the match must cover the whole string, with
    /// backtracking into alternatives as ICU's `matches` does (`'ab' MATCHES 'a|ab'` is true).
    /// A `\Q` quote left open at the end of the pattern is closed first, so that it does not
    /// swallow the wrapper.
    static func matches(_ string: String, _ pattern: String, _ options: Options) throws -> Bool {
        var regexOptions: NSRegularExpression.Options = []
        if options.contains(.caseInsensitive) && !options.contains(.normalized) {
            regexOptions.insert(.caseInsensitive)
        }
        let diacritics: Options = options.contains(.diacriticInsensitive) ? [.diacriticInsensitive] : []
        let text = fold(string, options.contains(.normalized) ? [.normalized] : diacritics)
        let source = fold(pattern, options.contains(.normalized) ? [.normalized] : diacritics)
        let regex: NSRegularExpression
        do {
            // ICU on Linux refuses an empty pattern; it matches only the empty string.
            if !source.isEmpty { _ = try NSRegularExpression(pattern: source, options: regexOptions) }
            let closeQuote = endsInsideQuote(source) ? "\\E" : ""
            regex = try NSRegularExpression(pattern: "(?:" + source + closeQuote + ")\\z", options: regexOptions)
        } catch {
            throw PredicateEvaluationError.invalidRegularExpression(pattern: pattern, reason: Self.reason(error))
        }
        let range = NSRange(text.startIndex..., in: text)
        return regex.firstMatch(in: text, options: .anchored, range: range) != nil
    }

    /// Whether a `\Q` quote is still open at the end of `pattern` (ICU quotes to the end then).
    static func endsInsideQuote(_ pattern: String) -> Bool {
        var quoted = false
        var escaped = false
        var previous: Character? = nil
        for character in pattern {
            if quoted {
                if previous == "\\" && character == "E" { quoted = false; previous = nil; continue }
                previous = character
                continue
            }
            if escaped {
                escaped = false
                if character == "Q" { quoted = true; previous = nil }
                continue
            }
            if character == "\\" { escaped = true }
        }
        return quoted
    }

    /// Why the pattern was refused: Foundation reports only an error code.
    private static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        return "ICU refuses it: NSRegularExpression error \(nsError.code)"
    }
}
