import Testing
@testable import OpenCoreData

/// Builders that spell trees as the parser would build them.
enum FormatAST {
    static func key(_ path: String) -> NSExpression { NSExpression(forKeyPath: path) }
    static func const(_ value: Any?) -> NSExpression { NSExpression(forConstantValue: value) }
    static func variable(_ name: String) -> NSExpression { NSExpression(forVariable: name) }
    static var this: NSExpression { NSExpression.expressionForEvaluatedObject() }
    static func fn(_ name: String, _ args: NSExpression...) -> NSExpression {
        NSExpression(forFunction: name, arguments: args)
    }
    static func on(_ base: NSExpression, _ path: String) -> NSExpression { NSExpression(node: .keyPathOn(base, path)) }
    static func index(_ base: NSExpression, _ index: NSExpression) -> NSExpression { fn("objectFrom:withIndex:", base, index) }
    static func symbol(_ s: NSExpression.Symbol) -> NSExpression { NSExpression(node: .symbolic(s)) }
    static func cmp(_ l: NSExpression, _ op: NSComparisonPredicate.Operator, _ r: NSExpression,
                    _ modifier: NSComparisonPredicate.Modifier = .direct,
                    _ options: NSComparisonPredicate.Options = []) -> NSComparisonPredicate {
        NSComparisonPredicate(leftExpression: l, rightExpression: r, modifier: modifier, type: op, options: options)
    }
    static func and(_ p: NSPredicate...) -> NSCompoundPredicate { NSCompoundPredicate(andPredicateWithSubpredicates: p) }
    static func or(_ p: NSPredicate...) -> NSCompoundPredicate { NSCompoundPredicate(orPredicateWithSubpredicates: p) }
    static func not(_ p: NSPredicate) -> NSCompoundPredicate { NSCompoundPredicate(notPredicateWithSubpredicate: p) }
}

@Suite struct FormatterTests {
    typealias Op = NSComparisonPredicate.Operator

    static let operators: [(Op, String)] = [
        (.lessThan, "<"), (.lessThanOrEqualTo, "<="), (.greaterThan, ">"), (.greaterThanOrEqualTo, ">="),
        (.equalTo, "=="), (.notEqualTo, "!="), (.matches, "MATCHES"), (.like, "LIKE"),
        (.beginsWith, "BEGINSWITH"), (.endsWith, "ENDSWITH"), (.in, "IN"), (.contains, "CONTAINS"),
        (.between, "BETWEEN"),
    ]

    @Test(arguments: operators)
    func everyOperator(_ op: Op, _ symbol: String) {
        #expect(FormatAST.cmp(FormatAST.key("a"), op, FormatAST.const(1)).predicateFormat == "a \(symbol) 1")
    }

    static let optionCases: [(NSComparisonPredicate.Options, String)] = [
        (.caseInsensitive, "[c]"), (.diacriticInsensitive, "[d]"), (.normalized, "[n]"),
        ([.caseInsensitive, .diacriticInsensitive], "[cd]"), ([.caseInsensitive, .diacriticInsensitive, .normalized], "[cdn]"),
    ]

    @Test(arguments: optionCases)
    func options(_ options: NSComparisonPredicate.Options, _ suffix: String) {
        let p = FormatAST.cmp(FormatAST.key("name"), .beginsWith, FormatAST.const("a"), .direct, options)
        #expect(p.predicateFormat == "name BEGINSWITH\(suffix) \"a\"")
    }

    @Test func issueExample() {
        let p = FormatAST.and(FormatAST.cmp(FormatAST.key("age"), .greaterThan, FormatAST.const(3)),
                        FormatAST.cmp(FormatAST.key("name"), .beginsWith, FormatAST.const("a"), .direct, .caseInsensitive))
        #expect(p.predicateFormat == #"age > 3 AND name BEGINSWITH[c] "a""#)
        #expect(p.description == p.predicateFormat)
    }

    @Test func modifiers() {
        #expect(FormatAST.cmp(FormatAST.key("tags.name"), .equalTo, FormatAST.const("x"), .any).predicateFormat == #"ANY tags.name == "x""#)
        #expect(FormatAST.cmp(FormatAST.key("tags.n"), .greaterThan, FormatAST.const(1), .all).predicateFormat == "ALL tags.n > 1")
        #expect(FormatAST.not(FormatAST.cmp(FormatAST.key("tags"), .equalTo, FormatAST.const(1), .any)).predicateFormat == "NOT ANY tags == 1")
    }

    @Test func compoundParentheses() {
        let a = FormatAST.cmp(FormatAST.key("a"), .equalTo, FormatAST.const(1))
        let b = FormatAST.cmp(FormatAST.key("b"), .equalTo, FormatAST.const(2))
        let c = FormatAST.cmp(FormatAST.key("c"), .equalTo, FormatAST.const(3))
        #expect(FormatAST.and(FormatAST.or(a, b), c).predicateFormat == "(a == 1 OR b == 2) AND c == 3")
        #expect(FormatAST.or(a, FormatAST.and(b, c)).predicateFormat == "a == 1 OR (b == 2 AND c == 3)")
        #expect(FormatAST.not(FormatAST.or(a, b)).predicateFormat == "NOT (a == 1 OR b == 2)")
        #expect(FormatAST.not(a).predicateFormat == "NOT a == 1")
        #expect(FormatAST.not(FormatAST.not(a)).predicateFormat == "NOT (NOT a == 1)")
        #expect(FormatAST.and(a, b, c).predicateFormat == "a == 1 AND b == 2 AND c == 3")
        #expect(FormatAST.and().predicateFormat == "TRUEPREDICATE")
        #expect(FormatAST.or().predicateFormat == "FALSEPREDICATE")
        #expect(FormatAST.and(NSPredicate(value: true), FormatAST.not(NSPredicate(value: false))).predicateFormat
                == "TRUEPREDICATE AND (NOT FALSEPREDICATE)")
    }

    @Test func constantPredicatesAndBlocks() {
        #expect(NSPredicate(value: true).predicateFormat == "TRUEPREDICATE")
        #expect(NSPredicate(value: false).predicateFormat == "FALSEPREDICATE")
        let block = NSPredicate { _, _ in true }
        #expect(block.predicateFormat.hasPrefix("BLOCKPREDICATE(0x"))
        #expect(block.predicateFormat.hasSuffix(")"))
    }

    @Test func constants() {
        let cases: [(Any?, String)] = [
        (nil as Any?, "nil"), (NSNull(), "<null>"), ("plain", #""plain""#), (#"say "hi" \ bye"#, #""say \"hi\" \\ bye""#),
        (true, "1"), (false, "0"), (3, "3"), (-3, "-3"), (Int8(-8), "-8"), (Int16(16), "16"), (Int32(32), "32"),
        (Int64.max, "9223372036854775807"), (UInt(7), "7"), (UInt8(8), "8"), (UInt16(16), "16"), (UInt32(32), "32"),
        (UInt64.max, "18446744073709551615"), (3.5, "3.5"), (2.0, "2"), (0.1, "0.1"), (-2.25, "-2.25"),
        (1e20, "1e+20"), (1e15, "1000000000000000"), (-0.0, "0"), (Double.nan, "nan"), (Float(0.1), "0.1"), (Decimal(string: "12.5")!, "12.5"),
        (NSNumber(value: 4.5), "4.5"), (NSNumber(value: 7), "7"), (NSNumber(value: true), "1"),
        (NSNumber(value: UInt64.max), "18446744073709551615"),
        (Date(timeIntervalSinceReferenceDate: 694224000), #"CAST(694224000.000000, "NSDate")"#),
        ([1, "a"] as [Any], #"{1, "a"}"#), (Set([3, 1, 2]), "{1, 2, 3}"),
        (NSSet(array: ["b", "a"]), #"{"a", "b"}"#), (Optional<Any>.some(5) as Any, "5"),
        (Optional<Int>.none as Any, "nil"),
        ]
        for (value, expected) in cases {
            #expect(FormatAST.const(value).description == expected)
        }
    }

    @Test func nestedExpressionsAsConstants() {
        #expect(FormatAST.const([FormatAST.key("a"), FormatAST.const(1)]).description == "{a, 1}")
        #expect(FormatAST.const(NSPredicate(value: true)).description == "TRUEPREDICATE")
        #expect(FormatAST.const(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!).description
                == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    }

    @Test func keyPathsAndVariables() {
        #expect(FormatAST.key("a.b.@sum.c").description == "a.b.@sum.c")
        #expect(FormatAST.key("size").description == "#size")
        #expect(FormatAST.key("order.first.name").description == "order.#first.name")
        #expect(FormatAST.variable("FIRST_NAME").description == "$FIRST_NAME")
        #expect(FormatAST.this.description == "SELF")
        #expect(NSExpression.expressionForAnyKey().description == "ANYKEY")
        #expect(FormatAST.on(FormatAST.variable("i"), "price").description == "$i.price")
        #expect(FormatAST.on(FormatAST.this, "name").description == "SELF.name")
    }

    @Test func arithmeticPrecedence() {
        let a = FormatAST.key("a"), b = FormatAST.key("b"), c = FormatAST.key("c")
        #expect(FormatAST.fn("add:to:", a, b).description == "a + b")
        #expect(FormatAST.fn("multiply:by:", FormatAST.fn("add:to:", a, b), c).description == "(a + b) * c")
        #expect(FormatAST.fn("add:to:", a, FormatAST.fn("multiply:by:", b, c)).description == "a + b * c")
        #expect(FormatAST.fn("from:subtract:", FormatAST.fn("from:subtract:", a, b), c).description == "a - b - c")
        #expect(FormatAST.fn("from:subtract:", a, FormatAST.fn("from:subtract:", b, c)).description == "a - (b - c)")
        #expect(FormatAST.fn("divide:by:", a, FormatAST.fn("multiply:by:", b, c)).description == "a / (b * c)")
        #expect(FormatAST.fn("raise:toPower:", FormatAST.fn("raise:toPower:", a, b), c).description == "(a ** b) ** c")
        #expect(FormatAST.fn("raise:toPower:", a, FormatAST.fn("raise:toPower:", b, c)).description == "a ** (b ** c)")
        #expect(FormatAST.fn("raise:toPower:", FormatAST.const(-2), FormatAST.const(-1)).description == "(-2) ** -1")
        #expect(FormatAST.fn("from:subtract:", FormatAST.const(0), a).description == "0 - a")
        #expect(FormatAST.fn("add:to:", FormatAST.const(1), FormatAST.const(-2)).description == "1 + -2")
    }

    @Test func functions() {
        #expect(FormatAST.fn("sum:", NSExpression(forAggregate: [FormatAST.const(1), FormatAST.const(2)])).description == "sum:({1, 2})")
        #expect(FormatAST.fn("now").description == "now()")
        #expect(FormatAST.fn("uppercase:", FormatAST.key("name")).description == "uppercase:(name)")
        #expect(FormatAST.fn("add:to:", FormatAST.key("a")).description == "add:to:(a)")
        #expect(FormatAST.index(FormatAST.key("a"), FormatAST.symbol(.first)).description == "a[FIRST]")
        #expect(FormatAST.index(FormatAST.key("a"), FormatAST.symbol(.last)).description == "a[LAST]")
        #expect(FormatAST.index(FormatAST.key("a"), FormatAST.symbol(.size)).description == "a[SIZE]")
        #expect(FormatAST.index(FormatAST.key("a"), FormatAST.const(0)).description == "a[0]")
        #expect(FormatAST.index(FormatAST.fn("add:to:", FormatAST.key("a"), FormatAST.key("b")), FormatAST.const(0)).description == "(a + b)[0]")
        #expect(FormatAST.on(FormatAST.fn("add:to:", FormatAST.key("a"), FormatAST.key("b")), "c").description == "(a + b).c")
        #expect(FormatAST.fn("castObject:toType:", FormatAST.key("x"), FormatAST.const("NSNumber")).description == #"CAST(x, "NSNumber")"#)
        #expect(FormatAST.fn("castObject:toType:", FormatAST.fn("now"), FormatAST.const("NSNumber")).description == #"CAST(now(), "NSNumber")"#)
        let f = NSExpression(forFunction: FormatAST.this, selectorName: "selector:", arguments: [FormatAST.const(1)])
        #expect(f.description == #"FUNCTION(SELF, "selector:" , 1)"#, "Apple prints a space before that comma")
        let g = NSExpression(forFunction: FormatAST.key("a"), selectorName: "count", arguments: nil)
        #expect(g.description == #"FUNCTION(a, "count")"#)
    }

    @Test func subqueryTernaryAndSets() {
        let sub = NSExpression(forSubquery: FormatAST.key("items"), usingIteratorVariable: "i",
                               predicate: FormatAST.cmp(FormatAST.on(FormatAST.variable("i"), "price"), .greaterThan, FormatAST.const(10)))
        #expect(FormatAST.on(sub, "@count").description == "SUBQUERY(items, $i, $i.price > 10).@count")
        let t = NSExpression(forConditional: FormatAST.cmp(FormatAST.key("a"), .equalTo, FormatAST.const(1)),
                             trueExpression: FormatAST.const("x"), falseExpression: FormatAST.key("b"))
        #expect(t.description == #"TERNARY(a == 1, "x", b)"#)
        let x = NSExpression(forAggregate: [FormatAST.const(1)]), y = NSExpression(forAggregate: [FormatAST.const(2)])
        #expect(NSExpression(forUnionSet: x, with: y).description == "{1} UNION {2}")
        #expect(NSExpression(forIntersectSet: x, with: y).description == "{1} INTERSECT {2}")
        #expect(NSExpression(forMinusSet: NSExpression(forUnionSet: x, with: y), with: y).description
                == "({1} UNION {2}) MINUS {2}")
        let block = NSExpression(block: { _, _, _ in 1 }, arguments: [FormatAST.key("a")])
        #expect(block.description.hasPrefix("BLOCK(0x"))
        #expect(block.description.hasSuffix(", {a})"))
    }
}
