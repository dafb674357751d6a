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
}

extension NSManagedObjectContext {
    /// Apple's newer name of `NSManagedObjectContextObjectsDidChange`.
    public static let didChangeObjectsNotification = Notification.Name.NSManagedObjectContextObjectsDidChange
    /// Apple's newer name of `NSManagedObjectContextWillSave`.
    public static let willSaveObjectsNotification = Notification.Name.NSManagedObjectContextWillSave
    /// Apple's newer name of `NSManagedObjectContextDidSave`.
    public static let didSaveObjectsNotification = Notification.Name.NSManagedObjectContextDidSave
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
