import Testing
@testable import OpenCoreData

/// The parser's and lexer's shortcuts read formats exactly as the whole grammar does: an operand
/// that nothing continues (`a >= %@`) skips the expression levels, a `%@` holding an instance of
/// another class skips the cast to `NSExpression`, and an ASCII format is lexed from its bytes.
@Suite struct ParserShortcutTests {
    /// Every token that ends an operand, after each kind of plain operand.
    @Test func loneOperandsEndWhereTheGrammarEndsThem() {
        #expect(parsed("a >= %@ AND b < %@", 1, 2) == "AND((kp(a) >= 1), (kp(b) < 2))")
        #expect(parsed("a == b OR c != d") == "OR((kp(a) == kp(b)), (kp(c) != kp(d)))")
        #expect(parsed("a = 1 && b <> 2 || c =< 3") == "OR(AND((kp(a) == 1), (kp(b) != 2)), (kp(c) <= 3))")
        #expect(parsed("a > 1.5 AND b => 'x' AND c <= \"y\"") == "AND((kp(a) > 1.5), (kp(b) >= \"x\"), (kp(c) <= \"y\"))")
        #expect(parsed("(a == 1)") == "(kp(a) == 1)")
        #expect(parsed("a IN {1, %@, c}", 2) == "(kp(a) IN {1, 2, kp(c)})")
        #expect(parsed("x[%@] == 1", 0) == "(fn(objectFrom:withIndex:, kp(x), 0) == 1)")
        #expect(parsed("a NOT IN {1}") == "NOT((kp(a) IN {1}))")
        #expect(parsed("a BETWEEN {1, 2}") == "(kp(a) BETWEEN {1, 2})")
        #expect(parsed("a CONTAINS 'x' OR b BEGINSWITH 'y' OR c ENDSWITH 'z'")
            == "OR((kp(a) CONTAINS \"x\"), (kp(b) BEGINSWITH \"y\"), (kp(c) ENDSWITH \"z\"))")
        #expect(parsed("a LIKE[c] 'x*' AND b MATCHES '.+'") == "AND((kp(a) LIKE[c] \"x*\"), (kp(b) MATCHES \".+\"))")
        #expect(parsed("%K == %@", "name", "Ann") == "(kp(name) == \"Ann\")")
        #expect(parsed("#AND == 1") == "(kp(AND) == 1)")
        #expect(parsed("a UTI-CONFORMS-TO 'public.text' AND b UTI-EQUALS %@", "public.data")
            == "AND((kp(a) UTI-CONFORMS-TO \"public.text\"), (kp(b) UTI-EQUALS \"public.data\"))")
        #expect(parsedExpression("a") == "kp(a)")
        #expect(parsedExpression("%@", 3) == "3")
    }

    /// Words that read as literals or are reserved are not taken as keys by the shortcut.
    @Test func literalWordsAreNotKeys() {
        #expect(parsed("SELF == %@", 1) == "(SELF == 1)")
        #expect(parsed("nil == a AND NULL != b") == "AND((nil == kp(a)), (nil != kp(b)))")
        #expect(parsed("YES == a AND TRUE == b AND NO == c AND FALSE == d")
            == "AND((true == kp(a)), (true == kp(b)), (false == kp(c)), (false == kp(d)))")
        #expect(parsed("ANYKEY == 1") == "(ANYKEY == 1)")
        #expect(parseError("a == AND")?.message == "expected an expression after '==' but found 'AND'")
        #expect(parseError("a == IN")?.column == 6)
    }

    /// An operand followed by anything that can continue it goes through the whole grammar.
    @Test func continuedOperandsTakeTheWholeGrammar() {
        #expect(parsed("a.b == 1") == "(kp(a.b) == 1)")
        #expect(parsed("%K.b == 1", "a") == "(kp(a.b) == 1)")
        #expect(parsed("a[0] == 1") == "(fn(objectFrom:withIndex:, kp(a), 0) == 1)")
        #expect(parsed("a + 1 == 2 AND b - 1 == 0") == "AND((fn(add:to:, kp(a), 1) == 2), (fn(from:subtract:, kp(b), 1) == 0))")
        #expect(parsed("a * 2 == b / 3") == "(fn(multiply:by:, kp(a), 2) == fn(divide:by:, kp(b), 3))")
        #expect(parsed("a ** 2 == 4") == "(fn(raise:toPower:, kp(a), 2) == 4)")
        #expect(parsed("a & 4 == 0 AND b | 1 == 1 AND c ^ 1 == 0 AND d << 1 == 2 AND e >> 1 == 0")
            == "AND((fn(bitwiseAnd:with:, kp(a), 4) == 0), (fn(bitwiseOr:with:, kp(b), 1) == 1), (fn(bitwiseXor:with:, kp(c), 1) == 0), (fn(leftshift:by:, kp(d), 1) == 2), (fn(rightshift:by:, kp(e), 1) == 0))")
        #expect(parsed("-a == 1") == "(fn(from:subtract:, 0, kp(a)) == 1)")
        #expect(parsed("lowercase(a) == 'x'") == "(fn(lowercase:, kp(a)) == \"x\")")
        #expect(parsed("a UNION b CONTAINS 1") == "(union(kp(a), kp(b)) CONTAINS 1)")
        #expect(parsed("a INTERSECT %@ CONTAINS 1 AND b MINUS c CONTAINS 2", [1])
            == "AND((intersect(kp(a), [1]) CONTAINS 1), (minus(kp(b), kp(c)) CONTAINS 2))")
        #expect(parsed("%@ + 1 == 3", 2) == "(fn(add:to:, 2, 1) == 3)")
    }

    /// `%@` binds an expression of any class as the expression itself, including subclasses and
    /// expressions inside an `AnyHashable`; an instance of another class is a constant.
    @Test func objectArgumentsBindExpressionsAndConstants() throws {
        #expect(parsed("a == %@", NSExpression(forKeyPath: "b")) == "(kp(a) == kp(b))")
        #expect(parsed("a == %@", AnyHashable(NSExpression(forKeyPath: "b"))) == "(kp(a) == kp(b))")
        let number = NSNumber(value: 5)
        let byNumber = try #require(try PredicateParser.parsePredicate("a == %@", arguments: [number]) as? NSComparisonPredicate)
        #expect(byNumber.rightExpression.constantValue as AnyObject === number)
        let null = try #require(try PredicateParser.parsePredicate("a == %@", arguments: [NSNull()]) as? NSComparisonPredicate)
        #expect(null.rightExpression.constantValue is NSNull)

        let fetch = NSFetchRequestExpression.expression(forFetch: NSExpression(forVariable: "r"),
                                                        context: NSExpression(forVariable: "c"), countOnly: true)
        let bound = try #require(try PredicateParser.parsePredicate("%@ > 0", arguments: [fetch]) as? NSComparisonPredicate)
        #expect(bound.leftExpression === fetch)
    }

    /// Formats with non-ASCII characters keep their columns and messages (they are lexed by
    /// `Character`), and a non-ASCII conversion is an unknown specifier.
    @Test func nonASCIIFormatsLexByCharacter() {
        #expect(parsed("prénom == 'é' AND ü == %@", 1) == "AND((kp(prénom) == \"é\"), (kp(ü) == 1))")
        #expect(parseError("a == 1 AND b → 2")?.column == 14)
        #expect(parseError("a == 1 AND b → 2")?.message == "unexpected character '→'")
        #expect(parseError("a == %é", 1)?.message == "unknown format specifier '%é'; expected %@, %K, %d, %i, %u, %f, %s or %%")
        #expect(parsed("a == %lld AND b == %hd", 3, 4) == "AND((kp(a) == 3), (kp(b) == 4))")
        #expect(parsed("a %% 2 == 0") == "(fn(modulus:by:, kp(a), 2) == 0)")
    }
}
