import Foundation
import GRDB

/// Reading and deleting persistent history (``SQLiteStore/recordHistory(_:db:)`` writes it).
/// Rows are read by column name, so stores whose `…TS` columns Apple added later read alike;
/// the inline `ZAUTHOR`… columns of older stores are read where the `…TS` ones are empty.
extension SQLiteStore {
    func readHistory(from first: Int64?, after date: Date?, withChanges: Bool) throws -> [NSPersistentHistoryTransaction] {
        try historyTablesExist()
        return try openDatabase().read { db in
            // A store opened read-only with the key may never have had history written.
            guard try db.tableExists("ATRANSACTION") else { return [] }
            var conditions: [String] = []
            var arguments: [DatabaseValueConvertible] = []
            if let first { conditions.append("t.Z_PK >= ?"); arguments.append(first) }
            if let date { conditions.append("t.ZTIMESTAMP > ?"); arguments.append(date.timeIntervalSinceReferenceDate) }
            let names = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('ATRANSACTION')").map { $0.uppercased() })
            func string(_ column: String) -> String {
                let inline = names.contains("Z\(column)") ? "t.Z\(column)" : "NULL"
                return names.contains("Z\(column)TS")
                    ? "COALESCE((SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = t.Z\(column)TS), \(inline))" : inline
            }
            let sql = """
                SELECT t.Z_PK, t.ZTIMESTAMP, \(string("AUTHOR")), \(string("BUNDLEID")), \(string("CONTEXTNAME")), \(string("PROCESSID")) \
                FROM ATRANSACTION t\(conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")) ORDER BY t.Z_PK
                """
            var transactions: [NSPersistentHistoryTransaction] = []
            var byNumber: [Int64: NSPersistentHistoryTransaction] = [:]
            for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) {
                let transaction = NSPersistentHistoryTransaction(
                    timestamp: Date(timeIntervalSinceReferenceDate: row[1] ?? 0), transactionNumber: row[0],
                    storeID: identifier ?? "", bundleID: row[3] ?? "", processID: row[5] ?? "", contextName: row[4], author: row[2])
                transactions.append(transaction)
                byNumber[transaction.transactionNumber] = transaction
            }
            guard withChanges, let firstNumber = transactions.first?.transactionNumber else { return transactions }
            for transaction in transactions { transaction.changes = [] }
            let changeColumns = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('ACHANGE')").map { $0.uppercased() })
            let tombstoneColumns = (0..<100).map { "ZTOMBSTONE\($0)" }.prefix { changeColumns.contains($0) }
            let changeSQL = """
                SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneColumns.map { ", " + $0 }.joined()) \
                FROM ACHANGE WHERE ZTRANSACTIONID >= ? ORDER BY Z_PK
                """
            for row in try Row.fetchAll(db, sql: changeSQL, arguments: [firstNumber]) {
                let transactionID: Int64 = row[4] ?? 0
                guard let transaction = byNumber[transactionID], let change = try historyChange(row, tombstoneColumns: tombstoneColumns.count) else { continue }
                change.transaction = transaction
                transaction.changes?.append(change)
            }
            return transactions
        }
    }

    /// The change of one `ACHANGE` row, nil for a row of an entity the model does not have.
    private func historyChange(_ row: Row, tombstoneColumns: Int) throws -> NSPersistentHistoryChange? {
        let number: Int64 = row[2] ?? 0
        guard let mapping = schema.entity(number: number), let entity = managedObjectModel?.entitiesByName[mapping.name],
              let type = NSPersistentHistoryChangeType(rawValue: row[1] ?? -1) else { return nil }
        let objectID = NSManagedObjectID(entity: entity, store: self, primaryKey: row[3] ?? 0)
        var updated: Set<NSPropertyDescription>?
        if type == .update, let mask: Data = row[5] {
            let names = Self.properties(in: mask, of: historyColumnProperties(of: entity, number: number)) ?? []
            updated = Set(names.compactMap { entity.propertiesByName[$0] })
        }
        var tombstone: [AnyHashable: Any]?
        if type == .delete {
            var values: [AnyHashable: Any] = [:]
            for (slot, attribute) in Self.tombstoneAttributes(of: entity).enumerated() where slot < tombstoneColumns {
                let stored: DatabaseValue = row[6 + slot]
                guard !stored.isNull, let column = attributeColumn(attribute.name, of: entity, number: number),
                      let value = try? SQLiteValueCoding.value(stored, column: column) else { continue }
                values[attribute.name] = value
            }
            tombstone = values
        }
        return NSPersistentHistoryChange(changeID: row[0], changedObjectID: objectID, changeType: type,
                                         tombstone: tombstone, updatedProperties: updated)
    }

    func removeHistory(through last: Int64?, before date: Date?) throws -> Int {
        try historyTablesExist()
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        var conditions: [String] = []
        var arguments: [DatabaseValueConvertible] = []
        if let last { conditions.append("Z_PK <= ?"); arguments.append(last) }
        if let date { conditions.append("ZTIMESTAMP < ?"); arguments.append(date.timeIntervalSinceReferenceDate) }
        let condition = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return try openDatabase().write { db in
            // The CHANGES relationship cascades: a transaction's changes go with it.
            try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION\(condition))",
                           arguments: StatementArguments(arguments))
            try db.execute(sql: "DELETE FROM ATRANSACTION\(condition)", arguments: StatementArguments(arguments))
            return db.changesCount
        }
    }

    func newestHistoryTransactionNumber() throws -> Int64 {
        try historyTablesExist()
        return try openDatabase().read { db in
            try db.tableExists("ATRANSACTION") ? Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION") ?? 0 : 0
        }
    }

    /// Throws 134091 unless the store was opened with `NSPersistentHistoryTrackingKey`.
    private func historyTablesExist() throws {
        guard recordsPersistentHistory else {
            throw PersistentStoreErrors.make(NSPersistentStoreUnsupportedRequestTypeError,
                "The \(PersistentStoreErrors.name(of: self)) was not opened with NSPersistentHistoryTrackingKey, so it has no history to read.",
                stores: [self], url: url)
        }
    }
}
