/// The result of an ``NSBatchDeleteRequest``: `true`, the deleted IDs or their count, by the
/// request's ``NSBatchDeleteRequest/resultType``.
open class NSBatchDeleteResult: NSPersistentStoreResult, @unchecked Sendable {
    /// `Bool`, `[NSManagedObjectID]` or `Int`.
    open private(set) var result: Any?
    /// The kind of ``result``.
    open private(set) var resultType: NSBatchDeleteRequestResultType

    init(resultType: NSBatchDeleteRequestResultType, outcome: StoreBatchOutcome) {
        self.resultType = resultType
        switch resultType {
        case .resultTypeStatusOnly: result = true
        case .resultTypeObjectIDs: result = outcome.objectIDs ?? []
        case .resultTypeCount: result = outcome.count
        }
    }
}

/// The result of an ``NSBatchUpdateRequest``: `true`, the updated IDs or their count, by the
/// request's ``NSBatchUpdateRequest/resultType``.
open class NSBatchUpdateResult: NSPersistentStoreResult, @unchecked Sendable {
    /// `Bool`, `[NSManagedObjectID]` or `Int`.
    open private(set) var result: Any?
    /// The kind of ``result``.
    open private(set) var resultType: NSBatchUpdateRequestResultType

    init(resultType: NSBatchUpdateRequestResultType, outcome: StoreBatchOutcome) {
        self.resultType = resultType
        switch resultType {
        case .statusOnlyResultType: result = true
        case .updatedObjectIDsResultType: result = outcome.objectIDs ?? []
        case .updatedObjectsCountResultType: result = outcome.count
        }
    }
}

/// The result of an ``NSBatchInsertRequest``: `true`, the written IDs or their count, by the
/// request's ``NSBatchInsertRequest/resultType``.
open class NSBatchInsertResult: NSPersistentStoreResult, @unchecked Sendable {
    /// `Bool`, `[NSManagedObjectID]` or `Int`.
    open private(set) var result: Any?
    /// The kind of ``result``.
    open private(set) var resultType: NSBatchInsertRequestResultType

    /// The written IDs when the store returned them, whatever the result type.
    let writtenIDs: [NSManagedObjectID]?

    init(resultType: NSBatchInsertRequestResultType, outcome: StoreBatchOutcome) {
        self.resultType = resultType
        writtenIDs = outcome.objectIDs
        switch resultType {
        case .statusOnly: result = true
        case .objectIDs: result = outcome.objectIDs ?? []
        case .count: result = outcome.count
        }
    }
}

/// What a store's batch operation wrote: how many objects, and their IDs when asked for.
public struct StoreBatchOutcome: @unchecked Sendable {
    /// The number of objects written.
    public var count: Int
    /// The objects written, in order, when the caller asked for them.
    public var objectIDs: [NSManagedObjectID]?
    /// Objects the batch changed besides those it was asked to write: the destinations a
    /// batch delete's nullify rule rewrote.
    public var updatedObjectIDs: [NSManagedObjectID]

    public init(count: Int, objectIDs: [NSManagedObjectID]?, updatedObjectIDs: [NSManagedObjectID] = []) {
        self.count = count
        self.objectIDs = objectIDs
        self.updatedObjectIDs = updatedObjectIDs
    }
}
