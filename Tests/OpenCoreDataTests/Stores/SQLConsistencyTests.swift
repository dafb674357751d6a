import Testing
@testable import OpenCoreData

/// One test body that runs the same fetches against the in-memory store and the compiled SQL
/// over the same rows, and requires the same results — or a refusal from the SQL compiler,
/// never a different answer (DESIGN decision 1).
@Suite struct SQLConsistencyTests {
    /// Predicates over `Item` that must compile and agree.
    static let compiled: [String] = [
        "TRUEPREDICATE", "FALSEPREDICATE", "NOT TRUEPREDICATE",
        "name == 'Alice'", "name = 'alice'", "name ==[c] 'alice'", "name ==[cd] 'cafe'", "name ==[d] 'Cafe'",
        "name != 'Alice'", "name != nil", "name == nil", "nil == name", "title == nil OR age > 40",
        "NOT (name == 'Alice')", "NOT (title == 'Ms')", "NOT (age > 20)",
        "age > 20", "age >= 30", "age < 30", "age <= 30", "age == 30.0", "age != 30", "age == '30'", "age != '30'",
        "price > 9", "price BETWEEN {5, 25}", "age BETWEEN {17, 30}", "age IN {17, 45, 99}", "NOT age IN {17, 45}",
        "amount > 10", "amount == 7", "quantity == 0", "sortOrder < 3", "score == 100",
        "isCompleted == YES", "isCompleted == NO", "isCompleted == 1", "isCompleted != YES", "isCompleted == nil",
        "rating > 3", "syncStatus IN {0, 2}",
        "name BEGINSWITH 'A'", "name BEGINSWITH[c] 'a'", "name BEGINSWITH ''", "name ENDSWITH 'e'", "name ENDSWITH[cd] 'E'",
        "name CONTAINS 'o'", "name CONTAINS[c] 'O'", "name CONTAINS[cd] 'afe'", "name CONTAINS ''",
        "name LIKE 'A*'", "name LIKE[c] '*O*'", "name LIKE 'J?hn'", "name LIKE '*'", "name LIKE[cd] 'cafe'",
        "name MATCHES '[A-Z].*'", "name MATCHES[c] 'b.b'", "email MATCHES '.*@example\\\\.com'",
        "name IN {'Alice', 'bob', 'Nobody'}", "name IN[c] {'ALICE', 'BOB'}", "name IN 'Alice and bob'",
        "name IN {'Alice', nil}", "status == 'open'", "status ==[c] 'open'", "status < 'open'", "name > 'B'", "name <[c] 'c'",
        "lastName ==[c] 'SMITH'", "firstName BEGINSWITH[d] 'Zoe'",
        "email ENDSWITH '.com' AND age > 20", "email ENDSWITH '.com' OR isCompleted == NO",
        "(age > 20 AND price < 50) OR name == 'bob'",
        "parent == nil", "parent != nil", "parent.name == 'Alice'", "parent.name ==[c] 'ALICE'", "parent.parent == nil",
        "category.name == 'Work'", "category.name != 'Work'", "category == nil", "owner.firstName BEGINSWITH 'A'",
        "owner.age > 40", "parent.age > age", "parent.category.name == 'Work'",
        "ANY tags.name == 'swift'", "ANY tags.name ==[c] 'IOS'", "ANY tags.name IN {'ios', 'Databases'}", "ALL tags.name == 'swift'",
        "NONE tags.name == 'swift'", "NOT (ANY tags.name == 'db')", "ANY tasks.isCompleted == YES", "ALL tasks.isCompleted == YES",
        "ANY tasks.price > 10", "ANY items.age > 20", "ANY items.name BEGINSWITH 'b'", "ALL items.age > 20",
        "tags.@count == 0", "tags.@count > 1", "tasks.@count >= 1", "items.@count == 2", "tasks.@sum.price > 10",
        "tasks.@sum.price == 0", "tasks.@avg.price > 10", "tasks.@avg.price == nil", "tasks.@max.price >= 30", "tasks.@min.price < 10",
        "items.@avg.age > 20", "items.@max.name == 'bob'", "items.@min.name BEGINSWITH 'C'", "@sum.tasks.price > 10", "count:(tasks) == 2", "tags[SIZE] > 1",
        "count(SUBQUERY(tasks, $t, $t.price > 10)) > 0",
        "SUBQUERY(tasks, $t, $t.isCompleted == YES).@count > 0", "SUBQUERY(tasks, $t, $t.price > 10 AND $t.isCompleted == NO).@count == 1",
        "SUBQUERY(tags, $x, $x.name BEGINSWITH[c] 's').@count >= 1", "SUBQUERY(items, $i, $i.age > 20).@count == 0",
        "SUBQUERY(items, $i, ANY $i.tags.name == 'db').@count > 0",
        "tags.name CONTAINS 'swift'", "tags.name CONTAINS[c] 'IOS'", "'swift' IN tags.name",
        "age + 10 > 40", "age * 2 == 60", "price - 1 > 8", "age / 2 == 15", "age / 4 > 7", "-age < -20", "age + price > 39",
        "age + nil == nil", "abs:(score) > 50", "lowercase:(name) == 'alice'", "uppercase:(name) BEGINSWITH 'JO'",
        "createdAt < date", "date > CAST(600000000, 'NSDate')", "date == nil",
        // Bitwise operators: SQL's own on integer columns, the evaluator's function otherwise.
        "age & 1 == 0", "(age & 4) != 0", "age | 1 == 31", "age ^ 1 > 30", "~age < -30", "age << 1 > 60",
        "age >> 1 == 15", "bitwiseAnd:with:(age, 2) == 2", "age & quantity == 0", "(age & 8) << 1 == 16",
        "isCompleted | 0 == 1", "age & score > 0", "age & 3 ^ 1 == 0",
        // Type identifiers, through the evaluator's comparison.
        "name UTI-EQUALS 'ALICE'", "name UTI-CONFORMS-TO 'alice'", "NOT name UTI-CONFORMS-TO 'Alice'",
    ]

    /// One fixture for the whole table (building a store per case would dominate the time).
    @Test func compiledPredicatesAgree() throws {
        let fixture = try Self.fixture()
        for format in Self.compiled {
            let outcome = fixture.check(fixture.request("Item", NSPredicate(format: format)))
            #expect(outcome == .agreed, "\(format): \(outcome)")
            let sorted = fixture.request("Item", NSPredicate(format: format), sort: [NSSortDescriptor(key: "age", ascending: false)])
            #expect(fixture.check(sorted) == .agreed, "\(format) sorted by age")
        }
    }

    /// The compiled predicates discriminate: most select some rows but not all.
    @Test func compiledPredicatesSelectSomeButNotAllRows() throws {
        let fixture = try Self.fixture()
        let all = try fixture.memoryKeys(fixture.request("Item", nil)).count
        let discriminating = try Self.compiled.filter { format in
            let count = try fixture.memoryKeys(fixture.request("Item", NSPredicate(format: format))).count
            return count > 0 && count < all
        }
        #expect(discriminating.count >= Self.compiled.count * 3 / 4)
    }

    /// Predicates with arguments: constants of every type, objects and IDs, collections.
    @Test func predicatesWithArguments() throws {
        let fixture = try Self.fixture()
        let ids = fixture.ids
        let cases: [(String, [Any])] = [
            ("date == %@", [SQLConsistencyFixture.base]), ("date > %@", [SQLConsistencyFixture.base]),
            ("date BETWEEN %@", [[SQLConsistencyFixture.base.addingTimeInterval(-7200), SQLConsistencyFixture.base]]),
            ("id == %@", [SampleArgument.fixedUUID]), ("id != %@", [SampleArgument.fixedUUID]),
            ("website == %@", [URL(string: "https://alice.example.com")!]), ("payload == %@", [Data([9])]),
            ("parent == %@", [ids["alice"]!]), ("parent != %@", [ids["alice"]!]), ("SELF == %@", [ids["bob"]!]),
            ("SELF IN %@", [[ids["bob"]!, ids["john"]!]]), ("parent IN %@", [[ids["alice"]!, ids["john"]!]]),
            ("category == %@", [ids["work"]!]), ("ANY tags == %@", [ids["swift"]!]), ("tags CONTAINS %@", [ids["db"]!]),
            ("%@ IN tags", [ids["ios"]!]), ("NOT (%@ IN tags)", [ids["ios"]!]), ("ANY tasks IN %@", [[ids["t1"]!, ids["t4"]!]]),
            ("owner == %@", [ids["p1"]!]), ("owner == %@", [ids["work"]!]), ("age IN %@", [[30, 61]]),
            ("name IN %@", [["Alice", "John"]]), ("age IN %@", [Set([17, 45])]), ("%@ CONTAINS name", [["Alice", "bob"]]),
            ("age == %@", ["30"]), ("name == %@", [30]), ("age > %@", [Int64(29)]), ("price == %@", [Float(9.5)]),
            ("amount == %@", [Decimal(string: "12.25")!]),
            ("amount == %@", [SQLConsistencyFixture.preciseDecimal]), ("amount > %@", [Decimal(string: "12.345678901234567890122")!]),
            ("amount < %@", [SQLConsistencyFixture.preciseDecimal]), ("amount IN %@", [[SQLConsistencyFixture.preciseDecimal, 7]]), ("isCompleted == %@", [true]), ("age == %@", [NSNull()]),
        ]
        var agreed = 0
        for (format, arguments) in cases {
            let request = fixture.request("Item", NSPredicate(format: format, argumentArray: arguments))
            let outcome = fixture.check(request)
            #expect(outcome == .agreed, "\(format): \(outcome)")
            if outcome == .agreed { agreed += 1 }
        }
        #expect(agreed == cases.count)
    }

    /// Constructs the compiler refuses, naming them, where the in-memory store answers.
    @Test(arguments: [
        ("FUNCTION(name, 'length') > 3", "FUNCTION"),
        ("tags.name == 'swift'", "to-many key path"),
        ("SUBQUERY(tasks, $t, $t.isCompleted == YES).@count > 0 AND TERNARY(age > 1, 1, 0) == 1", "TERNARY"),
        ("items.@max.payload == nil", "@max of data"),
    ])
    func refusedConstructs(format: String, construct: String) throws {
        let fixture = try Self.fixture()
        let outcome = fixture.check(fixture.request("Item", NSPredicate(format: format)))
        guard case .refused(let message) = outcome else {
            Issue.record("\(format): expected a refusal, got \(outcome)")
            return
        }
        #expect(message.contains(construct), "\(message)")
    }

    /// An invalid regular expression is an error in both stores, never a silent answer.
    @Test func invalidRegularExpressionsFailInBothStores() throws {
        let fixture = try Self.fixture()
        let request = fixture.request("Item", NSPredicate(format: "name MATCHES 'a)|(b'"))
        do {
            _ = try fixture.memoryKeys(request)
            Issue.record("the in-memory store answered an invalid pattern")
        } catch {
            #expect("\(error)".contains("'a)|(b' is not a valid regular expression"), "\(error)")
        }
        do {
            _ = try fixture.sqlKeys(request)
            Issue.record("SQLite answered an invalid pattern")
        } catch {
            #expect("\(error)".contains("a)|(b"), "\(error)")
        }
    }

    @Test func blockPredicatesAreRefused() throws {
        let fixture = try Self.fixture()
        let outcome = fixture.check(fixture.request("Item", NSPredicate { _, _ in true }))
        #expect(outcome == .refused(SQLCompileError("a block predicate", "blocks run only in memory").description))
    }

    /// Every real-world format shape of the query corpus that applies to the test model.
    @Test func realWorldCorpus() throws {
        let fixture = try Self.fixture()
        var agreed = 0, refused: [String] = []
        for sample in RealWorldCorpus.samples {
            guard let predicate = try? sample.parse() else { continue }
            switch fixture.check(fixture.request("Item", predicate)) {
            case .agreed: agreed += 1
            case .refused(let message): refused.append("\(sample.format): \(message)")
            case .notApplicable: break
            case .disagreed(let message): Issue.record("\(sample.format): \(message)")
            }
        }
        #expect(agreed >= 120, "only \(agreed) agreed; refused: \(refused)")
    }

    // MARK: Sorting, windows, subentities

    @Test(arguments: [
        [("name", true)], [("name", false)], [("age", true), ("name", false)], [("title", true)], [("title", false)],
        [("price", false), ("age", true)], [("parent.name", true)], [("category.name", false), ("sortOrder", true)],
        [("date", true)], [("isCompleted", true), ("score", false)], [("tasks.@count", false)],
    ])
    func sortsAgree(keys: [(String, Bool)]) throws {
        let fixture = try Self.fixture()
        let descriptors = keys.map { NSSortDescriptor(key: $0.0, ascending: $0.1) }
        #expect(fixture.check(fixture.request("Item", nil, sort: descriptors)) == .agreed)
    }

    @Test(arguments: ["compare:", "caseInsensitiveCompare:", "localizedCompare:", "localizedCaseInsensitiveCompare:", "localizedStandardCompare:"])
    func stringSortSelectorsAgree(selector: String) throws {
        let fixture = try Self.fixture()
        for ascending in [true, false] {
            let descriptor = NSSortDescriptor(key: "lastName", ascending: ascending, selector: Selector(selector))
            #expect(fixture.check(fixture.request("Item", nil, sort: [descriptor, NSSortDescriptor(key: "name", ascending: true)])) == .agreed)
        }
    }

    @Test func numericSortWithAStringSelectorIsRefused() throws {
        // The in-memory store traps here (as Apple raises); the SQL compiler refuses.
        let fixture = try Self.fixture()
        let descriptor = NSSortDescriptor(key: "age", ascending: true, selector: Selector("caseInsensitiveCompare:"))
        #expect(throws: SQLCompileError.self) { try fixture.sqlKeys(fixture.request("Item", nil, sort: [descriptor])) }
    }

    @Test(arguments: [(0, 0), (2, 0), (0, 3), (2, 3), (6, 5), (20, 1)])
    func windowsAgree(offset: Int, limit: Int) throws {
        let fixture = try Self.fixture()
        let request = fixture.request("Item", NSPredicate(format: "age != 99"), sort: [NSSortDescriptor(key: "sortOrder", ascending: true)])
        request.fetchOffset = offset
        request.fetchLimit = limit
        #expect(fixture.check(request) == .agreed)
    }

    @Test func subentitiesAgree() throws {
        let fixture = try Self.fixture()
        for (name, includes) in [("Item", true), ("Item", false), ("SpecialItem", true), ("SpecialItem", false)] {
            let request = fixture.request(name, NSPredicate(format: "age >= 0"))
            request.includesSubentities = includes
            #expect(fixture.check(request) == .agreed, "\(name) \(includes)")
        }
        for format in ["level > 1", "level == nil", "level == 3 AND parent == nil"] {
            #expect(fixture.check(fixture.request("SpecialItem", NSPredicate(format: format))) == .agreed, "\(format)")
        }
        let tagRequest = fixture.request("Tag", NSPredicate(format: "ANY items.age > 40"))
        #expect(fixture.check(tagRequest) == .agreed)
        let personRequest = fixture.request("Person", NSPredicate(format: "items.@count >= 2"))
        #expect(fixture.check(personRequest) == .agreed)
    }

    static func fixture() throws -> SQLConsistencyFixture { try SQLConsistencyFixture() }
}
