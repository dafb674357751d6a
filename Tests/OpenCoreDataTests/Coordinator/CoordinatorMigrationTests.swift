import Foundation
import Testing
@testable import OpenCoreData

/// `migratePersistentStore(_:to:options:type:)`: every row copied with remapped IDs.
@Suite struct CoordinatorMigrationTests {
    @Test func migratesBetweenInMemoryStoresRemappingIDs() throws {
        let fixture = CompanyFixture()
        let source = try fixture.addStore()
        try fixture.insertStandardData()
        fixture.coordinator.setMetadata(["Owner": "me"], for: source)
        let oldAnn = try fixture.snapshots(fixture.request("Employee", "name == 'Ann'"))[0]

        let url = URL(fileURLWithPath: "/tmp/migrated-\(UUID().uuidString)")
        let destination = try fixture.coordinator.migratePersistentStore(source, to: url, type: NSInMemoryStoreType)
        #expect(fixture.coordinator.persistentStores.count == 1)
        #expect(fixture.coordinator.persistentStores[0] === destination)
        #expect(destination !== source)
        #expect(destination.identifier != source.identifier)
        #expect(destination.url == url)
        #expect(source.persistentStoreCoordinator == nil)
        #expect(fixture.coordinator.metadata(for: destination)["Owner"] as? String == "me")
        #expect(fixture.coordinator.metadata(for: destination)[NSStoreUUIDKey] as? String == destination.identifier)

        let employees = try fixture.snapshots(fixture.request("Employee", sort: [("name", true)]))
        #expect(employees.map { $0.values["name"] as? String } == ["Ann", "Bob", "Cid", "Dee", "Eve"])
        #expect(employees.allSatisfy { $0.objectID.persistentStore === destination && $0.version == 1 })
        #expect(employees.map { $0.objectID.entity.name } == ["Employee", "Manager", "Employee", "Employee", "Employee"])
        #expect(try fixture.coordinator.snapshots(for: [oldAnn.objectID]).isEmpty, "old IDs no longer resolve")

        // Relationships point at the new IDs, in both directions.
        let ann = employees[0]
        let sales = try #require(ann.values["department"] as? NSManagedObjectID)
        #expect(sales.persistentStore === destination)
        let department = try #require(try fixture.coordinator.snapshots(for: [sales])[sales])
        #expect(department.values["name"] as? String == "Sales")
        #expect(Set(department.toMany["employees"] ?? []) == Set(employees.prefix(3).map(\.objectID)))
        #expect(try fixture.names(fixture.request("Employee", "department.name == 'Tech'", sort: [("name", true)])) == ["Dee", "Eve"])
        #expect(try fixture.names(fixture.request("Department", "employees.@count == 0")) == ["Empty"])
    }

    @Test func migrationErrors() throws {
        let fixture = CompanyFixture()
        let url = URL(fileURLWithPath: "/tmp/source-\(UUID().uuidString)")
        let source = try fixture.coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: url)
        let unknown = try #require(throws: NSError.self) {
            try fixture.coordinator.migratePersistentStore(source, to: URL(fileURLWithPath: "/tmp/x-\(UUID().uuidString)"), type: "Nonsense")
        }
        #expect(unknown.code == NSPersistentStoreInvalidTypeError)
        let ontoItself = try #require(throws: NSError.self) {
            try fixture.coordinator.migratePersistentStore(source, to: url, type: NSInMemoryStoreType)
        }
        #expect(ontoItself.code == NSPersistentStoreOperationError)
        #expect(fixture.coordinator.persistentStores.first === source, "a failed migration keeps the old store")

        let other = CompanyFixture()
        let foreign = try other.addStore()
        let notOurs = try #require(throws: NSError.self) {
            try fixture.coordinator.migratePersistentStore(foreign, to: URL(fileURLWithPath: "/tmp/y-\(UUID().uuidString)"), type: NSInMemoryStoreType)
        }
        #expect(notOurs.code == NSPersistentStoreOperationError)
    }

    @Test func migrationKeepsTheConfiguration() throws {
        let fixture = CompanyFixture()
        let projects = try fixture.addStore(configuration: "Projects")
        try fixture.insert("Project", ["title": "Apollo"])
        let moved = try fixture.coordinator.migratePersistentStore(projects, to: URL(fileURLWithPath: "/tmp/p-\(UUID().uuidString)"),
                                                                   withType: NSInMemoryStoreType)
        #expect(moved.configurationName == "Projects")
        #expect(try fixture.names(fixture.request("Project")) == ["Apollo"])
    }
}
