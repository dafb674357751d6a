import Testing
@testable import OpenCoreData

/// Apple's NSExpression accessors, on every kind of expression that defines them.
@Suite struct ExpressionAccessorTests {
    @Test func payloadFreeExpressionTypes() {
        #expect(NSExpression(expressionType: .evaluatedObject).expressionType == .evaluatedObject)
        #expect(NSExpression(expressionType: .anyKey).expressionType == .anyKey)
        #expect(NSExpression.expressionForAnyKey().isEqual(NSExpression(expressionType: .anyKey)))
    }

    @Test func aggregateAndSubqueryCollections() {
        let aggregate = NSExpression(format: "{1, 2, 3}")
        #expect(aggregate.expressionType == .aggregate)
        #expect((aggregate.collection as? [NSExpression])?.map { $0.constantValue as? Int } == [1, 2, 3])

        let subquery = NSExpression(format: "SUBQUERY(items, $i, $i.price > 10)")
        #expect(subquery.expressionType == .subquery)
        #expect((subquery.collection as? NSExpression)?.keyPath == "items")
        #expect(subquery.variable == "i")
        #expect(subquery.predicate.predicateFormat == "$i.price > 10")
    }

    @Test func setExpressionOperands() {
        let union = NSExpression(forUnionSet: NSExpression(forKeyPath: "a"), with: NSExpression(forKeyPath: "b"))
        let intersect = NSExpression(forIntersectSet: NSExpression(forKeyPath: "a"), with: NSExpression(forKeyPath: "b"))
        let minus = NSExpression(forMinusSet: NSExpression(forKeyPath: "a"), with: NSExpression(forKeyPath: "b"))
        #expect([union, intersect, minus].map(\.expressionType) == [.unionSet, .intersectSet, .minusSet])
        for expression in [union, intersect, minus] {
            #expect(expression.left.keyPath == "a")
            #expect(expression.right.keyPath == "b")
        }
        let value = union.expressionValue(with: ["a": [1, 2], "b": [2, 3]], context: nil) as? Set<AnyHashable>
        #expect(value == [1, 2, 3])
    }

    @Test func conditionalParts() {
        let conditional = NSExpression(format: "TERNARY(age > 17, 'adult', 'minor')")
        #expect(conditional.expressionType == .conditional)
        #expect(conditional.predicate.predicateFormat == "age > 17")
        #expect(conditional.trueExpression.constantValue as? String == "adult")
        #expect(conditional.falseExpression.constantValue as? String == "minor")
        #expect(conditional.expressionValue(with: ["age": 20], context: nil) as? String == "adult")
    }

    @Test func blockExpressionsRunTheirBlock() {
        let block = NSExpression(block: { object, arguments, _ in
            ((object as? [String: Int])?["x"] ?? 0) + arguments.count
        }, arguments: [NSExpression(forConstantValue: 1)])
        #expect(block.expressionType == .block)
        #expect(block.arguments?.count == 1)
        #expect(block.expressionBlock(["x": 2], [], nil) as? Int == 2)
        #expect(block.expressionValue(with: ["x": 2], context: nil) as? Int == 3)
    }

    @Test func functionOperandsAndArguments() {
        let function = NSExpression(forFunction: NSExpression(forKeyPath: "name"), selectorName: "uppercase:", arguments: nil)
        #expect(function.expressionType == .function)
        #expect(function.operand.keyPath == "name")
        #expect(function.function == "uppercase:")
        #expect(function.arguments?.isEmpty == true)
        let keyPath = NSExpression(format: "$x.name")
        #expect(keyPath.function == "valueForKeyPath:")
        #expect(keyPath.operand.variable == "x")
        #expect(keyPath.arguments?.first?.constantValue as? String == "name")
        #expect(NSExpression(forKeyPath: "a").operand.expressionType == .evaluatedObject)
    }

    @Test func contextVariablesAndCopies() {
        let expression = NSExpression(format: "$base + 1")
        let context = NSMutableDictionary()
        context["base"] = 41
        #expect(expression.expressionValue(with: nil, context: context) as? Int == 42)
        #expect((expression.copy() as? NSExpression) === expression)
        #expect(expression.hash == NSExpression(format: "$base + 1").hash)
        expression.allowEvaluation()
        let predicate = NSPredicate(format: "a == 1")
        #expect((predicate.copy() as? NSPredicate) === predicate)
        #expect(predicate.hash == NSPredicate(format: "a == 1").hash)
        predicate.allowEvaluation()
    }
}
