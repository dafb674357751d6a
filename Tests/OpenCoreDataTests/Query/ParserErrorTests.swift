import Testing
@testable import OpenCoreData

/// Malformed formats throw a ``PredicateParseError`` naming the column and what was expected.
@Suite struct ParserErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let format: String
        let arguments: [String]
        let column: Int
        let message: String
        init(_ format: String, _ column: Int, _ message: String, arguments: [String] = []) {
            self.format = format
            self.column = column
            self.message = message
            self.arguments = arguments
        }
        var testDescription: String { format }
    }

    @Test(arguments: [
        // Unterminated strings point at the opening quote.
        Case("name == 'abc", 9, "unterminated string: expected a closing ' for the string that starts here but found end of input"),
        Case("a == \"unterminated", 6, "unterminated string: expected a closing \" for the string that starts here but found end of input"),
        Case(#"a == '\u12'"#, 7, #"expected 4 hexadecimal digits after '\u'"#),
        Case(#"a == '\uDC00'"#, 7, #"'\uDC00' is not a Unicode scalar"#),
        Case(#"a == '\uD83D'"#, 7, #"expected a low surrogate '\uDC00'…'\uDFFF' after the high surrogate"#),
        // Dangling operators.
        Case("age >", 6, "expected an expression after '>' but found end of input"),
        Case("a ==", 5, "expected an expression after '==' but found end of input"),
        Case("a ==[cd]", 9, "expected an expression after '==[cd]' but found end of input"),
        Case("age > 3 AND", 12, "expected an expression after 'AND' but found end of input"),
        Case("age > 3 OR", 11, "expected an expression after 'OR' but found end of input"),
        Case("a == 1 AND OR b == 2", 12, "expected an expression after 'AND' but found 'OR'"),
        Case("a == 1 +", 9, "expected an expression after '+' but found end of input"),
        Case("a == 2 **", 10, "expected an expression after '**' but found end of input"),
        Case("a == -", 7, "expected an expression after '-' but found end of input"),
        Case("a == b UNION", 13, "expected an expression after 'UNION' but found end of input"),
        Case("NOT", 4, "expected an expression after 'NOT' but found end of input"),
        Case("ANY", 4, "expected an expression after 'ANY' but found end of input"),
        Case("a == AND", 6, "expected an expression after '==' but found 'AND'"),
        Case("", 1, "expected an expression but found end of input"),
        Case("a", 2, "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES, UTI-CONFORMS-TO or UTI-EQUALS) after 'a' but found end of input"),
        Case("a b", 3, "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES, UTI-CONFORMS-TO or UTI-EQUALS) after 'a' but found 'b'"),
        Case("a == 1 b", 8, "expected AND, OR or the end of the format after '1' but found 'b'"),
        // Unbalanced parentheses, brackets and braces.
        Case("(a > 1", 7, "expected ')' after '1' to close the '(' at column 1 but found end of input"),
        Case("((a == 1)", 10, "expected ')' after ')' to close the '(' at column 1 but found end of input"),
        Case("(a + b", 7, "expected ')' after 'b' to close the '(' at column 1 but found end of input"),
        Case("a > 1)", 6, "expected AND, OR or the end of the format after '1' but found ')'"),
        Case("a[1 == 1", 5, "expected ']' after '1' to close the '[' at column 2 but found '=='"),
        Case("a[ ] == 1", 4, "expected an index (a number, a key, FIRST, LAST or SIZE) after '[' but found ']'"),
        Case("{1, 2 == a", 7, "expected ',' or '}' after '2' to close the '{' at column 1 but found '=='"),
        Case("a IN[c", 7, "expected ']' after 'c' to close the options of 'IN' but found end of input"),
        Case("sum(1 > 2", 7, "expected ',' or ')' after '1' to close the '(' at column 4 but found '>'"),
        // Missing or mistyped arguments.
        Case("a == %@", 6, "%@ needs argument 1 but only 0 arguments were given"),
        Case("name == 'a' AND %K == %@", 23, "%@ needs argument 2 but only 1 argument was given", arguments: ["k"]),
        Case("a == %d", 6, "%d expects an integer but the argument is String \"x\"", arguments: ["x"]),
        Case("a == %f", 6, "%f expects a number but the argument is String \"x\"", arguments: ["x"]),
        Case("a == %z", 6, "unknown format specifier '%z'; expected %@, %K, %d, %i, %u, %f, %s or %%", arguments: ["x"]),
        Case("a == %y", 6, "unknown format specifier '%y'; expected %@, %K, %d, %i, %u, %f, %s or %%", arguments: ["x"]),
        Case("a == %l", 6, "unknown format specifier '%l'; expected %@, %K, %d, %i, %u, %f, %s or %%"),
        Case("a % b == 1", 3, "unknown format specifier '% '; expected %@, %K, %d, %i, %u, %f, %s or %%", arguments: ["x"]),
        Case("a == %", 6, "expected a format specifier such as %@, %K, %d or %f after '%' but found end of input"),
        // Unknown functions and malformed special forms.
        Case("foo(1) > 2", 1, "unknown function 'foo'; expected one of NSExpression's built-in functions such as sum:, count:, add:to:, uppercase: or now"),
        Case("a == frobnicate:(1)", 6, "unknown function 'frobnicate:'; expected one of NSExpression's built-in functions such as sum:, count:, add:to:, uppercase: or now"),
        Case("sum(1, 2) > 2", 1, "function 'sum' takes 1 argument but was given 2"),
        Case("add:to:(1) > 2", 1, "function 'add:to:' takes 2 arguments but was given 1"),
        Case("random(1, 2) > 2", 1, "function 'random' takes 0 or 1 arguments but was given 2"),
        Case("a == add:to: + 1", 14, "expected '(' after the function name 'add:to:'"),
        Case("SUBQUERY(items, i, i > 1).@count > 0", 17, "expected an iterator variable such as $x after ',' as the second argument of SUBQUERY but found 'i'"),
        Case("SUBQUERY(items, $i, $i > 1.@count > 0", 35, "expected ')' after '@count' to close SUBQUERY( at column 9 but found '>'"),
        Case("SUBQUERY(items $i, $i > 1).@count > 0", 16, "expected ',' after 'items' in SUBQUERY(collection, $variable, predicate) but found '$i'"),
        Case("CAST(a, 'NSFoo') > 1", 9, "CAST converts to 'NSDate', 'NSNumber', 'NSString' or 'NSDecimalNumber', not 'NSFoo'"),
        Case("CAST(a) > 1", 7, "expected ',' after 'a' in CAST(value, 'type') but found ')'"),
        Case("FUNCTION(a, b) > 1", 13, "expected a selector name string such as 'lengthOfString:' after ',' but found 'b'"),
        Case("TERNARY(a, 1, 2) == 1", 10, "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES, UTI-CONFORMS-TO or UTI-EQUALS) after 'a' but found ','"),
        Case("TERNARY(a > 1, 1) == 1", 17, "expected ',' after '1' in TERNARY(predicate, trueValue, falseValue) but found ')'"),
        // Bad tokens.
        Case("a LIKE[x] 'y'", 8, "unknown comparison option 'x' in '[x]'; expected c, d or n"),
        Case("a LIKE[1] 'y'", 8, "expected comparison options such as c, d, n or cd after '[' but found '1'"),
        Case("a ; b", 3, "unexpected character ';'"),
        Case("a == ?", 6, "unexpected character '?'"),
        Case("a == $", 7, "expected a variable name after '$' but found end of input"),
        Case("a == #", 7, "expected a key after '#' but found end of input"),
        Case("a.@ == 1", 4, "expected a key or collection operator after '@' but found ' '"),
        Case("a == 0x", 8, "expected digits after '0x' but found end of input"),
        Case("a == 0b102", 6, "the binary number '0b102' is not valid or too large"),
        Case("a == 0x1FFFFFFFFFFFFFFFF", 6, "the hexadecimal number '0x1FFFFFFFFFFFFFFFF' is not valid or too large"),
        Case("a == 0o9", 6, "the octal number '0o9' is not valid or too large"),
        Case("$x := 1", 4, "assignment expressions ($x := …) are not supported; bind variables with withSubstitutionVariables(_:) instead"),
        // Columns count characters, not bytes.
        Case("名前 == 'é' AND", 14, "expected an expression after 'AND' but found end of input"),
        // A letter and its combining accent are one character; "\r\n" is one character.
        Case("a == 'e\u{301}' AND", 13, "expected an expression after 'AND' but found end of input"),
        Case("a ==\r\n1 AND", 11, "expected an expression after 'AND' but found end of input"),
    ])
    func malformedPredicate(_ test: Case) throws {
        let error = try #require(parseError(test.format, argumentList: test.arguments))
        #expect(error.column == test.column)
        #expect(error.message == test.message)
        #expect(error.format == test.format)
        #expect(error.description == "Unable to parse the format string \"\(test.format)\": \(test.message) at column \(test.column)")
    }

    @Test func keyPathArgumentMustBeAString() throws {
        let number = try #require(parseError("%K == 1", 3))
        #expect(number.column == 1)
        #expect(number.message == "%K expects a key path string but the argument is Int 3")
        let missing = try #require(parseError("a == 1 AND %K == 1", nil))
        #expect(missing.column == 12)
        #expect(missing.message == "%K expects a key path string but the argument is nil")
        let empty = try #require(parseError("%K == 1", ""))
        #expect(empty.message == "%K expects a non-empty key path but the argument is String \"\"")
        let fraction = try #require(parseError("a == %d", NSNumber(value: 1.5)))
        #expect(fraction.message.hasPrefix("%d expects an integer but the argument is"))
        let cString = try #require(parseError("a == %s", 1))
        #expect(cString.message == "%s expects a string but the argument is Int 1")
    }

    @Test func malformedExpressions() throws {
        let trailing = try #require(expressionParseError("1 + 2 3"))
        #expect(trailing.column == 7)
        #expect(trailing.message == "expected an operator or the end of the format after '2' but found '3'")
        let predicateInExpression = try #require(expressionParseError("a == 1"))
        #expect(predicateInExpression.column == 3)
        let empty = try #require(expressionParseError(""))
        #expect(empty.message == "expected an expression but found end of input")
    }

    @Test func theFirstProblemInTextualOrderIsReported() throws {
        // The missing argument comes after the syntax error, so the syntax error is reported.
        let error = try #require(parseError("a == == %@"))
        #expect(error.column == 6)
        #expect(error.message == "expected an expression after '==' but found '=='")
    }

    @Test func deepNestingIsRefusedWithoutOverflowingTheStack() throws {
        let depth = PredicateParser.maximumDepth
        // Deep but allowed: parentheses around a predicate and around an expression.
        let parenthesized = String(repeating: "(", count: depth / 2 - 1) + "a == 1" + String(repeating: ")", count: depth / 2 - 1)
        #expect(parsed(parenthesized) == "(kp(a) == 1)")
        let arithmetic = String(repeating: "(", count: depth / 2 - 1) + "a" + String(repeating: ")", count: depth / 2 - 1) + " > 1"
        #expect(parsed(arithmetic) == "(kp(a) > 1)")
        // Too deep, in every recursive production.
        for format in [
            String(repeating: "(", count: 10 * depth) + "a == 1" + String(repeating: ")", count: 10 * depth),
            String(repeating: "NOT ", count: 10 * depth) + "a == 1",
            "a == " + String(repeating: "-", count: 10 * depth) + "1",
            "a == " + Array(repeating: "2", count: 10 * depth).joined(separator: " ** "),
            "a == " + String(repeating: "{", count: 10 * depth),
            "a == " + String(repeating: "sum(", count: 10 * depth),
        ] {
            let error = try #require(parseError(format))
            #expect(error.message == "the format nests more than \(depth) levels deep")
        }
    }

    @Test func validatingInitializersThrowTheParseError() {
        #expect(throws: PredicateParseError(format: "age >", column: 6, message: "expected an expression after '>' but found end of input")) {
            try NSPredicate(validatingFormat: "age >")
        }
    }
}

/// `parseError` with the arguments as an array.
private func parseError(_ format: String, argumentList: [String]) -> PredicateParseError? {
    do {
        _ = try PredicateParser.parsePredicate(format, arguments: argumentList)
        return nil
    } catch {
        return error as? PredicateParseError
    }
}
