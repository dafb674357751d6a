import Foundation
import Testing
@testable import OpenCoreData

/// Saving into atomic stores: versions, optimistic-locking conflicts, read-only stores, and
/// all-or-nothing writes through the subclass hooks.
@Suite struct AtomicStoreSaveTests {
    @Test func insertsGetVersionOneAndUpdatesIncrement() throws {
        let fixture = CompanyFixture()
        try fixture.addStore()
        var ann = try fixture.insert("Employee", ["name": "Ann", "salary": Int64(10)])
        #expect(ann.version == 1)
        #expect(ann.toMany.isEmpty, "Employee has no to-many relationship")
        ann.values["salary"] = Int64(20)
        try fixture.coordinator.save(StoreSaveChanges(updated: [ann], changedKeys: [ann.objectID: ["salary"]]))
        let reread = try #require(try fixture.coordinator.snapshots(for: [ann.objectID])[ann.objectID])
        #expect(reread.version == 2)
        #expect(reread.values["salary"] as? Int64 == 20)
    }

    @Test func updatesKeepToManyTheyDoNotCarry() throws {
        let fixture = CompanyFixture()
        try fixture.addStore()
        let (departmentID, employees) = try fixture.insertDepartment("Sales", budget: 1, employees: [("Ann", 1)])
        var department = try #require(try fixture.coordinator.snapshots(for: [departmentID])[departmentID])
        department.toMany = [:]
        department.values["budget"] = 2.0
        try fixture.coordinator.save(StoreSaveChanges(updated: [department]))
        let reread = try #require(try fixture.coordinator.snapshots(for: [departmentID])[departmentID])
        #expect(reread.toMany["employees"] == employees)
        #expect(reread.values["budget"] as? Double == 2)
    }

    @Test func deletesRemoveRows() throws {
        let fixture = CompanyFixture()
        try fixture.addStore()
        let ann = try fixture.insert("Employee", ["name": "Ann"])
        try fixture.coordinator.save(StoreSaveChanges(deleted: [ann]))
        #expect(try fixture.coordinator.snapshots(for: [ann.objectID]).isEmpty)
        #expect(try fixture.count(fixture.request("Employee")) == 0)
    }

    @Test func staleUpdateIsAMergeConflict() throws {
        let fixture = CompanyFixture()
        try fixture.addStore()
        let original = try fixture.insert("Employee", ["name": "Ann", "salary": Int64(10)])
        var first = original, second = original
        first.values["salary"] = Int64(11)
        try fixture.coordinator.save(StoreSaveChanges(updated: [first]))
        second.values["salary"] = Int64(12)
        let error = try #require(throws: NSError.self) {
            try fixture.coordinator.save(StoreSaveChanges(updated: [second]))
        }
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSManagedObjectMergeError)
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        #expect(conflicts.count == 1)
        #expect(conflicts[0].sourceObjectID == original.objectID)
        #expect(conflicts[0].oldVersionNumber == 1)
        #expect(conflicts[0].newVersionNumber == 2)
        #expect(conflicts[0].persistedSnapshot?["salary"] as? Int64 == 11)
        #expect(conflicts[0].objectSnapshot?["salary"] as? Int64 == 12)
        let stored = try fixture.coordinator.snapshots(for: [original.objectID])[original.objectID]
        #expect(stored?.values["salary"] as? Int64 == 11, "the refused save wrote nothing")
    }

    @Test func updatingADeletedObjectIsAConflictWithoutPersistedSnapshot() throws {
        let fixture = CompanyFixture()
        try fixture.addStore()
        let ann = try fixture.insert("Employee", ["name": "Ann"])
        let bob = try fixture.insert("Employee", ["name": "Bob"])
        try fixture.coordinator.save(StoreSaveChanges(deleted: [ann]))
        var renamed = bob
        renamed.values["name"] = "Robert"
        let error = try #require(throws: NSError.self) {
            try fixture.coordinator.save(StoreSaveChanges(updated: [ann, renamed]))
        }
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        #expect(conflicts.map(\.sourceObjectID) == [ann.objectID])
        #expect(conflicts[0].persistedSnapshot == nil)
        #expect(conflicts[0].newVersionNumber == 0)
        #expect(try fixture.coordinator.snapshots(for: [bob.objectID])[bob.objectID]?.values["name"] as? String == "Bob",
                "all or nothing: Bob's rename was not applied")
    }

    @Test func readOnlyStoreRefusesSavesWith134030() throws {
        let fixture = CompanyFixture()
        let store = try fixture.addStore(options: [NSReadOnlyPersistentStoreOption: true])
        let id = try fixture.coordinator.permanentObjectIDs(for: [(fixture.entity("Employee"), nil)])[0]
        let error = try #require(throws: NSError.self) {
            try fixture.coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: id, values: ["name": "Ann"])]))
        }
        #expect(error.code == NSPersistentStoreSaveError)
        #expect((error.userInfo[NSAffectedStoresErrorKey] as? [NSPersistentStore])?.first === store)
        #expect(error.localizedDescription.contains("read-only"))
    }

    @Test func primaryKeysAreSharedAlongAnInheritanceTreeAndNeverReused() throws {
        let fixture = CompanyFixture()
        let store = try fixture.addStore()
        let ids = try fixture.coordinator.permanentObjectIDs(for: [(fixture.entity("Employee"), nil), (fixture.entity("Manager"), nil),
                                                                   (fixture.entity("Department"), nil)])
        #expect(ids.map(\.primaryKey) == [1, 2, 1])
        let more = try store.newObjectIDs(for: fixture.entity("Employee"), count: 2)
        #expect(more.map(\.primaryKey) == [3, 4], "keys handed out before are not reused")
        #expect(more.allSatisfy { $0.entity.name == "Employee" && $0.persistentStore === store })
    }

    @Test func failedWriteLeavesTheRowsAsTheyWere() throws {
        let type = "FailingWrite-\(UUID().uuidString)"
        NSPersistentStoreCoordinator.registerStoreClass(FailingWriteStore.self, type: type)
        defer { NSPersistentStoreCoordinator.registerStoreClass(nil, type: type) }
        let fixture = CompanyFixture()
        let store = try #require(try fixture.coordinator.addPersistentStore(ofType: type, configurationName: nil, at: nil) as? FailingWriteStore)
        let ann = try fixture.insert("Employee", ["name": "Ann"])
        #expect(store.written.last?.rowCount == 1)
        store.failNextWrite = true
        var renamed = ann
        renamed.values["name"] = "Anna"
        #expect(throws: NSError.self) {
            try fixture.coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: try store.newObjectIDs(for: fixture.entity("Employee"), count: 1)[0])],
                                                          updated: [renamed]))
        }
        #expect(store.currentContents.rowCount == 1)
        #expect(try fixture.coordinator.snapshots(for: [ann.objectID])[ann.objectID]?.values["name"] as? String == "Ann")
        try fixture.coordinator.save(StoreSaveChanges(updated: [renamed]))
        #expect(store.written.last?.row(for: ann.objectID)?.values["name"] as? String == "Anna")
    }

    @Test func aChangedFileRefusesTheSaveBeforeAnyStoreWrites() throws {
        let type = "FailingWrite-\(UUID().uuidString)"
        NSPersistentStoreCoordinator.registerStoreClass(FailingWriteStore.self, type: type)
        defer { NSPersistentStoreCoordinator.registerStoreClass(nil, type: type) }
        let fixture = CompanyFixture()
        let staff = try #require(try fixture.coordinator.addPersistentStore(ofType: type, configurationName: "Staff", at: nil) as? FailingWriteStore)
        let projects = try #require(try fixture.coordinator.addPersistentStore(ofType: type, configurationName: "Projects", at: nil) as? FailingWriteStore)
        projects.fileChangedElsewhere = true
        let ids = try fixture.coordinator.permanentObjectIDs(for: [(fixture.entity("Employee"), nil), (fixture.entity("Project"), nil)])
        let error = try #require(throws: NSError.self) {
            try fixture.coordinator.save(StoreSaveChanges(inserted: ids.map { ObjectSnapshot(objectID: $0) }))
        }
        #expect(error.code == NSManagedObjectMergeError)
        #expect(staff.written.isEmpty && staff.currentContents.rowCount == 0)
    }

    @Test func loadedRowsAdoptTheFilesUUID() throws {
        let type = "Preloaded-\(UUID().uuidString)"
        NSPersistentStoreCoordinator.registerStoreClass(PreloadedStore.self, type: type)
        defer { NSPersistentStoreCoordinator.registerStoreClass(nil, type: type) }
        let fixture = CompanyFixture()
        let store = try fixture.coordinator.addPersistentStore(ofType: type, configurationName: nil, at: nil)
        #expect(store.identifier == PreloadedStore.fileUUID)
        let request = fixture.request("Employee")
        let rows = try fixture.snapshots(request)
        #expect(rows.map { $0.values["name"] as? String } == ["Ann"])
        #expect(rows[0].objectID.uriRepresentation().absoluteString == "x-coredata://\(PreloadedStore.fileUUID)/Employee/p7")
        #expect(try fixture.names(fixture.request("Employee", "department.name == 'Sales'")) == ["Ann"])
        let next = try store.newObjectIDs(for: fixture.entity("Manager"), count: 1)[0]
        #expect(next.primaryKey == 8)
    }

    @Test func keyCountersNeverFallBehindLoadedRows() throws {
        let type = "Preloaded-\(UUID().uuidString)"
        NSPersistentStoreCoordinator.registerStoreClass(PreloadedStore.self, type: type)
        defer { NSPersistentStoreCoordinator.registerStoreClass(nil, type: type) }
        let fixture = CompanyFixture()
        let store = try fixture.coordinator.addPersistentStore(ofType: type, configurationName: nil, at: nil,
                                                               options: [PreloadedStore.noCountersOption: true])
        #expect(try store.newObjectIDs(for: fixture.entity("Employee"), count: 1)[0].primaryKey == 8)
        #expect(try store.newObjectIDs(for: fixture.entity("Department"), count: 1)[0].primaryKey == 4)
    }

    @Test func incompatibleModelIs134100() throws {
        let type = "Preloaded-\(UUID().uuidString)"
        NSPersistentStoreCoordinator.registerStoreClass(PreloadedStore.self, type: type)
        defer { NSPersistentStoreCoordinator.registerStoreClass(nil, type: type) }
        let fixture = CompanyFixture()
        let error = try #require(throws: NSError.self) {
            try fixture.coordinator.addPersistentStore(ofType: type, configurationName: nil, at: nil,
                                                       options: [PreloadedStore.wrongHashesOption: true])
        }
        #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
        let ignoring = try fixture.coordinator.addPersistentStore(
            ofType: type, configurationName: nil, at: nil,
            options: [PreloadedStore.wrongHashesOption: true, NSIgnorePersistentStoreVersioningOption: true])
        #expect(ignoring.identifier == PreloadedStore.fileUUID)
    }
}

/// An atomic store whose writes can be made to fail, and which records what it wrote.
final class FailingWriteStore: AtomicStore, @unchecked Sendable {
    var failNextWrite = false
    var fileChangedElsewhere = false
    var written: [AtomicStoreContents] = []

    override func checkStoreUnchanged() throws {
        if fileChangedElsewhere {
            throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectMergeError,
                          userInfo: [NSLocalizedDescriptionKey: "the file changed"])
        }
    }

    override func writeRows(_ contents: AtomicStoreContents) throws {
        if failNextWrite {
            failNextWrite = false
            throw NSError(domain: NSCocoaErrorDomain, code: NSFileWriteUnknownError,
                          userInfo: [NSLocalizedDescriptionKey: "disk full"])
        }
        written.append(contents)
    }
}

/// An atomic store that "reads a file" holding one department and one employee, minting IDs
/// before it knows the file's UUID, as a file store may.
final class PreloadedStore: AtomicStore, @unchecked Sendable {
    static let fileUUID = "5F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0"
    static let wrongHashesOption = "PreloadedStoreWrongHashes"
    static let noCountersOption = "PreloadedStoreNoCounters"

    override func loadRows() throws -> AtomicStoreContents? {
        guard let model = managedObjectModel else { return nil }
        let department = objectID(for: model.entitiesByName["Department"]!, primaryKey: 3)
        let employee = objectID(for: model.entitiesByName["Employee"]!, primaryKey: 7)
        var hashes = model.entityVersionHashesByName
        if storeOptionBool(options, Self.wrongHashesOption) == true { hashes["Employee"] = Data([1, 2, 3]) }
        return AtomicStoreContents(
            metadata: [NSStoreTypeKey: type, NSStoreUUIDKey: Self.fileUUID, NSStoreModelVersionHashesKey: hashes],
            rows: ["Department": [3: ObjectSnapshot(objectID: department, values: ["name": "Sales"], toMany: ["employees": [employee]], version: 1)],
                   "Employee": [7: ObjectSnapshot(objectID: employee, values: ["name": "Ann", "department": department], version: 1)]],
            lastPrimaryKeys: storeOptionBool(options, Self.noCountersOption) == true ? [:] : ["Department": 3, "Employee": 7])
    }
}
