import Foundation

/// What an ``NSBatchInsertRequest`` returns in ``NSBatchInsertResult/result``. Apple's raw values.
public enum NSBatchInsertRequestResultType: UInt, Sendable {
    /// `true` when the insert succeeded.
    case statusOnly = 0
    /// The IDs of the inserted (or upserted) objects (`[NSManagedObjectID]`), in row order.
    case objectIDs = 1
    /// The number of rows written (`Int`).
    case count = 2
}

/// Writes many new objects of one entity straight to the store, without a context.
///
/// The rows come from ``objectsToInsert`` (attribute values by name), from a
/// ``dictionaryHandler`` called with an empty dictionary to fill until it returns `true`, or
/// from a ``managedObjectHandler`` called with a scratch object to set (likewise). As in Apple:
/// only attributes are written (relationships are not), validation does not run, contexts are
/// not told (merge the returned IDs), and a row whose uniqueness-constraint values match a
/// stored row (or an earlier row of the batch) updates that row instead (an upsert: the
/// constraint's own columns stay, the others take the row's values).
///
/// Differs from Apple: every store type runs batch inserts, and a value of the wrong type fails
/// the whole request with `NSManagedObjectValidationError` (1550) naming the row and key instead
/// of being written as given. Derived attributes of the inserted rows are computed afterwards,
/// in a second save (Apple's SQLite triggers compute them in the same transaction).
open class NSBatchInsertRequest: NSPersistentStoreRequest {
    /// The name of the entity to insert.
    public let entityName: String
    /// The entity, when given at creation (else resolved through the coordinator's model).
    public private(set) var entity: NSEntityDescription?
    /// The rows to insert: attribute values by name.
    open var objectsToInsert: [[String: Any]]?
    /// Fills one row per call; returns `true` to stop (that call's row is not inserted).
    open var dictionaryHandler: ((NSMutableDictionary) -> Bool)?
    /// Sets one scratch object per call; returns `true` to stop (that call's object is not inserted).
    open var managedObjectHandler: ((NSManagedObject) -> Bool)?
    /// What ``NSBatchInsertResult/result`` holds.
    open var resultType: NSBatchInsertRequestResultType = .statusOnly

    public init(entityName: String, objects dictionaries: [[String: Any]]) {
        self.entityName = entityName
        objectsToInsert = dictionaries
        super.init()
    }

    public init(entity: NSEntityDescription, objects dictionaries: [[String: Any]]) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        objectsToInsert = dictionaries
        super.init()
    }

    public init(entity: NSEntityDescription, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        dictionaryHandler = handler
        super.init()
    }

    public init(entity: NSEntityDescription, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        managedObjectHandler = handler
        super.init()
    }

    public init(entityName: String, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.entityName = entityName
        dictionaryHandler = handler
        super.init()
    }

    public init(entityName: String, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.entityName = entityName
        managedObjectHandler = handler
        super.init()
    }

    open override var requestType: NSPersistentStoreRequestType { .batchInsertRequestType }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = entity.map { NSBatchInsertRequest(entity: $0, objects: objectsToInsert ?? []) }
            ?? NSBatchInsertRequest(entityName: entityName, objects: objectsToInsert ?? [])
        copy.objectsToInsert = objectsToInsert
        copy.dictionaryHandler = dictionaryHandler
        copy.managedObjectHandler = managedObjectHandler
        copy.resultType = resultType
        copy.affectedStores = affectedStores
        return copy
    }
}
