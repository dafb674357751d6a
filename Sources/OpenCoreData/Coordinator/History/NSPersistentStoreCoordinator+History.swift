import Foundation

/// Running persistent-history requests over the coordinator's stores that record history.
extension NSPersistentStoreCoordinator {
    /// A token for the newest history of `stores` (every store when nil): what
    /// `fetchHistory(after:)` starts after to see only what comes next. Stores that record no
    /// history are left out; nil when none does.
    public func currentPersistentHistoryToken(fromStores stores: [Any]?) -> NSPersistentHistoryToken? {
        withLock {
            let chosen = (stores?.compactMap { $0 as? NSPersistentStore } ?? persistentStores).filter(\.recordsPersistentHistory)
            var numbers: [String: Int64] = [:]
            for store in chosen {
                guard let number = try? store.lastHistoryTransactionNumber() else { continue }
                numbers[store.identifier ?? ""] = number
            }
            return numbers.isEmpty ? nil : NSPersistentHistoryToken(transactionNumbers: numbers)
        }
    }

    func execute(_ request: NSPersistentHistoryChangeRequest) throws -> NSPersistentHistoryResult {
        try withLock {
            let stores = persistentStores.filter { store in request.affectedStores.map { $0.contains { $0 === store } } ?? true }
            guard !stores.isEmpty else {
                throw PersistentStoreErrors.make(NSPersistentStoreUnsupportedRequestTypeError, "There is no store whose persistent history the request could read.")
            }
            switch request.operation {
            case .delete(let bound):
                var deleted = 0
                for store in stores {
                    switch bound {
                    case .all: deleted += try store.deleteHistory(through: nil, before: nil)
                    case .date(let date): deleted += try store.deleteHistory(through: nil, before: date)
                    case .token(let token):
                        guard let last = token.transactionNumbers[store.identifier ?? ""] else { continue }
                        deleted += try store.deleteHistory(through: last, before: nil)
                    case .before(let storeID, let number):
                        guard storeID == store.identifier, number > 1 else { continue }
                        deleted += try store.deleteHistory(through: number - 1, before: nil)
                    case .fetchRequest:
                        continue
                    }
                }
                return NSPersistentHistoryResult(resultType: request.resultType,
                                                 result: request.resultType == .count ? deleted : true)
            case .fetch(let bound):
                let wantsChanges = request.resultType != .transactionsOnly && request.resultType != .count
                    || Self.filtersChanges(bound)
                var transactions: [NSPersistentHistoryTransaction] = []
                for store in stores {
                    let date: Date? = if case .date(let date) = bound { date } else { nil }
                    transactions += try store.historyTransactions(from: bound.firstNumber(in: store.identifier ?? ""), after: date,
                                                                  withChanges: wantsChanges)
                }
                transactions.sort { ($0.timestamp, $0.transactionNumber) < ($1.timestamp, $1.transactionNumber) }
                var changes = transactions.flatMap { $0.changes ?? [] }
                if case .fetchRequest(let fetch) = bound, let predicate = fetch.predicate {
                    if fetch.entityName == NSPersistentHistoryChange.entityDescription.name {
                        changes = changes.filter { predicate.evaluate(with: $0.keyedValues) }
                        let kept = Set(changes.map { ObjectIdentifier($0) })
                        for transaction in transactions { transaction.changes = transaction.changes?.filter { kept.contains(ObjectIdentifier($0)) } }
                        transactions = transactions.filter { !($0.changes?.isEmpty ?? true) }
                    } else {
                        transactions = transactions.filter { predicate.evaluate(with: $0.keyedValues) }
                        changes = transactions.flatMap { $0.changes ?? [] }
                    }
                }
                let result: Any
                switch request.resultType {
                case .statusOnly: result = true
                case .count: result = transactions.count
                case .objectIDs: result = changes.map(\.changedObjectID)
                case .changesOnly: result = changes
                case .transactionsOnly:
                    for transaction in transactions { transaction.changes = nil }
                    result = transactions
                case .transactionsAndChanges: result = transactions
                }
                return NSPersistentHistoryResult(resultType: request.resultType, result: result)
            }
        }
    }

    /// Whether the bound's fetch request filters changes (so they must be read).
    private static func filtersChanges(_ bound: HistoryBound) -> Bool {
        if case .fetchRequest(let fetch) = bound { return fetch.entityName == NSPersistentHistoryChange.entityDescription.name }
        return false
    }
}

extension NSPersistentHistoryChangeRequest: ContextExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        try context.batchCoordinator().execute(self)
    }
}
