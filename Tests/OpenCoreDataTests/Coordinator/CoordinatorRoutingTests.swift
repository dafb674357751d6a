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

    /// Snapshots asked of the coordinator for IDs of two stores, interleaved, with a temporary
    /// ID among them or first, come from each ID's store; the temporary ID is left out.
    @Test func snapshotsOfInterleavedStoresAndATemporaryID() throws {
        let fixture = CompanyFixture()
        let first = try fixture.addStore()
        let second = try fixture.addStore()
        let (_, sales) = try fixture.insertDepartment("Sales", budget: 1, employees: [("Ann", 100), ("Cid", 300)], into: first)
        let (_, tech) = try fixture.insertDepartment("Tech", budget: 2, employees: [("Bob", 200)], into: second)
        let temporary = NSManagedObjectID(temporaryFor: fixture.entity("Employee"))
        let names = [sales[0]: "Ann", sales[1]: "Cid", tech[0]: "Bob"]
        for asked in [[sales[0], tech[0], temporary, sales[1]], [temporary, sales[0]], [tech[0]], [sales[1], sales[0]]] {
            let read = try fixture.coordinator.snapshots(for: asked)
            let expected = asked.filter { !$0.isTemporaryID }
            #expect(Set(read.map(\.objectID)) == Set(expected), "\(asked)")
            for id in expected { #expect(read[id]?["name"] as? String == names[id]) }
            #expect(read[temporary] == nil)
        }
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

/// Dictionary fetches over several stores are built over all their rows.
@Suite struct CoordinatorMergedDictionaryTests {
    @Test func aggregatesAndGroupsSpanStores() throws {
        let fixture = CompanyFixture()
        let first = try fixture.addStore()
        let second = try fixture.addStore()
        try fixture.insertDepartment("Sales", budget: 1, employees: [("Ann", 100), ("Cid", 300)], into: first)
        try fixture.insertDepartment("Sales", budget: 1, employees: [("Bob", 200)], into: second)
        try fixture.insertDepartment("Tech", budget: 2, employees: [("Dee", 400)], into: second)

        let total = NSExpressionDescription()
        total.name = "total"
        total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "salary")])
        let request = fixture.request("Employee", sort: [("department.name", true)])
        request.propertiesToFetch = ["department.name", total]
        request.propertiesToGroupBy = ["department.name"]
        let rows = try fixture.dictionaries(request)
        #expect(rows.map { $0["department.name"] as? String } == ["Sales", "Tech"])
        #expect(rows.map { ($0["total"] as? NSNumber)?.intValue } == [600, 400])

        let all = fixture.request("Employee")
        all.propertiesToFetch = [total]
        #expect((try fixture.dictionaries(all).first?["total"] as? NSNumber)?.intValue == 1000)

        let distinct = fixture.request("Department", sort: [("name", false)])
        distinct.propertiesToFetch = ["name"]
        distinct.returnsDistinctResults = true
        distinct.fetchLimit = 1
        #expect(try fixture.dictionaries(distinct).map { $0["name"] as? String } == ["Tech"])
    }

    @Test func destroyRemovesTheStoreAndItsFile() throws {
        let fixture = CompanyFixture()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("destroy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Store.bin")
        try Data([1]).write(to: url)
        try Data([2]).write(to: URL(fileURLWithPath: url.path + "-wal"))
        let type = "FileBacked-\(UUID().uuidString)"
        NSPersistentStoreCoordinator.registerStoreClass(CoordinatorStoreFileTests.FileBackedStore.self, type: type)
        defer { NSPersistentStoreCoordinator.registerStoreClass(nil, type: type) }
        try fixture.coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url)
        try fixture.coordinator.destroyPersistentStore(at: url, ofType: type)
        #expect(fixture.coordinator.persistentStores.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        let error = try #require(throws: NSError.self) {
            try fixture.coordinator.destroyPersistentStore(at: url, ofType: "Nonsense")
        }
        #expect(error.code == NSPersistentStoreInvalidTypeError)
    }

    @Test func inMemoryStoresMayShareDevNullAndDestroyingThemDeletesNothing() throws {
        let fixture = CompanyFixture()
        let devNull = URL(fileURLWithPath: "/dev/null")
        try fixture.coordinator.addPersistentStore(type: .inMemory, at: devNull)
        try fixture.coordinator.addPersistentStore(type: .inMemory, at: devNull)
        #expect(fixture.coordinator.persistentStores.count == 2)
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("kept")
        try Data([1]).write(to: file)
        try fixture.coordinator.addPersistentStore(type: .inMemory, at: file)
        try fixture.coordinator.destroyPersistentStore(at: file, type: .inMemory)
        #expect(FileManager.default.fileExists(atPath: file.path))
        #expect(fixture.coordinator.persistentStores.count == 2)
        try fixture.coordinator.destroyPersistentStore(at: devNull, type: .inMemory)
        #expect(FileManager.default.fileExists(atPath: "/dev/null"))
    }
}

/// The coordinator serializes concurrent callers.
@Suite struct CoordinatorConcurrencyTests {
    @Test func concurrentSavesAndFetchesAreSerialized() throws {
        nonisolated(unsafe) let fixture = CompanyFixture()
        try fixture.addStore()
        nonisolated(unsafe) var failures: [Error] = []
        let failureLock = NSLock()
        DispatchQueue.concurrentPerform(iterations: 40) { index in
            do {
                try fixture.insert("Employee", ["name": "E\(index)", "salary": Int64(index)])
                _ = try fixture.count(fixture.request("Employee", "salary >= 0"))
            } catch {
                failureLock.lock()
                failures.append(error)
                failureLock.unlock()
            }
        }
        #expect(failures.isEmpty)
        #expect(try fixture.count(fixture.request("Employee")) == 40)
        guard case .objectIDs(let ids) = try fixture.coordinator.executeFetch(fixture.request("Employee", resultType: .managedObjectIDResultType)) else {
            Issue.record("expected IDs")
            return
        }
        #expect(Set(ids.compactMap(\.primaryKey)) == Set(1...40), "every key handed out once")
    }
}
