import Foundation
import Testing
@testable import OpenCoreData

/// The notifications that carry object IDs rather than objects:
/// `NSManagedObjectContextDidSaveObjectIDs` after a save, `NSManagedObjectContextDidMergeChangesObjectIDs`
/// after a merge, and the query generation token in a pinned context's did-save notification.
@Suite struct ObjectIDNotificationTests {
    /// The IDs a notification holds under `key` (nil when the key is missing).
    static func ids(_ notification: Notification?, _ key: String) -> Set<NSManagedObjectID>? {
        notification?.userInfo?[key] as? Set<NSManagedObjectID>
    }

    @Test func namesAndKeysAreCoreDatas() {
        #expect(NSManagedObjectContext.didSaveObjectIDsNotification.rawValue == "NSManagedObjectContextDidSaveObjectIDsNotification")
        #expect(NSManagedObjectContext.didMergeChangesObjectIDsNotification.rawValue
                == "NSManagedObjectContextDidMergeChangesObjectIDsNotification")
        #expect(NSManagedObjectContextQueryGenerationKey == "NSManagedObjectContextQueryGenerationKey")
        typealias Key = NSManagedObjectContext.NotificationKey
        let keys: [(Key, String)] = [
            (.insertedObjects, NSInsertedObjectsKey), (.updatedObjects, NSUpdatedObjectsKey), (.deletedObjects, NSDeletedObjectsKey),
            (.refreshedObjects, NSRefreshedObjectsKey), (.invalidatedObjects, NSInvalidatedObjectsKey),
            (.invalidatedAllObjects, NSInvalidatedAllObjectsKey), (.insertedObjectIDs, NSInsertedObjectIDsKey),
            (.updatedObjectIDs, NSUpdatedObjectIDsKey), (.deletedObjectIDs, NSDeletedObjectIDsKey),
            (.refreshedObjectIDs, NSRefreshedObjectIDsKey), (.invalidatedObjectIDs, NSInvalidatedObjectIDsKey),
            (.queryGeneration, NSManagedObjectContextQueryGenerationKey),
        ]
        for (key, constant) in keys { #expect(key.rawValue == constant) }
    }

    /// A save posts the saved objects' IDs right after `NSManagedObjectContextDidSave`: the
    /// inserted one's permanent ID, the updated and the deleted ones', every key present.
    @Test(arguments: StoreTypesUnderTest.all)
    func didSaveObjectIDsFollowsDidSave(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        let context = scenario.mine
        let old = NSEntityDescription.insertNewObject(forEntityName: "Project", into: context)
        old.setValue("old", forKey: "title")
        try context.save()
        let recorder = NotificationRecorder([.NSManagedObjectContextDidSave, .NSManagedObjectContextDidSaveObjectIDs], object: context)
        let new = NSEntityDescription.insertNewObject(forEntityName: "Project", into: context)
        new.setValue("new", forKey: "title")
        scenario.ann.setValue(Int64(123), forKey: "salary")
        context.delete(old)
        try context.save()
        #expect(recorder.notifications.map(\.name) == [.NSManagedObjectContextDidSave, .NSManagedObjectContextDidSaveObjectIDs])
        let posted = recorder.named(.NSManagedObjectContextDidSaveObjectIDs).first
        #expect(posted?.object as? NSManagedObjectContext === context)
        #expect(Self.ids(posted, NSInsertedObjectIDsKey) == [new.objectID])
        #expect(new.objectID.isTemporaryID == false)
        #expect(Self.ids(posted, NSUpdatedObjectIDsKey) == [scenario.annID])
        #expect(Self.ids(posted, NSDeletedObjectIDsKey) == [old.objectID])

        // A save of updates only still names all three keys.
        scenario.ann.setValue(Int64(124), forKey: "salary")
        try context.save()
        let second = recorder.named(.NSManagedObjectContextDidSaveObjectIDs).last
        #expect(Self.ids(second, NSInsertedObjectIDsKey) == [])
        #expect(Self.ids(second, NSUpdatedObjectIDsKey) == [scenario.annID])
        #expect(Self.ids(second, NSDeletedObjectIDsKey) == [])
    }

    /// A child context's save names the inserted objects by their temporary IDs (they get
    /// permanent ones when the root saves), as Apple's does; a failed save posts nothing.
    @Test func childSaveNamesTemporaryIDsAndAFailedSaveNothing() throws {
        let scenario = try MergeScenario(storeType: NSInMemoryStoreType)
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = scenario.mine
        try child.performAndWait { () throws -> Void in
            let recorder = NotificationRecorder([.NSManagedObjectContextDidSaveObjectIDs], object: child)
            let project = NSEntityDescription.insertNewObject(forEntityName: "Project", into: child)
            try child.save()
            let inserted = try #require(Self.ids(recorder.notifications.first, NSInsertedObjectIDsKey))
            #expect(inserted == [project.objectID] && inserted.allSatisfy(\.isTemporaryID))
        }

        // The error merge policy fails the save of a conflicting change: no notification.
        let recorder = NotificationRecorder([.NSManagedObjectContextDidSaveObjectIDs], object: scenario.mine)
        try scenario.otherSaves()
        scenario.mineChanges()
        #expect(throws: (any Error).self) { try scenario.mine.save() }
        #expect(recorder.notifications.isEmpty)
    }

    /// Merging another context's save posts the IDs it read and the registered objects it
    /// refreshed, after `NSManagedObjectContextObjectsDidChange`; keys of empty sets are left out.
    @Test(arguments: StoreTypesUnderTest.all)
    func didMergeChangesObjectIDsNamesWhatTheMergeRead(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        let saved = MergingChangesTests.SavedNotification()
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: scenario.other, queue: nil) {
            saved.set($0)
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let theirs = try scenario.other.existingObject(with: scenario.annID)
        theirs.setValue(Int64(150), forKey: "salary")
        let project = NSEntityDescription.insertNewObject(forEntityName: "Project", into: scenario.other)
        try scenario.other.save()
        let recorder = NotificationRecorder([.NSManagedObjectContextObjectsDidChange, .NSManagedObjectContextDidMergeChangesObjectIDs],
                                            object: scenario.mine)
        scenario.mine.mergeChanges(fromContextDidSave: try #require(saved.value))
        #expect(recorder.notifications.map(\.name) == [.NSManagedObjectContextObjectsDidChange, .NSManagedObjectContextDidMergeChangesObjectIDs])
        let merged = recorder.named(.NSManagedObjectContextDidMergeChangesObjectIDs).first
        #expect(merged?.object as? NSManagedObjectContext === scenario.mine)
        #expect(Self.ids(merged, NSInsertedObjectIDsKey) == [project.objectID])
        #expect(Self.ids(merged, NSUpdatedObjectIDsKey) == [scenario.annID])
        #expect(Self.ids(merged, NSRefreshedObjectIDsKey) == [scenario.annID])
        #expect(merged?.userInfo?[NSDeletedObjectIDsKey] == nil)
        #expect(merged?.userInfo?.count == 3)

        // A remote merge of a deletion of an object not registered here: deleted, not refreshed.
        let eveID = try scenario.fixture.snapshots(scenario.fixture.request("Employee", "name == 'Eve'"))[0].objectID
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectIDsKey: [eveID.uriRepresentation()]], into: [scenario.mine])
        let remote = recorder.named(.NSManagedObjectContextDidMergeChangesObjectIDs).last
        #expect(Self.ids(remote, NSDeletedObjectIDsKey) == [eveID])
        #expect(remote?.userInfo?.count == 1)
    }

    /// Posts of a notification by one context, each with whether it came on the context's queue.
    final class QueueRecorder: @unchecked Sendable {
        private let lock = NSLock()
        private var posts: [(notification: Notification, onQueue: Bool)] = []
        private var token: NSObjectProtocol?
        var received: [(notification: Notification, onQueue: Bool)] { lock.withLock { posts } }

        init(_ name: Notification.Name, _ context: NSManagedObjectContext) {
            token = NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { [weak self, unowned context] note in
                let onQueue = context.executor.isCurrent
                self?.lock.withLock { self?.posts.append((note, onQueue)) }
            }
        }

        deinit { if let token { NotificationCenter.default.removeObserver(token) } }
    }

    /// A context that merges its coordinator's saves by itself posts the merge's IDs too, once
    /// a merge, on its own queue.
    @Test(arguments: StoreTypesUnderTest.all)
    func automaticMergesPostTheMergedIDs(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        scenario.mine.performAndWait { scenario.mine.automaticallyMergesChangesFromParent = true }
        let recorder = QueueRecorder(.NSManagedObjectContextDidMergeChangesObjectIDs, scenario.mine)
        try scenario.other.performAndWait { () throws -> Void in
            try scenario.other.existingObject(with: scenario.annID).setValue(Int64(151), forKey: "salary")
            try scenario.other.save()
        }
        // The merge was enqueued on `mine`'s queue when `other` posted: done once this runs.
        scenario.mine.performAndWait {}
        #expect(recorder.received.count == 1)
        let merged = try #require(recorder.received.first)
        #expect(merged.onQueue)
        #expect(Self.ids(merged.notification, NSUpdatedObjectIDsKey) == [scenario.annID])
        #expect(Self.ids(merged.notification, NSRefreshedObjectIDsKey) == [scenario.annID])
        #expect(scenario.mine.performAndWait { scenario.ann.value(forKey: "salary") as? Int64 } == 151)
    }

    /// A child context that merges its parent's saves posts the IDs of each, on its own queue:
    /// the object the parent inserted, by the permanent ID the parent's save gave it.
    @Test func childMergingItsParentsSavesPostsTheirIDs() throws {
        let scenario = try MergeScenario(storeType: NSInMemoryStoreType)
        let parent = scenario.mine
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        child.performAndWait { child.automaticallyMergesChangesFromParent = true }
        let recorder = QueueRecorder(.NSManagedObjectContextDidMergeChangesObjectIDs, child)
        let project = try parent.performAndWait { () throws -> NSManagedObject in
            let project = NSEntityDescription.insertNewObject(forEntityName: "Project", into: parent)
            try parent.save()
            return project
        }
        child.performAndWait {}
        #expect(recorder.received.count == 1)
        let merged = try #require(recorder.received.first)
        #expect(merged.onQueue)
        #expect(Self.ids(merged.notification, NSInsertedObjectIDsKey) == [project.objectID])
        #expect(!project.objectID.isTemporaryID)
    }

    /// A save that the merge policy saves again after resolving a conflict posts once.
    @Test(arguments: StoreTypesUnderTest.all)
    func aSaveRetriedAfterAConflictPostsOnce(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType, policy: NSMergeByPropertyObjectTrumpMergePolicy)
        try scenario.otherSaves()
        scenario.mineChanges()
        let recorder = QueueRecorder(.NSManagedObjectContextDidSaveObjectIDs, scenario.mine)
        try scenario.mine.save()
        #expect(recorder.received.count == 1)
        #expect(Self.ids(recorder.received.first?.notification, NSUpdatedObjectIDsKey) == [scenario.annID])
        #expect(try scenario.stored().name == "Anna")
    }

    /// A pinned context's did-save notification carries the generation right after its save:
    /// another context pinned to it reads the save, and not what was saved later. A context
    /// that is not pinned, or whose store pins no generations, posts no token.
    @Test func pinnedContextsDidSaveCarriesTheNewGeneration() throws {
        let store = try QueryGenerationTests.Store()
        defer { store.remove() }
        let pinned = try QueryGenerationTests.pinnedContext(store.coordinator)
        let recorder = NotificationRecorder([.NSManagedObjectContextDidSave], object: pinned)
        try pinned.performAndWait { () throws -> Void in
            GraphTestModel.insert("StudentEntity", pinned, ["name": "s5"])
            try pinned.save()
            // The context itself stays unpinned until its next read.
            #expect(pinned.queryGenerationToken == nil)
        }
        let token = try #require(recorder.notifications.first?.userInfo?[NSManagedObjectContextQueryGenerationKey] as? NSQueryGenerationToken)
        try store.change(through: store.coordinator)
        let reader = QueryGenerationTests.context(store.coordinator)
        try reader.performAndWait { try reader.setQueryGenerationFrom(token) }
        #expect(try QueryGenerationTests.studentNames(reader) == ["s1", "s2", "s5"])
        #expect(try QueryGenerationTests.studentNames(QueryGenerationTests.context(store.coordinator)) == ["s1-new", "s3", "s4", "s5"])

        // Not pinned: no token.
        let unpinned = QueryGenerationTests.context(store.coordinator)
        let unpinnedRecorder = NotificationRecorder([.NSManagedObjectContextDidSave], object: unpinned)
        try unpinned.performAndWait { () throws -> Void in
            GraphTestModel.insert("StudentEntity", unpinned, ["name": "s6"])
            try unpinned.save()
        }
        #expect(unpinnedRecorder.notifications.count == 1)
        #expect(unpinnedRecorder.notifications.first?.userInfo?[NSManagedObjectContextQueryGenerationKey] == nil)
    }

    /// A store that pins no generations (in memory) leaves the token out, as Apple's only
    /// SQLite stores give one.
    @Test func pinnedContextOfAnInMemoryStorePostsNoToken() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: GraphTestModel.make())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = QueryGenerationTests.context(coordinator)
        let recorder = NotificationRecorder([.NSManagedObjectContextDidSave], object: context)
        try context.performAndWait { () throws -> Void in
            try context.setQueryGenerationFrom(.current)
            GraphTestModel.insert("StudentEntity", context, ["name": "s1"])
            try context.save()
        }
        #expect(recorder.notifications.count == 1)
        #expect(recorder.notifications.first?.userInfo?[NSManagedObjectContextQueryGenerationKey] == nil)
    }
}
