extension Notification.Name {
    /// Posted by ``NSManagedObjectContext/processPendingChanges()`` when objects were inserted,
    /// updated, deleted, refreshed or invalidated. The userInfo holds `Set<NSManagedObject>`
    /// under ``NSInsertedObjectsKey``, ``NSUpdatedObjectsKey``, ``NSDeletedObjectsKey``,
    /// ``NSRefreshedObjectsKey`` and ``NSInvalidatedObjectsKey`` (only the non-empty ones), and
    /// ``NSInvalidatedAllObjectsKey`` (the IDs, as an array) after `reset()`.
    public static let NSManagedObjectContextObjectsDidChange = Notification.Name("NSObjectsChangedInManagingContextNotification")
    /// Posted at the start of `save()`, with no userInfo.
    public static let NSManagedObjectContextWillSave = Notification.Name("NSManagingContextWillSaveChangesNotification")
    /// Posted after a successful `save()`, with `Set<NSManagedObject>` under
    /// ``NSInsertedObjectsKey``, ``NSUpdatedObjectsKey`` and ``NSDeletedObjectsKey``.
    public static let NSManagedObjectContextDidSave = Notification.Name("NSManagingContextDidSaveChangesNotification")
    /// Posted after a successful `save()`, right after `NSManagedObjectContextDidSave`, with the
    /// IDs of the saved objects: `Set<NSManagedObjectID>` under ``NSInsertedObjectIDsKey``,
    /// ``NSUpdatedObjectIDsKey`` and ``NSDeletedObjectIDsKey`` (all three, empty or not).
    ///
    /// The IDs are `Sendable`: observers may hand them to other queues, which the objects of
    /// `NSManagedObjectContextDidSave` must not reach. Inserted objects have their permanent
    /// IDs, except after a child context's save, which keeps temporary IDs (as Apple's does).
    public static let NSManagedObjectContextDidSaveObjectIDs = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
    /// Posted after a context merged changes (``NSManagedObjectContext/mergeChanges(fromContextDidSave:)``,
    /// ``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)`` and the merges of
    /// ``NSManagedObjectContext/automaticallyMergesChangesFromParent``, of saves and of remote
    /// change notifications), on the context's queue,
    /// with `Set<NSManagedObjectID>`s: the inserted, updated and deleted IDs the merge read
    /// (``NSInsertedObjectIDsKey``, ``NSUpdatedObjectIDsKey``, ``NSDeletedObjectIDsKey``) and
    /// the context's objects it refreshed (``NSRefreshedObjectIDsKey``); only the non-empty sets.
    public static let NSManagedObjectContextDidMergeChangesObjectIDs = Notification.Name("NSManagedObjectContextDidMergeChangesObjectIDsNotification")
}

extension NSManagedObjectContext {
    /// Apple's newer name of `NSManagedObjectContextObjectsDidChange`.
    public static let didChangeObjectsNotification = Notification.Name.NSManagedObjectContextObjectsDidChange
    /// Apple's newer name of `NSManagedObjectContextWillSave`.
    public static let willSaveObjectsNotification = Notification.Name.NSManagedObjectContextWillSave
    /// Apple's newer name of `NSManagedObjectContextDidSave`.
    public static let didSaveObjectsNotification = Notification.Name.NSManagedObjectContextDidSave
    /// Apple's newer name of `NSManagedObjectContextDidSaveObjectIDs`.
    public static let didSaveObjectIDsNotification = Notification.Name.NSManagedObjectContextDidSaveObjectIDs
    /// Apple's newer name of `NSManagedObjectContextDidMergeChangesObjectIDs`.
    public static let didMergeChangesObjectIDsNotification = Notification.Name.NSManagedObjectContextDidMergeChangesObjectIDs

    /// The userInfo keys of the context's notifications, as Swift names.
    ///
    /// Differs from Apple: there is no `sourceContext` case. Apple's userInfo holds a private
    /// weak-reference box under it; here the notification's `object` is the context.
    public enum NotificationKey: String, Sendable {
        /// ``NSManagedObjectContextQueryGenerationKey``: a pinned context's generation token
        /// after its save, in `NSManagedObjectContextDidSave`.
        case queryGeneration = "NSManagedObjectContextQueryGenerationKey"
        /// The IDs of every object `reset()` let go of.
        case invalidatedAllObjects = "invalidatedAll"
        /// ``NSInsertedObjectsKey``: the inserted objects.
        case insertedObjects = "inserted"
        /// ``NSUpdatedObjectsKey``: the updated objects.
        case updatedObjects = "updated"
        /// ``NSDeletedObjectsKey``: the deleted objects.
        case deletedObjects = "deleted"
        /// ``NSRefreshedObjectsKey``: the refreshed objects.
        case refreshedObjects = "refreshed"
        /// ``NSInvalidatedObjectsKey``: the invalidated objects.
        case invalidatedObjects = "invalidated"
        /// ``NSInsertedObjectIDsKey``: the IDs of the inserted objects.
        case insertedObjectIDs = "inserted_objectIDs"
        /// ``NSUpdatedObjectIDsKey``: the IDs of the updated objects.
        case updatedObjectIDs = "updated_objectIDs"
        /// ``NSDeletedObjectIDsKey``: the IDs of the deleted objects.
        case deletedObjectIDs = "deleted_objectIDs"
        /// ``NSRefreshedObjectIDsKey``: the IDs of the refreshed objects.
        case refreshedObjectIDs = "refreshed_objectIDs"
        /// ``NSInvalidatedObjectIDsKey``: the IDs of the invalidated objects.
        case invalidatedObjectIDs = "invalidated_objectIDs"
    }
}

/// The userInfo key of the inserted objects in the context's notifications.
public let NSInsertedObjectsKey = "inserted"
/// The userInfo key of the updated objects in the context's notifications.
public let NSUpdatedObjectsKey = "updated"
/// The userInfo key of the deleted objects in the context's notifications.
public let NSDeletedObjectsKey = "deleted"
/// The userInfo key of the refreshed objects in `NSManagedObjectContextObjectsDidChange`.
public let NSRefreshedObjectsKey = "refreshed"
/// The userInfo key of the invalidated objects in `NSManagedObjectContextObjectsDidChange`.
public let NSInvalidatedObjectsKey = "invalidated"
/// The userInfo key posted when every object was invalidated (`reset()`).
public let NSInvalidatedAllObjectsKey = "invalidatedAll"
/// The userInfo key of a pinned context's query generation token after its save, in
/// `NSManagedObjectContextDidSave`: a generation pinned once the save was written, so its data
/// include the save (and whatever others saved in between), which another context can be
/// pinned to with ``NSManagedObjectContext/setQueryGenerationFrom(_:)``.
///
/// Present only when the context is pinned (``NSManagedObjectContext/setQueryGenerationFrom(_:)``)
/// and one of its stores pins generations (SQLite in WAL mode), as Apple's is only for SQLite
/// stores. The context itself stays unpinned until its next read, as after any save.
///
/// The generation is the token's own: it holds a read transaction on one connection of each
/// store while the token lives (in the notification, or wherever an observer keeps it), which
/// keeps the store's WAL from being checkpointed past it, as any pinned generation does.
public let NSManagedObjectContextQueryGenerationKey = "NSManagedObjectContextQueryGenerationKey"

extension NSManagedObjectContext {
    /// Posts `NSManagedObjectContextObjectsDidChange` for the current event, if anything
    /// changed, and starts a new event.
    func postObjectsDidChange() {
        // Each list by itself, and only when it has members (which is when it is copied): an
        // array of (key, list) pairs copied every list in and out, a tenth of an event's cost
        // when each event changes one object (an import's).
        var userInfo: [AnyHashable: Any] = [:]
        func add(_ list: ObjectList, under key: String) {
            // Room for every key at once: growing from one entry rehashed the keys twice.
            if userInfo.isEmpty { userInfo.reserveCapacity(5) }
            let set = list.set
            userInfo[key] = set
            setsPostedDuringSave?.record(set, of: list.objects, under: key)
        }
        if !eventInserted.isEmpty { add(eventInserted, under: NSInsertedObjectsKey) }
        if !eventUpdated.isEmpty { add(eventUpdated, under: NSUpdatedObjectsKey) }
        if !eventDeleted.isEmpty { add(eventDeleted, under: NSDeletedObjectsKey) }
        if !eventRefreshed.isEmpty { add(eventRefreshed, under: NSRefreshedObjectsKey) }
        if !eventInvalidated.isEmpty { add(eventInvalidated, under: NSInvalidatedObjectsKey) }
        for object in eventTouched { object.state?.clearEventChanges() }
        eventInserted.removeAll()
        eventUpdated.removeAll()
        eventDeleted.removeAll()
        eventRefreshed.removeAll()
        eventInvalidated.removeAll()
        eventTouched.removeAll()
        guard !userInfo.isEmpty else { return }
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: userInfo)
    }

    /// Posts `name` with each set of IDs of `sets` under its key: every key, or only those of
    /// non-empty sets.
    func postObjectIDs(_ name: Notification.Name, _ sets: [(key: String, ids: Set<NSManagedObjectID>)], includingEmpty: Bool) {
        var userInfo: [AnyHashable: Any] = [:]
        userInfo.reserveCapacity(sets.count)
        for (key, ids) in sets where includingEmpty || !ids.isEmpty {
            userInfo[key] = ids
        }
        NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
    }

    /// Ends the current event: applies delete rules, drops objects that were inserted and then
    /// deleted, posts `NSManagedObjectContextObjectsDidChange` and closes the undo event group.
    public func processPendingChanges() {
        checkConcurrency("processPendingChanges()")
        forgetFreedObjects()
        propagateDeletions()
        dropDeletedInsertions()
        postObjectsDidChange()
        undoManager?.closeEventGroup()
    }

    /// Forgets objects that were inserted and then deleted before any save.
    func dropDeletedInsertions() {
        for object in deletedList where !object.hasCommittedSnapshot {
            deletedList.remove(object)
            registry.remove(object, id: object.objectID)
        }
    }
}
