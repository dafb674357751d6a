/// Parent and child contexts: a context is backed by a coordinator or by a parent context
/// (``ContextBacking``), and can merge its parent's saves automatically.
extension NSManagedObjectContext {
    /// What the context fetches from and saves into: its parent, else its coordinator (at its
    /// query generation when pinned).
    var backing: (any ContextBacking)? { parentBacking ?? generationBacking ?? coordinatorStorage }

    /// The parent context: a child fetches through it, fires its faults from it and saves into
    /// it (never to the store). `nil` for a context on a coordinator.
    ///
    /// A context has a parent or a coordinator, not both: setting one when the other is set,
    /// or replacing either once the context holds objects, traps as Apple raises.
    /// Differs from Apple: not `open` (declared in an extension).
    public var parent: NSManagedObjectContext? {
        get { parentBacking?.parent }
        set {
            if let problem = backingAssignmentProblem(parent: newValue) { preconditionFailure(problem) }
            parentBacking = newValue.map(ParentContextBacking.init(parent:))
            if mergesFromParent { observeParentSaves() }
        }
    }

    /// Why setting ``persistentStoreCoordinator`` to `coordinator` is refused (Apple raises
    /// then), or `nil` when it is allowed.
    func backingAssignmentProblem(coordinator: NSPersistentStoreCoordinator?) -> String? {
        if coordinator != nil, parentBacking != nil {
            return "Context already has a parent context; it can't also have a persistent store coordinator."
        }
        if let current = coordinatorStorage, current !== coordinator, hasBeenUsed {
            return "Context already has a coordinator; it can't be replaced once the context holds objects."
        }
        return nil
    }

    /// Why setting ``parent`` to `parent` is refused (Apple raises then), or `nil` when it is
    /// allowed.
    func backingAssignmentProblem(parent: NSManagedObjectContext?) -> String? {
        guard let parent else {
            return parentBacking != nil && hasBeenUsed ? "Context already has a parent context; it can't be removed once the context holds objects." : nil
        }
        if coordinatorStorage != nil {
            return "Context already has a coordinator; it can't also have a parent context."
        }
        if parent === self { return "A context can't be its own parent." }
        if parent.concurrencyType.rawValue == 0 {
            return "Parent NSManagedObjectContext must use either NSPrivateQueueConcurrencyType or NSMainQueueConcurrencyType."
        }
        if let current = parentBacking?.parent, current !== parent, hasBeenUsed {
            return "Context already has a parent context; it can't be replaced once the context holds objects."
        }
        return nil
    }

    /// Whether the context holds objects or changes.
    private var hasBeenUsed: Bool { registry.count > 0 || hasChanges }

    // MARK: Merging the parent's saves

    /// When true, the context brings in its parent's saves by itself (for a context on a
    /// coordinator: the saves of the coordinator's other root contexts), on its own queue, as
    /// ``mergeChanges(fromContextDidSave:)`` does: registered objects are refreshed keeping
    /// their unsaved changes, and `NSManagedObjectContextObjectsDidChange` is posted.
    ///
    /// Differs from Apple: not `open` (declared in an extension). The merge is enqueued with
    /// ``perform(_:)``, so a main-queue context merges when the main queue runs. A context on a
    /// coordinator also merges the coordinator's `.NSPersistentStoreRemoteChange`
    /// notifications that name the changed objects (``NSInsertedObjectIDsKey`` and the others:
    /// the PostgreSQL store's do), so it stays current with other processes and hosts.
    public var automaticallyMergesChangesFromParent: Bool {
        get { mergesFromParent }
        set {
            mergesFromParent = newValue
            observeParentSaves()
        }
    }

    /// (Re)installs or removes the observers of the parent's (or coordinator's) saves.
    func observeParentSaves() {
        for token in parentSaveObservers { NotificationCenter.default.removeObserver(token) }
        parentSaveObservers = []
        guard mergesFromParent else { return }
        let parentContext = parent
        let coordinator = parentContext == nil ? coordinatorStorage : nil
        guard parentContext != nil || coordinator != nil else { return }
        // Not `[weak self]`: a weak reference would slow every retain of this context.
        let merging = UnretainedBox(self)
        parentSaveObservers.append(NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: parentContext, queue: nil
        ) { notification in
            // Runs on the saving context's queue: only object IDs go on to this context's queue.
            guard let self = merging.object, let saver = notification.object as? NSManagedObjectContext, saver !== self else { return }
            if parentContext == nil {
                guard let coordinator, saver.parentBacking == nil, saver.coordinatorStorage === coordinator else { return }
            }
            let saved = SavedObjectIDs(notification.userInfo ?? [:])
            self.perform { self.mergeSavedChanges(saved.changeDictionary) }
        })
        guard let coordinator else { return }
        parentSaveObservers.append(NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
        ) { notification in
            guard let self = merging.object, let saved = SavedObjectIDs(remoteChange: notification.userInfo ?? [:]) else { return }
            self.perform { self.mergeSavedChanges(saved.changeDictionary) }
        })
    }
}

/// The IDs of a saved context's inserted, updated and deleted objects: what crosses from the
/// saving context's queue to a merging context's.
struct SavedObjectIDs: Sendable {
    let inserted: [NSManagedObjectID]
    let updated: [NSManagedObjectID]
    let deleted: [NSManagedObjectID]

    init(_ info: [AnyHashable: Any]) {
        func ids(_ key: String) -> [NSManagedObjectID] {
            (info[key] as? Set<NSManagedObject>).map { $0.map(\.objectID) } ?? []
        }
        inserted = ids(NSInsertedObjectsKey)
        updated = ids(NSUpdatedObjectsKey)
        deleted = ids(NSDeletedObjectsKey)
    }

    /// The IDs a remote-change notification names; nil when it names none (it only says that
    /// the store changed).
    init?(remoteChange info: [AnyHashable: Any]) {
        func ids(_ key: String) -> [NSManagedObjectID] {
            switch info[key] {
            case let set as Set<NSManagedObjectID>: return Array(set)
            case let array as [NSManagedObjectID]: return array
            default: return []
            }
        }
        inserted = ids(NSInsertedObjectIDsKey)
        updated = ids(NSUpdatedObjectIDsKey)
        deleted = ids(NSDeletedObjectIDsKey)
        if inserted.isEmpty && updated.isEmpty && deleted.isEmpty { return nil }
    }

    /// The change dictionary ``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)`` reads.
    var changeDictionary: [AnyHashable: Any] {
        [NSInsertedObjectIDsKey: inserted, NSUpdatedObjectIDsKey: updated, NSDeletedObjectIDsKey: deleted]
    }
}
