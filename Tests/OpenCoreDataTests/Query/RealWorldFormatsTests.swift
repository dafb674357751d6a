import Testing
@testable import OpenCoreData

/// The real-world corpus parses, and a sample of it builds exactly the expected trees.
@Suite struct RealWorldFormatsTests {
    @Test func corpusIsBroad() {
        #expect(RealWorldCorpus.samples.count >= 200)
        #expect(Set(RealWorldCorpus.samples.map(\.format)).count == RealWorldCorpus.samples.count)
    }

    @Test(arguments: RealWorldCorpus.samples)
    func everySampleParses(_ sample: Sample) throws {
        let predicate = try sample.parse()
        #expect(!Tree.dump(predicate).isEmpty)
    }

    /// The exact trees of a sample of the corpus: operator, modifier, options, key paths and
    /// constants. Dates print as `<Date …>` of `SampleArgument.fixedDate`.
    @Test(arguments: [
        (#"%K == nil AND %K == %@"#, #"AND((kp(a) == nil), (kp(b) == "x"))"#),
        (#"name = %@"#, #"(kp(name) == "Alice")"#),
        (#"name beginswith %@"#, #"(kp(name) BEGINSWITH "A")"#),
        (#"email MATCHES '[A-Z0-9a-z._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,4}'"#, #"(kp(email) MATCHES "[A-Z0-9a-z._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,4}")"#),
        (#"SELF == %@"#, #"(SELF == "x")"#),
        (#"SELF != nil"#, #"(SELF != nil)"#),
        (#"age BETWEEN {18, 65}"#, #"(kp(age) BETWEEN {18, 65})"#),
        (#"price <= %lf"#, #"(kp(price) <= 9.99)"#),
        (#"rating == %u"#, #"(kp(rating) == 5)"#),
        (#"isCompleted = TRUE"#, #"(kp(isCompleted) == true)"#),
        (#"done == %@ AND list == %@"#, #"AND((kp(done) == false), (kp(list) == "list-object"))"#),
        (#"timestamp < %@"#, #"(kp(timestamp) < <Date 2020-01-06 10:40:00 +0000>)"#),
        (#"parent == nil"#, #"(kp(parent) == nil)"#),
        (#"category.name ==[c] %@"#, #"(kp(category.name) ==[c] "books")"#),
        (#"items.@count > 0"#, #"(kp(items.@count) > 0)"#),
        (#"@count > 2"#, #"(kp(@count) > 2)"#),
        (#"ANY tags.name ==[c] %@"#, #"(ANY kp(tags.name) ==[c] "Swift")"#),
        (#"ALL children.age > 12"#, #"(ALL kp(children.age) > 12)"#),
        (#"NOT (ANY tags.name == %@)"#, #"NOT((ANY kp(tags.name) == "x"))"#),
        (#"remoteID IN %@"#, #"(kp(remoteID) IN [1, 2, 3])"#),
        (#"(syncStatus == %d) OR (syncStatus == %d)"#, #"OR((kp(syncStatus) == 1), (kp(syncStatus) == 2))"#),
        (#"(firstName CONTAINS[cd] %@) OR (lastName CONTAINS[cd] %@)"#, #"OR((kp(firstName) CONTAINS[cd] "a"), (kp(lastName) CONTAINS[cd] "a"))"#),
        (#"firstName = $FIRST_NAME"#, #"(kp(firstName) == $FIRST_NAME)"#),
        (#"department == $DEPT"#, #"(kp(department) == $DEPT)"#),
        (#"%K CONTAINS[cd] %@"#, #"(kp(title) CONTAINS[cd] "x")"#),
        (#"%K != nil"#, #"(kp(deletedAt) != nil)"#),
        (#"NOT (%K == %@)"#, #"NOT((kp(a) == "x"))"#),
        (#"SUBQUERY(tasks, $t, $t.dueDate < %@ AND $t.isCompleted == NO).@count > 0"#, #"(kp(subquery(kp(tasks), $t, AND((kp($t, dueDate) < <Date 2020-01-06 10:40:00 +0000>), (kp($t, isCompleted) == false))), @count) > 0)"#),
        (#"SUBQUERY(orders, $o, SUBQUERY($o.lines, $l, $l.quantity > 1).@count > 0).@count > 0"#, #"(kp(subquery(kp(orders), $o, (kp(subquery(kp($o, lines), $l, (kp($l, quantity) > 1)), @count) > 0)), @count) > 0)"#),
        (#"truepredicate"#, #"TRUEPREDICATE"#),
        (#"name.length > 3 AND name.length < 20"#, #"AND((kp(name.length) > 3), (kp(name.length) < 20))"#),
        (#"title == 'caf\u00e9'"#, #"(kp(title) == "café")"#),
        (#"code MATCHES '\\d{3}-\\d{4}'"#, #"(kp(code) MATCHES "\d{3}-\d{4}")"#),
        (#"amount >= 1e3"#, #"(kp(amount) >= 1000.0)"#),
        (#"permissions == 0o755"#, #"(kp(permissions) == 493)"#),
        (#"total / count.@count > 2.5"#, #"(fn(divide:by:, kp(total), kp(count.@count)) > 2.5)"#),
        (#"price == FUNCTION(SELF, 'computedPrice')"#, #"(kp(price) == call(SELF, computedPrice))"#),
        (#"CAST(timestamp, 'NSDate') > %@"#, #"(fn(castObject:toType:, kp(timestamp), "NSDate") > <Date 2020-01-06 10:40:00 +0000>)"#),
        (#"now() > expirationDate"#, #"(fn(now) > kp(expirationDate))"#),
        (#"max:({a, b}) > 10"#, #"(fn(max:, {kp(a), kp(b)}) > 10)"#),
        (#"floor:(rating) == 4"#, #"(fn(floor:, kp(rating)) == 4)"#),
        (#"items[FIRST].name == 'first'"#, #"(kp(fn(objectFrom:withIndex:, kp(items), FIRST), name) == "first")"#),
        (#"info["key"] == %@"#, #"(fn(objectFrom:withIndex:, kp(info), "key") == "v")"#),
        (#"name IN $NAMES"#, #"(kp(name) IN $NAMES)"#),
        (#"keywords CONTAINS %@"#, #"(kp(keywords) CONTAINS "k")"#),
        (#"ALL items.price BETWEEN {1, 100}"#, #"(ALL kp(items.price) BETWEEN {1, 100})"#),
        (#"a == 1 AND b == 2 OR c == 3 AND d == 4"#, #"OR(AND((kp(a) == 1), (kp(b) == 2)), AND((kp(c) == 3), (kp(d) == 4)))"#),
        (#"(owner == %@) AND (isShared == NO OR ANY sharedWith == %@)"#, #"AND((kp(owner) == "me"), OR((kp(isShared) == false), (ANY kp(sharedWith) == "me")))"#),
        (#"#size > 10"#, #"(kp(size) > 10)"#),
        (#"photo != nil AND thumbnail == nil"#, #"AND((kp(photo) != nil), (kp(thumbnail) == nil))"#),
        (#"sortOrder > %d"#, #"(kp(sortOrder) > 0)"#),
        (#"customer.address.city ==[cd] 'paris'"#, #"(kp(customer.address.city) ==[cd] "paris")"#),
        (#"NONE tags.name IN %@"#, #"NOT((ANY kp(tags.name) IN ["x"]))"#),
        (#"count(SUBQUERY(items, $i, $i.price > 10)) > 0"#, #"(fn(count:, subquery(kp(items), $i, (kp($i, price) > 10))) > 0)"#),
        (#"title == "Say \"hi\"""#, #"(kp(title) == "Say "hi"")"#),
        (#"entity.name == 'Person' AND (#in == 1)"#, #"AND((kp(entity.name) == "Person"), (kp(in) == 1))"#),
    ])
    func sampleTrees(format: String, expected: String) throws {
        let sample = try #require(RealWorldCorpus.samples.first { $0.format == format }, "not in the corpus")
        #expect(Tree.dump(try sample.parse()) == expected)
    }

    @Test func sampleComparisonsThroughThePublicAPI() throws {
        let sample = try #require(RealWorldCorpus.samples.first { $0.format == "ANY tags.name IN %@" })
        let predicate = try #require(try sample.parse() as? NSComparisonPredicate)
        #expect(predicate.comparisonPredicateModifier == .any)
        #expect(predicate.predicateOperatorType == .in)
        #expect(predicate.options == [])
        #expect(predicate.leftExpression.expressionType == .keyPath)
        #expect(predicate.leftExpression.keyPath == "tags.name")
        #expect(predicate.rightExpression.expressionType == .constantValue)
        #expect(predicate.rightExpression.constantValue as? [String] == ["swift", "ios"])

        let template = try #require(RealWorldCorpus.samples.first { $0.format.hasPrefix("(mainAuthor.firstName") })
        let and = try #require(try template.parse() as? NSCompoundPredicate)
        #expect(and.compoundPredicateType == .and)
        #expect(and.subpredicates.count == 3)
        let first = try #require(and.subpredicates.first as? NSComparisonPredicate)
        #expect(first.predicateOperatorType == .like)
        #expect(first.options == [.caseInsensitive, .diacriticInsensitive])
        #expect(first.rightExpression.expressionType == .variable)
        #expect(first.rightExpression.variable == "FIRST_NAME")

        let subquery = try #require(try RealWorldCorpus.samples.first { $0.format.hasPrefix("SUBQUERY(items, $i") }!.parse() as? NSComparisonPredicate)
        #expect(subquery.leftExpression.expressionType == .function)
        #expect(subquery.leftExpression.keyPath == "@count")
        #expect(subquery.leftExpression.operand.expressionType == .subquery)
        #expect(subquery.leftExpression.operand.variable == "i")
        #expect(subquery.rightExpression.constantValue as? Int == 0)
    }
}
