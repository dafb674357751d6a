/// Bringing in changes saved elsewhere: by another context of the coordinator
/// (`NSManagedObjectContextDidSave`) or by anything that reports object IDs (another
/// coordinator or process, batch requests).
extension NSManagedObjectContext {
    /// Brings in the changes another context saved (the userInfo of its
    /// `NSManagedObjectContextDidSave`): registered objects it updated are refreshed (keeping this
    /// context's own unsaved changes), registered objects it deleted leave the context, and
    /// objects it inserted are registered (as faults) for the notification.
    /// Posts `NSManagedObjectContextObjectsDidChange` with what changed here, then
    /// `NSManagedObjectContextDidMergeChangesObjectIDs`.
    ///
    /// Callable from any queue: the merge runs on the context's queue (`performAndWait(_:)`,
    /// inline when already there), and only object IDs cross from the other context.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        let info = notification.userInfo ?? [:]
        performAndWait { mergeSavedChanges(info) }
    }

    /// Brings the changes described by `changeNotificationData` into each context, on the
    /// context's queue: the keys are ``NSInsertedObjectsKey``, ``NSUpdatedObjectsKey`` and
    /// ``NSDeletedObjectsKey`` (or their `…ObjectIDsKey` forms), the values collections of
    /// `NSManagedObjectID`s or of their URI representations (`URL`).
    ///
    /// Each context refreshes the registered objects that were updated, forgets those that
    /// were deleted, and posts `NSManagedObjectContextObjectsDidChange`.
    public class func mergeChanges(fromRemoteContextSave changeNotificationData: [AnyHashable: Any],
                                   into contexts: [NSManagedObjectContext]) {
        for context in contexts {
            context.performAndWait { context.mergeSavedChanges(changeNotificationData) }
        }
    }

    /// The object IDs under `keys` of a change dictionary: managed objects, IDs or URIs, in an
    /// array or a set. URIs this context's coordinator does not know are skipped.
    private func changedObjectIDs(_ info: [AnyHashable: Any], _ keys: [String]) -> [NSManagedObjectID] {
        var result: [NSManagedObjectID] = []
        for key in keys {
            let items: [Any]
            switch info[key] {
            case let set as Set<NSManagedObject>: items = Array(set)
            case let set as Set<NSManagedObjectID>: items = Array(set)
            case let set as Set<URL>: items = Array(set)
            case let set as NSSet: items = set.allObjects
            case let array as [Any]: items = array
            default: items = []
            }
            for item in items {
                switch item {
                case let object as NSManagedObject: result.append(object.objectID)
                case let id as NSManagedObjectID: result.append(id)
                case let url as URL:
                    if let id = persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url) { result.append(id) }
                default: continue
                }
            }
        }
        return result
    }

    /// The common part of both merges.
    /// A pinned context advances to the newest query generation first (as Apple's), so that
    /// the objects refreshed read the saved data. Posts `NSManagedObjectContextObjectsDidChange`,
    /// then `NSManagedObjectContextDidMergeChangesObjectIDs`.
    func mergeSavedChanges(_ info: [AnyHashable: Any]) {
        generationBacking?.advance()
        let deletedIDs = changedObjectIDs(info, [NSDeletedObjectsKey, NSDeletedObjectIDsKey])
        let updatedIDs = changedObjectIDs(info, [NSUpdatedObjectsKey, NSUpdatedObjectIDsKey])
        let insertedIDs = changedObjectIDs(info, [NSInsertedObjectsKey, NSInsertedObjectIDsKey])
        var refreshedIDs: [NSManagedObjectID] = []
        for id in deletedIDs {
            guard let object = registry[id] else { continue }
            forgetDeletedObject(object)
        }
        for id in updatedIDs {
            guard let object = registry[id] else { continue }
            refreshedIDs.append(id)
            if object.faultFlag {
                rowCache[id.key] = nil
                object.takeFetchedSnapshot()
                registry.keepFreedIDs()
                refreshedFaults.insert(id.key)
            } else {
                refresh(object, mergeChanges: true)
            }
            eventRefreshed.insert(object)
        }
        // Inserted objects are reported as faults (the notification holds them while it is
        // posted); already registered ones are left alone.
        var inserted: [NSManagedObject] = []
        for id in insertedIDs where !id.isTemporaryID && registry[id] == nil {
            inserted.append(object(with: id))
        }
        for object in inserted { eventInserted.insert(object) }
        postObjectsDidChange()
        postObjectIDs(.NSManagedObjectContextDidMergeChangesObjectIDs, [
            (NSInsertedObjectIDsKey, Set(insertedIDs)), (NSUpdatedObjectIDsKey, Set(updatedIDs)), (NSDeletedObjectIDsKey, Set(deletedIDs)),
            (NSRefreshedObjectIDsKey, Set(refreshedIDs)),
        ], includingEmpty: false)
    }
}

/// The key of the inserted objects' IDs in change dictionaries (Apple's `"inserted_objectIDs"`).
public let NSInsertedObjectIDsKey = "inserted_objectIDs"
/// The key of the updated objects' IDs in change dictionaries.
public let NSUpdatedObjectIDsKey = "updated_objectIDs"
/// The key of the deleted objects' IDs in change dictionaries.
public let NSDeletedObjectIDsKey = "deleted_objectIDs"
/// The key of the refreshed objects' IDs in change dictionaries.
public let NSRefreshedObjectIDsKey = "refreshed_objectIDs"
/// The key of the invalidated objects' IDs in change dictionaries.
public let NSInvalidatedObjectIDsKey = "invalidated_objectIDs"
