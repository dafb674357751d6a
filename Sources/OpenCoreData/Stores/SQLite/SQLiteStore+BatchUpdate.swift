import Foundation
import GRDB

/// Batch updates in one statement: `UPDATE … FROM (SELECT …) RETURNING Z_PK, Z_ENT`, in one
/// transaction with the history it records. No row is read into memory.
///
/// What SQLite computes is ``SQLBatchUpdatePlan``'s choice; any other value makes the store
/// update through snapshots, as the other stores do. Integer results are returned and checked
/// against the attribute's range, so an overflow fails the update (1550) instead of storing a
/// value that could not be read back.
extension SQLiteStore {
    /// The update in SQL, or nil when a value has no SQL form (``SQLBatchUpdatePlan``).
    func updateRows(_ update: StoreBatchUpdate, returningIDs: Bool) throws -> StoreBatchOutcome? {
        guard let plan = try SQLBatchUpdatePlan(update, schema: schema) else { return nil }
        let checked = plan.computedIntegers
        guard let statement = try plan.statement(mapping: compilerMapping, dialect: dialect, returning: checked.map(\.column.column), constant: {
            SQLValue(try SQLiteValueCoding.databaseValue($1, column: plan.assignments[$0].column))
        }) else { return nil }
        let keys = Set(update.values.map(\.attribute.name))
        var ids: [NSManagedObjectID] = []
        let queue = try openDatabase()
        var written: Int?
        do {
            try queue.write { db in
                let layout = layouts[plan.tableName]
                let rows = try Row.fetchCursor(db, sql: statement.sql, arguments: StatementArguments(statement.bindings.map(\.databaseValue)))
                while let row = try rows.next() {
                    for (offset, assignment) in checked.enumerated() { try Self.checkRange(row[2 + offset], of: assignment.attribute) }
                    ids.append(try objectID(key: row[0], entity: row[1], table: plan.tableName, layout: layout))
                }
                if recordsPersistentHistory, !ids.isEmpty {
                    var changes = StoreSaveChanges()
                    changes.updated = ids.map { ObjectSnapshot(objectID: $0) }
                    for id in ids { changes.changedKeys[id] = keys }
                    try recordHistory(changes, db: db)
                }
                written = try writeCurrentMetadata(db)
            }
            if let written { metadataWritten(written) }
        } catch {
            rowCache.remove(ids)
            throw writeFailure(error)
        }
        // The rows' versions went up: cached snapshots of them are stale.
        rowCache.remove(ids)
        return StoreBatchOutcome(count: ids.count, objectIDs: returningIDs ? ids : nil)
    }

    /// Fails (1550, rolling the update back) when a computed integer does not fit `attribute`.
    private static func checkRange(_ value: DatabaseValue, of attribute: NSAttributeDescription) throws {
        if case .null = value.storage { return }
        let range: ClosedRange<Int64> = switch attribute.attributeType {
        case .integer16AttributeType: Int64(Int16.min)...Int64(Int16.max)
        case .integer32AttributeType: Int64(Int32.min)...Int64(Int32.max)
        default: Int64.min...Int64.max
        }
        guard case .int64(let integer) = value.storage, range.contains(integer) else {
            throw BatchValues.error("The batch update's value \(value) for '\(attribute.name)' does not fit its type (\(range)).",
                                    key: attribute.name, value: "\(value)", row: nil)
        }
    }
}
