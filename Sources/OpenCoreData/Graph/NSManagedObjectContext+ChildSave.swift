/// A child context's save, as its parent takes it (on the parent's queue): conflicts are
/// checked first, then the changes become the parent's own unsaved changes.
extension NSManagedObjectContext {
    /// Takes a child's saved changes, all or nothing.
    ///
    /// Conflicts: an updated or deleted object whose current state here differs from what the
    /// child read (`read`), or that is gone here, fails with `NSManagedObjectMergeError` (133020)
    /// and one ``NSMergeConflict`` per object; nothing changes then. Otherwise inserted objects
    /// are registered here with the child's (temporary or permanent) IDs, as inserted objects;
    /// updated values are set (recorded as changes, inverses kept); deleted objects are deleted.
    /// The parent then `hasChanges`, and its pending changes are processed.
    func applyChildSave(_ changes: StoreSaveChanges, read: [NSManagedObjectID: ObjectSnapshot]) throws {
        processPendingChanges()
        let conflicts = try childSaveConflicts(changes, read: read)
        guard conflicts.isEmpty else { throw NSMergePolicy.mergeError(conflicts) }

        // Every inserted object is registered before any is loaded: they may point at each other.
        // (The array holds them: the registry does not retain objects.)
        let insertedObjects = changes.inserted.map { registry[$0.objectID] ?? makeFault($0.objectID) }
        for (snapshot, object) in zip(changes.inserted, insertedObjects) {
            recordingSuspended += 1
            object.load(snapshot, in: self)
            recordingSuspended -= 1
            object.committedSnapshot = nil
            object.didAwakeFromInsert = true
            insertedList.insert(object)
            eventInserted.insert(object)
            eventDeleted.remove(object)
            if object.objectID.isTemporaryID { childInsertedIDs.insert(object.objectID) }
        }
        for snapshot in changes.updated {
            let object = self.object(with: localID(forChildID: snapshot.objectID))
            object.fireFaultIfNeeded()
            let keys = changes.changedKeys[snapshot.objectID]
            for property in object.entity.properties where !property.isTransient && !(property is NSFetchedPropertyDescription) {
                if let keys, !keys.contains(property.name) { continue }
                try setChildValue(of: property, from: snapshot, on: object)
            }
        }
        for snapshot in changes.deleted {
            let id = localID(forChildID: snapshot.objectID)
            guard let object = registry[id] ?? (id.isTemporaryID ? nil : self.object(with: id)) else { continue }
            delete(object)
        }
        processPendingChanges()
    }

    /// Sets one property of `object` to its value in a child's snapshot.
    private func setChildValue(of property: NSPropertyDescription, from snapshot: ObjectSnapshot, on object: NSManagedObject) throws {
        switch property {
        case let relationship as NSRelationshipDescription where relationship.isToMany:
            guard let ids = snapshot.toMany[relationship.name] else { return }  // not loaded: unchanged
            let objects = ids.map { self.object(with: localID(forChildID: $0)) }
            try object.setValueThrowing(relationship.isOrdered ? NSOrderedSet(array: objects) : Set(objects), forKey: relationship.name)
        case is NSRelationshipDescription:
            let destination = (snapshot[property.name] as? NSManagedObjectID).map { self.object(with: localID(forChildID: $0)) }
            try object.setValueThrowing(destination, forKey: property.name)
        default:
            try object.setValueThrowing(snapshot[property.name], forKey: property.name)
        }
    }

    /// The objects of a child's save that changed here since the child read them.
    private func childSaveConflicts(_ changes: StoreSaveChanges, read: [NSManagedObjectID: ObjectSnapshot]) throws -> [NSMergeConflict] {
        let checked = changes.updated + changes.deleted
        guard !checked.isEmpty else { return [] }
        let current = try snapshotsForChild(checked.map(\.objectID), fresh: false, maxAge: -1)
        var conflicts: [NSMergeConflict] = []
        for snapshot in checked {
            let id = snapshot.objectID
            guard let old = read[id] else { continue }
            if let now = current[id], !Self.stateChanged(from: old, to: now) { continue }
            conflicts.append(NSMergeConflict(
                sourceObjectID: id, newVersion: Int(current[id]?.version ?? 0), oldVersion: Int(old.version),
                objectSnapshot: snapshot.dictionaryRepresentation, persistedSnapshot: current[id]?.dictionaryRepresentation))
        }
        return conflicts
    }

    /// Whether any persistent property differs between what a child read and the current state
    /// (to-many relationships only where both carry them).
    private static func stateChanged(from old: ObjectSnapshot, to new: ObjectSnapshot) -> Bool {
        old.objectID.entity.properties.contains { property in
            if property.isTransient || property is NSFetchedPropertyDescription { return false }
            if let relationship = property as? NSRelationshipDescription, relationship.isToMany,
               old.toMany[property.name] == nil || new.toMany[property.name] == nil { return false }
            return ObjectSnapshot.valueChanged(property, from: old, to: new)
        }
    }
}
