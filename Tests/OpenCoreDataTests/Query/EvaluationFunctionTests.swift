import Testing
@testable import OpenCoreData

/// Every built-in function of NSExpression, its integral rule, its empty and null cases, its errors.
@Suite struct EvaluationFunctionTests {
    static var object: [String: Any] {
        ["nums": [3, 1, 2, 2], "doubles": [1.5, 2.5], "empty": [Int](), "word": "MiXed", "n": 7, "x": 2.5,
         "nothing": NSNull(), "withNulls": [1, NSNull(), 3] as [Any]]
    }

    /// (expression, expected value, expected Swift type name or nil to skip the type check)
    static let cases: [(String, String, String?)] = [
        ("sum:(nums)", "8", "Int"), ("sum:(doubles)", "4", "Double"), ("sum:(empty)", "0", "Int"),
        ("sum:({1, 2.5})", "3.5", "Double"), ("sum:(withNulls)", "4", "Int"),
        ("count:(nums)", "4", "Int"), ("count:(empty)", "0", "Int"), ("count:(withNulls)", "3", "Int"),
        ("min:(nums)", "1", "Int"), ("max:(nums)", "3", "Int"), ("min:(empty)", "nil", nil), ("max:(withNulls)", "3", "Int"),
        ("max:({'a', 'c', 'b'})", "c", "String"),
        ("average:(nums)", "2", "Double"), ("average:(doubles)", "2", "Double"), ("average:(empty)", "nil", nil),
        ("average:(withNulls)", "2", "Double"),
        ("median:(nums)", "2", nil), ("median:({5, 1, 3})", "3", "Int"), ("median:({1, 2})", "1.5", "Double"),
        ("median:(empty)", "nil", nil),
        ("stddev:({2, 4, 4, 4, 5, 5, 7, 9})", "2", "Double"), ("stddev:(empty)", "nil", nil),
        ("add:to:(1, 2)", "3", "Int"), ("add:to:(1, 2.5)", "3.5", "Double"), ("1 + 2", "3", "Int"),
        ("from:subtract:(5, 7)", "-2", "Int"), ("5 - 0.5", "4.5", "Double"),
        ("multiply:by:(4, 5)", "20", "Int"), ("4 * 0.5", "2", "Double"),
        ("divide:by:(6, 3)", "2", "Int"), ("divide:by:(7, 2)", "3.5", "Double"), ("7.5 / 2.5", "3", "Double"),
        ("modulus:by:(7, 3)", "1", "Int"), ("modulus:by:(-7, 3)", "-1", "Int"), ("modulus:by:(7.5, 2)", "1.5", "Double"),
        ("raise:toPower:(2, 10)", "1024", "Int"), ("2 ** 0.5", "1.4142135623730951", "Double"),
        ("raise:toPower:(2, -1)", "0.5", "Double"), ("raise:toPower:(10, 30)", "1e+30", "Double"),
        ("raise:toPower:(-1, 101)", "-1", "Int"), ("raise:toPower:(0, 0)", "1", "Int"), ("raise:toPower:(1, 500)", "1", "Int"),
        ("sqrt:(16)", "4", "Double"), ("log:(1000)", "3", "Double"), ("ln:(1)", "0", "Double"), ("exp:(0)", "1", "Double"),
        ("floor:(2.7)", "2", "Double"), ("floor:(-2.5)", "-3", "Double"), ("floor:(5)", "5", "Int"),
        ("ceiling:(2.1)", "3", "Double"), ("ceiling:(5)", "5", "Int"),
        ("abs:(-3)", "3", "Int"), ("abs:(-2.5)", "2.5", "Double"), ("trunc:(-2.7)", "-2", "Double"), ("trunc:(4)", "4", "Int"),
        ("uppercase:(word)", "MIXED", "String"), ("lowercase:(word)", "mixed", "String"), ("uppercase:(nothing)", "nil", nil),
        ("bitwiseAnd:with:(12, 10)", "8", "Int"), ("bitwiseOr:with:(12, 10)", "14", "Int"),
        ("bitwiseXor:with:(12, 10)", "6", "Int"), ("leftshift:by:(1, 4)", "16", "Int"), ("rightshift:by:(16, 2)", "4", "Int"),
        ("onesComplement:(0)", "-1", "Int"), ("bitwiseAnd:with:(12.0, 10)", "8", "Int"), ("leftshift:by:(1, 64)", "0", "Int"),
        ("noindex:(n)", "7", "Int"), ("distinct:(nums)", "[3, 1, 2]", nil), ("distinct:(empty)", "[]", nil),
        ("mode:(nums)", "[2]", nil), ("mode:({1, 2})", "[1, 2]", nil), ("mode:(empty)", "[]", nil),
        ("add:to:(nothing, 1)", "nil", nil), ("sqrt:(nothing)", "nil", nil), ("onesComplement:(nothing)", "nil", nil),
        ("-x", "-2.5", "Double"), ("n * 2 + 1", "15", "Int"),
    ]

    @Test(arguments: cases)
    func computes(_ format: String, _ expected: String, _ typeName: String?) throws {
        let value = try Eval.value(format, Self.object)
        #expect(Self.render(value) == expected, "\(format)")
        if let typeName {
            #expect(ValueComparison.typeName(value) == typeName, "\(format)")
        }
    }

    /// Renders a value for comparison with the tables: numbers without a trailing `.0`, arrays in brackets.
    static func render(_ value: Any?) -> String {
        if let collection = CollectionValue(value) { return "[" + collection.elements.map { render($0) }.joined(separator: ", ") + "]" }
        return BuiltinFunctions.describe(value)
    }

    @Test func overflowFallsBackToDouble() throws {
        let value = try Eval.value("add:to:(%@, 1)", nil, Int64.max)
        #expect(value is Double)
        #expect(try Eval.value("multiply:by:(%@, 2)", nil, Int64.max) is Double)
        #expect(try Eval.value("abs:(%@)", nil, Int64.min) is Double)
        #expect(try Eval.value("divide:by:(%@, -1)", nil, Int64.min) is Double)
        #expect(Eval.same(try Eval.value("modulus:by:(%@, -1)", nil, Int64.min), 0))
        #expect(try Eval.value("raise:toPower:(3, 60)", nil) is Double)
    }

    @Test func decimalArithmeticStaysDecimal() throws {
        let d = Decimal(string: "1.1")!
        #expect(try Eval.value("add:to:(%@, 2)", nil, d) as? Decimal == Decimal(string: "3.1")!)
        #expect(try Eval.value("multiply:by:(%@, 2)", nil, d) as? Decimal == Decimal(string: "2.2")!)
        #expect(try Eval.value("divide:by:(%@, 2)", nil, d) as? Decimal == Decimal(string: "0.55")!)
        #expect(try Eval.value("abs:(%@)", nil, Decimal(-2)) as? Decimal == Decimal(2))
        #expect(try Eval.value("floor:(%@)", nil, d) as? Double == 1)
        #expect(try Eval.value("average:(%@)", nil, [d, d]) as? Decimal == d)
    }

    @Test func randomNowAndRandomElement() throws {
        let r = try #require(try Eval.value("random()") as? Double)
        #expect(r >= 0 && r < 1)
        let element = try #require(try Eval.value("random:({4, 5})") as? Int)
        #expect(element == 4 || element == 5)
        #expect(try Eval.value("random:(%@)", nil, [Int]()) == nil)
        let before = Date()
        let now = try #require(try Eval.value("now()") as? Date)
        #expect(now >= before)
        #expect(try Eval.test("now() > %@", nil, Date(timeIntervalSince1970: 0)))
    }

    @Test func statisticsOverArgumentLists() throws {
        let sum = NSExpression(forFunction: "sum:", arguments: [NSExpression(forConstantValue: 1), NSExpression(forConstantValue: 2)])
        #expect(try sum.expressionValueThrowing(with: nil) as? Int == 3)
        let scalar = NSExpression(forFunction: "count:", arguments: [NSExpression(forConstantValue: 5)])
        #expect(try scalar.expressionValueThrowing(with: nil) as? Int == 1)
        let nullCount = NSExpression(forFunction: "count:", arguments: [NSExpression(forConstantValue: nil)])
        #expect(try nullCount.expressionValueThrowing(with: nil) as? Int == 0)
    }

    @Test func functionErrors() {
        #expect(Eval.valueError("divide:by:(1, 0)") == .divisionByZero(function: "divide:by:"))
        #expect(Eval.valueError("divide:by:(1.5, 0.0)") == .divisionByZero(function: "divide:by:"))
        #expect(Eval.valueError("modulus:by:(1, 0)") == .divisionByZero(function: "modulus:by:"))
        #expect(Eval.valueError("add:to:('a', 1)") == .wrongArgumentType(function: "add:to:", argument: 0, expected: "a number", typeName: "String"))
        #expect(Eval.valueError("sqrt:('a')") == .wrongArgumentType(function: "sqrt:", argument: 0, expected: "a number", typeName: "String"))
        #expect(Eval.valueError("bitwiseOr:with:(1, 1.5)") == .wrongArgumentType(function: "bitwiseOr:with:", argument: 1, expected: "an integer", typeName: "Double"))
        #expect(Eval.valueError("uppercase:(3)") == .wrongArgumentType(function: "uppercase:", argument: 0, expected: "a string", typeName: "Int"))
        #expect(Eval.valueError("sum:({1, 'a'})") == .wrongArgumentType(function: "sum:", argument: 0, expected: "a collection of numbers", typeName: "String"))
        #expect(Eval.valueError("max:({1, 'a'})") == .wrongArgumentType(function: "max:", argument: 0, expected: "mutually comparable values", typeName: "Int and String"))
        let unknown = NSExpression(forFunction: "frobnicate:", arguments: [NSExpression(forConstantValue: 1)])
        #expect(throws: PredicateEvaluationError.unknownFunction(name: "frobnicate:")) { try unknown.expressionValueThrowing(with: nil) }
        let wrongCount = NSExpression(forFunction: "add:to:", arguments: [NSExpression(forConstantValue: 1)])
        #expect(throws: PredicateEvaluationError.wrongArgumentCount(function: "add:to:", expected: 2, actual: 1)) {
            try wrongCount.expressionValueThrowing(with: nil)
        }
    }
}
