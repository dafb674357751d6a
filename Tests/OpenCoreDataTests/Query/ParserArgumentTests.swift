import Testing
@testable import OpenCoreData

/// Format arguments: `%@`, `%K`, the integer and floating-point specifiers, `%%`.
@Suite struct ParserArgumentTests {
    @Test func objectArgumentTakesAnyValue() throws {
        #expect(parsed("name == %@", "Ann") == "(kp(name) == \"Ann\")")
        #expect(parsed("age == %@", 3) == "(kp(age) == 3)")
        #expect(parsed("score == %@", 2.5) == "(kp(score) == 2.5)")
        #expect(parsed("flag == %@", true) == "(kp(flag) == true)")
        #expect(parsed("a == %@", nil) == "(kp(a) == nil)")
        #expect(parsed("a IN %@", [1, 2, 3]) == "(kp(a) IN [1, 2, 3])")
        #expect(parsed("a IN %@", ["x", "y"]) == "(kp(a) IN [\"x\", \"y\"])")

        let date = Date(timeIntervalSinceReferenceDate: 1000)
        let comparison = try #require(try PredicateParser.parsePredicate("date > %@", arguments: [date]) as? NSComparisonPredicate)
        #expect(comparison.rightExpression.constantValue as? Date == date)

        let set: Set<String> = ["a", "b"]
        let inSet = try #require(try PredicateParser.parsePredicate("tag IN %@", arguments: [set]) as? NSComparisonPredicate)
        #expect(inSet.rightExpression.constantValue as? Set<String> == set)

        let null = try #require(try PredicateParser.parsePredicate("a == %@", arguments: [NSNull()]) as? NSComparisonPredicate)
        #expect(null.rightExpression.constantValue is NSNull)

        let uuid = UUID()
        let byID = try #require(try PredicateParser.parsePredicate("id == %@", arguments: [uuid]) as? NSComparisonPredicate)
        #expect(byID.rightExpression.constantValue as? UUID == uuid)
    }

    @Test func optionalArgumentsAreUnwrapped() throws {
        let missing: String? = nil
        let present: String? = "x"
        #expect(parsed("a == %@", missing) == "(kp(a) == nil)")
        #expect(parsed("a == %@", present) == "(kp(a) == \"x\")")
        // Through `[Any]`, where an Optional is boxed inside Any.
        let boxed: [Any?] = [Optional<Optional<Int>>.some(.some(4)) as Any, Optional<Int>.none as Any]
        let predicate = try PredicateParser.parsePredicate("a == %@ AND b == %@", arguments: boxed)
        #expect(Tree.dump(predicate) == "AND((kp(a) == 4), (kp(b) == nil))")
    }

    @Test func expressionArgumentIsUsedAsTheExpression() {
        let keyPath = NSExpression(forKeyPath: "other.value")
        #expect(parsed("value == %@", keyPath) == "(kp(value) == kp(other.value))")
        let function = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "xs")])
        #expect(parsed("%@ > 10", function) == "(fn(sum:, kp(xs)) > 10)")
        #expect(parsed("%@.name == 'a'", NSExpression(forVariable: "v")) == "(kp($v, name) == \"a\")")
    }

    @Test func keyPathArgument() {
        #expect(parsed("%K == %@", "name", "Ann") == "(kp(name) == \"Ann\")")
        #expect(parsed("%K == nil AND %K == %@", "a", "b", 1) == "AND((kp(a) == nil), (kp(b) == 1))")
        #expect(parsed("%K.@count > 2", "items") == "(kp(items.@count) > 2)")
        #expect(parsed("ANY %K.name == 'x'", "tags") == "(ANY kp(tags.name) == \"x\")")
        #expect(parsed("%K BEGINSWITH[cd] %@", "person.lastName", "mc") == "(kp(person.lastName) BEGINSWITH[cd] \"mc\")")
        #expect(parsed("%K == 1", NSString(string: "ns")) == "(kp(ns) == 1)")
        #expect(parsed("%K == 1", "AND") == "(kp(AND) == 1)")
    }

    @Test(arguments: ["%d", "%i", "%ld", "%lld", "%u", "%hd", "%lu", "%llu", "%hhd", "%qd", "%zd", "%x", "%X", "%o", "%lx", "%5d", "%-3d", "%c"])
    func integerSpecifiers(specifier: String) {
        #expect(parsed("a == \(specifier)", 42) == "(kp(a) == 42)")
        #expect(parsed("a == \(specifier)", Int32(-7)) == "(kp(a) == -7)")
        #expect(parsed("a == \(specifier)", UInt8(200)) == "(kp(a) == 200)")
        #expect(parsed("a == \(specifier)", Int64.max) == "(kp(a) == 9223372036854775807)")
        #expect(parsed("a == \(specifier)", NSNumber(value: 12)) == "(kp(a) == 12)")
        #expect(parsed("a == \(specifier)", true) == "(kp(a) == 1)")
    }

    @Test func largeUnsignedIntegerStaysUnsigned() {
        #expect(parsed("a == %llu", UInt64.max) == "(kp(a) == UInt64(18446744073709551615))")
    }

    @Test(arguments: ["%f", "%lf", "%F", "%e", "%g", "%E", "%G", "%a", "%.2f", "%Lf"])
    func floatingPointSpecifiers(specifier: String) {
        #expect(parsed("a > \(specifier)", 2.5) == "(kp(a) > 2.5)")
        #expect(parsed("a > \(specifier)", Float(0.5)) == "(kp(a) > 0.5)")
        #expect(parsed("a > \(specifier)", 3) == "(kp(a) > 3.0)")
        #expect(parsed("a > \(specifier)", NSNumber(value: 1.25)) == "(kp(a) > 1.25)")
        #expect(parsed("a > \(specifier)", Decimal(string: "0.75")!) == "(kp(a) > 0.75)")
    }

    @Test func stringSpecifier() {
        #expect(parsed("a == %s", "text") == "(kp(a) == \"text\")")
        #expect(parsed("a == %S", "text") == "(kp(a) == \"text\")")
    }

    @Test func negativeArgumentsFold() {
        #expect(parsed("a > -%d", 3) == "(kp(a) > -3)")
        #expect(parsed("a > -%@", 1.5) == "(kp(a) > -1.5)")
        #expect(parsed("a > -%@", Int64(2)) == "(kp(a) > <Int64 -2>)")
        #expect(parsed("a > -%@", "s") == "(kp(a) > fn(from:subtract:, 0, \"s\"))")
    }

    @Test func percentEscapeIsTheModulusOperatorAndTakesNoArgument() {
        #expect(parsed("a %% 2 == %d", 0) == "(fn(modulus:by:, kp(a), 2) == 0)")
        #expect(parsedExpression("10 %% 3") == "fn(modulus:by:, 10, 3)")
    }

    @Test func specifiersInsideQuotesAreNotSubstituted() {
        #expect(parsed("a == '%@' AND b == %@", "used") == "AND((kp(a) == \"%@\"), (kp(b) == \"used\"))")
        #expect(parsed("a LIKE \"%K*\" OR b == %K", "key") == "OR((kp(a) LIKE \"%K*\"), (kp(b) == kp(key)))")
        #expect(parsed("a == '$VAR'") == "(kp(a) == \"$VAR\")")
        #expect(parsed("a == '100%'") == "(kp(a) == \"100%\")")
    }

    @Test func argumentsAreTakenInOrder() {
        #expect(parsed("%K == %@ AND %K > %d AND %K < %f", "a", "x", "b", 1, "c", 2.5)
            == "AND((kp(a) == \"x\"), (kp(b) > 1), (kp(c) < 2.5))")
    }

    @Test func extraArgumentsAreIgnored() {
        #expect(parsed("a == %@", 1, 2, 3) == "(kp(a) == 1)")
    }

    @Test func argumentsInsideFunctionsAndAggregates() {
        #expect(parsed("a BETWEEN {%d, %d}", 1, 9) == "(kp(a) BETWEEN {1, 9})")
        #expect(parsed("a BETWEEN %@", [1, 9]) == "(kp(a) BETWEEN [1, 9])")
        #expect(parsed("SUBQUERY(%K, $x, $x.%K == %@).@count > 0", "items", "name", "n")
            == "(kp(subquery(kp(items), $x, (kp($x, name) == \"n\")), @count) > 0)")
        #expect(parsed("sum:(%@) > 3", [1, 2]) == "(fn(sum:, [1, 2]) > 3)")
    }
}
