import Testing
@testable import OpenCoreData

@Suite struct SubstitutionTests {
    typealias A = FormatAST

    @Test func replacesBoundVariablesAndKeepsKinds() {
        let p = A.and(A.cmp(A.key("age"), .greaterThan, A.variable("MIN")),
                      A.cmp(A.key("name"), .like, A.variable("NAME"), .direct, .caseInsensitive))
        let bound = p.withSubstitutionVariables(["MIN": 3, "NAME": "a*"])
        #expect(bound.predicateFormat == #"age > 3 AND name LIKE[c] "a*""#)
        #expect(type(of: bound) == NSCompoundPredicate.self)
        let comparison = A.cmp(A.key("a"), .equalTo, A.variable("X"), .any)
        let boundComparison: NSComparisonPredicate = comparison.withSubstitutionVariables(["X": 1])
        #expect(boundComparison.comparisonPredicateModifier == .any)
        #expect(boundComparison.rightExpression.expressionType == .constantValue)
        #expect(p.predicateFormat == #"age > $MIN AND name LIKE[c] $NAME"#, "the receiver is unchanged")
    }

    @Test func unboundVariablesStay() {
        let p = A.cmp(A.variable("X"), .equalTo, A.variable("Y"))
        #expect(p.withSubstitutionVariables(["X": "x"]).predicateFormat == #""x" == $Y"#)
        #expect(p.withSubstitutionVariables([:]) === p, "an unchanged tree is returned as it is")
        #expect(NSPredicate(value: true).withSubstitutionVariables(["X": 1]).predicateFormat == "TRUEPREDICATE")
    }

    @Test func subqueryIteratorIsNotReplaced() {
        let inner = A.and(A.cmp(A.on(A.variable("i"), "price"), .greaterThan, A.variable("MIN")),
                          A.cmp(A.variable("i"), .notEqualTo, A.const(nil)))
        let sub = NSExpression(forSubquery: A.variable("ITEMS"), usingIteratorVariable: "i", predicate: inner)
        let p = A.cmp(A.on(sub, "@count"), .greaterThan, A.const(0))
        let bound = p.withSubstitutionVariables(["MIN": 10, "i": "shadowed", "ITEMS": [1, 2]])
        #expect(bound.predicateFormat == "SUBQUERY({1, 2}, $i, $i.price > 10 AND $i != nil).@count > 0")
    }

    @Test func everyExpressionKindIsWalked() {
        let x = A.variable("X")
        let expressions: [NSExpression] = [
            A.fn("add:to:", x, A.const(1)),
            NSExpression(forFunction: x, selectorName: "foo:", arguments: [x]),
            NSExpression(forAggregate: [x, A.key("k")]),
            NSExpression(forUnionSet: x, with: x),
            NSExpression(forIntersectSet: x, with: x),
            NSExpression(forMinusSet: x, with: x),
            NSExpression(forConditional: A.cmp(x, .equalTo, A.const(1)), trueExpression: x, falseExpression: A.this),
            A.on(x, "name"),
            A.index(x, A.symbol(.last)),
        ]
        let expected = [
            "5 + 1", #"FUNCTION(5, "foo:" , 5)"#, "{5, k}", "5 UNION 5", "5 INTERSECT 5", "5 MINUS 5",
            "TERNARY(5 == 1, 5, SELF)", "5.name", "5[LAST]",
        ]
        for (expression, text) in zip(expressions, expected) {
            let p = A.cmp(expression, .equalTo, NSExpression.expressionForAnyKey())
            #expect(p.withSubstitutionVariables(["X": 5]).predicateFormat == text + " == ANYKEY")
        }
    }

    @Test func parsedTemplates() throws {
        let p = try NSPredicate(validatingFormat: "$a == 1", argumentArray: [])
        #expect(p.withSubstitutionVariables(["a": "a"]).predicateFormat == #""a" == 1"#)
        let template = try NSPredicate(validatingFormat:
            "(firstName BEGINSWITH[cd] $letter) OR (lastName BEGINSWITH[cd] $letter)", argumentArray: [])
        let bound = template.withSubstitutionVariables(["letter": "A"])
        #expect(bound.predicateFormat == #"firstName BEGINSWITH[cd] "A" OR lastName BEGINSWITH[cd] "A""#)
        #expect(try bound.evaluateThrowing(with: ["firstName": "Ann", "lastName": "Smith"]))
        #expect(try !bound.evaluateThrowing(with: ["firstName": "Bob", "lastName": "Smith"]))
        let between = try NSPredicate(validatingFormat: "date BETWEEN {$YESTERDAY, $TOMORROW}", argumentArray: [])
        #expect(between.withSubstitutionVariables(["YESTERDAY": 1, "TOMORROW": 3]).predicateFormat == "date BETWEEN {1, 3}")
    }

    @Test func boundExpressionIsUsedAsIs() {
        let p = A.cmp(A.key("a"), .equalTo, A.variable("X"))
        #expect(p.withSubstitutionVariables(["X": A.key("b")]).predicateFormat == "a == b")
    }

    @Test func blockExpressionArgumentsAreSubstituted() {
        let block = NSExpression(block: { _, args, _ in args.count }, arguments: [A.variable("X")])
        let bound = Substitution(variables: ["X": 2]).substitute(block)
        #expect(bound !== block)
        #expect(bound.arguments?.first?.constantValue as? Int == 2)
        let noArgs = NSExpression(block: { _, _, _ in 0 }, arguments: nil)
        #expect(Substitution(variables: ["X": 2]).substitute(noArgs) === noArgs)
    }
}
