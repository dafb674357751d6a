import Foundation
import Testing
@testable import OpenCoreData

/// Bringing another context's or another coordinator's saves into a context:
/// `mergeChanges(fromContextDidSave:)`, `mergeChanges(fromRemoteContextSave:into:)`,
/// `stalenessInterval`, and conflicts between two coordinators on one store file.
@Suite struct MergingChangesTests {
    /// Posts of `NSManagedObjectContextObjectsDidChange` by one context, recorded.
    final class ChangeRecorder: @unchecked Sendable {
        private let lock = NSLock()
        private var infos: [[AnyHashable: Any]] = []
        private var token: NSObjectProtocol?
        var received: [[AnyHashable: Any]] { lock.withLock { infos } }

        init(_ context: NSManagedObjectContext) {
            token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { [weak self] note in
                guard let self else { return }
                self.lock.withLock { self.infos.append(note.userInfo ?? [:]) }
            }
        }

        deinit { if let token { NotificationCenter.default.removeObserver(token) } }
    }

    /// The last notification an observer received.
    final class SavedNotification: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Notification?
        var value: Notification? { lock.withLock { stored } }
        func set(_ notification: Notification) { lock.withLock { stored = notification } }
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func mergeFromContextDidSaveUpdatesASecondContext(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        let theirs = try scenario.other.existingObject(with: scenario.annID)
        let saved = SavedNotification()
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: scenario.other, queue: nil) {
            saved.set($0)
        }
        defer { NotificationCenter.default.removeObserver(token) }
        scenario.ann.setValue("Anna", forKey: "name") // an unsaved change of mine, kept by the merge
        theirs.setValue(Int64(150), forKey: "salary")
        try scenario.other.save()
        let notification = try #require(saved.value)
        let recorder = ChangeRecorder(scenario.mine)
        scenario.mine.mergeChanges(fromContextDidSave: notification)
        #expect(scenario.ann.value(forKey: "salary") as? Int64 == 150)
        #expect(scenario.ann.value(forKey: "name") as? String == "Anna")
        let refreshed = recorder.received.last?[NSRefreshedObjectsKey] as? Set<NSManagedObject>
        #expect(refreshed?.contains(scenario.ann) == true)
        try scenario.mine.save() // merged: no conflict
        #expect(try scenario.stored().name == "Anna" && scenario.stored().salary == 150)
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func mergeFromRemoteContextSaveWithIDsAndURIs(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        let eveID = try scenario.fixture.snapshots(scenario.fixture.request("Employee", "name == 'Eve'"))[0].objectID
        let eve = try scenario.mine.existingObject(with: eveID)
        let theirs = try scenario.other.existingObject(with: scenario.annID)
        theirs.setValue(Int64(175), forKey: "salary")
        scenario.other.delete(try scenario.other.existingObject(with: eveID))
        let newcomer = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: scenario.other)
        newcomer.setValue("Zed", forKey: "name")
        try scenario.other.save()

        let recorder = ChangeRecorder(scenario.mine)
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [
            NSUpdatedObjectsKey: [scenario.annID.uriRepresentation()],
            NSDeletedObjectIDsKey: [eveID],
            NSInsertedObjectsKey: [newcomer.objectID],
        ], into: [scenario.mine])
        #expect(scenario.ann.value(forKey: "salary") as? Int64 == 175)
        #expect(eve.managedObjectContext == nil && scenario.mine.registeredObject(for: eveID) == nil)
        let info = try #require(recorder.received.last)
        #expect((info[NSDeletedObjectsKey] as? Set<NSManagedObject>)?.contains(eve) == true)
        #expect((info[NSRefreshedObjectsKey] as? Set<NSManagedObject>)?.contains(scenario.ann) == true)
        #expect((info[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.map(\.objectID) == [newcomer.objectID])
    }

    /// The store types two coordinators can share a file of.
    static let fileStoreTypes = [NSXMLStoreType, NSBinaryStoreType, NSSQLiteStoreType]

    @Test(arguments: fileStoreTypes)
    func stalenessIntervalZeroReadsAnotherCoordinatorsSave(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        let url = try #require(scenario.fixture.coordinator.persistentStores.first?.url)
        let second = NSPersistentStoreCoordinator(managedObjectModel: scenario.fixture.model)
        try second.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
        let writer = MergeScenario.context(second)
        try writer.existingObject(with: scenario.annID).setValue(Int64(999), forKey: "salary")
        try writer.save()

        // The first coordinator's cache (the SQLite row cache; an atomic store's rows) still
        // holds Ann as read before that save.
        let cached = MergeScenario.context(scenario.fixture.coordinator)
        #expect(cached.object(with: scenario.annID).value(forKey: "salary") as? Int64 == 100)
        let hourOld = MergeScenario.context(scenario.fixture.coordinator)
        hourOld.stalenessInterval = 3600
        #expect(hourOld.object(with: scenario.annID).value(forKey: "salary") as? Int64 == 100)
        let fresh = MergeScenario.context(scenario.fixture.coordinator)
        fresh.stalenessInterval = 0
        #expect(fresh.object(with: scenario.annID).value(forKey: "salary") as? Int64 == 999)
    }

    @Test(arguments: fileStoreTypes)
    func twoCoordinatorsOnOneFileConflictAndMerge(storeType: String) throws {
        for policy in [NSErrorMergePolicy, NSMergeByPropertyObjectTrumpMergePolicy, NSMergeByPropertyStoreTrumpMergePolicy] {
            let scenario = try MergeScenario(storeType: storeType, policy: policy)
            let url = try #require(scenario.fixture.coordinator.persistentStores.first?.url)
            let second = NSPersistentStoreCoordinator(managedObjectModel: scenario.fixture.model)
            try second.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
            let writer = MergeScenario.context(second)
            let theirs = try writer.existingObject(with: scenario.annID)
            theirs.setValue(Int64(150), forKey: "salary")
            theirs.setValue(MergeScenario.hired, forKey: "hired")
            try writer.save()
            scenario.mineChanges()
            switch policy.mergeType {
            case .errorMergePolicyType:
                let error = try #require(throws: NSError.self) { try scenario.mine.save() }
                let conflict = try #require((error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])?.first)
                #expect(conflict.persistedSnapshot?["salary"] as? Int64 == 150 && conflict.newVersionNumber == 2)
                #expect(try scenario.stored().name == "Ann")
            case .mergeByPropertyObjectTrumpMergePolicyType:
                try scenario.mine.save()
                let stored = try scenario.stored()
                #expect(stored.name == "Anna" && stored.salary == 120 && stored.hired == MergeScenario.hired)
            default:
                try scenario.mine.save()
                let stored = try scenario.stored()
                #expect(stored.name == "Anna" && stored.salary == 150 && stored.hired == MergeScenario.hired)
            }
        }
    }
}
