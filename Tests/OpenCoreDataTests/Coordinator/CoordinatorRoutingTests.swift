import Foundation
import Testing
@testable import OpenCoreData

/// Several stores on one coordinator: routing by configuration, `affectedStores`, merged
/// results, and saves that span stores.
@Suite struct CoordinatorRoutingTests {
    @Test func newObjectsGoToTheStoreOfTheirConfiguration() throws {
        let fixture = CompanyFixture()
        let staff = try fixture.addStore(configuration: "Staff")
        let projects = try fixture.addStore(configuration: "Projects")
        let ann = try fixture.insert("Employee", ["name": "Ann", "salary": Int64(1)])
        let apollo = try fixture.insert("Project", ["title": "Apollo"])
        #expect(ann.objectID.persistentStore === staff)
        #expect(apollo.objectID.persistentStore === projects)
        #expect(try fixture.names(fixture.request("Project")) == ["Apollo"])
        #expect(try fixture.names(fixture.request("Employee")) == ["Ann"])
        #expect((staff as? AtomicStore)?.currentContents.rows["Project"] == nil)
        #expect((projects as? AtomicStore)?.currentContents.rowCount == 1)
    }

    @Test func assignedStoreWins() throws {
        let fixture = CompanyFixture()
        _ = try fixture.addStore()
        let second = try fixture.addStore()
        let ann = try fixture.insert("Employee", ["name": "Ann"], into: second)
        #expect(ann.objectID.persistentStore === second)
    }

    @Test func noStoreForAnEntityThrows() throws {
        let fixture = CompanyFixture()
        try fixture.addStore(configuration: "Staff")
        let error = try #require(throws: NSError.self) {
            try fixture.coordinator.permanentObjectIDs(for: [(fixture.entity("Project"), nil)])
        }
        #expect(error.code == NSCoreDataError)
        #expect(error.localizedDescription.contains("Project"))
        #expect(try fixture.names(fixture.request("Project")) == [], "a fetch of an entity no store holds is empty")
        let empty = CompanyFixture()
        #expect(throws: NSError.self) { try empty.names(empty.request("Employee")) }
    }

    @Test func fetchesMergeSeveralStoresWithSortOffsetAndLimit() throws {
        let fixture = CompanyFixture()
        let first = try fixture.addStore()
        let second = try fixture.addStore()
        try fixture.insertDepartment("Sales", budget: 1, employees: [("Ann", 100), ("Cid", 300), ("Eve", 500)], into: first)
        try fixture.insertDepartment("Tech", budget: 2, employees: [("Bob", 200), ("Dee", 400)], into: second)

        let sorted = fixture.request("Employee", sort: [("salary", false)])
        #expect(try fixture.names(sorted) == ["Eve", "Dee", "Cid", "Bob", "Ann"])
        sorted.fetchOffset = 1
        sorted.fetchLimit = 3
        #expect(try fixture.names(sorted) == ["Dee", "Cid", "Bob"])
        #expect(try fixture.count(sorted) == 3)
        #expect(try fixture.count(fixture.request("Employee")) == 5)

        let byDepartment = fixture.request("Employee", "salary > 150", sort: [("department.name", false), ("name", true)])
        #expect(try fixture.names(byDepartment) == ["Bob", "Dee", "Cid", "Eve"])

        let ids = fixture.request("Employee", sort: [("name", true)], resultType: .managedObjectIDResultType)
        ids.fetchLimit = 2
        guard case .objectIDs(let found) = try fixture.coordinator.executeFetch(ids) else {
            Issue.record("expected IDs")
            return
        }
        #expect(found.map { $0.persistentStore === first } == [true, false])

        let dictionaries = fixture.request("Employee", sort: [("name", false)])
        dictionaries.propertiesToFetch = ["name"]
        #expect(try fixture.dictionaries(dictionaries).map { $0["name"] as? String } == ["Eve", "Dee", "Cid", "Bob", "Ann"])
    }

    @Test func affectedStoresLimitsAFetch() throws {
        let fixture = CompanyFixture()
        let first = try fixture.addStore()
        let second = try fixture.addStore()
        try fixture.insert("Employee", ["name": "Ann"], into: first)
        try fixture.insert("Employee", ["name": "Bob"], into: second)
        let request = fixture.request("Employee", sort: [("name", true)])
        #expect(try fixture.names(request) == ["Ann", "Bob"])
        request.affectedStores = [second]
        #expect(try fixture.names(request) == ["Bob"])
        request.affectedStores = [first]
        #expect(try fixture.count(request) == 1)
    }

    @Test func aSaveSpanningStoresIsCheckedEverywhereFirst() throws {
        let fixture = CompanyFixture()
        let staff = try fixture.addStore(configuration: "Staff")
        try fixture.addStore(configuration: "Projects", options: [NSReadOnlyPersistentStoreOption: true])
        let ids = try fixture.coordinator.permanentObjectIDs(for: [(fixture.entity("Employee"), nil), (fixture.entity("Project"), nil)])
        let changes = StoreSaveChanges(inserted: [ObjectSnapshot(objectID: ids[0], values: ["name": "Ann"]),
                                                 ObjectSnapshot(objectID: ids[1], values: ["title": "Apollo"])])
        let error = try #require(throws: NSError.self) { try fixture.coordinator.save(changes) }
        #expect(error.code == NSPersistentStoreSaveError)
        #expect((staff as? AtomicStore)?.currentContents.rowCount == 0, "the writable store saved nothing either")
    }

    @Test func relationshipsCantCrossStores() throws {
        let fixture = CompanyFixture()
        let staff = try fixture.addStore(configuration: "Staff")
        let projects = try fixture.addStore(configuration: "Projects")
        let ann = try fixture.insert("Employee", ["name": "Ann"], into: staff)
        let id = try fixture.coordinator.permanentObjectIDs(for: [(fixture.entity("Project"), projects)])[0]
        let error = try #require(throws: NSError.self) {
            try fixture.coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: id, values: ["title": "X", "lead": ann.objectID])]))
        }
        #expect(error.code == NSManagedObjectExternalRelationshipError)
    }

    @Test func temporaryIDsCantBeSaved() throws {
        let fixture = CompanyFixture()
        try fixture.addStore()
        let temporary = NSManagedObjectID(temporaryFor: fixture.entity("Employee"))
        let error = try #require(throws: NSError.self) {
            try fixture.coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: temporary)]))
        }
        #expect(error.code == NSPersistentStoreSaveError)
        #expect(try fixture.coordinator.snapshots(for: [temporary]).isEmpty)
    }

    @Test func removedStoresObjectsNoLongerResolve() throws {
        let fixture = CompanyFixture()
        let store = try fixture.addStore()
        let (department, _) = try fixture.insertDepartment("Sales", budget: 1, employees: [("Ann", 1)])
        try fixture.coordinator.remove(store)
        #expect(try fixture.coordinator.snapshots(for: [department]).isEmpty)
        let relationship = fixture.entity("Department").relationshipsByName["employees"]!
        let error = try #require(throws: NSError.self) {
            try fixture.coordinator.relatedObjectIDs(for: relationship, of: department)
        }
        #expect(error.code == NSManagedObjectReferentialIntegrityError)
    }
}
