import Foundation
import GRDB

/// Persistent history in Apple's tables: `ATRANSACTION` (one row per save or batch),
/// `ACHANGE` (one row per changed object) and `ATRANSACTIONSTRING` (author, context name, bundle
/// and process names, each stored once), whose entities are numbered 16001 (`CHANGE`), 16002
/// (`TRANSACTION`) and 16003 (`TRANSACTIONSTRING`) in `Z_PRIMARYKEY`.
///
/// Confirmed from Apple-written stores and public documentation: the table and column names and
/// types, the `Z_PRIMARYKEY` rows, `ZCHANGETYPE` (0 insert, 1 update, 2 delete), `ZENTITY`
/// (the row's `Z_ENT`) and `ZENTITYPK`, `ZTIMESTAMP` in seconds since 2001, strings interned
/// through the `…TS` columns, tombstones in `ZTOMBSTONE<n>` columns in the attributes' native
/// column form. Inferred, not confirmed against a store Apple wrote with history (none of our
/// fixtures has any): the index names, and the bit order of `ZCOLUMNS` (the updated
/// properties): here bit *i*, most significant first in each byte, is the *i*-th of the
/// entity's columns in table order, then its to-many relationships by name; tombstone slots go
/// to the entity's `preservesValueInHistoryOnDeletion` attributes by name. Stores we write
/// carry `NSPersistenceMaximumFrameworkVersion` 1344 so that Apple's Core Data does not
/// rebuild the tables it reads as old.
extension SQLiteStore {
    static let historyChangeEntity: Int64 = 16001
    static let historyTransactionEntity: Int64 = 16002
    static let historyStringEntity: Int64 = 16003

    /// Creates the history tables, their `Z_PRIMARYKEY` rows and the tombstone columns the
    /// model needs, where missing (a store opened with `NSPersistentHistoryTrackingKey`).
    func createHistoryTables(_ db: Database) throws {
        // A store that has the tables (Apple wrote them, or we did) keeps them as they are,
        // indexes included; only the tombstone columns the model needs are added.
        if try !db.tableExists("ATRANSACTION") {
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, \
                ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB);
                CREATE TABLE ATRANSACTION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, \
                ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, \
                ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB);
                CREATE TABLE IF NOT EXISTS ATRANSACTIONSTRING (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
                CREATE INDEX IF NOT EXISTS ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID);
                CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC);
                CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC);
                CREATE UNIQUE INDEX IF NOT EXISTS Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC);
                """)
        }
        try db.execute(sql: """
            INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, 0);
            INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16002, 'TRANSACTION', 0, 0);
            INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16003, 'TRANSACTIONSTRING', 0, 0);
            """)
        try Self.addTombstoneColumns(count: historyTombstoneCount, db: db)
    }

    /// The most tombstone attributes any entity of the store has.
    var historyTombstoneCount: Int {
        Self.historyTombstoneCount(schema: schema, model: managedObjectModel)
    }

    /// The most tombstone attributes any entity of `schema` has under `model`.
    static func historyTombstoneCount(schema: SQLiteSchema, model: NSManagedObjectModel?) -> Int {
        schema.entities.compactMap { model?.entitiesByName[$0.name] }.map { tombstoneAttributes(of: $0).count }.max() ?? 0
    }

    /// Adds the `ZTOMBSTONE<n>` columns `ACHANGE` lacks for `count` slots.
    static func addTombstoneColumns(count: Int, db: Database) throws {
        let existing = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('ACHANGE')").map { $0.uppercased() })
        for slot in 0..<count where !existing.contains("ZTOMBSTONE\(slot)") {
            try db.execute(sql: "ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(slot) BLOB")
        }
    }

    /// The attributes whose values a delete keeps in history, in slot order (by name).
    package static func tombstoneAttributes(of entity: NSEntityDescription) -> [NSAttributeDescription] {
        entity.attributesByName.values.filter { $0.preservesValueInHistoryOnDeletion && !$0.isTransient }.sorted { $0.name < $1.name }
    }

    /// The properties whose bits make `ZCOLUMNS` for objects of entity `number`, in bit order.
    func historyColumnProperties(of entity: NSEntityDescription, number: Int64) -> [String] {
        Self.historyColumnProperties(of: entity, number: number, layout: layout(for: entity))
    }

    /// The properties whose bits make `ZCOLUMNS` for objects of entity `number` stored with
    /// `layout`, in bit order.
    static func historyColumnProperties(of entity: NSEntityDescription, number: Int64, layout: SQLiteRowLayout?) -> [String] {
        let fields = layout?.writeFields(number: number).map(\.name) ?? []
        let toMany = entity.relationshipsByName.values.filter(\.isToMany).map(\.name).sorted()
        return fields + toMany
    }

    /// Writes one transaction of `changes` into the history tables, inside the save's transaction.
    func recordHistory(_ changes: StoreSaveChanges, db: Database) throws {
        guard !changes.isEmpty else { return }
        let transaction = try Self.insertHistoryTransaction(author: changes.transactionAuthor, contextName: changes.contextName, db: db)
        let count = changes.inserted.count + changes.updated.count + changes.deleted.count
        var next = try Self.reserveHistoryKeys(Self.historyChangeEntity, count: count, db: db, table: "ACHANGE")
        let tombstoneSlots = historyTombstoneCount
        let tombstoneColumns = (0..<tombstoneSlots).map { ", ZTOMBSTONE\($0)" }.joined()
        let insert = try db.cachedStatement(sql: """
            INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneColumns)) \
            VALUES (?, ?, 1, ?, ?, ?, ?, ?\(String(repeating: ", ?", count: tombstoneSlots)))
            """)
        for (type, snapshots) in [(NSPersistentHistoryChangeType.insert, changes.inserted), (.update, changes.updated), (.delete, changes.deleted)] {
            for snapshot in snapshots {
                let entity = snapshot.objectID.entity
                guard let number = schema.entity(named: entity.name ?? "")?.number else { continue }
                var columns: DatabaseValue = .null
                if type == .update, let keys = changes.changedKeys[snapshot.objectID] {
                    columns = Self.columnMask(historyColumnProperties(of: entity, number: number), keys: keys).databaseValue
                }
                var values: [DatabaseValue] = [next.databaseValue, Self.historyChangeEntity.databaseValue, Int64(type.rawValue).databaseValue,
                                               number.databaseValue, (snapshot.objectID.primaryKey ?? 0).databaseValue,
                                               transaction.databaseValue, columns]
                var tombstones = [DatabaseValue](repeating: .null, count: tombstoneSlots)
                if type == .delete {
                    for (slot, attribute) in Self.tombstoneAttributes(of: entity).enumerated() where slot < tombstoneSlots {
                        guard let column = attributeColumn(attribute.name, of: entity, number: number) else { continue }
                        tombstones[slot] = (try? SQLiteValueCoding.databaseValue(snapshot[attribute.name], column: column)) ?? .null
                    }
                }
                values += tombstones
                try insert.execute(arguments: StatementArguments(values))
                next += 1
            }
        }
    }

    /// The column of attribute `name` of entity `number`.
    func attributeColumn(_ name: String, of entity: NSEntityDescription, number: Int64) -> SQLAttributeColumn? {
        for field in layout(for: entity)?.writeFields(number: number) ?? [] where field.name == name {
            if case .attribute(let column) = field.kind { return column }
        }
        return nil
    }

    /// `ZCOLUMNS` for `keys`: bit *i* (most significant first in each byte) set when
    /// `properties[i]` is among them; nil when none is.
    static func columnMask(_ properties: [String], keys: Set<String>) -> Data? {
        var bytes = [UInt8](repeating: 0, count: (properties.count + 7) / 8)
        var any = false
        for (bit, name) in properties.enumerated() where keys.contains(name) {
            bytes[bit >> 3] |= 0x80 >> UInt8(bit & 7)
            any = true
        }
        return any ? Data(bytes) : nil
    }

    /// The properties a `ZCOLUMNS` mask names, or nil when it is longer than the properties allow.
    static func properties(in mask: Data, of properties: [String]) -> [String]? {
        guard mask.count * 8 <= ((properties.count + 7) / 8) * 8 else { return nil }
        var result: [String] = []
        for (bit, name) in properties.enumerated() where bit >> 3 < mask.count {
            if mask[mask.startIndex + (bit >> 3)] & (0x80 >> UInt8(bit & 7)) != 0 { result.append(name) }
        }
        return result
    }

    /// Inserts a transaction row, now, by this process; returns its `Z_PK`.
    static func insertHistoryTransaction(author: String?, contextName: String?, db: Database) throws -> Int64 {
        let process = ProcessInfo.processInfo.processName
        let bundle = Bundle.main.bundleIdentifier ?? process
        let ids = try [author, bundle, contextName, process].map { name in try name.map { try internHistoryString($0, db: db) } }
        let transaction = try reserveHistoryKeys(historyTransactionEntity, count: 1, db: db, table: "ATRANSACTION")
        try db.execute(sql: """
            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) \
            VALUES (?, ?, 1, ?, ?, ?, ?, ?)
            """, arguments: [transaction, historyTransactionEntity, ids[0], ids[1], ids[2], ids[3],
                             Date().timeIntervalSinceReferenceDate])
        return transaction
    }

    /// The `Z_PK` of `name` in `ATRANSACTIONSTRING`, inserting it when new.
    private static func internHistoryString(_ name: String, db: Database) throws -> Int64 {
        if let existing = try Int64.fetchOne(db, sql: "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", arguments: [name]) {
            return existing
        }
        let key = try reserveHistoryKeys(historyStringEntity, count: 1, db: db, table: "ATRANSACTIONSTRING")
        try db.execute(sql: "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, 1, ?)",
                       arguments: [key, historyStringEntity, name])
        return key
    }

    /// Reserves `count` primary keys of a history entity; returns the first. Keys start past
    /// both `Z_MAX` and the table's largest `Z_PK`, in case another writer left them apart.
    static func reserveHistoryKeys(_ entity: Int64, count: Int, db: Database, table: String) throws -> Int64 {
        let last = try Int64.fetchOne(db, sql: """
            SELECT MAX(COALESCE((SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?), 0), COALESCE((SELECT MAX(Z_PK) FROM \(table)), 0))
            """, arguments: [entity]) ?? 0
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [last + Int64(count), entity])
        return last + 1
    }
}
