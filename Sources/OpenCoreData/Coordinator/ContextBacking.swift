/// What a context fetches from and saves into: the coordinator, or a parent context
/// (DESIGN, "One backing protocol"). The context speaks only snapshots and IDs to it, so the
/// object graph is the same whether its "store" is a coordinator or another context.
protocol ContextBacking: AnyObject {
    /// Runs a fetch (the request's entity and predicate already in store form).
    func executeFetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult

    /// The current snapshots of the given objects (past caches when `fresh`, else from cached
    /// data no older than `maxAge` seconds, any age when negative); unknown IDs have no entry.
    func snapshots(for objectIDs: [NSManagedObjectID], fresh: Bool,
                   maxAge: TimeInterval) throws -> SnapshotsByID

    /// ``snapshots(for:fresh:maxAge:)`` (not `fresh`) for a batch of a `fetchBatchSize` result,
    /// which stores may leave out of their row caches
    /// (``NSPersistentStore/walkSnapshots(for:maxAge:)``). Only the coordinator tells
    /// them; a parent context reads the batch as any other snapshots.
    func walkSnapshots(for objectIDs: [NSManagedObjectID], maxAge: TimeInterval) throws -> SnapshotsByID

    /// A hint that ``walkSnapshots(for:maxAge:)`` will soon be asked for exactly `objectIDs`
    /// (the next batch of a `fetchBatchSize` walk). Only the coordinator passes it on, to the
    /// stores (``NSPersistentStore/readAhead(_:)``).
    func readAhead(_ objectIDs: ArraySlice<NSManagedObjectID>)

    /// The destinations of a to-many relationship a snapshot did not carry.
    func relatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID) throws -> [NSManagedObjectID]

    /// Permanent IDs for new objects, one per entry, in order; `temporaryIDs` are the objects'
    /// current IDs, so that a parent context can give its own objects the same permanent IDs.
    func permanentObjectIDs(for objects: [(entity: NSEntityDescription, store: NSPersistentStore?)],
                            replacing temporaryIDs: [NSManagedObjectID]) throws -> [NSManagedObjectID]

    /// Saves changes all or nothing. `read` holds the snapshot the saving context last read of
    /// each updated or deleted object; conflicts fail with `NSManagedObjectMergeError` (133020)
    /// listing one ``NSMergeConflict`` per object.
    func save(_ changes: StoreSaveChanges, read: [NSManagedObjectID: ObjectSnapshot]) throws
}

extension ContextBacking {
    func walkSnapshots(for objectIDs: [NSManagedObjectID], maxAge: TimeInterval) throws -> SnapshotsByID {
        try snapshots(for: objectIDs, fresh: false, maxAge: maxAge)
    }

    func readAhead(_ objectIDs: ArraySlice<NSManagedObjectID>) {}
}

extension NSPersistentStoreCoordinator: ContextBacking {
    func walkSnapshots(for objectIDs: [NSManagedObjectID], maxAge: TimeInterval) throws -> SnapshotsByID {
        try snapshots(for: objectIDs, fresh: false, maxAge: maxAge, at: nil, walking: true)
    }

    func permanentObjectIDs(for objects: [(entity: NSEntityDescription, store: NSPersistentStore?)],
                            replacing temporaryIDs: [NSManagedObjectID]) throws -> [NSManagedObjectID] {
        try permanentObjectIDs(for: objects)
    }

    /// The stores check versions themselves (`Z_OPT`, or the atomic stores' versions carried by
    /// the snapshots), so `read` is not needed here.
    func save(_ changes: StoreSaveChanges, read: [NSManagedObjectID: ObjectSnapshot]) throws {
        try save(changes)
    }
}

/// The backing of a root context pinned to a query generation: reads go to the coordinator at
/// the generation, saves and IDs as for any root context. The generation is pinned lazily, at
/// the first read after ``NSManagedObjectContext/setQueryGenerationFrom(_:)`` with
/// ``NSQueryGenerationToken/current`` (or after a save, reset or merge advanced it), as Apple's.
///
/// Context state: used only on the context's queue, like the rest of the context. The
/// generation itself is shared with other contexts and tokens (it is `Sendable`).
final class QueryGenerationBacking: ContextBacking {
    let coordinator: NSPersistentStoreCoordinator
    /// The generation read, or `nil` until the next read pins the newest one.
    private(set) var generation: QueryGeneration?

    init(coordinator: NSPersistentStoreCoordinator, generation: QueryGeneration?) {
        self.coordinator = coordinator
        self.generation = generation
    }

    /// The generation reads use, pinned now when it is not yet.
    func pinned() throws -> QueryGeneration {
        if let generation { return generation }
        let new = try coordinator.newQueryGeneration()
        generation = new
        return new
    }

    /// Lets go of the generation: the next read pins the newest one.
    func advance() {
        generation = nil
    }

    func executeFetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult {
        try coordinator.executeFetch(request, at: pinned())
    }

    func snapshots(for objectIDs: [NSManagedObjectID], fresh: Bool,
                   maxAge: TimeInterval) throws -> SnapshotsByID {
        try coordinator.snapshots(for: objectIDs, fresh: fresh, maxAge: maxAge, at: pinned())
    }

    func walkSnapshots(for objectIDs: [NSManagedObjectID], maxAge: TimeInterval) throws -> SnapshotsByID {
        try coordinator.snapshots(for: objectIDs, fresh: false, maxAge: maxAge, at: pinned(), walking: true)
    }

    func relatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID) throws -> [NSManagedObjectID] {
        try coordinator.relatedObjectIDs(for: relationship, of: objectID, at: pinned())
    }

    func prefetch(_ relationship: NSRelationshipDescription, for sourceIDs: [NSManagedObjectID],
                  sourcesCoverEntity: Bool) throws -> RelationshipPrefetch {
        try coordinator.prefetch(relationship, for: sourceIDs, sourcesCoverEntity: sourcesCoverEntity, at: pinned())
    }

    func permanentObjectIDs(for objects: [(entity: NSEntityDescription, store: NSPersistentStore?)],
                            replacing temporaryIDs: [NSManagedObjectID]) throws -> [NSManagedObjectID] {
        try coordinator.permanentObjectIDs(for: objects)
    }

    /// Saves are not made at a generation (Apple: "Query generations are for fetched data
    /// only"): conflicts are checked against the newest rows.
    func save(_ changes: StoreSaveChanges, read: [NSManagedObjectID: ObjectSnapshot]) throws {
        try coordinator.save(changes)
    }
}
