/// Saving, discarding changes, and permanent IDs.
extension NSManagedObjectContext {
    /// Saves the inserted, updated and deleted objects to the stores, all or nothing.
    ///
    /// Steps: `NSManagedObjectContextWillSave` → pending changes processed (delete rules) →
    /// `willSave()` on each changed object (changes it makes are processed too) → validation
    /// (`validateForInsert`/`Update`/`Delete`; several errors become one 1560 error with
    /// `NSDetailedErrorsKey`) → permanent IDs for inserted objects → one `StoreSaveChanges` to the
    /// coordinator, which checks every store before writing any → committed snapshots updated →
    /// `didSave()` → `NSManagedObjectContextDidSave` (with ``NSManagedObjectContextQueryGenerationKey``
    /// for a pinned context) → `NSManagedObjectContextDidSaveObjectIDs`.
    ///
    /// Derived attributes the changes affect are computed first
    /// (`NSManagedObjectContext+DerivedAttributes.swift`). Uniqueness-constraint conflicts (objects that would share a constraint's values with each
    /// other or with a stored row) are found before validation and go to the merge policy as
    /// ``NSConstraintConflict``s: the error policy fails with `NSManagedObjectConstraintMergeError`
    /// (133021). Conflicts (objects changed or deleted in the store since the context read them) go to
    /// ``mergePolicy``: the default error policy fails the save with `NSManagedObjectMergeError`
    /// (133020) and one ``NSMergeConflict`` per object under
    /// `NSPersistentStoreSaveConflictsErrorKey`; other policies resolve them and the save goes on.
    ///
    /// A child context (one with a ``parent``) saves into its parent: the parent's objects take
    /// the changes (the parent then `hasChanges`), nothing reaches the store, and inserted objects
    /// keep their temporary IDs. Conflicts are objects the parent changed since the child read
    /// them (compared by value), resolved by the same merge policies.
    ///
    /// On error nothing is written and the context keeps its changes (temporary IDs come back).
    /// Differs from Apple only in that `willSave()` runs before validation (as Apple does in
    /// practice: values set in `willSave()` are validated).
    public func save() throws {
        checkConcurrency("save()")
        guard hasChanges || !pendingDeletions.isEmpty else { return }
        NotificationCenter.default.post(name: .NSManagedObjectContextWillSave, object: self)
        setsPostedDuringSave = PostedObjectSets()
        defer { setsPostedDuringSave = nil }
        processPendingChanges()
        for object in insertedList.objects + updatedList.objects + deletedList.objects { object.willSave() }
        processPendingChanges()
        try updateDerivedAttributes()
        try resolveConstraintConflicts()
        try validateChanges()
        guard let backing else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreSaveError, userInfo: [
                NSLocalizedDescriptionKey: "The context \(name ?? "") has no persistent store coordinator or parent, so it can't save.",
            ])
        }
        // Saves again after the merge policy resolved conflicts (a bounded number of times:
        // each round reads the backing's current versions, so only a concurrent save can make
        // the next one conflict again).
        var temporary: [NSManagedObject] = []
        var temporaryIDs: [NSManagedObjectID] = []
        func restoreTemporaryIDs() {
            reassign(temporary, to: temporaryIDs)
        }
        var resolutions = 0
        while true {
            // A child's inserted objects keep their temporary IDs until the root saves.
            let fresh = parentBacking != nil ? [] : insertedList.objects.filter(\.objectID.isTemporaryID)
            let freshIDs = fresh.map(\.objectID)
            do {
                try assignPermanentIDs(to: fresh, replacing: freshIDs, backing: backing)
            } catch {
                restoreTemporaryIDs()
                throw error
            }
            if temporary.isEmpty {
                (temporary, temporaryIDs) = (fresh, freshIDs)
            } else {
                temporary += fresh
                temporaryIDs += freshIDs
            }
            let inserted = insertedList.objects
            let updated = updatedList.objects
            let deleted = deletedList.objects
            let (changes, written) = storeChanges(inserted: inserted, updated: updated, deleted: deleted)
            do {
                if !changes.isEmpty {
                    // Only a parent compares what the child read (the stores check versions).
                    var read: [NSManagedObjectID: ObjectSnapshot] = [:]
                    if parentBacking != nil {
                        for object in updated + deleted { read[object.objectID] = object.committedSnapshot }
                    }
                    try backing.save(changes, read: read)
                }
                // Apple: "If a pinned context saves, its query generation will be updated after the save."
                generationBacking?.advance()
                finishSave(inserted: inserted, updated: updated, deleted: deleted, written: written, changes: changes)
                return
            } catch let error as NSError where resolutions < Self.maximumConflictResolutions {
                guard let conflicts = Self.resolvableConflicts(in: error) else {
                    restoreTemporaryIDs()
                    throw error
                }
                resolutions += 1
                do {
                    try resolveSaveConflicts(conflicts, error: error)
                } catch {
                    restoreTemporaryIDs()
                    throw error
                }
            } catch {
                restoreTemporaryIDs()
                throw error
            }
        }
    }

    /// How many times one save resolves conflicts and tries again before failing.
    static let maximumConflictResolutions = 16

    /// What a save asks the backing to write, and the objects written: those of
    /// `changes.inserted` and then those of `changes.updated`, in order.
    private func storeChanges(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject])
        -> (StoreSaveChanges, [NSManagedObject]) {
        var changes = StoreSaveChanges()
        var written: [NSManagedObject] = []
        written.reserveCapacity(inserted.count + updated.count)
        changes.inserted.reserveCapacity(inserted.count)
        changes.changedKeys.reserveCapacity(updated.count)
        for object in inserted {
            changes.inserted.append(object.persistentSnapshot())
            written.append(object)
        }
        // Objects of one entity that changed the same properties share one set of keys.
        var last: (layout: EntityLayout, slots: [Int], keys: Set<String>)?
        for object in updated where !object.faultFlag {
            // The persistent properties that differ from the committed snapshot, compared once.
            let slots = object.changedPersistentSlots()
            guard !slots.isEmpty else { continue }
            let layout = object.layout
            let changedKeys: Set<String>
            if let last, last.layout === layout, last.slots == slots {
                changedKeys = last.keys
            } else {
                changedKeys = Set(slots.lazy.map { layout.properties[$0].name })
                last = (layout, slots, changedKeys)
            }
            changes.updated.append(object.persistentSnapshot())
            changes.changedKeys[object.objectID] = changedKeys
            written.append(object)
        }
        changes.deleted = deleted.map { $0.committedSnapshot ?? $0.persistentSnapshot() }
        changes.transactionAuthor = transactionAuthor
        changes.contextName = name
        return (changes, written)
    }

    /// Makes the written snapshots the objects' committed ones, at their new versions, and
    /// clears the lists of changes.
    private func finishSave(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject],
                            written: [NSManagedObject], changes: consuming StoreSaveChanges) {
        // Moved out of `changes`, last first: copying a snapshot retains and releases each of
        // its references once more.
        var saved = changes
        var position = written.count
        while position > 0, var snapshot = saved.updated.popLast() ?? saved.inserted.popLast() {
            position -= 1
            snapshot.version += 1
            written[position].markSaved(snapshot)
        }
        for object in deleted {
            registry.remove(object, id: object.objectID)
            rowCache[object.objectID.key] = nil
        }
        if !assignedStores.isEmpty { for object in inserted { assignedStores[ObjectIdentifier(object)] = nil } }
        insertedList.removeAll()
        updatedList.removeAll()
        deletedList.removeAll()
        for objects in [inserted, updated, deleted] { for object in objects { object.didSave() } }
        for object in deleted { object.managedObjectContext = nil }
        // The sets this save's change notification posted, when they hold the same objects (a
        // save of one event's changes): building a set of 50,000 objects costs 2.7 million
        // instructions.
        func set(_ objects: [NSManagedObject], _ key: String) -> Set<NSManagedObject> {
            setsPostedDuringSave?.set(of: objects, under: key) ?? Set(objects)
        }
        var userInfo: [AnyHashable: Any] = [
            NSInsertedObjectsKey: set(inserted, NSInsertedObjectsKey), NSUpdatedObjectsKey: set(updated, NSUpdatedObjectsKey),
            NSDeletedObjectsKey: set(deleted, NSDeletedObjectsKey),
        ]
        if let token = generationTokenAfterSave() { userInfo[NSManagedObjectContextQueryGenerationKey] = token }
        NotificationCenter.default.post(name: .NSManagedObjectContextDidSave, object: self, userInfo: userInfo)
        // Dropped while the save's arrays still hold the objects: objects whose last owner was
        // a set were freed in its hash order, scattered over memory (W1 took 18% longer than
        // freeing them in the arrays' order, the order they were made in).
        setsPostedDuringSave = nil
        // Each set made from the objects' IDs at once (no array of them in between), through
        // closures: a key path's getter cost about 140 instructions an object here.
        postObjectIDs(.NSManagedObjectContextDidSaveObjectIDs, [
            (NSInsertedObjectIDsKey, Set(inserted.lazy.map { $0.objectID })), (NSUpdatedObjectIDsKey, Set(updated.lazy.map { $0.objectID })),
            (NSDeletedObjectIDsKey, Set(deleted.lazy.map { $0.objectID })),
        ], includingEmpty: true)
    }

    /// The token of a generation pinned once the save was written, for the did-save
    /// notification of a pinned context (``NSManagedObjectContextQueryGenerationKey``): nil when
    /// the context is not pinned, when no store of its coordinator pins generations, or when
    /// the generation can't be read (the key is then left out: the save itself succeeded).
    ///
    /// A generation of its own, not the context's: the context stays unpinned until its next
    /// read, as after any save (which then pins a generation of its own: two read connections
    /// for a pinned context's save and read, while the token lives).
    private func generationTokenAfterSave() -> NSQueryGenerationToken? {
        guard let generationBacking, let generation = try? generationBacking.coordinator.newQueryGeneration(),
              generation.pinsAnyStore else { return nil }
        return NSQueryGenerationToken(kind: .generation(generation))
    }

    /// Runs the validation of every changed object and gathers the errors: one error is thrown
    /// as it is, several as `NSValidationMultipleErrorsError` (1560) with `NSDetailedErrorsKey`.
    func validateChanges() throws {
        var errors: [Error] = []
        func collect(_ body: () throws -> Void) {
            do { try body() } catch { errors.append(error) }
        }
        for object in insertedList { collect { try object.validateForInsert() } }
        for object in updatedList { collect { try object.validateForUpdate() } }
        for object in deletedList { collect { try object.validateForDelete() } }
        if let error = CoreDataErrorFactory.combining(errors, model: persistentStoreCoordinator?.managedObjectModel) {
            throw error
        }
    }

    // MARK: Permanent IDs

    /// Gives the objects permanent IDs from their stores now (saving keeps them).
    ///
    /// In a child context the request goes down to the coordinator, and the parents' objects
    /// of the same temporary IDs get the same permanent IDs.
    public func obtainPermanentIDs(for objects: [NSManagedObject]) throws {
        checkConcurrency("obtainPermanentIDs(for:)")
        guard let backing else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreSaveError, userInfo: [
                NSLocalizedDescriptionKey: "The context has no persistent store coordinator to obtain permanent IDs from.",
            ])
        }
        let temporary = objects.filter { $0.objectID.isTemporaryID }
        try assignPermanentIDs(to: temporary, replacing: temporary.map(\.objectID), backing: backing)
    }

    /// Gives `objects`, whose IDs are `currentIDs`, permanent IDs from their stores.
    private func assignPermanentIDs(to objects: [NSManagedObject], replacing currentIDs: [NSManagedObjectID],
                                    backing: any ContextBacking) throws {
        guard !objects.isEmpty else { return }
        let assigned = assignedStores
        let ids = try backing.permanentObjectIDs(for: objects.map { ($0.entity, assigned.isEmpty ? nil : assigned[ObjectIdentifier($0)]) },
                                                 replacing: currentIDs)
        reassign(objects, to: ids)
    }

    /// Chooses the store a newly inserted object will be saved in. Traps for an object that is
    /// not an inserted managed object of this context, as Apple raises.
    public func assign(_ object: Any, to store: NSPersistentStore) {
        guard let object = object as? NSManagedObject, insertedList.contains(object) else {
            preconditionFailure("assign(_:to:) needs a newly inserted managed object of this context")
        }
        assignedStores[ObjectIdentifier(object)] = store
    }

    // MARK: Discarding changes

    /// Discards every unsaved change: inserted objects leave the context, updated and deleted
    /// ones get their last committed values back. Clears the undo stack.
    public func rollback() {
        checkConcurrency("rollback()")
        undoManager?.removeAllActions()
        recordingSuspended += 1
        defer { recordingSuspended -= 1 }
        let discarded = insertedList.objects + deletedList.objects.filter { !$0.hasCommittedSnapshot }
        let restored = (updatedList.objects + deletedList.objects).filter { $0.hasCommittedSnapshot }
        insertedList.removeAll()
        updatedList.removeAll()
        deletedList.removeAll()
        pendingDeletions.removeAll()
        for object in discarded {
            registry.remove(object, id: object.objectID)
            assignedStores[ObjectIdentifier(object)] = nil
            object.managedObjectContext = nil
        }
        for object in restored {
            if let snapshot = object.committedSnapshot { object.load(snapshot, in: self) }
            object.awakeFromSnapshotEvents(.rollback)
        }
        for object in eventTouched { object.state?.clearEventChanges() }
        for list in [eventInserted, eventUpdated, eventDeleted] { for object in list { object.state?.clearEventChanges() } }
        eventInserted.removeAll()
        eventUpdated.removeAll()
        eventDeleted.removeAll()
        eventTouched.removeAll()
        for object in restored { eventRefreshed.insert(object) }
    }

    /// Forgets every registered object (they become unusable, as in Core Data) and every change.
    /// Posts `NSManagedObjectContextObjectsDidChange` with ``NSInvalidatedAllObjectsKey``.
    public func reset() {
        checkConcurrency("reset()")
        undoManager?.removeAllActions()
        generationBacking?.advance()
        let objects = Array(registry.values)
        for object in objects {
            object.managedObjectContext = nil
        }
        registry.removeAll()
        insertedList.removeAll()
        updatedList.removeAll()
        deletedList.removeAll()
        pendingDeletions.removeAll()
        childInsertedIDs.removeAll()
        childIDAliases.removeAll()
        rowCache.removeAll()
        pendingFaults.removeAll()
        batchGroups.removeAll()
        refreshedFaults.removeAll()
        spareStates.removeAll()
        assignedStores.removeAll()
        eventInserted.removeAll()
        eventUpdated.removeAll()
        eventDeleted.removeAll()
        eventRefreshed.removeAll()
        eventInvalidated.removeAll()
        eventTouched.removeAll()
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: [
            NSInvalidatedAllObjectsKey: objects.map(\.objectID),
        ])
    }

    /// Refreshes an object from its store.
    ///
    /// With `mergeChanges` false the object's unsaved changes are dropped and it turns into a
    /// fault (refetched when touched). With true its persistent values are reloaded and its
    /// unsaved changes applied again on top. Objects inserted and not saved are left alone.
    public func refresh(_ object: NSManagedObject, mergeChanges flag: Bool) {
        checkConcurrency("refresh(_:mergeChanges:)", object: object)
        guard object.managedObjectContext === self, registry[object.objectID] === object,
              !insertedList.contains(object), object.hasCommittedSnapshot || object.faultFlag else { return }
        recordingSuspended += 1
        defer { recordingSuspended -= 1 }
        if flag {
            if object.faultFlag { return }
            let local = object.changedPersistentSlots().map { (slot: $0, value: object.storedValue(at: $0)) }
            let fresh = reportingStoreError(firing: object.objectID) {
                try backing?.snapshots(for: [object.objectID], fresh: true, maxAge: -1)
            }?[object.objectID]
            if let snapshot = fresh ?? object.committedSnapshot { object.load(snapshot, in: self) }
            for (slot, value) in local { object.putStoredValue(value, at: slot) }
            object.awakeFromSnapshotEvents(.refresh)
        } else {
            updatedList.remove(object)
            eventUpdated.remove(object)
            rowCache[object.objectID.key] = nil
            object.takeFetchedSnapshot()
            registry.keepFreedIDs()
            refreshedFaults.insert(object.objectID.key)
            if !object.faultFlag { object.turnIntoFault() }
        }
        eventRefreshed.insert(object)
    }

    /// Refreshes every registered object, keeping unsaved changes.
    public func refreshAllObjects() {
        checkConcurrency("refreshAllObjects()")
        for object in Array(registry.values) { refresh(object, mergeChanges: true) }
    }
}
