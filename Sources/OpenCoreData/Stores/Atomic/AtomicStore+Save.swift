/// Saving into an atomic store: all changes or none.
extension AtomicStore {
    /// ``checkSave(_:)`` of the atomic stores: refuses a save into a read-only store (`NSPersistentStoreSaveError`, 134030), IDs that
    /// are not this store's or that already exist (`NSPersistentStoreSaveError`), and
    /// optimistic-locking conflicts: an updated or deleted object whose version in the store is
    /// not the one the context read, or that is gone (`NSManagedObjectMergeError`, 133020, with
    /// the ``NSMergeConflict``s under `NSPersistentStoreSaveConflictsErrorKey`). A file another
    /// coordinator saved into is read again first, so its rows' versions are the ones compared.
    func checkRows(_ changes: StoreSaveChanges) throws {
        lock.lock()
        defer { lock.unlock() }
        try check(changes)
    }

    /// ``save(_:)`` of the atomic stores: applies the changes to a copy of the rows, writes the copy with ``writeRows(_:)``, and only
    /// then makes it the store's contents.
    func saveRows(_ changes: StoreSaveChanges) throws {
        lock.lock()
        defer { lock.unlock() }
        try check(changes)
        var next = contents
        for snapshot in changes.deleted {
            next.rows[snapshot.objectID.entity.name ?? ""]?[snapshot.objectID.primaryKey ?? 0] = nil
        }
        for snapshot in changes.inserted {
            store(snapshot, version: 1, into: &next)
        }
        for snapshot in changes.updated {
            let old = row(for: snapshot.objectID)
            var merged = snapshot
            for (key, ids) in old?.toMany ?? [:] where merged.toMany[key] == nil { merged.toMany[key] = ids }
            store(merged, version: (old?.version ?? 0) + 1, into: &next)
        }
        next.metadata = metadata ?? next.metadata
        try writeRows(next)
        contents = next
    }

    /// Files `snapshot` under its entity with `version`, every to-many relationship present,
    /// and keeps the key counter past its key.
    private func store(_ snapshot: ObjectSnapshot, version: Int64, into next: inout AtomicStoreContents) {
        var row = snapshot
        row.version = version
        let entity = snapshot.objectID.entity
        for relationship in entity.relationshipsByName.values where relationship.isToMany && row.toMany[relationship.name] == nil {
            row.toMany[relationship.name] = []
        }
        let key = snapshot.objectID.primaryKey ?? 0
        next.rows[entity.name ?? "", default: [:]][key] = row
        let root = AtomicStoreContents.rootName(of: entity)
        if key > next.lastPrimaryKeys[root] ?? 0 { next.lastPrimaryKeys[root] = key }
    }

    /// The checks of ``checkSave(_:)``. Call under ``lock``.
    private func check(_ changes: StoreSaveChanges) throws {
        if changes.isEmpty { return }
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        let reloaded = try reloadIfChangedElsewhere()
        try checkStoreUnchanged()
        let origin = objectIDOrigin()
        for snapshot in changes.inserted + changes.updated + changes.deleted {
            let id = snapshot.objectID
            guard holds(id, origin: origin) else {
                throw PersistentStoreErrors.make(
                    NSPersistentStoreSaveError,
                    "Object \(id) does not belong to the \(PersistentStoreErrors.name(of: self)).", stores: [self],
                    userInfo: [NSAffectedObjectsErrorKey: [id]])
            }
        }
        for snapshot in changes.inserted where row(for: snapshot.objectID) != nil {
            // Another coordinator's save used the same new keys: this save can't go in as it is
            // (saving again allocates keys past the file's rows).
            if reloaded, let url { throw AtomicFile.changedSinceLoadError(url, store: self) }
            throw PersistentStoreErrors.make(
                NSPersistentStoreSaveError,
                "Object \(snapshot.objectID) already exists in the \(PersistentStoreErrors.name(of: self)).", stores: [self],
                userInfo: [NSAffectedObjectsErrorKey: [snapshot.objectID]])
        }
        var conflicts: [NSMergeConflict] = []
        for snapshot in changes.updated + changes.deleted {
            let current = row(for: snapshot.objectID)
            guard current?.version != snapshot.version else { continue }
            conflicts.append(NSMergeConflict(
                sourceObjectID: snapshot.objectID, newVersion: Int(current?.version ?? 0), oldVersion: Int(snapshot.version),
                objectSnapshot: snapshot.dictionaryRepresentation, persistedSnapshot: current?.dictionaryRepresentation))
        }
        if !conflicts.isEmpty {
            var userInfo: [String: Any] = [NSPersistentStoreSaveConflictsErrorKey: conflicts,
                                           NSAffectedObjectsErrorKey: conflicts.map(\.sourceObjectID)]
            if let url { userInfo[NSFilePathErrorKey] = url.path }
            throw PersistentStoreErrors.make(
                NSManagedObjectMergeError,
                "Could not merge changes: \(conflicts.count) object(s) changed in the \(PersistentStoreErrors.name(of: self)) since they were read (\(conflicts.map { $0.sourceObjectID.description }.joined(separator: ", "))).",
                stores: [self], url: url, userInfo: userInfo)
        }
    }
}
