import Foundation
import OpenCoreData
import PostgresNIO

/// Persistent history in the store's schema, for stores opened with
/// `NSPersistentHistoryTrackingKey`: `ATRANSACTION` (one row per save) and `ACHANGE` (one
/// row per inserted, updated or deleted object), read back through the coordinator's history
/// requests as on the SQLite store.
///
/// Transaction numbers follow commit order across processes and hosts: a save takes its number
/// from the one-row `Z_HISTORYCOUNTER` as the last step of its transaction, so the row lock
/// orders the saves that record history, and a token's reader never misses a transaction
/// committed after it read. Differs from Apple's SQLite layout (which the SQLite store keeps):
/// the strings sit in the transaction row, `ZCOLUMNS` lists property names, and a tombstone is
/// a binary property list.
extension PostgresStore {
    /// `CREATE TABLE IF NOT EXISTS` of the history tables and the counter's row.
    static func historyStatements(schema: String) -> [String] {
        let transactions = PostgresSQL.qualified(schema, "ATRANSACTION"), changes = PostgresSQL.qualified(schema, "ACHANGE")
        let counter = PostgresSQL.qualified(schema, "Z_HISTORYCOUNTER")
        return [
            "CREATE TABLE IF NOT EXISTS \(transactions) (\"Z_PK\" BIGINT PRIMARY KEY, \"ZTIMESTAMP\" DOUBLE PRECISION NOT NULL, "
                + "\"ZAUTHOR\" TEXT, \"ZBUNDLEID\" TEXT, \"ZCONTEXTNAME\" TEXT, \"ZPROCESSID\" TEXT)",
            "CREATE TABLE IF NOT EXISTS \(changes) (\"Z_PK\" BIGSERIAL PRIMARY KEY, \"ZTRANSACTIONID\" BIGINT NOT NULL "
                + "REFERENCES \(transactions) (\"Z_PK\") ON DELETE CASCADE, \"ZCHANGETYPE\" INTEGER NOT NULL, \"ZENTITY\" BIGINT NOT NULL, "
                + "\"ZENTITYPK\" BIGINT NOT NULL, \"ZCOLUMNS\" TEXT, \"ZTOMBSTONE\" BYTEA)",
            "CREATE INDEX IF NOT EXISTS \(PostgresSQL.quote("ACHANGE_ZTRANSACTIONID")) ON \(changes) (\"ZTRANSACTIONID\")",
            "CREATE TABLE IF NOT EXISTS \(counter) (\"Z_ONE\" INTEGER PRIMARY KEY, \"Z_LAST\" BIGINT NOT NULL)",
            "INSERT INTO \(counter) VALUES (1, 0) ON CONFLICT DO NOTHING",
        ]
    }

    /// Records `changes` as one history transaction, inside the save's transaction.
    func recordHistory(_ changes: StoreSaveChanges, opened: Opened, on connection: PostgresConnection, logger: Logger) async throws {
        let schema = opened.location.schema
        let numbers = try await connection.query(PostgresQuery(unsafeSQL:
            "UPDATE \(PostgresSQL.qualified(schema, "Z_HISTORYCOUNTER")) SET \"Z_LAST\" = \"Z_LAST\" + 1 WHERE \"Z_ONE\" = 1 RETURNING \"Z_LAST\""),
            logger: logger)
        var number: Int64 = 0
        for try await row in numbers { number = try row.decode(Int64.self) }
        let process = ProcessInfo.processInfo.processName
        try await connection.query("""
            INSERT INTO \(unescaped: PostgresSQL.qualified(schema, "ATRANSACTION")) VALUES \
            (\(number), \(Date().timeIntervalSinceReferenceDate), \(changes.transactionAuthor), \(Bundle.main.bundleIdentifier ?? process), \
            \(changes.contextName), \(process))
            """, logger: logger)
        // Arrays of optionals (and of bytes) don't bind: none is the empty string, NULL in the table;
        // tombstones cross as base64.
        var types: [Int32] = [], entities: [Int64] = [], keys: [Int64] = [], columns: [String] = [], tombstones: [String] = []
        for (type, snapshots) in [(NSPersistentHistoryChangeType.insert, changes.inserted), (.update, changes.updated), (.delete, changes.deleted)] {
            for snapshot in snapshots {
                guard let entity = opened.schema.entity(named: snapshot.objectID.entity.name ?? "")?.number,
                      let key = snapshot.objectID.primaryKey else { continue }
                types.append(Int32(type.rawValue))
                entities.append(entity)
                keys.append(key)
                columns.append(type == .update ? changes.changedKeys[snapshot.objectID].map { $0.sorted().joined(separator: ",") } ?? "" : "")
                tombstones.append(type == .delete ? Self.tombstone(of: snapshot)?.base64EncodedString() ?? "" : "")
            }
        }
        guard !types.isEmpty else { return }
        var bindings = PostgresBindings()
        bindings.append(number)
        bindings.append(types)
        bindings.append(entities)
        bindings.append(keys)
        bindings.append(columns)
        bindings.append(tombstones)
        try await connection.query(PostgresQuery(unsafeSQL: """
            INSERT INTO \(PostgresSQL.qualified(schema, "ACHANGE")) ("ZTRANSACTIONID", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZCOLUMNS", "ZTOMBSTONE") \
            SELECT $1, t, e, k, NULLIF(c, ''), decode(NULLIF(b, ''), 'base64') FROM unnest($2::integer[], $3::bigint[], $4::bigint[], $5::text[], $6::text[]) AS u(t, e, k, c, b)
            """, binds: bindings), logger: logger)
    }

    /// The values a deleted object keeps in its history (`preservesValueInHistoryOnDeletion`),
    /// as a binary property list; nil when it keeps none.
    static func tombstone(of snapshot: ObjectSnapshot) -> Data? {
        var values: [String: Any] = [:]
        for attribute in SQLiteStore.tombstoneAttributes(of: snapshot.objectID.entity) {
            guard let value = snapshot[attribute.name] else { continue }
            let stored: Any? = value is Decimal ? "\(value)" : SQLiteStore.propertyListValue(value)
            if let stored { values[attribute.name] = stored }
        }
        guard !values.isEmpty else { return nil }
        return try? PropertyListSerialization.data(fromPropertyList: values, format: .binary, options: 0)
    }

    /// A tombstone read back, each value as its attribute's type.
    static func tombstoneValues(_ data: Data, entity: NSEntityDescription) -> [AnyHashable: Any] {
        guard let stored = (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: Any] else { return [:] }
        var values: [AnyHashable: Any] = [:]
        for (name, value) in stored {
            guard let attribute = entity.attributesByName[name] else { continue }
            let number = value as? NSNumber
            switch attribute.attributeType {
            case .integer16AttributeType: values[name] = number.map { Int16(truncatingIfNeeded: $0.int64Value) }
            case .integer32AttributeType: values[name] = number.map { Int32(truncatingIfNeeded: $0.int64Value) }
            case .integer64AttributeType: values[name] = number?.int64Value
            case .doubleAttributeType: values[name] = number?.doubleValue
            case .floatAttributeType: values[name] = number?.floatValue
            case .booleanAttributeType: values[name] = number?.boolValue
            case .decimalAttributeType: values[name] = (value as? String).flatMap { Decimal(string: $0) }
            case .UUIDAttributeType: values[name] = (value as? String).flatMap(UUID.init(uuidString:))
            case .URIAttributeType: values[name] = (value as? String).flatMap(URL.init(string:))
            default: values[name] = value
            }
        }
        return values
    }

    func readHistory(from first: Int64?, after date: Date?, withChanges: Bool) throws -> [NSPersistentHistoryTransaction] {
        try requireHistory()
        let storeID = identifier ?? ""
        let rows = try withConnection { [logger] connection, opened in
            let schema = opened.location.schema
            var bindings = PostgresBindings()
            bindings.append(first ?? 0)
            bindings.append(date?.timeIntervalSinceReferenceDate ?? -Double.greatestFiniteMagnitude)
            let transactions = try await connection.query(PostgresQuery(unsafeSQL: """
                SELECT "Z_PK", "ZTIMESTAMP", "ZAUTHOR", "ZBUNDLEID", "ZCONTEXTNAME", "ZPROCESSID" FROM \(PostgresSQL.qualified(schema, "ATRANSACTION")) \
                WHERE "Z_PK" >= $1 AND "ZTIMESTAMP" > $2 ORDER BY "Z_PK"
                """, binds: bindings), logger: logger)
            var read: [HistoryRow] = []
            for try await row in transactions {
                let (number, timestamp, author, bundle, context, process) = try row.decode((Int64, Double, String?, String?, String?, String?).self)
                read.append(HistoryRow(number: number, timestamp: timestamp, author: author, bundle: bundle ?? "", context: context,
                                       process: process ?? "", changes: []))
            }
            guard withChanges, let firstNumber = read.first?.number, let lastNumber = read.last?.number else { return read }
            var index: [Int64: Int] = [:]
            for (position, row) in read.enumerated() { index[row.number] = position }
            var range = PostgresBindings()
            range.append(firstNumber)
            range.append(lastNumber)
            let changes = try await connection.query(PostgresQuery(unsafeSQL: """
                SELECT "Z_PK", "ZTRANSACTIONID", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZCOLUMNS", "ZTOMBSTONE" \
                FROM \(PostgresSQL.qualified(schema, "ACHANGE")) WHERE "ZTRANSACTIONID" BETWEEN $1 AND $2 ORDER BY "Z_PK"
                """, binds: range), logger: logger)
            for try await row in changes {
                let (id, transaction, type, entity, key, columns, tombstone) = try row.decode((Int64, Int64, Int32, Int64, Int64, String?, Data?).self)
                guard let position = index[transaction] else { continue }
                read[position].changes.append(HistoryChangeRow(id: id, type: Int(type), entity: entity, key: key, columns: columns, tombstone: tombstone))
            }
            return read
        }
        let opened = try open()
        return rows.map { row in
            let transaction = NSPersistentHistoryTransaction(timestamp: Date(timeIntervalSinceReferenceDate: row.timestamp), transactionNumber: row.number,
                                                             storeID: storeID, bundleID: row.bundle, processID: row.process,
                                                             contextName: row.context, author: row.author)
            guard withChanges else { return transaction }
            transaction.changes = row.changes.compactMap { change in
                guard let entity = opened.reading.entity(number: change.entity),
                      let type = NSPersistentHistoryChangeType(rawValue: change.type) else { return nil }
                let updated = change.columns.map { Set($0.split(separator: ",").compactMap { entity.propertiesByName[String($0)] }) }
                let result = NSPersistentHistoryChange(changeID: change.id, changedObjectID: NSManagedObjectID(entity: entity, store: self, primaryKey: change.key),
                                                       changeType: type, tombstone: type == .delete ? change.tombstone.map { Self.tombstoneValues($0, entity: entity) } ?? [:] : nil,
                                                       updatedProperties: type == .update ? updated ?? [] : nil)
                result.transaction = transaction
                return result
            }
            return transaction
        }
    }

    func removeHistory(through last: Int64?, before date: Date?) throws -> Int {
        try requireHistory()
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        return try withConnection { [logger] connection, opened in
            var bindings = PostgresBindings()
            bindings.append(last ?? Int64.max)
            bindings.append(date?.timeIntervalSinceReferenceDate ?? Double.greatestFiniteMagnitude)
            let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                WITH gone AS (DELETE FROM \(PostgresSQL.qualified(opened.location.schema, "ATRANSACTION")) \
                WHERE "Z_PK" <= $1 AND "ZTIMESTAMP" < $2 RETURNING 1) SELECT COUNT(*) FROM gone
                """, binds: bindings), logger: logger)
            var count: Int64 = 0
            for try await row in rows { count = try row.decode(Int64.self) }
            return Int(count)
        }
    }

    func newestHistoryTransactionNumber() throws -> Int64 {
        try requireHistory()
        return try withConnection { [logger] connection, opened in
            let rows = try await connection.query(PostgresQuery(unsafeSQL:
                "SELECT \"Z_LAST\" FROM \(PostgresSQL.qualified(opened.location.schema, "Z_HISTORYCOUNTER")) WHERE \"Z_ONE\" = 1"), logger: logger)
            var last: Int64 = 0
            for try await row in rows { last = try row.decode(Int64.self) }
            return last
        }
    }

    /// Throws 134091 unless the store was opened with `NSPersistentHistoryTrackingKey`.
    private func requireHistory() throws {
        guard recordsPersistentHistory else {
            throw PersistentStoreErrors.make(NSPersistentStoreUnsupportedRequestTypeError,
                "The \(PersistentStoreErrors.name(of: self)) was not opened with NSPersistentHistoryTrackingKey, so it has no history to read.",
                stores: [self], url: url)
        }
    }
}

/// A history transaction as read, before it becomes an `NSPersistentHistoryTransaction` on the calling thread.
struct HistoryRow: Sendable {
    let number: Int64
    let timestamp: Double
    let author: String?
    let bundle: String
    let context: String?
    let process: String
    var changes: [HistoryChangeRow]
}

/// One `ACHANGE` row as read.
struct HistoryChangeRow: Sendable {
    let id: Int64
    let type: Int
    let entity: Int64
    let key: Int64
    let columns: String?
    let tombstone: Data?
}
