/// What a context fetches from and saves into: the coordinator, or a parent context
/// (DESIGN, "One backing protocol"). The context speaks only snapshots and IDs to it, so the
/// object graph is the same whether its "store" is a coordinator or another context.
protocol ContextBacking: AnyObject {
    /// Runs a fetch (the request's entity and predicate already in store form).
    func executeFetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult

    /// The current snapshots of the given objects (past caches when `fresh`, else from cached
    /// data no older than `maxAge` seconds, any age when negative); unknown IDs have no entry.
    func snapshots(for objectIDs: [NSManagedObjectID], fresh: Bool,
                   maxAge: TimeInterval) throws -> [NSManagedObjectID: ObjectSnapshot]

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

extension NSPersistentStoreCoordinator: ContextBacking {
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
