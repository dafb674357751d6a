import Testing
@testable import OpenCoreData

/// Arithmetic, set operators, built-in functions and the special forms.
@Suite struct ParserExpressionTests {
    @Test(arguments: [
        ("1 + 2", "fn(add:to:, 1, 2)"),
        ("a - b", "fn(from:subtract:, kp(a), kp(b))"),
        ("a * b", "fn(multiply:by:, kp(a), kp(b))"),
        ("a / b", "fn(divide:by:, kp(a), kp(b))"),
        ("a ** b", "fn(raise:toPower:, kp(a), kp(b))"),
        ("a %% b", "fn(modulus:by:, kp(a), kp(b))"),
        // Precedence: ** over * / over + -.
        ("1 + 2 * 3", "fn(add:to:, 1, fn(multiply:by:, 2, 3))"),
        ("1 * 2 + 3", "fn(add:to:, fn(multiply:by:, 1, 2), 3)"),
        ("2 * 3 ** 2", "fn(multiply:by:, 2, fn(raise:toPower:, 3, 2))"),
        ("2 ** 3 * 2", "fn(multiply:by:, fn(raise:toPower:, 2, 3), 2)"),
        ("a / b ** c", "fn(divide:by:, kp(a), fn(raise:toPower:, kp(b), kp(c)))"),
        // Associativity: left for + - * /, right for **.
        ("1 - 2 - 3", "fn(from:subtract:, fn(from:subtract:, 1, 2), 3)"),
        ("8 / 4 / 2", "fn(divide:by:, fn(divide:by:, 8, 4), 2)"),
        ("2 ** 3 ** 2", "fn(raise:toPower:, 2, fn(raise:toPower:, 3, 2))"),
        // Parentheses.
        ("(1 + 2) * 3", "fn(multiply:by:, fn(add:to:, 1, 2), 3)"),
        ("2 * (3 + 4) - 1", "fn(from:subtract:, fn(multiply:by:, 2, fn(add:to:, 3, 4)), 1)"),
        // Unary minus.
        ("-a", "fn(from:subtract:, 0, kp(a))"),
        ("-$x", "fn(from:subtract:, 0, $x)"),
        ("1 - -2", "fn(from:subtract:, 1, -2)"),
        ("-(a + 1)", "fn(from:subtract:, 0, fn(add:to:, kp(a), 1))"),
        ("-2 ** 2", "fn(raise:toPower:, -2, 2)"),
        ("a--1", "fn(from:subtract:, kp(a), -1)"),
        // Set operators.
        ("{1, 2} UNION {3}", "union({1, 2}, {3})"),
        ("a INTERSECT b", "intersect(kp(a), kp(b))"),
        ("a minus b", "minus(kp(a), kp(b))"),
        ("a UNION b MINUS c", "minus(union(kp(a), kp(b)), kp(c))"),
        ("a + 1 UNION b", "union(fn(add:to:, kp(a), 1), kp(b))"),
    ])
    func arithmetic(format: String, expected: String) {
        #expect(parsedExpression(format) == expected)
    }

    @Test func arithmeticInComparisons() {
        #expect(parsed("a + 1 > b * 2") == "(fn(add:to:, kp(a), 1) > fn(multiply:by:, kp(b), 2))")
        #expect(parsed("price * quantity >= 100") == "(fn(multiply:by:, kp(price), kp(quantity)) >= 100)")
        #expect(parsed("-a < -1") == "(fn(from:subtract:, 0, kp(a)) < -1)")
    }

    /// Every built-in function by its full selector, as Apple prints it, and by its plain name.
    @Test(arguments: BuiltInFunctions.selectors)
    func everyBuiltInFunction(selector: String) throws {
        let arity = BuiltInFunctions.arity(of: selector)
        let arguments = (0..<arity).map { "a\($0)" }
        let expected = "fn(\(([selector] + arguments.map { "kp(\($0))" }).joined(separator: ", ")))"
        let argumentList = arguments.joined(separator: ", ")
        let plainName = String(selector.prefix { $0 != ":" })
        for format in ["\(selector)(\(argumentList))", "\(plainName)(\(argumentList))",
                       "\(selector.uppercased())(\(argumentList))", "\(plainName) ( \(argumentList) )"] {
            #expect(parsedExpression(format) == expected, "\(format)")
        }
    }

    @Test(arguments: [
        ("sum({1, 2})", "fn(sum:, {1, 2})"),
        ("sum:({1, 2, 3})", "fn(sum:, {1, 2, 3})"),
        ("count:(items)", "fn(count:, kp(items))"),
        ("average(scores)", "fn(average:, kp(scores))"),
        ("uppercase(name)", "fn(uppercase:, kp(name))"),
        ("lowercase:('ABC')", "fn(lowercase:, \"ABC\")"),
        ("add:to:(1, 2)", "fn(add:to:, 1, 2)"),
        ("from:subtract:(5, 2)", "fn(from:subtract:, 5, 2)"),
        ("now()", "fn(now)"),
        ("NOW()", "fn(now)"),
        ("random()", "fn(random)"),
        ("random:(10)", "fn(random:, 10)"),
        ("random(10)", "fn(random:, 10)"),
        ("max({a, b}) + 1", "fn(add:to:, fn(max:, {kp(a), kp(b)}), 1)"),
        ("sqrt(abs(-16))", "fn(sqrt:, fn(abs:, -16))"),
        ("uppercase(name).length", "kp(fn(uppercase:, kp(name)), length)"),
        ("count:(items)[0]", "fn(objectFrom:withIndex:, fn(count:, kp(items)), 0)"),
        ("castObject:toType:(x, 'NSDate')", "fn(castObject:toType:, kp(x), \"NSDate\")"),
        ("objectFrom:withIndex:(a, 0)", "fn(objectFrom:withIndex:, kp(a), 0)"),
        ("distinct:(tags)", "fn(distinct:, kp(tags))"),
        ("noindex:(name)", "fn(noindex:, kp(name))"),
    ])
    func functionCalls(format: String, expected: String) {
        #expect(parsedExpression(format) == expected)
    }

    @Test(arguments: [
        ("SUBQUERY(items, $i, $i.price > 10)",
         "subquery(kp(items), $i, (kp($i, price) > 10))"),
        ("subquery(items, $i, $i.price > 10).@count",
         "kp(subquery(kp(items), $i, (kp($i, price) > 10)), @count)"),
        ("SUBQUERY(a.b, $x, $x.n == 1 AND $x.m == 2).@count",
         "kp(subquery(kp(a.b), $x, AND((kp($x, n) == 1), (kp($x, m) == 2))), @count)"),
        ("SUBQUERY(items, $i, SUBQUERY($i.parts, $p, $p.ok == YES).@count > 0)",
         "subquery(kp(items), $i, (kp(subquery(kp($i, parts), $p, (kp($p, ok) == true)), @count) > 0))"),
        ("SUBQUERY(SELF, $s, $s > 1)", "subquery(SELF, $s, ($s > 1))"),
        ("FUNCTION(SELF, 'lengthOfString:', name)", "call(SELF, lengthOfString:, kp(name))"),
        ("function(name, \"uppercaseString\")", "call(kp(name), uppercaseString)"),
        ("FUNCTION(a, 'f:g:', 1, b)", "call(kp(a), f:g:, 1, kp(b))"),
        ("FUNCTION(a, 'f').x", "kp(call(kp(a), f), x)"),
        ("TERNARY(a > 1, 'big', 'small')", "ternary((kp(a) > 1), \"big\", \"small\")"),
        ("ternary(a > 1 AND b < 2, a, b + 1)",
         "ternary(AND((kp(a) > 1), (kp(b) < 2)), kp(a), fn(add:to:, kp(b), 1))"),
        ("TERNARY(TRUEPREDICATE, 1, 2)", "ternary(TRUEPREDICATE, 1, 2)"),
        ("TERNARY((a + 1) > 2, 1, 2)", "ternary((fn(add:to:, kp(a), 1) > 2), 1, 2)"),
        ("CAST(x, 'NSDate')", "fn(castObject:toType:, kp(x), \"NSDate\")"),
        ("cast(123.5, \"NSDate\")", "<Date 2001-01-01 00:02:03 +0000>"),
        ("CAST(-60, 'NSDate')", "<Date 2000-12-31 23:59:00 +0000>"),
        ("CAST('2001', 'NSDate')", "fn(castObject:toType:, \"2001\", \"NSDate\")"),
        ("CAST(TRUE, 'NSDate')", "fn(castObject:toType:, true, \"NSDate\")"),
        ("CAST(1 + 2, 'NSDate')", "fn(castObject:toType:, fn(add:to:, 1, 2), \"NSDate\")"),
        ("CAST('5', 'NSNumber')", "fn(castObject:toType:, \"5\", \"NSNumber\")"),
        ("CAST(5, 'NSString')", "fn(castObject:toType:, 5, \"NSString\")"),
        ("CAST(5, 'NSDecimalNumber')", "fn(castObject:toType:, 5, \"NSDecimalNumber\")"),
        // The words are keys when no '(' follows.
        ("subquery", "kp(subquery)"),
        ("cast.x", "kp(cast.x)"),
        ("count", "kp(count)"),
        ("sum.value", "kp(sum.value)"),
    ])
    func specialForms(format: String, expected: String) {
        #expect(parsedExpression(format) == expected)
    }

    @Test func specialFormsInPredicates() {
        #expect(parsed("SUBQUERY(items, $i, $i.price > 10).@count > 0")
            == "(kp(subquery(kp(items), $i, (kp($i, price) > 10)), @count) > 0)")
        #expect(parsed("CAST(created, 'NSNumber') > 100") == "(fn(castObject:toType:, kp(created), \"NSNumber\") > 100)")
        #expect(parsed("FUNCTION(SELF, 'isValid') == YES") == "(call(SELF, isValid) == true)")
        #expect(parsed("TERNARY(a == 1, b, c) == 2") == "(ternary((kp(a) == 1), kp(b), kp(c)) == 2)")
        #expect(parsed("now() > deadline") == "(fn(now) > kp(deadline))")
    }

    @Test func selectorAndCastTypeFromArguments() {
        #expect(parsedExpression("FUNCTION(SELF, %@, 1)", "doIt:") == "call(SELF, doIt:, 1)")
        #expect(parsedExpression("CAST(%@, %@)", 3.5, "NSNumber") == "fn(castObject:toType:, 3.5, \"NSNumber\")")
        #expect(parsedExpression("CAST(x, %@)", "NSDate") == "fn(castObject:toType:, kp(x), \"NSDate\")")
    }

    /// A date constant prints as `CAST(<seconds>, "NSDate")`, so that form folds back into a `Date`.
    @Test func castOfANumberToNSDateIsADateConstant() throws {
        let date = try PredicateParser.parseExpression("CAST(600000000.5, \"NSDate\")", arguments: [])
        #expect(date.expressionType == .constantValue)
        #expect(date.constantValue as? Date == Date(timeIntervalSinceReferenceDate: 600_000_000.5))
        let fromArgument = try PredicateParser.parseExpression("CAST(%f, 'NSDate')", arguments: [12.0])
        #expect(fromArgument.constantValue as? Date == Date(timeIntervalSinceReferenceDate: 12))
        let fromInteger = try PredicateParser.parseExpression("CAST(%d, 'NSDate')", arguments: [Int32(7)])
        #expect(fromInteger.constantValue as? Date == Date(timeIntervalSinceReferenceDate: 7))
    }
}
