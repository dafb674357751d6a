import Foundation

/// What an ``NSPersistentHistoryChangeRequest`` returns in ``NSPersistentHistoryResult/result``.
/// Apple's raw values.
public enum NSPersistentHistoryResultType: Int, Sendable {
    /// `true`.
    case statusOnly = 0
    /// The IDs of the changed objects (`[NSManagedObjectID]`), oldest change first.
    case objectIDs = 1
    /// The number of transactions (`Int`); for a delete, the number deleted.
    case count = 2
    /// The transactions, without their changes.
    case transactionsOnly = 3
    /// The changes (`[NSPersistentHistoryChange]`), oldest first.
    case changesOnly = 4
    /// The transactions with their changes.
    case transactionsAndChanges = 5
}

/// Fetches or deletes persistent history: the transactions after a token, a date or a
/// transaction, or those a fetch request on ``NSPersistentHistoryTransaction/fetchRequest`` or
/// ``NSPersistentHistoryChange/fetchRequest`` matches (its predicate over `author`,
/// `contextName`, `timestamp`, `bundleID`, `processID`, `transactionNumber`, or for changes
/// `changeType`, `changedEntity`, `changeID`). Run with `execute(_:)` on a context.
///
/// A store opened without `NSPersistentHistoryTrackingKey` refuses it with
/// `NSPersistentStoreUnsupportedRequestTypeError` (134091). As in Apple, only the SQLite store
/// records history. Differs from Apple: a fetch request's sort descriptors are ignored (history
/// comes oldest first).
open class NSPersistentHistoryChangeRequest: NSPersistentStoreRequest {
    enum Operation {
        case fetch(HistoryBound)
        case delete(HistoryBound)
    }

    let operation: Operation
    /// What ``NSPersistentHistoryResult/result`` holds.
    open var resultType: NSPersistentHistoryResultType = .transactionsAndChanges
    /// The token the request starts after (or deletes before), if it was made with one.
    open var token: NSPersistentHistoryToken? {
        switch operation {
        case .fetch(.token(let token)), .delete(.token(let token)): token
        default: nil
        }
    }
    /// The fetch request the request was made with, if any.
    open var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        if case .fetch(.fetchRequest(let request)) = operation { return request }
        return nil
    }

    init(_ operation: Operation) {
        self.operation = operation
        super.init()
    }

    /// The transactions after `date`.
    open class func fetchHistory(after date: Date) -> NSPersistentHistoryChangeRequest { .init(.fetch(.date(date))) }
    /// The transactions after `token` (all of them for `nil`).
    open class func fetchHistory(after token: NSPersistentHistoryToken?) -> NSPersistentHistoryChangeRequest { .init(.fetch(token.map { .token($0) } ?? .all)) }
    /// The transactions after `transaction` (all of them for `nil`).
    open class func fetchHistory(after transaction: NSPersistentHistoryTransaction?) -> NSPersistentHistoryChangeRequest {
        .init(.fetch(transaction.map { .token($0.token) } ?? .all))
    }
    /// The transactions (or changes) `fetchRequest` matches.
    open class func fetchHistory(withFetch fetchRequest: NSFetchRequest<NSFetchRequestResult>) -> NSPersistentHistoryChangeRequest {
        .init(.fetch(.fetchRequest(fetchRequest)))
    }
    /// Deletes the transactions before `date`.
    open class func deleteHistory(before date: Date) -> NSPersistentHistoryChangeRequest { .init(.delete(.date(date))) }
    /// Deletes the transactions up to `token` (included: the token names the last one seen).
    open class func deleteHistory(before token: NSPersistentHistoryToken?) -> NSPersistentHistoryChangeRequest { .init(.delete(token.map { .token($0) } ?? .all)) }
    /// Deletes the transactions before `transaction` (that one stays).
    open class func deleteHistory(before transaction: NSPersistentHistoryTransaction?) -> NSPersistentHistoryChangeRequest {
        .init(.delete(transaction.map { .before($0.storeID, $0.transactionNumber) } ?? .all))
    }

    open override var requestType: NSPersistentStoreRequestType { .fetchRequestType }
}

/// Where a history request starts or stops.
enum HistoryBound {
    /// Every transaction.
    case all
    /// After the token's transaction (fetch), or up to it (delete).
    case token(NSPersistentHistoryToken)
    /// After the date (fetch), or before it (delete).
    case date(Date)
    /// Before one store's transaction number (delete).
    case before(String, Int64)
    /// What the fetch request's predicate matches.
    case fetchRequest(NSFetchRequest<NSFetchRequestResult>)

    /// The first transaction number of `store` the bound takes (fetch), or `nil` for no limit.
    func firstNumber(in storeID: String) -> Int64? {
        switch self {
        case .token(let token): return token.transactionNumbers[storeID].map { $0 + 1 }
        default: return nil
        }
    }
}

/// The result of an ``NSPersistentHistoryChangeRequest``.
open class NSPersistentHistoryResult: NSPersistentStoreResult, @unchecked Sendable {
    /// `Bool`, `Int`, `[NSManagedObjectID]`, `[NSPersistentHistoryTransaction]` or `[NSPersistentHistoryChange]`.
    open private(set) var result: Any?
    /// The kind of ``result``.
    open private(set) var resultType: NSPersistentHistoryResultType

    init(resultType: NSPersistentHistoryResultType, result: Any?) {
        self.resultType = resultType
        self.result = result
    }
}

extension NSPersistentHistoryTransaction {
    /// The entity a history fetch request names for transactions.
    public static let entityDescription = HistoryFetching.entity("NSPersistentHistoryTransaction")

    /// A fetch request for transactions, for ``NSPersistentHistoryChangeRequest/fetchHistory(withFetch:)``.
    public static var fetchRequest: NSFetchRequest<NSFetchRequestResult> { HistoryFetching.request(entityDescription) }
}

extension NSPersistentHistoryChange {
    /// The entity a history fetch request names for changes.
    public static let entityDescription = HistoryFetching.entity("NSPersistentHistoryChange")

    /// A fetch request for changes, for ``NSPersistentHistoryChangeRequest/fetchHistory(withFetch:)``.
    public static var fetchRequest: NSFetchRequest<NSFetchRequestResult> { HistoryFetching.request(entityDescription) }
}

/// The stand-in entities history fetch requests name.
enum HistoryFetching {
    static func entity(_ name: String) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        return entity
    }

    static func request(_ entity: NSEntityDescription) -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = entity
        return request
    }
}
