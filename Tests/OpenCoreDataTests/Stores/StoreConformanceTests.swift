import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataPostgres

/// The store types the shared test bodies run against. Each store issue adds its type here;
/// every test that takes `StoreTypesUnderTest.all` then runs against it too.
///
/// PostgreSQL is among them when the throwaway server starts (``PostgresTestServer``); when
/// PostgreSQL is not installed, its suites print one line saying so and these bodies run
/// against the other types.
enum StoreTypesUnderTest {
    static let all: [String] = {
        var types = [NSInMemoryStoreType, PlistTestStore.registered, NSXMLStoreType, NSBinaryStoreType, NSSQLiteStoreType]
        if PostgresTestServer.unavailableReason == nil {
            PostgresStore.registerStoreClass()
            types.append(NSPostgreSQLStoreType)
        }
        return types
    }()

    /// Where a store of `storeType` lives for a test that would put a file store at `file`:
    /// nil for the in-memory type, a schema of its own on the test server for PostgreSQL
    /// (named after `file`, so that opening the same `file` again opens the same store), else
    /// `file`.
    static func location(_ storeType: String, _ file: URL) -> URL? {
        switch storeType {
        case NSInMemoryStoreType: return nil
        case NSPostgreSQLStoreType:
            // FNV-1a of the path: a plain identifier, the same for the same file.
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in file.standardizedFileURL.path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return (try? PostgresTestServer.server())?.url(schema: "t" + String(hash, radix: 16))
        default: return file
        }
    }

    /// Every ordered pair of types, for migration.
    static var pairs: [(String, String)] {
        all.flatMap { from in all.map { (from, $0) } }
    }
}

/// One test body for every store type: saves, fetches over relationships and subentities,
/// result types, conflicts, metadata, reopening (file stores) and migration between types.
@Suite struct StoreConformanceTests {
    @Test(arguments: StoreTypesUnderTest.all)
    func savesAndFetches(storeType: String) throws {
        let fixture = CompanyFixture(storeType: storeType)
        let store = try fixture.addStore()
        #expect(store.type == storeType)
        try fixture.insertStandardData()

        #expect(try fixture.names(fixture.request("Employee", "department.name == 'Sales' AND salary >= 200", sort: [("name", true)]))
                == ["Bob", "Cid"])
        #expect(try fixture.names(fixture.request("Department", "ANY employees.salary > 350")) == ["Tech"])
        #expect(try fixture.names(fixture.request("Manager")) == ["Bob"])
        #expect(try fixture.count(fixture.request("Employee", "salary < 300")) == 3)

        let sum = NSExpressionDescription()
        sum.name = "total"
        sum.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "salary")])
        let grouped = fixture.request("Employee", sort: [("department.name", true)])
        grouped.propertiesToFetch = ["department.name", sum]
        grouped.propertiesToGroupBy = ["department.name"]
        #expect(try fixture.dictionaries(grouped).map { ($0["total"] as? NSNumber)?.intValue } == [600, 450])

        // Update, delete, and a stale update refused.
        var eve = try fixture.snapshots(fixture.request("Employee", "name == 'Eve'"))[0]
        let stale = eve
        eve.values["salary"] = Int64(55)
        try fixture.coordinator.save(StoreSaveChanges(updated: [eve]))
        #expect(try fixture.coordinator.snapshots(for: [eve.objectID])[eve.objectID]?.version == 2)
        let conflict = try #require(throws: NSError.self) { try fixture.coordinator.save(StoreSaveChanges(deleted: [stale])) }
        #expect(conflict.code == NSManagedObjectMergeError)
        let current = try #require(try fixture.coordinator.snapshots(for: [eve.objectID])[eve.objectID])
        var metadata = fixture.coordinator.metadata(for: store)
        metadata["Owner"] = "conformance"
        fixture.coordinator.setMetadata(metadata, for: store)
        try fixture.coordinator.save(StoreSaveChanges(deleted: [current]))
        #expect(try fixture.count(fixture.request("Employee")) == 4)

        if storeType != NSInMemoryStoreType, let url = store.url {
            let reopened = NSPersistentStoreCoordinator(managedObjectModel: fixture.model)
            let again = try reopened.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
            #expect(again.identifier == store.identifier, "a reopened store keeps its UUID")
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
            request.resultType = .countResultType
            #expect(try reopened.executeFetch(request).countValue == 4)
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: storeType, at: url)
            #expect(metadata[NSStoreUUIDKey] as? String == store.identifier)
            #expect(metadata["Owner"] as? String == "conformance", "user metadata is written with the next save")
            #expect(reopened.metadata(for: again)["Owner"] as? String == "conformance")
            let names = NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")
            names.predicate = NSPredicate(format: "department.name == 'Tech'")
            guard case .snapshots(let tech) = try reopened.executeFetch(names) else { return }
            #expect(tech.map { $0.values["name"] as? String } == ["Dee"], "relationships survive reopening")
        }
    }

    @Test(arguments: StoreTypesUnderTest.pairs)
    func migratesBetweenTypes(from: String, to: String) throws {
        let fixture = CompanyFixture(storeType: from)
        let source = try fixture.addStore()
        try fixture.insertStandardData()
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Migrated.\(to.lowercased())")
        let destination = try fixture.coordinator.migratePersistentStore(
            source, to: StoreTypesUnderTest.location(to, file) ?? file, type: to)
        #expect(destination.type == to)
        #expect(fixture.coordinator.persistentStores.count == 1)
        #expect(try fixture.names(fixture.request("Employee", "department.name == 'Tech'", sort: [("name", true)])) == ["Dee", "Eve"])
        #expect(try fixture.names(fixture.request("Department", "employees.@count == 0")) == ["Empty"])
        #expect(try fixture.names(fixture.request("Manager")) == ["Bob"])
    }
}

extension StoreFetchResult {
    /// The count of a count result; -1 otherwise.
    var countValue: Int {
        if case .count(let count) = self { return count }
        return -1
    }
}
