// PLACEHOLDER, completed by the coordinator work (helper `graph-stores`).
/// Routes the object graph's requests to the persistent stores.
open class NSPersistentStoreCoordinator: NSObject, @unchecked Sendable {
    /// The model of every store of this coordinator. Adding the coordinator freezes it.
    public let managedObjectModel: NSManagedObjectModel

    /// The stores, in the order they were added.
    open private(set) var persistentStores: [NSPersistentStore] = []

    /// Creates a coordinator for `model`, which becomes immutable.
    public init(managedObjectModel model: NSManagedObjectModel) {
        managedObjectModel = model
        super.init()
        model.freeze()
    }

    // MARK: The context's interface (internal; the context is the only caller)

    /// Runs a fetch on the stores the request affects and merges their results.
    func executeFetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult {
        throw NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError)
    }

    /// The current snapshots of the given objects, from their stores.
    func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [NSManagedObjectID: ObjectSnapshot] {
        throw NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError)
    }

    /// The destinations of a to-many relationship of one object, from its store.
    func relatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID) throws -> [NSManagedObjectID] {
        throw NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError)
    }

    /// Permanent IDs for new objects: one per entry, in order, each allocated by `store` when
    /// given (``NSManagedObjectContext/assign(_:to:)``) or else by the first store whose
    /// configuration holds the entity.
    func permanentObjectIDs(for objects: [(entity: NSEntityDescription, store: NSPersistentStore?)]) throws -> [NSManagedObjectID] {
        throw NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError)
    }

    /// Saves changes that may span stores: checks every store first, then saves each, so that
    /// a refused save writes nothing.
    func save(_ changes: StoreSaveChanges) throws {
        throw NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError)
    }
}
