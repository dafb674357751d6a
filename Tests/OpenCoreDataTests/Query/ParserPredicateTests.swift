import Testing
@testable import OpenCoreData

/// Comparison operators with every option, modifiers, compounds and their precedence.
@Suite struct ParserPredicateTests {
    /// Every operator spelling.
    @Test(arguments: [
        ("a = 1", "(kp(a) == 1)"),
        ("a == 1", "(kp(a) == 1)"),
        ("a >= 1", "(kp(a) >= 1)"),
        ("a => 1", "(kp(a) >= 1)"),
        ("a <= 1", "(kp(a) <= 1)"),
        ("a =< 1", "(kp(a) <= 1)"),
        ("a > 1", "(kp(a) > 1)"),
        ("a < 1", "(kp(a) < 1)"),
        ("a != 1", "(kp(a) != 1)"),
        ("a <> 1", "(kp(a) != 1)"),
        ("a BETWEEN {1, 5}", "(kp(a) BETWEEN {1, 5})"),
        ("a between {1, 5}", "(kp(a) BETWEEN {1, 5})"),
        ("a IN {1, 2}", "(kp(a) IN {1, 2})"),
        ("a in {1, 2}", "(kp(a) IN {1, 2})"),
        ("a CONTAINS 'x'", "(kp(a) CONTAINS \"x\")"),
        ("a contains 'x'", "(kp(a) CONTAINS \"x\")"),
        ("a BEGINSWITH 'x'", "(kp(a) BEGINSWITH \"x\")"),
        ("a beginsWith 'x'", "(kp(a) BEGINSWITH \"x\")"),
        ("a ENDSWITH 'x'", "(kp(a) ENDSWITH \"x\")"),
        ("a endswith 'x'", "(kp(a) ENDSWITH \"x\")"),
        ("a LIKE 'x*'", "(kp(a) LIKE \"x*\")"),
        ("a like 'x?'", "(kp(a) LIKE \"x?\")"),
        ("a MATCHES '[a-z]+'", "(kp(a) MATCHES \"[a-z]+\")"),
        ("a Matches '.*'", "(kp(a) MATCHES \".*\")"),
        ("a=-1", "(kp(a) == -1)"),
        ("a<-1", "(kp(a) < -1)"),
        ("1 < a", "(1 < kp(a))"),
        ("'x' IN names", "(\"x\" IN kp(names))"),
        ("SELF == $x", "(SELF == $x)"),
        ("a == b", "(kp(a) == kp(b))"),
    ])
    func operators(format: String, expected: String) {
        #expect(parsed(format) == expected)
    }

    static let operatorSpellings = [
        "=", "==", ">=", "=>", "<=", "=<", ">", "<", "!=", "<>", "BETWEEN", "IN", "CONTAINS",
        "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES",
    ]

    static let optionSpellings: [(String, NSComparisonPredicate.Options)] = [
        ("c", [.caseInsensitive]), ("d", [.diacriticInsensitive]), ("n", [.normalized]),
        ("cd", [.caseInsensitive, .diacriticInsensitive]), ("dc", [.caseInsensitive, .diacriticInsensitive]),
        ("CD", [.caseInsensitive, .diacriticInsensitive]), ("cn", [.caseInsensitive, .normalized]),
        ("dn", [.diacriticInsensitive, .normalized]),
        ("cdn", [.caseInsensitive, .diacriticInsensitive, .normalized]),
        ("ndc", [.caseInsensitive, .diacriticInsensitive, .normalized]),
    ]

    /// Every operator with every option combination, with and without a space before `[`.
    @Test(arguments: operatorSpellings)
    func everyOperatorTakesEveryOption(spelling: String) throws {
        for (letters, options) in Self.optionSpellings {
            for format in ["name \(spelling)[\(letters)] 'x'", "name \(spelling) [\(letters)] 'x'"] {
                let predicate = try PredicateParser.parsePredicate(format, arguments: [])
                let comparison = try #require(predicate as? NSComparisonPredicate, "\(format)")
                #expect(comparison.options == options, "\(format)")
                #expect(comparison.comparisonPredicateModifier == .direct)
                #expect(comparison.leftExpression.keyPath == "name")
                #expect(comparison.rightExpression.constantValue as? String == "x")
            }
        }
        let plain = try #require(try PredicateParser.parsePredicate("name \(spelling) 'x'", arguments: []) as? NSComparisonPredicate)
        #expect(plain.options == [])
    }

    @Test(arguments: [
        ("ANY tags.name == 'a'", "(ANY kp(tags.name) == \"a\")"),
        ("any tags.name == 'a'", "(ANY kp(tags.name) == \"a\")"),
        ("SOME tags.name == 'a'", "(ANY kp(tags.name) == \"a\")"),
        ("some tags.name == 'a'", "(ANY kp(tags.name) == \"a\")"),
        ("ALL kids.age > 12", "(ALL kp(kids.age) > 12)"),
        ("all kids.age > 12", "(ALL kp(kids.age) > 12)"),
        ("NONE kids.age > 12", "NOT((ANY kp(kids.age) > 12))"),
        ("none kids.age > 12", "NOT((ANY kp(kids.age) > 12))"),
        ("NOT ANY kids.age > 12", "NOT((ANY kp(kids.age) > 12))"),
        ("ANY tags.name IN[cd] {'a'}", "(ANY kp(tags.name) IN[cd] {\"a\"})"),
        ("ANY (a.b) == 1", "(ANY kp(a.b) == 1)"),
        ("ALL kids.name LIKE[c] 'a*'", "(ALL kp(kids.name) LIKE[c] \"a*\")"),
    ])
    func modifiers(format: String, expected: String) {
        #expect(parsed(format) == expected)
    }

    @Test(arguments: [
        ("TRUEPREDICATE", "TRUEPREDICATE"),
        ("truepredicate", "TRUEPREDICATE"),
        ("FALSEPREDICATE", "FALSEPREDICATE"),
        ("falsePredicate", "FALSEPREDICATE"),
        ("(TRUEPREDICATE)", "TRUEPREDICATE"),
        ("NOT TRUEPREDICATE", "NOT(TRUEPREDICATE)"),
        ("a == 1 AND b == 2", "AND((kp(a) == 1), (kp(b) == 2))"),
        ("a == 1 and b == 2", "AND((kp(a) == 1), (kp(b) == 2))"),
        ("a == 1 && b == 2", "AND((kp(a) == 1), (kp(b) == 2))"),
        ("a == 1 OR b == 2", "OR((kp(a) == 1), (kp(b) == 2))"),
        ("a == 1 or b == 2", "OR((kp(a) == 1), (kp(b) == 2))"),
        ("a == 1 || b == 2", "OR((kp(a) == 1), (kp(b) == 2))"),
        ("NOT a == 1", "NOT((kp(a) == 1))"),
        ("not a == 1", "NOT((kp(a) == 1))"),
        ("!a == 1", "NOT((kp(a) == 1))"),
        ("! (a == 1)", "NOT((kp(a) == 1))"),
        ("NOT NOT a == 1", "NOT(NOT((kp(a) == 1)))"),
        // Flattening of chains.
        ("a = 1 AND b = 2 AND c = 3", "AND((kp(a) == 1), (kp(b) == 2), (kp(c) == 3))"),
        ("a = 1 OR b = 2 OR c = 3 OR d = 4", "OR((kp(a) == 1), (kp(b) == 2), (kp(c) == 3), (kp(d) == 4))"),
        ("(a = 1 AND b = 2) AND c = 3", "AND((kp(a) == 1), (kp(b) == 2), (kp(c) == 3))"),
        ("a = 1 AND (b = 2 AND c = 3)", "AND((kp(a) == 1), (kp(b) == 2), (kp(c) == 3))"),
        // Precedence: NOT > AND > OR.
        ("a = 1 OR b = 2 AND c = 3", "OR((kp(a) == 1), AND((kp(b) == 2), (kp(c) == 3)))"),
        ("a = 1 AND b = 2 OR c = 3", "OR(AND((kp(a) == 1), (kp(b) == 2)), (kp(c) == 3))"),
        ("NOT a = 1 AND b = 2", "AND(NOT((kp(a) == 1)), (kp(b) == 2))"),
        ("NOT a = 1 OR b = 2", "OR(NOT((kp(a) == 1)), (kp(b) == 2))"),
        ("NOT (a = 1 OR b = 2)", "NOT(OR((kp(a) == 1), (kp(b) == 2)))"),
        ("(a = 1 OR b = 2) AND c = 3", "AND(OR((kp(a) == 1), (kp(b) == 2)), (kp(c) == 3))"),
        ("a = 1 AND (b = 2 OR c = 3) AND d = 4",
         "AND((kp(a) == 1), OR((kp(b) == 2), (kp(c) == 3)), (kp(d) == 4))"),
        ("((a = 1))", "(kp(a) == 1)"),
        ("(((a = 1) OR (b = 2)))", "OR((kp(a) == 1), (kp(b) == 2))"),
        // Parentheses around an expression, not a predicate.
        ("(a + b) > 3", "(fn(add:to:, kp(a), kp(b)) > 3)"),
        ("(a) == 1", "(kp(a) == 1)"),
        ("((a + 1) * 2) == 4 AND b == 1", "AND((fn(multiply:by:, fn(add:to:, kp(a), 1), 2) == 4), (kp(b) == 1))"),
        ("({1, 2}) CONTAINS 1", "({1, 2} CONTAINS 1)"),
        // NOT before the operator.
        ("a NOT IN {1, 2}", "NOT((kp(a) IN {1, 2}))"),
        ("name NOT CONTAINS[c] 'x'", "NOT((kp(name) CONTAINS[c] \"x\"))"),
        ("name NOT LIKE 'x'", "NOT((kp(name) LIKE \"x\"))"),
        // Keywords as operands of comparisons.
        ("flag == YES", "(kp(flag) == true)"),
        ("flag == no", "(kp(flag) == false)"),
        ("a == nil", "(kp(a) == nil)"),
        ("a != NULL", "(kp(a) != nil)"),
        ("SELF IN {1, 2}", "(SELF IN {1, 2})"),
    ])
    func compoundsAndPrecedence(format: String, expected: String) {
        #expect(parsed(format) == expected)
    }

    @Test func parsedTypesAreTheSubclasses() throws {
        let and = try PredicateParser.parsePredicate("a = 1 AND b = 2", arguments: [])
        #expect((and as? NSCompoundPredicate)?.compoundPredicateType == .and)
        #expect((and as? NSCompoundPredicate)?.subpredicates.count == 2)
        let comparison = try PredicateParser.parsePredicate("a = 1", arguments: [])
        #expect((comparison as? NSComparisonPredicate)?.predicateOperatorType == .equalTo)
        let truth = try PredicateParser.parsePredicate("TRUEPREDICATE", arguments: [])
        #expect(!(truth is NSComparisonPredicate) && !(truth is NSCompoundPredicate))
    }

    @Test func publicInitializersUseTheParser() throws {
        let predicate = NSPredicate(format: "age > %d AND name BEGINSWITH[c] %@", 3, "a")
        #expect(Tree.dump(predicate) == "AND((kp(age) > 3), (kp(name) BEGINSWITH[c] \"a\"))")
        let comparison = try NSComparisonPredicate(validatingFormat: "age > 3")
        #expect(comparison.predicateOperatorType == .greaterThan)
        let array = NSPredicate(format: "a IN %@", argumentArray: [[1, 2]])
        #expect(Tree.dump(array) == "(kp(a) IN [1, 2])")
        #expect(throws: PredicateParseError.self) { try NSCompoundPredicate(validatingFormat: "a > 3") }
        let expression = NSExpression(format: "%K + 1", "x")
        #expect(Tree.dump(expression) == "fn(add:to:, kp(x), 1)")
        let fromArray = NSExpression(format: "%@ * 2", argumentArray: [4])
        #expect(Tree.dump(fromArray) == "fn(multiply:by:, 4, 2)")
        #expect(throws: PredicateParseError.self) { try NSExpression(validatingFormat: "1 +") }
    }
}
