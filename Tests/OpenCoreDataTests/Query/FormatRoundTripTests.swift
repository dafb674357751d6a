import Testing
@testable import OpenCoreData

/// `predicateFormat` parses again to an equal predicate, and printing is idempotent.
@Suite struct FormatRoundTripTests {
    static let formats: [String] = [
        "age > 3", "age >= 3", "age => 3", "age < 3", "age <= 3", "age =< 3", "age = 3", "age == 3",
        "age != 3", "age <> 3", "age BETWEEN {1, 10}", "name IN {'a', 'b'}", "'a' IN names",
        "name CONTAINS 'x'", "name BEGINSWITH[c] 'a'", "name ENDSWITH[d] 'z'", "name LIKE[cd] 'a*b?'",
        "name MATCHES '[a-z]+\\\\d'", "name ==[n] 'x'", "name CONTAINS[cdn] 'x'", "name like[c] \"Mc*\"",
        "age > 3 AND name BEGINSWITH[c] 'a'", "a == 1 OR b == 2", "(a == 1 OR b == 2) AND c == 3",
        "a == 1 AND (b == 2 OR c == 3)", "a == 1 AND b == 2 AND c == 3", "a == 1 OR b == 2 OR c == 3",
        "NOT a == 1", "!(a == 1 AND b == 2)", "NOT (NOT a == 1)", "a == 1 && b == 2 || c == 3",
        "TRUEPREDICATE", "FALSEPREDICATE", "TRUEPREDICATE AND FALSEPREDICATE",
        "ANY tags.name == 'x'", "SOME tags.name == 'x'", "ALL tags.count > 1", "NONE tags.name == 'x'",
        "ANY tags.name IN {'a', 'b'}", "NOT ANY tags == 1",
        "name == nil", "name != NULL", "name == \"say \\\"hi\\\"\"", "path == 'C:\\\\dir'",
        "x == 'tab\\there'", "x == 'line\\nbreak'", "x == 'naïve 日本'",
        "a == -3", "a == 2.5", "a == -0.125", "a == 1e20", "a == 0x1F", "a == 0o17", "a == 0b101",
        "a == 18446744073709551615", "a == 9223372036854775807",
        "$VAR == 1", "name == $NAME", "(mainAuthor.firstName like[cd] $FIRST_NAME) AND (mainAuthor.lastName like[cd] $LAST_NAME) AND (publicationDate > $DATE)",
        "SELF == 3", "SELF IN {1, 2}", "SELF.name == 'x'", "ANYKEY == 1",
        "#size == 1", "order.#first.name == 'x'", "#self == 1", "a.#in.b == 2",
        "items.@count > 0", "items.@sum.price > 10", "items.@avg.price < 3", "items.@max.d > 1",
        "@count > 1", "items.@distinctUnionOfObjects.name.@count == 2",
        "a[FIRST] == 1", "a[LAST] == 1", "a[SIZE] == 2", "a[0] == 1", "a[0].name == 'x'", "a['key'] == 1",
        "a + b > 3", "a - b - c == 0", "a - (b - c) == 0", "(a + b) * c == 1", "a + b * c == 1",
        "a / (b * c) == 1", "a ** b ** c == 1", "(a ** b) ** c == 1", "-a == 1", "-(a + b) == 1",
        "2 ** -1 == 0.5", "(a + b).name == 1", "a * -2 == 4", "- 3 == a",
        "sum:({1, 2}) == 3", "sum({1, 2}) == 3", "count(items) == 3", "max:(a) > min:(b)",
        "average:(items.price) > 1", "median:(x) == mode:(x)", "stddev:(x) > 0",
        "add:to:(a, 1) == 2", "modulus:by:(a, 2) == 0", "sqrt:(a) == 2", "log:(a) > ln:(b)",
        "exp:(a) > 1", "floor:(a) == ceiling:(b)", "abs:(a) == trunc:(b)",
        "uppercase:(name) == 'A'", "lowercase:(name) == 'a'", "random() > 0", "random:(10) < 10",
        "now() > date", "bitwiseAnd:with:(a, 1) == 1", "bitwiseOr:with:(a, 1) == 1",
        "bitwiseXor:with:(a, 1) == 0", "leftshift:by:(a, 1) == 2", "rightshift:by:(a, 1) == 0",
        "onesComplement:(a) == -1", "noindex:(name) == 'x'", "distinct:(names) == names",
        "CAST(a, 'NSNumber') > 1", "CAST(a, 'NSString') == '1'", "CAST(CAST(now(), 'NSNumber') - 7257600, 'NSDate') < date",
        "date > CAST(a, 'NSDate')",
        "TERNARY(a == 1, 'x', 'y') == 'x'", "TERNARY(a > 1 AND b < 2, a, b) == 1",
        "SUBQUERY(items, $i, $i.price > 10).@count > 0",
        "SUBQUERY(items, $i, $i.price > 10 AND ANY $i.tags.name == 'x').@count == 0",
        "SUBQUERY(SUBQUERY(a, $x, $x.b == 1), $y, $y.c == 2).@count > 0",
        "FUNCTION(SELF, 'selector:', 1) == 2", "FUNCTION(name, 'length') > 3", "FUNCTION(a, 'b:c:', 1, 'x') == nil",
        "{1, 2} UNION {3} CONTAINS 3", "a UNION b INTERSECT c CONTAINS 1", "a UNION (b INTERSECT c) CONTAINS 1",
        "{1, {2, 3}} CONTAINS 1", "{} == a", "{a, $b, 3 + 4} CONTAINS 1",
        "a == YES", "a == NO", "a == TRUE AND b == FALSE", "flag == true OR n == 1.0",
    ]

    @Test(arguments: formats)
    func roundTrip(_ format: String) throws {
        let original = try NSPredicate(validatingFormat: format, argumentArray: [])
        let printed = original.predicateFormat
        let reparsed = try NSPredicate(validatingFormat: printed, argumentArray: [])
        #expect(reparsed.isEqual(original), "\(format) printed as \(printed)")
        #expect(reparsed.predicateFormat == printed)
    }

    static let canonical: [(String, String)] = [
        ("age > 3 AND name BEGINSWITH[c] 'a'", #"age > 3 AND name BEGINSWITH[c] "a""#),
        ("a = 1 OR (b <> 2 AND c => 3)", "a == 1 OR (b != 2 AND c >= 3)"),
        ("NONE tags.name == 'x'", #"NOT ANY tags.name == "x""#),
        ("SOME tags == 1", "ANY tags == 1"),
        ("a == YES", "a == 1"), ("a == FALSE", "a == 0"), ("a == NULL", "a == nil"),
        ("sum({1, 2}) == 3", "sum:({1, 2}) == 3"), ("add(1, 2) == 3", "1 + 2 == 3"),
        ("-(a) == 1", "0 - a == 1"), ("a == 0x10", "a == 16"),
        ("FUNCTION(SELF, 'selector:', 1) == 2", #"FUNCTION(SELF, "selector:" , 1) == 2"#),
        ("FUNCTION(a, \"pow:\", 3) == 8", #"FUNCTION(a, "pow:" , 3) == 8"#),
        ("FUNCTION('a', 'uppercase') == 'A'", #"FUNCTION("a", "uppercase") == "A""#),
        ("SELF like[c] 'prefix*suffix'", #"SELF LIKE[c] "prefix*suffix""#),
        ("SELF like[c] %@*%@", #"SELF LIKE[c] "name" * "size""#),
        ("$a == 1", "$a == 1"), ("a.@count == 3", "a.@count == 3"), ("a[SIZE] == 3", "a[SIZE] == 3"),
        ("CAST(a, 'NSNumber') > 1", #"CAST(a, "NSNumber") > 1"#),
        ("SUBQUERY(items, $i, $i.price > 10).@count > 0", "SUBQUERY(items, $i, $i.price > 10).@count > 0"),
        ("a[first] == 1", "a[FIRST] == 1"), ("#size == 1", "#size == 1"),
        ("%K == nil AND %K == %@", #"name == nil AND #size == "x""#),
    ]

    @Test(arguments: canonical)
    func canonicalForm(_ format: String, _ expected: String) throws {
        let predicate = try NSPredicate(validatingFormat: format, argumentArray: ["name", "size", "x"])
        #expect(predicate.predicateFormat == expected)
    }

    @Test func argumentsRoundTrip() throws {
        let date = Date(timeIntervalSinceReferenceDate: 694224000)
        let p = try NSPredicate(validatingFormat: "tags IN %@ AND when > %@ AND n == %d AND x == %f AND s == %@",
                                argumentArray: [["a", "b"], date, 3, 2.5, "q\"uote"])
        #expect(p.predicateFormat == #"tags IN {"a", "b"} AND when > CAST(694224000.000000, "NSDate") AND n == 3 AND x == 2.5 AND s == "q\"uote""#)
    }

    @Test func constantsFromArgumentsRoundTrip() throws {
        let values: [Any?] = [nil, "text", 3, -7, 2.5, Int8(4), UInt64.max, true, Decimal(string: "1.25")!,
                              ["a", 1], Set([1, 2]), NSNull()]
        for value in values {
            let p = try NSPredicate(validatingFormat: "a == %@", argumentArray: [value])
            let again = try NSPredicate(validatingFormat: p.predicateFormat, argumentArray: [])
            #expect(again.isEqual(p), "\(String(describing: value)) printed as \(p.predicateFormat)")
        }
    }

    @Test func constantCollectionEqualsPrintedAggregate() {
        let constant = NSExpression(forConstantValue: [1, ["x"]] as [Any])
        let aggregate = NSExpression(forAggregate: [NSExpression(forConstantValue: 1),
                                                    NSExpression(forAggregate: [NSExpression(forConstantValue: "x")])])
        #expect(constant.isEqual(aggregate) && aggregate.isEqual(constant))
        #expect(!constant.isEqual(NSExpression(forAggregate: [NSExpression(forConstantValue: 1)])))
        #expect(!constant.isEqual(NSExpression(forAggregate: [NSExpression(forKeyPath: "a"), NSExpression(forConstantValue: 1)])))
        #expect(!constant.isEqual(NSExpression(forAggregate: [NSExpression(forConstantValue: 1),
                                                             NSExpression(forAggregate: [NSExpression(forKeyPath: "x")])])))
        #expect(NSExpression(forConstantValue: Set([1, 2])).isEqual(
            NSExpression(forAggregate: [NSExpression(forConstantValue: 2), NSExpression(forConstantValue: 1)])))
    }

    /// A `Date` constant prints as Apple's `CAST(…, "NSDate")`, which the parser folds back into
    /// a `Date` constant. `%f` keeps microseconds, so a date with a finer fraction comes back
    /// rounded to the microsecond.
    @Test func dateConstantPrintsAsCast() throws {
        let date = Date(timeIntervalSinceReferenceDate: 694224000.25)
        let p = try NSPredicate(validatingFormat: "when > %@", argumentArray: [date])
        #expect(p.predicateFormat == #"when > CAST(694224000.250000, "NSDate")"#)
        let again = try NSPredicate(validatingFormat: p.predicateFormat, argumentArray: [])
        #expect(again.isEqual(p))
        #expect(try again.evaluateThrowing(with: ["when": date.addingTimeInterval(1)]))
        #expect(try !again.evaluateThrowing(with: ["when": date]))
        let negative = Date(timeIntervalSinceReferenceDate: -978250148)
        #expect(NSExpression(forConstantValue: negative).description == #"CAST(-978250148.000000, "NSDate")"#)
    }

    @Test func expressionDescriptions() throws {
        #expect(try NSExpression(validatingFormat: "%@ + %@", argumentArray: [1, 1]).description == "1 + 1")
        #expect(try NSExpression(validatingFormat: "%@ + %@", argumentArray: ["1", "1"]).description == #""1" + "1""#)
        #expect(try NSExpression(validatingFormat: "12.845 * x + (y)").description == "12.845 * x + y")
        #expect(try NSExpression(validatingFormat: "FUNCTION(a.b, 'pow:', 2) + a.c + (a.d)[0] + 1").description
                == #"FUNCTION(a.b, "pow:" , 2) + a.c + a.d[0] + 1"#)
    }

    @Test func expressionsRoundTrip() throws {
        for format in ["a + b * c", "sum:(items.price)", "SUBQUERY(x, $y, $y > 1)", "-3", "TERNARY(a == 1, 2, 3)", "$V.name"] {
            let e = try NSExpression(validatingFormat: format)
            let again = try NSExpression(validatingFormat: e.description)
            #expect(again.isEqual(e), "\(format) printed as \(e.description)")
        }
    }
}
