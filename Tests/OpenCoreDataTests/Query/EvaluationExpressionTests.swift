import Testing
@testable import OpenCoreData

/// A user type that answers FUNCTION selectors.
struct EvalPoint: PredicateFunctionTarget {
    var x: Double, y: Double
    func respondsToPredicateFunction(_ selector: String) -> Bool { selector == "distanceTo:" }
    func performPredicateFunction(_ selector: String, arguments: [Any?]) throws -> Any? {
        guard let other = arguments.first as? EvalPoint else { return nil }
        return ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }
}

/// Expressions: variables, key paths, aggregates, set operations, SUBQUERY, TERNARY, blocks,
/// indexing, CAST, FUNCTION, and their errors.
@Suite struct EvaluationExpressionTests {
    static var order: [String: Any] {
        ["items": [["price": 5, "name": "pen"], ["price": 15, "name": "ink"], ["price": 25, "name": "pad"]],
         "tags": Set(["a", "b"]), "list": ["x", "y", "z"], "meta": ["k": "v"], "count": 3, "nothing": NSNull()]
    }

    @Test func variablesAndSelf() throws {
        #expect(try Eval.test("count == $N", Self.order, variables: ["N": 3]))
        #expect(try Eval.value("$N", nil, variables: ["N": 4]) as? Int == 4)
        #expect(try Eval.value("SELF", 9) as? Int == 9)
        #expect(try Eval.test("SELF == 9", 9))
        #expect(try Eval.test("SELF IN %@", 2, [1, 2]))
        #expect(Eval.error("count == $MISSING", Self.order) == .unboundVariable(name: "MISSING"))
        let predicate = NSPredicate(format: "count == $N")
        #expect(predicate.evaluate(with: Self.order, substitutionVariables: ["N": 3]))
    }

    @Test func keyPathsAndKeyPathsOnExpressions() throws {
        #expect(Eval.same(try Eval.value("items.price", Self.order), [5, 15, 25]))
        #expect(try Eval.value("items.@sum.price", Self.order) as? Int == 45)
        #expect(try Eval.test("items.@max.price == 25", Self.order))
        #expect(try Eval.test("items.@avg.price == 15", Self.order))
        #expect(try Eval.test("ANY items.price > 20", Self.order))
        #expect(try Eval.test("ALL items.price > 1", Self.order))
        #expect(try Eval.test("NONE items.name == 'cup'", Self.order))
        #expect(try Eval.test("$o.count == 3", nil, variables: ["o": Self.order]))
        #expect(Eval.error("name == 'x'", KVCPerson(name: "A", age: 1), nil as Any?) == nil)
        #expect(Eval.error("wings == 2", KVCPerson(name: "A", age: 1))
                == .keyValueCoding(.unknownKey(key: "wings", owner: "type KVCPerson"), keyPath: "wings"))
        #expect(Eval.error("$p.wings == 2", nil, variables: ["p": KVCPerson(name: "A", age: 1)])
                == .keyValueCoding(.unknownKey(key: "wings", owner: "type KVCPerson"), keyPath: "wings"))
    }

    @Test func aggregatesAndSetOperations() throws {
        #expect(Eval.same(try Eval.value("{1, count, nothing}", Self.order), [1, 3, NSNull()] as [Any]))
        #expect(Eval.same(try Eval.value("{1, 2} UNION {2, 3}"), Set([1, 2, 3])))
        #expect(Eval.same(try Eval.value("{1, 2} INTERSECT {2, 3}"), Set([2])))
        #expect(Eval.same(try Eval.value("{1, 2} MINUS {2, 3}"), Set([1])))
        #expect(Eval.same(try Eval.value("tags UNION nothing", Self.order), Set(["a", "b"])))
        #expect(try Eval.test("'c' IN tags UNION {'c'}", Self.order))
        #expect(Eval.valueError("count UNION {1}", Self.order) == .notACollection(construct: "UNION", typeName: "Int"))
        let intersect = NSExpression(forIntersectSet: NSExpression(forConstantValue: 1), with: NSExpression(forConstantValue: [1]))
        #expect(throws: PredicateEvaluationError.notACollection(construct: "INTERSECT", typeName: "Int")) {
            try intersect.expressionValueThrowing(with: nil)
        }
    }

    @Test func subqueries() throws {
        #expect(try Eval.test("SUBQUERY(items, $i, $i.price > 10).@count == 2", Self.order))
        #expect(try Eval.test("SUBQUERY(items, $i, $i.price > 10 AND $i.name BEGINSWITH 'p').@count == 1", Self.order))
        #expect(try Eval.test("SUBQUERY(items, $i, price > 100).@count == 0", Self.order))
        #expect(Eval.same(try Eval.value("SUBQUERY(tags, $t, $t != 'a')", Self.order), Set(["b"])))
        #expect(Eval.same(try Eval.value("SUBQUERY(nothing, $t, $t != 'a')", Self.order), [Any]()))
        #expect(try Eval.test("SUBQUERY(items, $i, $i.price > $MIN).@count == 1", Self.order, variables: ["MIN": 20]))
        #expect(Eval.valueError("SUBQUERY(count, $i, $i > 1)", Self.order) == .notACollection(construct: "SUBQUERY", typeName: "Int"))
    }

    @Test func ternaryAndBlocks() throws {
        #expect(try Eval.value("TERNARY(count > 2, 'big', 'small')", Self.order) as? String == "big")
        #expect(try Eval.value("TERNARY(count > 5, 'big', 'small')", Self.order) as? String == "small")
        let block = NSExpression(block: { object, arguments, context in
            "\((object as? [String: Any])?["count"] ?? 0)-\(arguments.count)-\(context?["V"] ?? "none")"
        }, arguments: [NSExpression(forConstantValue: 1), NSExpression(forConstantValue: nil)])
        #expect(try block.expressionValueThrowing(with: Self.order, variables: ["V": "v"]) as? String == "3-2-v")
        #expect(block.expressionValue(with: Self.order, context: nil) as? String == "3-2-none")
        #expect(throws: PredicateEvaluationError.unsupported(construct: "ANYKEY")) {
            try NSExpression.expressionForAnyKey().expressionValueThrowing(with: nil)
        }
    }

    @Test func indexing() throws {
        #expect(try Eval.value("list[0]", Self.order) as? String == "x")
        #expect(try Eval.value("list[FIRST]", Self.order) as? String == "x")
        #expect(try Eval.value("list[LAST]", Self.order) as? String == "z")
        #expect(try Eval.value("list[SIZE]", Self.order) as? Int == 3)
        #expect(try Eval.value("tags[SIZE]", Self.order) as? Int == 2)
        #expect(try Eval.value("meta[SIZE]", Self.order) as? Int == 1)
        #expect(try Eval.value("meta['k']", Self.order) as? String == "v")
        #expect(try Eval.value("meta['missing']", Self.order) == nil)
        #expect(try Eval.value("nothing[0]", Self.order) == nil)
        #expect(try Eval.value("%@[FIRST]", nil, [Int]()) == nil)
        #expect(try Eval.value("%@[1]", nil, NSOrderedSet(array: [1, 2])) as? Int == 2)
        #expect(try Eval.test("list[LAST] == 'z'", Self.order))
        #expect(Eval.valueError("list[3]", Self.order) == .indexOutOfRange(index: 3, count: 3))
        #expect(Eval.valueError("list[-1]", Self.order) == .indexOutOfRange(index: -1, count: 3))
        #expect(Eval.valueError("list['a']", Self.order)
                == .wrongArgumentType(function: "objectFrom:withIndex:", argument: 1, expected: "an integer index", typeName: "String"))
        #expect(Eval.valueError("tags[FIRST]", Self.order) == .wrongArgumentType(
            function: "objectFrom:withIndex:", argument: 0, expected: "an array or ordered set for an index other than SIZE", typeName: "Set<String>"))
        #expect(Eval.valueError("meta[0]", Self.order) == .wrongArgumentType(
            function: "objectFrom:withIndex:", argument: 1, expected: "a string key for a dictionary", typeName: "Int"))
        #expect(Eval.valueError("meta[FIRST]", Self.order) == .wrongArgumentType(
            function: "objectFrom:withIndex:", argument: 1, expected: "a string key for a dictionary", typeName: "FIRST"))
        #expect(Eval.valueError("count[0]", Self.order) == .notACollection(construct: "[index]", typeName: "Int"))
        #expect(Eval.valueError("count[SIZE]", Self.order) == .notACollection(construct: "[SIZE]", typeName: "Int"))
    }

    @Test func casts() throws {
        #expect(try Eval.value("CAST(0, 'NSDate')") as? Date == Date(timeIntervalSinceReferenceDate: 0))
        #expect(try Eval.value("CAST('60', 'NSDate')") as? Date == Date(timeIntervalSinceReferenceDate: 60))
        #expect(try Eval.value("CAST(%@, 'NSDate')", nil, Date(timeIntervalSince1970: 5)) as? Date == Date(timeIntervalSince1970: 5))
        #expect(try Eval.value("CAST('42', 'NSNumber')") as? Int == 42)
        #expect(try Eval.value("CAST('4.5', 'NSNumber')") as? Double == 4.5)
        #expect(try Eval.value("CAST(7, 'NSNumber')") as? Int == 7)
        #expect(try Eval.value("CAST(YES, 'NSNumber')") as? Bool == true)
        #expect(try Eval.value("CAST(%@, 'NSNumber')", nil, Date(timeIntervalSinceReferenceDate: 9)) as? Double == 9)
        #expect(try Eval.value("CAST(3.0, 'NSString')") as? String == "3")
        #expect(try Eval.value("CAST(3.5, 'NSString')") as? String == "3.5")
        #expect(try Eval.value("CAST('s', 'NSString')") as? String == "s")
        #expect(try Eval.value("CAST(%@, 'NSString')", nil, Date(timeIntervalSinceReferenceDate: 0)) as? String == "2001-01-01T00:00:00Z")
        #expect(try Eval.value("CAST(nil, 'NSNumber')") == nil)
        #expect(try Eval.test("CAST('5', 'NSNumber') > 4"))
        #expect(Eval.valueError("CAST('abc', 'NSNumber')") == .invalidCast(typeName: "String", type: "NSNumber"))
        #expect(Eval.valueError("CAST('abc', 'NSDate')") == .invalidCast(typeName: "String", type: "NSDate"))
        let widget = NSExpression(forFunction: "castObject:toType:", arguments: [NSExpression(forConstantValue: 1), NSExpression(forConstantValue: "NSWidget")])
        #expect(throws: PredicateEvaluationError.invalidCast(typeName: "Int", type: "NSWidget")) { try widget.expressionValueThrowing(with: nil) }
        #expect(try Eval.value("CAST('2.5', 'NSDecimalNumber')") as? Double == 2.5)
        let badType = NSExpression(forFunction: "castObject:toType:", arguments: [NSExpression(forConstantValue: 1), NSExpression(forConstantValue: 2)])
        #expect(throws: PredicateEvaluationError.wrongArgumentType(
            function: "castObject:toType:", argument: 1, expected: "a type name string", typeName: "Int")) {
            try badType.expressionValueThrowing(with: nil)
        }
    }

    @Test func functionSelectors() throws {
        let point = EvalPoint(x: 0, y: 0)
        #expect(try Eval.value("FUNCTION(%@, 'distanceTo:', %@)", nil, point, EvalPoint(x: 3, y: 4)) as? Double == 5)
        #expect(try Eval.value("FUNCTION('abc', 'uppercase:')") as? String == "ABC")
        #expect(try Eval.value("FUNCTION(2, 'add:to:', 3)") as? Int == 5)
        #expect(try Eval.value("FUNCTION(2, 'now')") is Date)
        #expect(try Eval.value("FUNCTION('abc', 'length')") as? Int == 3)
        #expect(try Eval.value("FUNCTION('abc', 'uppercaseString')") as? String == "ABC")
        #expect(try Eval.value("FUNCTION('ABC', 'lowercaseString')") as? String == "abc")
        #expect(try Eval.value("FUNCTION('ab', 'stringByAppendingString:', 'c')") as? String == "abc")
        #expect(try Eval.value("FUNCTION(3.7, 'intValue')") as? Int == 3)
        #expect(try Eval.value("FUNCTION(3, 'integerValue')") as? Int == 3)
        #expect(try Eval.value("FUNCTION(-3.7, 'longLongValue')") as? Int == -3)
        #expect(Eval.valueError("FUNCTION(%@, 'intValue')", nil, Double.nan) == .wrongArgumentType(
            function: "intValue", argument: 0, expected: "a number in the range of Int64", typeName: "Double"))
        #expect(Eval.valueError("FUNCTION(1e300, 'intValue')") != nil)
        #expect(try Eval.value("FUNCTION(3, 'doubleValue')") as? Double == 3)
        #expect(try Eval.value("FUNCTION(0, 'boolValue')") as? Bool == false)
        #expect(try Eval.value("FUNCTION(3, 'stringValue')") as? String == "3")
        #expect(try Eval.value("FUNCTION(%@, 'timeIntervalSinceReferenceDate')", nil, Date(timeIntervalSinceReferenceDate: 8)) as? Double == 8)
        #expect(try Eval.value("FUNCTION(%@, 'timeIntervalSince1970')", nil, Date(timeIntervalSince1970: 8)) as? Double == 8)
        #expect(try Eval.value("FUNCTION(list, 'count')", Self.order) as? Int == 3)
        #expect(try Eval.value("FUNCTION(meta, 'count')", Self.order) as? Int == 1)
        #expect(try Eval.value("FUNCTION(%@, 'description')", nil, UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!) as? String
                == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(try Eval.value("FUNCTION(SELF, 'valueForKey:', 'meta')", Self.order) as? [String: String] == ["k": "v"])
        #expect(try Eval.value("FUNCTION(SELF, 'valueForKeyPath:', 'meta.k')", Self.order) as? String == "v")
        #expect(try Eval.value("FUNCTION(SELF, 'valueForKey:', nil)", Self.order) == nil)
        #expect(try Eval.value("FUNCTION(SELF, 'valueForKey:', 'a.b')", ["a.b": 1]) as? Int == 1)
        #expect(Eval.valueError("FUNCTION(%@, 'valueForKey:', 'zz')", nil, KVCPerson(name: "a", age: 1))
                == .keyValueCoding(.unknownKey(key: "zz", owner: "type KVCPerson"), keyPath: "zz"))
        #expect(Eval.valueError("FUNCTION(3, 'frobnicate:', 1)") == .unknownSelector(selector: "frobnicate:", receiverType: "Int"))
        #expect(try Eval.value("FUNCTION(missing, 'length')", Self.order) == nil)
        #expect(Eval.valueError("FUNCTION(nothing, 'length')", Self.order) == .unknownSelector(selector: "length", receiverType: "NSNull"))
        #expect(Eval.valueError("FUNCTION(3, 'count')") == .unknownSelector(selector: "count", receiverType: "Int"))
        #expect(Eval.valueError("FUNCTION(%@, 'other')", nil, point) == .unknownSelector(selector: "other", receiverType: "EvalPoint"))
        #expect(Eval.valueError("FUNCTION('a', 'stringByAppendingString:')")
                == .wrongArgumentCount(function: "stringByAppendingString:", expected: 1, actual: 0))
    }

    @Test func astEqualityUsesValueRules() {
        #expect(NSPredicate(format: "a == 3") == NSPredicate(format: "a == 3.0"))
        #expect(NSPredicate(format: "a == %@", Int32(1)) == NSPredicate(format: "a == %@", Int64(1)))
        #expect(NSPredicate(format: "a == 'x'") != NSPredicate(format: "a == 'X'"))
        #expect(ValueComparison.isEqualConstant(nil, NSNull()))
        #expect(!ValueComparison.isEqualConstant(1, "1"))
    }

    @Test func symbolicIndexAloneIsItsName() throws {
        #expect(try NSExpression(node: .symbolic(.last)).expressionValueThrowing(with: nil) as? String == "LAST")
    }

    @Test func appleStyleEntryPoints() {
        #expect(NSPredicate(format: "age > %d", 3).evaluate(with: ["age": 4]))
        let expression = NSExpression(format: "1 + $X")
        let context = NSMutableDictionary()
        context["X"] = 2
        #expect(expression.expressionValue(with: nil, context: context) as? Int == 3)
    }

    @Test func errorMessagesNameTheirContext() {
        let errors: [(PredicateEvaluationError, String)] = [
            (.keyValueCoding(.unknownKey(key: "k", owner: "entity E"), keyPath: "a.k"), "entity E has no property 'k'"),
            (.unboundVariable(name: "V"), "$V"),
            (.notACollection(construct: "ANY", typeName: "Int"), "ANY"),
            (.wrongArgumentType(function: "sqrt:", argument: 0, expected: "a number", typeName: "String"), "argument 1 of sqrt:"),
            (.wrongArgumentCount(function: "add:to:", expected: 2, actual: 1), "add:to: takes 2 arguments"),
            (.wrongArgumentCount(function: "f:", expected: 1, actual: 0), "f: takes 1 argument,"),
            (.divisionByZero(function: "divide:by:"), "divide:by:"),
            (.unknownFunction(name: "f:"), "'f:'"),
            (.unknownSelector(selector: "s", receiverType: "Int"), "'s'"),
            (.indexOutOfRange(index: 4, count: 1), "1 element"),
            (.invalidBetweenBounds(typeName: "Int"), "BETWEEN"),
            (.invalidRegularExpression(pattern: "(", reason: "r"), "'('"),
            (.invalidCast(typeName: "String", type: "NSDate"), "NSDate"),
            (.unsupported(construct: "ANYKEY"), "ANYKEY"),
        ]
        for (error, fragment) in errors {
            #expect(error.description.contains(fragment), "\(error)")
            #expect(error.localizedDescription == error.description)
        }
        let kvc = KeyValueCodingError.unknownKey(key: "k", owner: "entity E")
        #expect(kvc.localizedDescription == "entity E has no property 'k'")
    }
}
