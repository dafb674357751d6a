import Testing
@testable import OpenCoreData

/// Long chains and deep nesting: refused with a parse error at a column when the tree would be
/// taller than ``PredicateParser/maximumTreeDepth``, and otherwise parsed, evaluated, printed,
/// compared, hashed and substituted without overflowing the stack. The tests run on Swift
/// Testing's secondary threads, whose stacks are far smaller than the main thread's: the sizes
/// used here are the yardstick.
@Suite struct DeepNestingTests {
    static let limit = PredicateParser.maximumTreeDepth

    private func refused(_ format: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = parseError(format) else {
            Issue.record("\(format.prefix(40))… parsed", sourceLocation: sourceLocation)
            return
        }
        #expect(error.message.contains("levels deep"), "\(error.message)", sourceLocation: sourceLocation)
        #expect(error.column > 1, sourceLocation: sourceLocation)
    }

    /// A `(` in predicate position has two readings, and `TERNARY(` holds a predicate again:
    /// each `(` is read once, so these parse (or fail) in linear time. Read twice per level, the
    /// first took minutes at 9 repetitions and these would not finish.
    @Test func ambiguousParenthesesAreReadOnce() throws {
        #expect(parseError(String(repeating: "TERNARY((((((", count: 30) + "a") != nil)
        #expect(parseError(String(repeating: "(((CAST((((TERNARY(", count: 20) + "a") != nil)
        var valid = "a == 1"
        for _ in 0..<12 { valid = "TERNARY(((\(valid))), 1, 2) == 1" }
        let predicate = try NSPredicate(validatingFormat: valid)
        #expect(predicate.evaluate(with: ["a": 1]))
    }

    @Test func longOperatorChainsAreRefusedAtAColumn() {
        refused("a == " + Array(repeating: "1", count: 100_000).joined(separator: " + "))
        refused("a == " + Array(repeating: "2", count: 5_000).joined(separator: " * "))
        refused("a == " + Array(repeating: "1", count: 5_000).joined(separator: " & "))
        refused("x" + String(repeating: "[0]", count: 14_000) + " == 1")
        refused(String(repeating: "(", count: 100_000) + "a == 1" + String(repeating: ")", count: 100_000))
        refused(String(repeating: "NOT ", count: 100_000) + "a == 1")
        refused("a == " + String(repeating: "-", count: 100_000) + "b")
        refused("a == " + String(repeating: "~", count: 100_000) + "b")
        refused("a == " + String(repeating: "sum:(", count: 50_000) + "1" + String(repeating: ")", count: 50_000))
        #expect(expressionParseError(Array(repeating: "1", count: 100_000).joined(separator: "+")) != nil)
    }

    /// A chain just under the limit works everywhere the tree is walked.
    @Test func chainsUpToTheLimitWorkEverywhere() throws {
        let terms = Self.limit - 2
        let format = "a == " + Array(repeating: "1", count: terms).joined(separator: " + ")
        let predicate = try NSPredicate(validatingFormat: format)
        #expect(predicate.depth <= Self.limit)
        #expect(try predicate.evaluateThrowing(with: ["a": terms]))
        let printed = predicate.predicateFormat
        #expect(printed == format)
        let reparsed = try NSPredicate(validatingFormat: printed)
        #expect(reparsed == predicate)
        #expect(reparsed.hash == predicate.hash)
        #expect(predicate.withSubstitutionVariables(["x": 1]) == predicate)

        var nested: Any = 7
        for _ in 0..<(Self.limit - 3) { nested = [nested] }
        let subscripts = try NSPredicate(validatingFormat: "x" + String(repeating: "[0]", count: Self.limit - 3) + " == 7")
        #expect(try subscripts.evaluateThrowing(with: ["x": nested]))
        #expect(try NSPredicate(validatingFormat: subscripts.predicateFormat) == subscripts)
    }

    /// The SQL compiler walks a tree at the limit too.
    @Test func theSQLCompilerCompilesATreeAtTheLimit() throws {
        let model = SQLTestModel.make()
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        request.entity = model.entitiesByName["Item"]
        request.predicate = try NSPredicate(validatingFormat: "age == " + Array(repeating: "1", count: Self.limit - 2).joined(separator: " + "))
        let statement = try SQLFetchCompiler(mapping: TestSchemaMapping(model: model), dialect: SQLiteDialect())
            .objects(request, entity: try #require(request.entity))
        #expect(statement.bindings.count >= Self.limit - 2)
    }

    /// Flat AND/OR chains and long key paths are one level, so any length works.
    @Test func flatChainsAndLongKeyPathsAreUnlimited() throws {
        let and = try NSPredicate(validatingFormat: Array(repeating: "a == 1", count: 20_000).joined(separator: " AND "))
        #expect((and as? NSCompoundPredicate)?.predicates.count == 20_000)
        #expect(try and.evaluateThrowing(with: ["a": 1]))
        #expect(try NSPredicate(validatingFormat: and.predicateFormat) == and)
        let or = try NSPredicate(validatingFormat: Array(repeating: "a == 2", count: 20_000).joined(separator: " || ") + " OR a == 1")
        #expect(try or.evaluateThrowing(with: ["a": 1]))

        let path = String(repeating: "self.", count: 14_000) + "a"
        let keyPath = try NSPredicate(validatingFormat: path + " == 3")
        #expect(try keyPath.evaluateThrowing(with: ["a": 3]))
        #expect(try NSPredicate(validatingFormat: keyPath.predicateFormat) == keyPath)
        let selfs = try NSPredicate(validatingFormat: "SELF" + String(repeating: ".SELF", count: 14_000) + ".a == 3")
        #expect(!selfs.predicateFormat.isEmpty)
        _ = try? selfs.evaluateThrowing(with: ["a": 3])
    }

    /// Trees built in code are bounded when they pass through a format as `%@`.
    @Test func deepExpressionArgumentsAreRefused() {
        var expression = NSExpression(forConstantValue: 1)
        for _ in 0..<(Self.limit + 5) { expression = NSExpression(forFunction: "abs:", arguments: [expression]) }
        #expect(parseError("a == %@", expression) != nil)
    }
}
