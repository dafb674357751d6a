/// What an ``NSBatchDeleteRequest`` returns in ``NSBatchDeleteResult/result``. Apple's raw values.
public enum NSBatchDeleteRequestResultType: UInt, Sendable {
    /// `true` when the delete succeeded.
    case resultTypeStatusOnly = 0
    /// The IDs of the deleted objects (`[NSManagedObjectID]`).
    case resultTypeObjectIDs = 1
    /// The number of deleted objects (`Int`).
    case resultTypeCount = 2
}

/// Deletes the objects a fetch request matches (or the given objects) in the store, without
/// loading them into a context.
///
/// As in Apple: validation does not run; contexts are not told (merge the deleted IDs with
/// ``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``); delete rules are
/// applied as Apple's SQLite triggers apply them: cascade and nullify are honoured, no action
/// leaves the destinations alone, a nullify whose inverse is mandatory fails the whole request,
/// and a deny rule fails it up front with `NSCoreDataError` (134060).
///
/// Differs from Apple: every store type runs batch deletes (Apple's only SQLite), and with
/// ``NSBatchDeleteRequestResultType/resultTypeObjectIDs`` or a count, objects deleted by a
/// cascade are reported too, so that merging the IDs leaves no context holding them. Derived
/// attributes that counted the deleted objects (`posts.@count`) are recomputed in a save right
/// after the delete, where Apple's triggers recompute them in the delete's own transaction.
open class NSBatchDeleteRequest: NSPersistentStoreRequest {
    /// The fetch whose matches are deleted.
    public let fetchRequest: NSFetchRequest<NSFetchRequestResult>
    /// The objects to delete, when created with ``init(objectIDs:)``.
    let objectIDs: [NSManagedObjectID]?
    /// What ``NSBatchDeleteResult/result`` holds.
    open var resultType: NSBatchDeleteRequestResultType = .resultTypeStatusOnly

    /// A request deleting what `fetch` matches (its entity, predicate, `includesSubentities`,
    /// sort, offset and limit).
    public init(fetchRequest fetch: NSFetchRequest<NSFetchRequestResult>) {
        fetchRequest = fetch
        objectIDs = nil
        super.init()
    }

    /// A request deleting the objects with `objects`, which must all be of one entity.
    public init(objectIDs objects: [NSManagedObjectID]) {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = objects.first?.entity
        fetchRequest = request
        objectIDs = objects
        super.init()
    }

    open override var requestType: NSPersistentStoreRequestType { .batchDeleteRequestType }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = objectIDs.map { NSBatchDeleteRequest(objectIDs: $0) }
            ?? NSBatchDeleteRequest(fetchRequest: fetchRequest)
        copy.resultType = resultType
        copy.affectedStores = affectedStores
        return copy
    }
}
