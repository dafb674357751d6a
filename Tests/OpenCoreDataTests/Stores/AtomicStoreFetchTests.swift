import Foundation
import Testing
@testable import OpenCoreData

/// Fetching from the in-memory store through the coordinator: predicates over attributes and
/// relationships, sorting, windows, subentities and the result types.
@Suite struct AtomicStoreFetchTests {
    let fixture: CompanyFixture

    init() throws {
        fixture = CompanyFixture()
        try fixture.addStore()
        try fixture.insertStandardData()
    }

    @Test(arguments: [
        ("salary > 150", ["Bob", "Cid", "Dee"]),
        ("name BEGINSWITH[c] 'e'", ["Eve"]),
        ("department.name == 'Tech'", ["Dee", "Eve"]),
        ("department.budget >= 1000 AND salary < 200", ["Ann", "Eve"]),
        ("department.employees.@count == 3", ["Ann", "Bob", "Cid"]),
        ("salary > department.employees.@avg.salary", ["Cid", "Dee"]),
        ("department == nil", [String]()),
        ("NOT (name IN {'Ann', 'Bob'})", ["Cid", "Dee", "Eve"]),
    ])
    func employeePredicates(format: String, expected: [String]) throws {
        #expect(try fixture.names(fixture.request("Employee", format, sort: [("name", true)])) == expected)
    }

    @Test(arguments: [
        ("ANY employees.salary > 350", ["Tech"]),
        ("employees.@count == 0", ["Empty"]),
        ("employees.@sum.salary == 600", ["Sales"]),
        ("SUBQUERY(employees, $e, $e.salary >= 100).@count >= 2", ["Sales"]),
        ("ALL employees.salary >= 100", ["Empty", "Sales"]),
        ("NONE employees.name == 'Eve'", ["Empty", "Sales"]),
        ("employees.@max.salary < 350", ["Sales"]),
    ])
    func departmentPredicatesOverToMany(format: String, expected: [String]) throws {
        #expect(try fixture.names(fixture.request("Department", format, sort: [("name", true)])) == expected)
    }

    @Test func objectConstantsCompareOnEitherSide() throws {
        let tech = try fixture.snapshots(fixture.request("Department", "name == 'Tech'"))[0].objectID
        #expect(try fixture.names(fixture.request("Employee", "department == %@", tech, sort: [("name", true)])) == ["Dee", "Eve"])
        #expect(try fixture.names(fixture.request("Employee", "%@ == department", tech, sort: [("name", true)])) == ["Dee", "Eve"])
        #expect(try fixture.names(fixture.request("Department", "SELF IN %@", [tech])) == ["Tech"])
        let eve = try fixture.snapshots(fixture.request("Employee", "name == 'Eve'"))[0].objectID
        #expect(try fixture.names(fixture.request("Department", "employees CONTAINS %@", eve)) == ["Tech"])
        #expect(try fixture.names(fixture.request("Department", "%@ IN employees", eve)) == ["Tech"])
    }

    @Test func sortsByKeyPathsAndDirectionsWithStableTies() throws {
        let request = fixture.request("Employee", sort: [("department.name", false), ("salary", true)])
        #expect(try fixture.names(request) == ["Eve", "Dee", "Ann", "Bob", "Cid"])
        let unsorted = fixture.request("Employee")
        // Keys come per inheritance tree, per entity in a save: Employee Ann 1, Cid 2, then Manager Bob 3.
        #expect(try fixture.names(unsorted) == ["Ann", "Cid", "Bob", "Dee", "Eve"], "primary-key order without descriptors")
    }

    @Test(arguments: [(0, 0, ["Eve", "Ann", "Bob", "Cid", "Dee"]), (1, 2, ["Ann", "Bob"]), (4, 10, ["Dee"]), (9, 0, [])])
    func offsetAndLimit(offset: Int, limit: Int, expected: [String]) throws {
        let request = fixture.request("Employee", sort: [("salary", true)])
        request.fetchOffset = offset
        request.fetchLimit = limit
        #expect(try fixture.names(request) == expected)
        #expect(try fixture.count(request) == expected.count)
    }

    @Test func subentities() throws {
        #expect(try fixture.names(fixture.request("Employee", sort: [("name", true)])).count == 5)
        let only = fixture.request("Employee", sort: [("name", true)])
        only.includesSubentities = false
        #expect(try fixture.names(only) == ["Ann", "Cid", "Dee", "Eve"])
        #expect(try fixture.names(fixture.request("Manager")) == ["Bob"])
        let bob = try fixture.snapshots(fixture.request("Manager"))[0]
        #expect(bob.objectID.entity.name == "Manager")
        #expect(bob.values["level"] as? Int16 == 2)
    }

    @Test func subentityPropertiesReadNilOnOtherRows() throws {
        #expect(try fixture.names(fixture.request("Employee", "level == 2")) == ["Bob"])
        #expect(try fixture.names(fixture.request("Employee", "level == nil", sort: [("name", true)])) == ["Ann", "Cid", "Dee", "Eve"])
        #expect(try fixture.names(fixture.request("Employee", "salary > 150", sort: [("level", false), ("name", true)])) == ["Bob", "Cid", "Dee"])
        let request = fixture.request("Employee", "name IN {'Ann', 'Bob'}", sort: [("name", true)])
        request.propertiesToFetch = ["name", "level"]
        let rows = try fixture.dictionaries(request)
        #expect(rows.map { $0["level"] as? Int16 } == [nil, 2])
    }

    @Test func objectIDAndCountResults() throws {
        let request = fixture.request("Employee", "salary >= 200", sort: [("salary", false)], resultType: .managedObjectIDResultType)
        guard case .objectIDs(let ids) = try fixture.coordinator.executeFetch(request) else {
            Issue.record("expected IDs")
            return
        }
        let names = try ids.map { try fixture.coordinator.snapshots(for: [$0])[$0]?.values["name"] as? String }
        #expect(names == ["Dee", "Cid", "Bob"])
        #expect(ids.allSatisfy { !$0.isTemporaryID && $0.persistentStore === fixture.coordinator.persistentStores[0] })
        #expect(try fixture.count(fixture.request("Employee", "salary >= 200")) == 3)
        #expect(try fixture.count(fixture.request("Department")) == 3)
    }

    @Test func snapshotsCarryValuesToManyAndVersions() throws {
        let sales = try fixture.snapshots(fixture.request("Department", "name == 'Sales'"))[0]
        #expect(sales.version == 1)
        #expect(sales.values["budget"] as? Double == 1000)
        let employees = try #require(sales.toMany["employees"])
        #expect(employees.count == 3)
        let relationship = try #require(fixture.entity("Department").relationshipsByName["employees"])
        #expect(try fixture.coordinator.relatedObjectIDs(for: relationship, of: sales.objectID) == employees)
        let ann = try fixture.snapshots(fixture.request("Employee", "name == 'Ann'"))[0]
        #expect(ann.values["department"] as? NSManagedObjectID == sales.objectID)
    }

    @Test func dictionariesOfNamesKeyPathsAndDescriptions() throws {
        let request = fixture.request("Employee", "salary > 150", sort: [("salary", true)])
        request.propertiesToFetch = ["name", fixture.entity("Employee").attributesByName["salary"]!, "department.name", "department"]
        let rows = try fixture.dictionaries(request)
        #expect(rows.count == 3)
        #expect(rows[0]["name"] as? String == "Bob")
        #expect(rows[0]["salary"] as? Int64 == 200)
        #expect(rows[2]["department.name"] as? String == "Tech")
        #expect(rows[2]["department"] is NSManagedObjectID)
        #expect(rows[0]["hired"] == nil, "nil values and unfetched keys are absent")
    }

    @Test func dictionariesWithoutPropertiesToFetchHoldAttributesAndToOnes() throws {
        let rows = try fixture.dictionaries(fixture.request("Employee", "name == 'Ann'"))
        #expect(rows.count == 1)
        #expect(Set(rows[0].keys) == ["name", "salary", "department"])
    }

    @Test func aggregatesOverAllRows() throws {
        let request = fixture.request("Employee")
        request.propertiesToFetch = [
            expression("total", "sum:", "salary"), expression("lowest", "min:", "salary"),
            expression("highest", "max:", "salary"), expression("mean", "average:", "salary"),
            expression("people", "count:", "name"),
        ]
        let rows = try fixture.dictionaries(request)
        #expect(rows.count == 1)
        #expect(rows[0]["total"] as? Int64 == 1050, "converted to the declared result type")
        #expect((rows[0]["total"] as? NSNumber)?.intValue == 1050)
        #expect((rows[0]["lowest"] as? NSNumber)?.intValue == 50)
        #expect((rows[0]["highest"] as? NSNumber)?.intValue == 400)
        #expect((rows[0]["mean"] as? NSNumber)?.doubleValue == 210)
        #expect((rows[0]["people"] as? NSNumber)?.intValue == 5)
    }

    @Test func expressionResultTypesConvertNumbers() throws {
        let request = fixture.request("Employee", "department.name == 'Tech'")
        let mean = expression("mean", "average:", "salary")
        mean.expressionResultType = .integer32AttributeType
        let total = expression("total", "sum:", "salary")
        total.expressionResultType = .doubleAttributeType
        let untyped = expression("untyped", "max:", "name")
        untyped.expressionResultType = .undefinedAttributeType
        request.propertiesToFetch = [mean, total, untyped]
        let rows = try fixture.dictionaries(request)
        #expect(rows[0]["mean"] as? Int32 == 225)
        #expect(rows[0]["total"] as? Double == 450)
        #expect(rows[0]["untyped"] as? String == "Eve")
    }

    @Test func groupByWithHavingAndSortByAggregate() throws {
        let request = fixture.request("Employee", sort: [("total", false)])
        request.propertiesToFetch = ["department.name", expression("total", "sum:", "salary"), expression("people", "count:", "name")]
        request.propertiesToGroupBy = ["department.name"]
        let rows = try fixture.dictionaries(request)
        #expect(rows.map { $0["department.name"] as? String } == ["Sales", "Tech"])
        #expect(rows.map { ($0["total"] as? NSNumber)?.intValue } == [600, 450])

        let having = fixture.request("Employee")
        having.propertiesToFetch = ["department.name", expression("people", "count:", "name")]
        having.propertiesToGroupBy = ["department.name"]
        having.havingPredicate = NSPredicate(format: "people > 2")
        #expect(try fixture.dictionaries(having).map { $0["department.name"] as? String } == ["Sales"])
        having.havingPredicate = NSPredicate(format: "$people < 3")
        #expect(try fixture.dictionaries(having).map { $0["department.name"] as? String } == ["Tech"])
    }

    @Test func groupByRejectsPlainPropertiesOutsideTheGroup() throws {
        let request = fixture.request("Employee")
        request.propertiesToFetch = ["name", expression("total", "sum:", "salary")]
        request.propertiesToGroupBy = ["department.name"]
        #expect(throws: NSError.self) { try fixture.dictionaries(request) }
    }

    @Test func distinctResults() throws {
        let request = fixture.request("Employee", sort: [("department.name", true)])
        request.propertiesToFetch = ["department.name"]
        request.returnsDistinctResults = true
        #expect(try fixture.dictionaries(request).map { $0["department.name"] as? String } == ["Sales", "Tech"])
        request.returnsDistinctResults = false
        #expect(try fixture.dictionaries(request).count == 5)
    }

    @Test func perRowExpressionsAndTheEvaluatedObject() throws {
        let doubled = NSExpressionDescription()
        doubled.name = "doubled"
        doubled.expression = NSExpression(format: "salary * 2")
        let objectID = NSExpressionDescription()
        objectID.name = "objectID"
        objectID.expression = NSExpression(expressionType: .evaluatedObject)
        let request = fixture.request("Employee", "name == 'Eve'")
        request.propertiesToFetch = ["name", doubled, objectID]
        let rows = try fixture.dictionaries(request)
        #expect(rows.count == 1)
        #expect((rows[0]["doubled"] as? NSNumber)?.intValue == 100)
        let id = try #require(rows[0]["objectID"] as? NSManagedObjectID)
        #expect(try fixture.coordinator.snapshots(for: [id])[id]?.values["name"] as? String == "Eve")
    }

    @Test func aggregatesOfAnEmptyMatchCountZeroAndOmitTheRest() throws {
        let request = fixture.request("Employee", "salary > 10000")
        request.propertiesToFetch = [expression("people", "count:", "name"), expression("total", "sum:", "salary")]
        let rows = try fixture.dictionaries(request)
        #expect(rows.count == 1)
        #expect((rows[0]["people"] as? NSNumber)?.intValue == 0)
        #expect(rows[0]["total"] == nil)
    }

    @Test func toManyCantBeFetchedIntoDictionaries() throws {
        let request = fixture.request("Department")
        request.propertiesToFetch = ["employees"]
        #expect(throws: NSError.self) { try fixture.dictionaries(request) }
    }

    @Test func unknownKeysThrowNamingTheEntity() throws {
        let error = try #require(throws: NSError.self) {
            try fixture.names(fixture.request("Employee", "nickname == 'x'"))
        }
        #expect(error.code == NSCoreDataError)
        #expect(error.localizedDescription.contains("nickname"))
        #expect(error.localizedDescription.contains("Employee"))
        let sort = fixture.request("Employee", sort: [("nickname", true)])
        #expect(throws: NSError.self) { try fixture.names(sort) }
    }

    private func expression(_ name: String, _ function: String, _ keyPath: String) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)])
        description.expressionResultType = .integer64AttributeType
        return description
    }
}
