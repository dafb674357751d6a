import Foundation
import GRDB
import GRDBSQLite

/// Batch inserts in SQL: one transaction that reserves the rows' primary keys in
/// `Z_PRIMARYKEY`, and one prepared `INSERT` bound straight from each row's values (no snapshot,
/// no object ID unless the caller asks for them).
extension SQLiteStore {
    func insertRows(_ rows: [[String: Any]], of entity: NSEntityDescription, returningIDs: Bool) throws -> StoreBatchOutcome {
        guard let mapping = schema.entity(named: entity.name ?? ""), let layout = layout(for: entity) else {
            throw PersistentStoreErrors.make(NSPersistentStoreSaveError,
                "The \(PersistentStoreErrors.name(of: self)) has no entity '\(entity.name ?? "?")'.", stores: [self])
        }
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        let columns = BatchInsertColumns(entity: entity)
        // The attribute fields, each with its position among the batch's attributes.
        var fields: [(field: SQLiteRowLayout.Field, column: SQLAttributeColumn, position: Int)] = []
        for field in layout.writeFields(number: mapping.number) {
            guard case .attribute(let column) = field.kind, let position = columns.positions[field.name] else { continue }
            fields.append((field, column, position))
        }
        let sql = layout.insertSQL(fields: fields.map(\.field), dialect: dialect)
        let queue = try openDatabase()
        var first: Int64 = 0
        var written: Int?
        do {
            try queue.write { db in
                let stored = try DatabaseValue.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [mapping.rootNumber])
                first = try (SQLiteStoreCatalog.integer(stored ?? .null, table: SQLiteSchema.primaryKeyTable, column: "Z_MAX",
                                                        row: "Z_ENT \(mapping.rootNumber)") ?? 0) + 1
                let statement = try db.makeStatement(sql: sql)
                for (index, row) in rows.enumerated() {
                    sqlite3_reset(statement.sqliteStatement)
                    statement.bindValue((first + Int64(index)).databaseValue, at: 1)
                    statement.bindValue(mapping.number.databaseValue, at: 2)
                    statement.bindValue(Int64(1).databaseValue, at: 3)
                    var matched = 0
                    for (slot, entry) in fields.enumerated() {
                        let given = row[entry.field.name]
                        if given != nil { matched += 1 }
                        let value = try columns.value(given, at: entry.position, row: index)
                        statement.bindValue(try SQLiteValueCoding.databaseValue(value, column: entry.column), at: CInt(slot + 4))
                    }
                    if matched != row.count { throw columns.unknownKey(in: row, row: index) }
                    _ = try statement.stepRow(db)
                }
                sqlite3_reset(statement.sqliteStatement)
                try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?",
                               arguments: [first - 1 + Int64(rows.count), mapping.rootNumber])
                written = try writeCurrentMetadata(db)
            }
            if let written { metadataWritten(written) }
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw PersistentStoreErrors.make(NSPersistentStoreSaveError,
                "The \(PersistentStoreErrors.name(of: self)) could not run a batch insert: \(error).", stores: [self], url: url, underlying: error)
        }
        let ids = returningIDs ? (0..<Int64(rows.count)).map { NSManagedObjectID(entity: entity, store: self, primaryKey: first + $0) } : nil
        return StoreBatchOutcome(count: rows.count, objectIDs: ids)
    }
}
