import Testing
@testable import OpenCoreData

/// Dictionary fetches (properties, key paths, to-one IDs, aggregates, group-by, having,
/// distinct) and counts: the same results from the in-memory store and from SQL.
@Suite struct SQLConsistencyDictionaryTests {
    private func description(_ name: String, _ function: String, _ keyPath: String) -> NSExpressionDescription {
        SQLConsistencyFixture.aggregate(name, function, keyPath)
    }

    private func expectSame(_ fixture: SQLConsistencyFixture, _ request: NSFetchRequest<NSFetchRequestResult>,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        request.resultType = .dictionaryResultType
        let memory = try fixture.memoryDictionaries(request)
        let sql = try fixture.sqlDictionaries(request)
        #expect(sql.count == memory.count, "memory \(memory)\nSQL \(sql)", sourceLocation: sourceLocation)
        #expect(ValueComparison.isEqual(sql, memory, options: []), "memory \(memory)\nSQL \(sql)", sourceLocation: sourceLocation)
        #expect(!memory.isEmpty, sourceLocation: sourceLocation)
    }

    @Test func propertiesKeyPathsAndToOneIDs() throws {
        let fixture = try SQLConsistencyFixture()
        let request = fixture.request("Item", NSPredicate(format: "age > 0"), sort: [NSSortDescriptor(key: "name", ascending: true)])
        request.propertiesToFetch = ["name", "age", "date", "isCompleted", "amount", "parent", "category.name", "owner", "id", "website"]
        try expectSame(fixture, request)
    }

    @Test func everyAttributeAndToOneByDefault() throws {
        let fixture = try SQLConsistencyFixture()
        try expectSame(fixture, fixture.request("Item", nil))
        try expectSame(fixture, fixture.request("Task", nil, sort: [NSSortDescriptor(key: "price", ascending: false)]))
    }

    @Test func aggregatesOverAllRows() throws {
        let fixture = try SQLConsistencyFixture()
        let request = fixture.request("Item", NSPredicate(format: "age != nil"))
        request.propertiesToFetch = [description("total", "sum:", "age"), description("mean", "average:", "price"),
                                     description("n", "count:", "title"), description("low", "min:", "date"),
                                     description("high", "max:", "score")]
        try expectSame(fixture, request)
    }

    @Test func aggregatesOfNoRows() throws {
        let fixture = try SQLConsistencyFixture()
        let request = fixture.request("Item", NSPredicate(format: "age > 1000"))
        request.propertiesToFetch = [description("total", "sum:", "age"), description("n", "count:", "age")]
        try expectSame(fixture, request)
    }

    @Test func groupByWithHavingAndSortByAggregate() throws {
        let fixture = try SQLConsistencyFixture()
        let request = fixture.request("Item", nil, sort: [NSSortDescriptor(key: "n", ascending: false)])
        request.propertiesToFetch = ["status", description("n", "count:", "name"), description("oldest", "max:", "age")]
        request.propertiesToGroupBy = ["status"]
        try expectSame(fixture, request)
        request.havingPredicate = NSPredicate(format: "n > 1")
        try expectSame(fixture, request)
        request.havingPredicate = NSPredicate(format: "$oldest >= 45")
        try expectSame(fixture, request)
    }

    @Test func groupByToOneAndKeyPath() throws {
        let fixture = try SQLConsistencyFixture()
        let request = fixture.request("Item", nil)
        request.propertiesToFetch = ["category", description("total", "sum:", "price")]
        request.propertiesToGroupBy = ["category"]
        try expectSame(fixture, request)
        let byName = fixture.request("Item", nil, sort: [NSSortDescriptor(key: "category.name", ascending: true)])
        byName.propertiesToFetch = ["category.name", description("n", "count:", "age")]
        byName.propertiesToGroupBy = ["category.name"]
        try expectSame(fixture, byName)
    }

    @Test func strayPropertiesInAGroupedFetchFailAlike() throws {
        let fixture = try SQLConsistencyFixture()
        let request = fixture.request("Item", nil)
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["name", description("n", "count:", "age")]
        #expect(throws: (any Error).self) { try fixture.memoryDictionaries(request) }
        #expect(throws: NSError.self) { try fixture.sqlDictionaries(request) }
    }

    @Test func distinctResults() throws {
        let fixture = try SQLConsistencyFixture()
        let request = fixture.request("Item", nil)
        request.propertiesToFetch = ["status"]
        request.returnsDistinctResults = true
        try expectSame(fixture, request)
        let sorted = fixture.request("Item", NSPredicate(format: "lastName != nil"), sort: [NSSortDescriptor(key: "lastName", ascending: false)])
        sorted.propertiesToFetch = ["lastName", "isCompleted"]
        sorted.returnsDistinctResults = true
        try expectSame(fixture, sorted)
    }

    @Test func perRowExpressionsAndWindows() throws {
        let fixture = try SQLConsistencyFixture()
        let doubled = NSExpressionDescription()
        doubled.name = "doubled"
        doubled.expression = NSExpression(format: "age * 2")
        let request = fixture.request("Item", NSPredicate(format: "age != nil"), sort: [NSSortDescriptor(key: "age", ascending: true)])
        request.propertiesToFetch = ["name", doubled]
        request.fetchOffset = 1
        request.fetchLimit = 3
        try expectSame(fixture, request)
    }

    @Test func countsAgree() throws {
        let fixture = try SQLConsistencyFixture()
        for format in ["age > 20", "ANY tags.name == 'swift'", "name == nil", "TRUEPREDICATE"] {
            let request = fixture.request("Item", NSPredicate(format: format))
            request.resultType = .countResultType
            guard case .count(let memory) = try fixture.store.executeFetch(request) else { Issue.record("no count"); continue }
            #expect(try fixture.sqlCount(request) == memory, "\(format)")
            request.fetchLimit = 2
            guard case .count(let limited) = try fixture.store.executeFetch(request) else { continue }
            #expect(try fixture.sqlCount(request) == limited, "\(format) limit 2")
        }
    }
}
