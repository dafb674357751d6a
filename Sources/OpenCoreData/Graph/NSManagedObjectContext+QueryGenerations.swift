import Foundation

/// Query generations: a context pinned to a generation reads the stores as they were when the
/// generation was pinned, whatever other contexts, coordinators or processes save meanwhile.
///
/// As Apple documents ("Accessing data when the store changes", and `NSManagedObjectContext.h`):
/// - ``setQueryGenerationFrom(_:)`` with ``NSQueryGenerationToken/current`` pins the context
///   lazily, at its next read (fetch, count, fault); with another context's token, to that
///   context's generation; with `nil`, unpins it.
/// - A pinned context moves to the newest generation (pinned again at its next read) when it
///   saves, on `reset()`, and when it merges changes (`mergeChanges(fromContextDidSave:)`,
///   `mergeChanges(fromRemoteContextSave:into:)`, ``automaticallyMergesChangesFromParent``).
///   Saving is never done at a generation: conflicts are checked against the newest rows.
/// - Registered objects are not refreshed when the generation changes; `refreshAllObjects()`
///   or a new fetch reads them at the new one.
/// - Child contexts read through their parent, so they see the parent's generation; their
///   ``queryGenerationToken`` is `nil`.
/// - Only SQLite stores in WAL journal mode pin; other stores (and a SQLite store in another
///   journal mode) are read unpinned ("your contexts gracefully revert to unpinned behavior").
///
/// How a SQLite generation is pinned (one open read connection per live generation and store)
/// is in `SQLiteStore+QueryGeneration.swift`.
extension NSManagedObjectContext {
    /// The token of the query generation the context reads, or `nil` when it is not pinned.
    ///
    /// `nil` too for a child context, for a context pinned to ``NSQueryGenerationToken/current``
    /// that has not read since (it pins at its next read), and when none of the coordinator's
    /// stores can pin a generation.
    /// Differs from Apple: not `open` (declared in an extension).
    public var queryGenerationToken: NSQueryGenerationToken? {
        checkConcurrency("queryGenerationToken")
        guard parentBacking == nil, let generation = generationBacking?.generation, generation.pinsAnyStore else { return nil }
        return NSQueryGenerationToken(kind: .generation(generation))
    }

    /// Sets the query generation the context reads: `nil` unpins it,
    /// ``NSQueryGenerationToken/current`` pins it to the newest generation at its next read, and
    /// another context's ``queryGenerationToken`` pins it to that context's generation.
    ///
    /// Throws `NSPersistentStoreOperationError` (134070) for a token of another coordinator, a
    /// token whose generation no longer exists (an unarchived one), or one that pinned a store
    /// since removed from the coordinator (Apple: "May partially fail if one or more stores
    /// being tracked by the token are removed"). Throws `NSCoreDataError` (134060) on a child
    /// context (Apple: "It is a programmer error to try to set the queryGenerationToken on a
    /// child context") and on a context without a coordinator. On error the context keeps its
    /// generation.
    /// Differs from Apple: not `open` (declared in an extension).
    public func setQueryGenerationFrom(_ generation: NSQueryGenerationToken?) throws {
        checkConcurrency("setQueryGenerationFrom(_:)")
        if parentBacking != nil {
            throw NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError, userInfo: [
                NSLocalizedDescriptionKey: "setQueryGenerationFrom(_:): context \(name ?? "") is a child context; it reads its parent's query generation and can't be pinned itself.",
            ])
        }
        guard let token = generation else {
            generationBacking = nil
            return
        }
        guard let coordinator = coordinatorStorage else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError, userInfo: [
                NSLocalizedDescriptionKey: "setQueryGenerationFrom(_:): context \(name ?? "") has no persistent store coordinator to read a query generation of.",
            ])
        }
        if case .current = token.kind {
            generationBacking = QueryGenerationBacking(coordinator: coordinator, generation: nil)
            return
        }
        guard let pinned = token.generation else {
            throw PersistentStoreErrors.make(NSPersistentStoreOperationError,
                "setQueryGenerationFrom(_:): \(token) names a query generation that no longer exists (a token only names a generation of its own process while a context or token refers to it).")
        }
        guard pinned.coordinator === coordinator else {
            throw PersistentStoreErrors.make(NSPersistentStoreOperationError,
                "setQueryGenerationFrom(_:): \(token) is a query generation of another persistent store coordinator than context \(name ?? "")'s.",
                stores: pinned.stores)
        }
        let removed = pinned.stores.filter { store in !coordinator.persistentStores.contains { $0 === store } }
        guard removed.isEmpty else {
            throw PersistentStoreErrors.make(NSPersistentStoreOperationError,
                "setQueryGenerationFrom(_:): \(token) pinned \(removed.map(PersistentStoreErrors.name(of:)).joined(separator: ", ")), no longer in the coordinator.",
                stores: removed)
        }
        generationBacking = QueryGenerationBacking(coordinator: coordinator, generation: pinned)
    }
}
