import Testing
@testable import OpenCoreData

/// Literals, key paths, variables and indexes: the leaves of the expression grammar.
@Suite struct ParserLiteralTests {
    @Test(arguments: [
        // Strings, both quotes, every escape.
        ("'abc'", "\"abc\""),
        ("\"abc\"", "\"abc\""),
        ("''", "\"\""),
        (#"'a\nb'"#, "\"a\nb\""),
        (#"'a\tb'"#, "\"a\tb\""),
        (#"'a\rb'"#, "\"a\rb\""),
        (#"'a\"b'"#, "\"a\"b\""),
        (#""a\'b""#, "\"a'b\""),
        (#"'a\\b'"#, "\"a\\b\""),
        (#"'a\0b'"#, "\"a\0b\""),
        (#"'\u00e9t\u00C9'"#, "\"étÉ\""),
        (#"'\uD83D\uDE00'"#, "\"😀\""),
        (#"'\d+\.x'"#, #""\d+\.x""#),
        ("'it''s'", "<error>"),
        ("\"single ' inside\"", "\"single ' inside\""),
        ("'double \" inside'", "\"double \" inside\""),
        ("'%@ and %K and $VAR stay'", "\"%@ and %K and $VAR stay\""),
        ("'%%'", "\"%%\""),
        ("'日本語'", "\"日本語\""),
        // Numbers.
        ("42", "42"),
        ("0", "0"),
        ("3.25", "3.25"),
        ("1e3", "1000.0"),
        ("1E3", "1000.0"),
        ("2.5e-2", "0.025"),
        ("1.5E+2", "150.0"),
        ("0x1F", "31"),
        ("0XfF", "255"),
        ("0o17", "15"),
        ("0O7", "7"),
        ("0b101", "5"),
        ("0B11", "3"),
        ("0xFFFFFFFFFFFFFFFF", "UInt64(18446744073709551615)"),
        ("18446744073709551615", "UInt64(18446744073709551615)"),
        ("123456789012345678901234567890", "1.2345678901234568e+29"),
        // Negative literals fold into constants.
        ("-5", "-5"),
        ("-2.5", "-2.5"),
        ("-0x10", "-16"),
        ("- 7", "-7"),
        ("--3", "3"),
        ("-(4)", "-4"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("-18446744073709551615", "-1.8446744073709552e+19"),
        // Keywords, case-insensitive.
        ("TRUE", "true"), ("true", "true"), ("YES", "true"), ("yes", "true"),
        ("FALSE", "false"), ("False", "false"), ("NO", "false"), ("no", "false"),
        ("NULL", "nil"), ("null", "nil"), ("NIL", "nil"), ("nil", "nil"),
        ("SELF", "SELF"), ("self", "SELF"),
        ("ANYKEY", "ANYKEY"),
        // Aggregates.
        ("{}", "{}"),
        ("{1}", "{1}"),
        ("{1, 'a', TRUE, nil}", "{1, \"a\", true, nil}"),
        ("{{1, 2}, {3}}", "{{1, 2}, {3}}"),
        ("{-1, a.b, $x}", "{-1, kp(a.b), $x}"),
    ])
    func literal(format: String, expected: String) {
        if expected == "<error>" {
            #expect(expressionParseError(format) != nil)
        } else {
            #expect(parsedExpression(format) == expected)
        }
    }

    @Test func negativeZeroAndConstantTypes() throws {
        let negative = try PredicateParser.parseExpression("-3", arguments: [])
        #expect(negative.constantValue as? Int == -3)
        let double = try PredicateParser.parseExpression("-3.0", arguments: [])
        #expect(double.constantValue as? Double == -3.0)
        let yes = try PredicateParser.parseExpression("YES", arguments: [])
        #expect(yes.constantValue as? Bool == true)
        let null = try PredicateParser.parseExpression("NULL", arguments: [])
        #expect(null.expressionType == .constantValue)
        #expect(null.constantValue == nil)
    }

    @Test(arguments: [
        // Key paths.
        ("name", "kp(name)"),
        ("_private", "kp(_private)"),
        ("a.b.c", "kp(a.b.c)"),
        ("Name2.x_y", "kp(Name2.x_y)"),
        ("prénom", "kp(prénom)"),
        ("#AND", "kp(AND)"),
        ("#size", "kp(size)"),
        ("a.#in.b", "kp(a.in.b)"),
        ("order.first", "kp(order.first)"),
        ("a.size", "kp(a.size)"),
        ("SELF.name", "kp(name)"),
        ("self.a.b", "kp(a.b)"),
        ("first", "kp(first)"),
        // Collection operators stay in the key path.
        ("items.@count", "kp(items.@count)"),
        ("@count", "kp(@count)"),
        ("items.@sum.price", "kp(items.@sum.price)"),
        ("items.@avg.price", "kp(items.@avg.price)"),
        ("items.@min.price", "kp(items.@min.price)"),
        ("items.@max.price", "kp(items.@max.price)"),
        ("items.@distinctUnionOfObjects.tag", "kp(items.@distinctUnionOfObjects.tag)"),
        ("items.@unionOfObjects.tag", "kp(items.@unionOfObjects.tag)"),
        ("items.@distinctUnionOfArrays.tags", "kp(items.@distinctUnionOfArrays.tags)"),
        ("items.@unionOfArrays.tags", "kp(items.@unionOfArrays.tags)"),
        ("items.@distinctUnionOfSets.tags", "kp(items.@distinctUnionOfSets.tags)"),
        ("items.@unionOfSets.tags", "kp(items.@unionOfSets.tags)"),
        ("SELF.@count", "kp(@count)"),
        // Variables and key paths on them.
        ("$x", "$x"),
        ("$FIRST_NAME", "$FIRST_NAME"),
        ("$x.name", "kp($x, name)"),
        ("$x.a.b", "kp($x, a.b)"),
        ("$x.@count", "kp($x, @count)"),
        // Indexes.
        ("a[0]", "fn(objectFrom:withIndex:, kp(a), 0)"),
        ("a[FIRST]", "fn(objectFrom:withIndex:, kp(a), FIRST)"),
        ("a[first]", "fn(objectFrom:withIndex:, kp(a), FIRST)"),
        ("a[LAST]", "fn(objectFrom:withIndex:, kp(a), LAST)"),
        ("a[SIZE]", "fn(objectFrom:withIndex:, kp(a), SIZE)"),
        ("a.b[1]", "fn(objectFrom:withIndex:, kp(a.b), 1)"),
        ("a[-1]", "fn(objectFrom:withIndex:, kp(a), -1)"),
        ("a[$i]", "fn(objectFrom:withIndex:, kp(a), $i)"),
        ("a[first + 1]", "fn(objectFrom:withIndex:, kp(a), fn(add:to:, kp(first), 1))"),
        ("dict['key']", "fn(objectFrom:withIndex:, kp(dict), \"key\")"),
        ("dict[\"key\"]", "fn(objectFrom:withIndex:, kp(dict), \"key\")"),
        ("a[0][1]", "fn(objectFrom:withIndex:, fn(objectFrom:withIndex:, kp(a), 0), 1)"),
        ("a[0].name", "kp(fn(objectFrom:withIndex:, kp(a), 0), name)"),
        ("a[LAST].b.c", "kp(fn(objectFrom:withIndex:, kp(a), LAST), b.c)"),
        ("$list[SIZE]", "fn(objectFrom:withIndex:, $list, SIZE)"),
        ("SELF[0]", "fn(objectFrom:withIndex:, SELF, 0)"),
        ("{1, 2}[1]", "fn(objectFrom:withIndex:, {1, 2}, 1)"),
        ("(a).b", "kp(a.b)"),
        ("'str'.length", "kp(\"str\", length)"),
    ])
    func keyPathsVariablesAndIndexes(format: String, expected: String) {
        #expect(parsedExpression(format) == expected)
    }

    @Test func anyKeyAndSelfHaveTheirTypes() throws {
        #expect(try PredicateParser.parseExpression("ANYKEY", arguments: []).expressionType == .anyKey)
        #expect(try PredicateParser.parseExpression("SELF", arguments: []).expressionType == .evaluatedObject)
        #expect(try PredicateParser.parseExpression("$v", arguments: []).variable == "v")
        #expect(try PredicateParser.parseExpression("a.b", arguments: []).keyPath == "a.b")
    }

    @Test func whitespaceIsIgnored() {
        #expect(parsed("  a\t==\n1  ") == "(kp(a) == 1)")
        #expect(parsed("a==1&&b!=2") == "AND((kp(a) == 1), (kp(b) != 2))")
        #expect(parsedExpression("\r\n 1 \r\n") == "1")
        // Whitespace outside ASCII (no-break and em spaces) separates tokens too.
        #expect(parsed("a\u{00A0}==\u{2003}1") == "(kp(a) == 1)")
    }

    /// The lexer reads ASCII by byte and everything else by character: words that mix the two
    /// (a letter with a combining accent, a non-ASCII letter after ASCII ones) stay one word.
    @Test func wordsMixingASCIIAndOtherLettersStayWhole() {
        #expect(parsed("cafe\u{301} == 1") == "(kp(cafe\u{301}) == 1)")
        #expect(parsed("nameé_2 >= 'x'") == "(kp(nameé_2) >= \"x\")")
        #expect(parsed("a == 'e\u{301}\r\n'") == "(kp(a) == \"e\u{301}\r\n\")")
    }
}
