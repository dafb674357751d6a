/// Merge policies and conflicts: the policy a save hands its conflicts to, and what each
/// built-in policy does to an object in conflict.
///
/// A conflict comes from the context's backing (the coordinator's stores, or the parent context
/// for a child) as an ``NSMergeConflict`` naming the object, the backing's current values
/// (``NSMergeConflict/persistedSnapshot``) and version (``NSMergeConflict/newVersionNumber``).
/// Resolution only needs those, so every backing reports conflicts the same way.
extension NSManagedObjectContext {
    /// The policy that resolves the conflicts a save finds: an ``NSMergePolicy``;
    /// ``NSErrorMergePolicy`` by default.
    ///
    /// Setting anything but an ``NSMergePolicy`` traps, as Apple raises an exception.
    /// Differs from Apple: not `open` (declared in an extension).
    public var mergePolicy: Any {
        get { mergePolicyObject }
        set {
            guard let policy = newValue as? NSMergePolicy else {
                preconditionFailure("mergePolicy must be an NSMergePolicy (such as NSMergePolicy.mergeByPropertyObjectTrump), not \(Swift.type(of: newValue))")
            }
            mergePolicyObject = policy
        }
    }

    /// The conflicts of a failed save that a merge policy can resolve: the
    /// `NSPersistentStoreSaveConflictsErrorKey` list of an `NSManagedObjectMergeError`
    /// (133020), when it names objects.
    static func resolvableConflicts(in error: NSError) -> [NSMergeConflict]? {
        guard error.domain == NSCocoaErrorDomain, error.code == NSManagedObjectMergeError,
              let conflicts = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict],
              !conflicts.isEmpty else { return nil }
        return conflicts
    }

    /// Completes the conflicts of a failed save (the context's object and what it read) and
    /// hands them to the merge policy. The plain error policy rethrows `error` itself; any
    /// other policy's error fails the save.
    func resolveSaveConflicts(_ conflicts: [NSMergeConflict], error: NSError) throws {
        for conflict in conflicts {
            let object = conflict.sourceObject ?? registry[conflict.sourceObjectID]
            conflict.sourceObject = object
            if conflict.cachedSnapshot == nil { conflict.cachedSnapshot = object?.committedSnapshot?.dictionaryRepresentation }
        }
        let policy = mergePolicyObject
        if ObjectIdentifier(Swift.type(of: policy)) == ObjectIdentifier(NSMergePolicy.self),
           policy.mergeType == .errorMergePolicyType {
            throw error
        }
        try policy.resolve(mergeConflicts: conflicts)
    }

    /// Applies a built-in policy to one object in conflict (see
    /// ``NSMergePolicy/resolve(optimisticLockingConflicts:)``): afterwards the object counts as
    /// having read the backing's current version.
    func resolveConflict(_ conflict: NSMergeConflict, of object: NSManagedObject, as type: NSMergePolicyType) {
        guard type != .errorMergePolicyType, object.managedObjectContext === self,
              registry[object.objectID] === object, !insertedList.contains(object) else { return }
        recordingSuspended += 1
        defer { recordingSuspended -= 1 }
        guard let persisted = conflict.persistedSnapshot else {
            resolveBackingDeletion(of: object, keepingObject: type == .overwriteMergePolicyType
                                   || type == .mergeByPropertyObjectTrumpMergePolicyType)
            return
        }
        var current = ObjectSnapshot(objectID: object.objectID, dictionary: persisted, version: Int64(conflict.newVersionNumber))
        for relationship in object.entity.relationshipsByName.values
        where relationship.isToMany && !relationship.isTransient && current.toMany[relationship.name] == nil {
            // Saving never reads at a query generation (Apple: "Query generations are for fetched data only").
            current.toMany[relationship.name] = relatedObjectIDs(for: relationship, of: object.objectID, unpinned: true)
        }
        if deletedList.contains(object) {
            if type == .rollbackMergePolicyType {
                deletedList.remove(object)
                pendingDeletions.remove(object)
                object.load(current, in: self)
                eventRefreshed.insert(object)
            } else {
                object.committedSnapshot = current
            }
            return
        }
        let read = object.committedSnapshot
        var kept: [(String, Any?)] = []
        if type != .rollbackMergePolicyType {
            for property in object.entity.properties where !property.isTransient && !(property is NSFetchedPropertyDescription) {
                let keep: Bool
                switch type {
                case .overwriteMergePolicyType:
                    keep = true
                case .mergeByPropertyObjectTrumpMergePolicyType:
                    keep = object.differsFromCommitted(property)
                default:
                    keep = object.differsFromCommitted(property) && !ObjectSnapshot.valueChanged(property, from: read, to: current)
                }
                if keep { kept.append((property.name, object.storedValue(forKey: property.name))) }
            }
        }
        object.load(current, in: self)
        for (key, value) in kept { object.putStoredValue(value, forKey: key) }
        if !object.hasPersistentChangedValues { updatedList.remove(object) }
        object.awakeFromSnapshotEvents(.refresh)
        eventRefreshed.insert(object)
    }

    /// An object in conflict that its backing no longer has: under object trump and overwrite
    /// an updated object is inserted again with its state; otherwise the deletion wins and the
    /// object leaves the context.
    private func resolveBackingDeletion(of object: NSManagedObject, keepingObject: Bool) {
        if keepingObject, !deletedList.contains(object) {
            updatedList.remove(object)
            object.committedSnapshot = nil
            insertedList.insert(object)
            return
        }
        forgetDeletedObject(object)
    }

    /// Drops an object its backing deleted: it leaves the registry and the change lists,
    /// becomes a fault without a context, and is reported as deleted by the next
    /// `NSManagedObjectContextObjectsDidChange`.
    func forgetDeletedObject(_ object: NSManagedObject) {
        let id = object.objectID
        registry.remove(object, id: id)
        rowCache[id.key] = nil
        object.takeFetchedSnapshot()
        updatedList.remove(object)
        deletedList.remove(object)
        pendingDeletions.remove(object)
        if !object.faultFlag { object.turnIntoFault() }
        object.managedObjectContext = nil
        eventDeleted.insert(object)
    }
}
