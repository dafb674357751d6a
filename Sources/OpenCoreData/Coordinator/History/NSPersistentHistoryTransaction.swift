import Foundation

/// The kind of change a history change records. Apple's raw values (`ZCHANGETYPE`).
public enum NSPersistentHistoryChangeType: Int, Sendable {
    case insert = 0
    case update = 1
    case delete = 2
}

/// One save (or batch request) recorded in a store's persistent history: when, by whom, and
/// the objects it changed.
// @unchecked Sendable: immutable once the store has read it (`changes` is set before it is returned).
open class NSPersistentHistoryTransaction: NSObject, @unchecked Sendable {
    /// When the transaction was written.
    open private(set) var timestamp: Date
    /// The changes, when the request asked for them.
    open package(set) var changes: [NSPersistentHistoryChange]?
    /// The transaction's number in its store (`ATRANSACTION.Z_PK`).
    open private(set) var transactionNumber: Int64
    /// The identifier of the store that recorded it.
    open private(set) var storeID: String
    /// The bundle identifier of the writing program.
    open private(set) var bundleID: String
    /// The writing process's name.
    open private(set) var processID: String
    /// The saving context's `name`.
    open private(set) var contextName: String?
    /// The saving context's `transactionAuthor`.
    open private(set) var author: String?

    package init(timestamp: Date, transactionNumber: Int64, storeID: String, bundleID: String, processID: String,
         contextName: String?, author: String?) {
        self.timestamp = timestamp
        self.transactionNumber = transactionNumber
        self.storeID = storeID
        self.bundleID = bundleID
        self.processID = processID
        self.contextName = contextName
        self.author = author
        super.init()
    }

    /// The token just after this transaction, for `fetchHistory(after:)`.
    open var token: NSPersistentHistoryToken {
        NSPersistentHistoryToken(transactionNumbers: [storeID: transactionNumber])
    }

    /// A `NSManagedObjectContextDidSave`-shaped notification whose user info lists the changed
    /// objects' IDs (`inserted`, `updated`, `deleted`), for `mergeChanges(fromContextDidSave:)`.
    open func objectIDNotification() -> Notification {
        var inserted: Set<NSManagedObjectID> = [], updated: Set<NSManagedObjectID> = [], deleted: Set<NSManagedObjectID> = []
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: inserted.insert(change.changedObjectID)
            case .update: updated.insert(change.changedObjectID)
            case .delete: deleted.insert(change.changedObjectID)
            }
        }
        return Notification(name: .NSManagedObjectContextDidSave, object: self, userInfo: [
            NSInsertedObjectIDsKey: inserted, NSUpdatedObjectIDsKey: updated, NSDeletedObjectIDsKey: deleted,
        ])
    }

    /// The transaction's values by key, for evaluating a history fetch request's predicate.
    var keyedValues: [String: Any] {
        var values: [String: Any] = ["timestamp": timestamp, "transactionNumber": transactionNumber, "storeID": storeID,
                                     "bundleID": bundleID, "processID": processID]
        if let contextName { values["contextName"] = contextName }
        if let author { values["author"] = author }
        return values
    }

    open override var description: String {
        "<NSPersistentHistoryTransaction \(transactionNumber) at \(timestamp), author \(author ?? "nil"), context \(contextName ?? "nil"), \(changes.map { "\($0.count) changes" } ?? "changes not fetched")>"
    }
}

/// One object's change in a history transaction.
// @unchecked Sendable: immutable once the store has read it.
open class NSPersistentHistoryChange: NSObject, @unchecked Sendable {
    /// The change's number in its store (`ACHANGE.Z_PK`).
    open private(set) var changeID: Int64
    /// The changed object.
    open private(set) var changedObjectID: NSManagedObjectID
    /// Insert, update or delete.
    open private(set) var changeType: NSPersistentHistoryChangeType
    /// For a delete: the values of the attributes marked `preservesValueInHistoryOnDeletion`.
    open private(set) var tombstone: [AnyHashable: Any]?
    /// The transaction the change belongs to.
    open package(set) weak var transaction: NSPersistentHistoryTransaction?
    /// For an update: the properties it changed.
    open private(set) var updatedProperties: Set<NSPropertyDescription>?

    package init(changeID: Int64, changedObjectID: NSManagedObjectID, changeType: NSPersistentHistoryChangeType,
         tombstone: [AnyHashable: Any]?, updatedProperties: Set<NSPropertyDescription>?) {
        self.changeID = changeID
        self.changedObjectID = changedObjectID
        self.changeType = changeType
        self.tombstone = tombstone
        self.updatedProperties = updatedProperties
        super.init()
    }

    /// The change's values by key, for evaluating a history fetch request's predicate.
    var keyedValues: [String: Any] {
        var values: [String: Any] = ["changeID": changeID, "changedObjectID": changedObjectID, "changeType": changeType.rawValue,
                                     "changedEntity": changedObjectID.entity.name ?? ""]
        if let transaction { values["transactionNumber"] = transaction.transactionNumber }
        return values
    }

    open override var description: String {
        "<NSPersistentHistoryChange \(changeID) \(changeType) \(changedObjectID)>"
    }
}
