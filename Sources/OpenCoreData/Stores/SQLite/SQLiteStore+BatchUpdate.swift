import Foundation
import GRDB

/// Batch updates in one statement: `UPDATE … FROM (SELECT …) RETURNING Z_PK, Z_ENT`, in one
/// transaction with the history it records. No row is read into memory.
///
/// A value goes into the SQL when SQLite computes exactly what the evaluator would: a constant
/// (converted to the attribute's type first, so a wrong type fails with 1550 as it does in
/// every store); integer arithmetic (`+`, `-`, `*`) over the entity's own integer attributes
/// and integer constants, for an integer attribute; the same with floating-point operands for
/// a Double attribute; `now()` or a date attribute, for a date attribute. Integer results are
/// returned and checked against the attribute's range, so an overflow fails the update (1550)
/// instead of storing a value that could not be read back. Any other expression (a string
/// function, a key path across a relationship, a Float or Decimal attribute) makes the store
/// update through snapshots, as the other stores do.
extension SQLiteStore {
    /// One value of a batch update as the statement sets it.
    private enum PlannedValue {
        case constant(SQLValue)
        case computed(NSExpression)
    }

    /// The update in SQL, or nil when a value has no SQL form (see above).
    func updateRows(_ update: StoreBatchUpdate, returningIDs: Bool) throws -> StoreBatchOutcome? {
        guard let mapping = schema.entity(named: update.entity.name ?? "") else { return nil }
        var planned: [(column: SQLAttributeColumn, value: PlannedValue)] = []
        var checked: [NSAttributeDescription] = []
        for (attribute, expression) in update.values {
            guard let column = mapping.attributes[attribute.name] else { return nil }
            if case .constant(let value) = expression.node {
                let converted = try BatchValues.converted(value, for: attribute, row: nil)
                planned.append((column, .constant(SQLValue(try SQLiteValueCoding.databaseValue(converted, column: column)))))
            } else {
                guard Self.computesInSQL(expression, for: attribute.attributeType, entity: update.entity) else { return nil }
                planned.append((column, .computed(expression)))
                if attribute.attributeType != .doubleAttributeType && attribute.attributeType != .dateAttributeType { checked.append(attribute) }
            }
        }
        let statement: SQLStatement
        do {
            let compiler = SQLFetchCompiler(mapping: compilerMapping, dialect: dialect)
            let compiled = try compiler.batchUpdate(update.fetchRequest(resultType: .managedObjectIDResultType), entity: update.entity,
                                                    valueCount: planned.count, returning: checked.compactMap { mapping.attributes[$0.name]?.column }) { index, compile in
                let (column, value) = planned[index]
                switch value {
                case .constant(let constant):
                    return .init(column: column.column, value: .bind(constant))
                case .computed(let expression):
                    let operand = try compile(expression)
                    let sql = column.attributeType == .doubleAttributeType ? "CAST(" + operand.fragment + " AS REAL)" : operand.fragment
                    return .init(column: column.column, value: sql)
                }
            }
            guard let compiled else { return nil }
            statement = compiled
        } catch is SQLCompileError {
            // The snapshot path fetches with the same predicate and reports what can't be compiled.
            return nil
        }
        let keys = Set(update.values.map(\.attribute.name))
        var ids: [NSManagedObjectID] = []
        let queue = try openDatabase()
        var written: Int?
        do {
            try queue.write { db in
                let layout = layouts[mapping.tableName]
                let rows = try Row.fetchCursor(db, sql: statement.sql, arguments: StatementArguments(statement.bindings.map(\.databaseValue)))
                while let row = try rows.next() {
                    for (offset, attribute) in checked.enumerated() { try Self.checkRange(row[2 + offset], of: attribute) }
                    ids.append(try objectID(key: row[0], entity: row[1], table: mapping.tableName, layout: layout))
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

    /// Whether SQLite computes `expression` for an attribute of `type` exactly as the evaluator
    /// would (see the extension's comment).
    static func computesInSQL(_ expression: NSExpression, for type: NSAttributeType, entity: NSEntityDescription) -> Bool {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return isArithmetic(expression, entity: entity, integers: true)
        case .doubleAttributeType:
            return isArithmetic(expression, entity: entity, integers: false)
        case .dateAttributeType:
            switch expression.node {
            case .function("now", let arguments): return arguments.isEmpty
            case .keyPath(let path): return entity.attributesByName[path].map { !$0.isTransient && $0.attributeType == .dateAttributeType } ?? false
            default: return false
            }
        default:
            return false
        }
    }

    /// `+`, `-` and `*` over numeric constants and the entity's own numeric attributes (only
    /// integers when `integers`).
    private static func isArithmetic(_ expression: NSExpression, entity: NSEntityDescription, integers: Bool) -> Bool {
        switch expression.node {
        case .constant(let value):
            switch value {
            case is Int, is Int64, is Int32, is Int16, is Int8, is UInt8, is UInt16, is UInt32: return true
            case let double as Double: return !integers && double.isFinite
            default: return false
            }
        case .keyPath(let path):
            guard let attribute = entity.attributesByName[path], !attribute.isTransient else { return false }
            switch attribute.attributeType {
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType: return true
            case .doubleAttributeType: return !integers
            default: return false
            }
        case .function(let name, let arguments):
            return SQLCompiler.nativeArithmetic[name] != nil && arguments.count == 2
                && arguments.allSatisfy { isArithmetic($0, entity: entity, integers: integers) }
        default:
            return false
        }
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
