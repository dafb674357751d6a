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
        let plan = BatchInsertBinding(layout: layout, number: mapping.number, columns: columns)
        let sql = layout.insertSQL(fields: plan.fields, dialect: dialect)
        let queue = try openDatabase()
        var first: Int64 = 0
        var written: Int?
        do {
            try queue.write { db in
                let stored = try DatabaseValue.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [mapping.rootNumber])
                first = try (SQLiteStoreCatalog.integer(stored ?? .null, table: SQLiteSchema.primaryKeyTable, column: "Z_MAX",
                                                        row: "Z_ENT \(mapping.rootNumber)") ?? 0) + 1
                let statement = try db.makeStatement(sql: sql)
                var binder = plan.makeBinder()
                for (index, row) in rows.enumerated() {
                    sqlite3_reset(statement.sqliteStatement)
                    statement.bindValue((first + Int64(index)).databaseValue, at: 1)
                    statement.bindValue(mapping.number.databaseValue, at: 2)
                    statement.bindValue(Int64(1).databaseValue, at: 3)
                    try binder.bind(row, index: index, to: statement)
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

/// How a batch insert binds rows to its `INSERT`: the attribute fields in statement order, and
/// per field the kind of value bound without conversion (the attribute's own Swift type).
struct BatchInsertBinding {
    enum Kind {
        case int64, double, string, other
    }

    let fields: [SQLiteRowLayout.Field]
    let names: [String]
    let kinds: [Kind]
    /// Each field's position in ``BatchInsertColumns/attributes``.
    let positions: [Int]
    let columns: [SQLAttributeColumn]
    /// The slot of each field, by attribute name.
    let slots: [String: Int]
    /// The column value of each field's default, for rows that leave it out.
    let defaults: [DatabaseValue]
    let rules: BatchInsertColumns

    init(layout: SQLiteRowLayout, number: Int64, columns rules: BatchInsertColumns) {
        var fields: [SQLiteRowLayout.Field] = [], kinds: [Kind] = [], positions: [Int] = [], columns: [SQLAttributeColumn] = []
        for field in layout.writeFields(number: number) {
            guard case .attribute(let column) = field.kind, let position = rules.positions[field.name] else { continue }
            fields.append(field)
            positions.append(position)
            columns.append(column)
            switch column.storesExternally || column.attributeType == .transformableAttributeType ? nil : column.attributeType {
            case .integer64AttributeType: kinds.append(.int64)
            case .doubleAttributeType: kinds.append(.double)
            case .stringAttributeType: kinds.append(.string)
            default: kinds.append(.other)
            }
        }
        self.fields = fields
        self.kinds = kinds
        self.positions = positions
        self.columns = columns
        self.rules = rules
        names = fields.map(\.name)
        slots = Dictionary(uniqueKeysWithValues: fields.enumerated().map { ($1.name, $0) })
        defaults = zip(positions, columns).map { position, column in
            (try? SQLiteValueCoding.databaseValue(rules.defaults[position], column: column)) ?? .null
        }
    }

    func makeBinder() -> Binder { Binder(plan: self) }

    /// Binds rows one after the other. Rows built alike (the usual case) list their keys in
    /// the same order, so each key's slot is found by one string comparison with the previous
    /// row's key at that place, and only a different key costs a hash lookup.
    struct Binder {
        let plan: BatchInsertBinding
        private var order: [Int] = []
        private var stamps: [Int]

        init(plan: BatchInsertBinding) {
            self.plan = plan
            stamps = Array(repeating: -1, count: plan.fields.count)
        }

        mutating func bind(_ row: [String: Any], index: Int, to statement: Statement) throws {
            var place = 0
            for (key, value) in row {
                let slot: Int
                if place < order.count, plan.names[order[place]] == key {
                    slot = order[place]
                } else {
                    guard let found = plan.slots[key] else { throw plan.rules.unknownKey(in: row, row: index) }
                    slot = found
                    if place < order.count { order[place] = found } else { order.append(found) }
                }
                place += 1
                stamps[slot] = index
                let parameter = CInt(slot + 4)
                switch plan.kinds[slot] {
                case .int64:
                    if let int = ValueComparison.exact(value, as: Int64.self) {
                        sqlite3_bind_int64(statement.sqliteStatement, parameter, int)
                        continue
                    }
                case .double:
                    if let double = ValueComparison.exact(value, as: Double.self) {
                        sqlite3_bind_double(statement.sqliteStatement, parameter, double)
                        continue
                    }
                case .string:
                    if let string = ValueComparison.exact(value, as: String.self) {
                        statement.bindValue(string.databaseValue, at: parameter)
                        continue
                    }
                case .other:
                    break
                }
                let converted = try plan.rules.value(value, at: plan.positions[slot], row: index)
                statement.bindValue(try SQLiteValueCoding.databaseValue(converted, column: plan.columns[slot]), at: parameter)
            }
            for slot in stamps.indices where stamps[slot] != index {
                statement.bindValue(plan.defaults[slot], at: CInt(slot + 4))
            }
        }
    }
}
