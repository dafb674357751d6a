/// What an ``NSBatchUpdateRequest`` returns in ``NSBatchUpdateResult/result``. Apple's raw values.
public enum NSBatchUpdateRequestResultType: UInt, Sendable {
    /// `true` when the update succeeded.
    case statusOnlyResultType = 0
    /// The IDs of the updated objects (`[NSManagedObjectID]`).
    case updatedObjectIDsResultType = 1
    /// The number of updated objects (`Int`).
    case updatedObjectsCountResultType = 2
}

/// Sets attributes of every object matching a predicate in the store, without loading them
/// into a context.
///
/// ``propertiesToUpdate`` maps attribute names (or ``NSAttributeDescription``s) to constants
/// or ``NSExpression``s, which are evaluated per object against its stored values (`views + 1`).
/// As in Apple: relationships can't be set, validation does not run, each updated object's
/// version (`Z_OPT`) goes up so contexts holding it see a conflict, and contexts are not told
/// (merge the updated IDs); derived attributes that read the updated objects are recomputed
/// afterwards (Apple's SQLite triggers do it in the same transaction; here a second save does).
/// Differs from Apple: every store type runs batch updates.
open class NSBatchUpdateRequest: NSPersistentStoreRequest {
    /// The name of the entity to update.
    public let entityName: String
    /// The entity, when given at creation (else resolved through the coordinator's model).
    public private(set) var entity: NSEntityDescription?
    /// Which objects to update; `nil` updates every object.
    open var predicate: NSPredicate?
    /// Whether objects of subentities are updated too. Defaults to `true`.
    open var includesSubentities = true
    /// What ``NSBatchUpdateResult/result`` holds.
    open var resultType: NSBatchUpdateRequestResultType = .statusOnlyResultType
    /// The new values: attribute names (or descriptions) to constants or expressions.
    open var propertiesToUpdate: [AnyHashable: Any]?

    /// A request updating objects of the entity named `entityName`.
    public required init(entityName: String) {
        self.entityName = entityName
        super.init()
    }

    /// A request updating objects of `entity`.
    public init(entity: NSEntityDescription) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        super.init()
    }

    /// Apple's class constructor.
    open class func batchUpdateRequest(entityName: String) -> Self {
        Self(entityName: entityName)
    }

    open override var requestType: NSPersistentStoreRequestType { .batchUpdateRequestType }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = entity.map { NSBatchUpdateRequest(entity: $0) } ?? NSBatchUpdateRequest(entityName: entityName)
        copy.predicate = predicate
        copy.includesSubentities = includesSubentities
        copy.resultType = resultType
        copy.propertiesToUpdate = propertiesToUpdate
        copy.affectedStores = affectedStores
        return copy
    }
}
