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
                try plan.insert(rows, first: first, number: mapping.number, statement: statement, db: db)
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
        let origin = objectIDOrigin()
        let ids = returningIDs ? (0..<Int64(rows.count)).map { NSManagedObjectID(entity: entity, origin: origin, primaryKey: first + $0) } : nil
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
    /// The slot of each field by the raw bits of its name (see ``slot(of:)``): open addressing,
    /// a power-of-two size, -1 where empty.
    private let bitsTable: [(UInt64, UInt64, Int)]
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
        var table = Array(repeating: (UInt64(0), UInt64(0), -1), count: max(16, 1 << (Int.bitWidth - (fields.count * 4).leadingZeroBitCount)))
        if MemoryLayout<String>.size == 16 {
            for (slot, name) in names.enumerated() {
                let bits = unsafeBitCast(name, to: (UInt64, UInt64).self)
                var index = Self.probe(bits, count: table.count)
                while table[index].2 >= 0 { index = (index + 1) & (table.count - 1) }
                table[index] = (bits.0, bits.1, slot)
            }
        }
        bitsTable = table
        defaults = zip(positions, columns).map { position, column in
            (try? SQLiteValueCoding.databaseValue(rules.defaults[position], column: column)) ?? .null
        }
    }

    /// Binds each row to `statement` and runs it: the row's entries are walked where the
    /// dictionary keeps them (``DictionaryEntries``), each key found by ``slot(of:in:)``, then the
    /// fields it left out get their defaults. Row `index` gets primary key `first + index` and
    /// entity `number`.
    func insert(_ rows: [[String: Any]], first: Int64, number: Int64, statement: Statement, db: Database) throws {
        let handle = statement.sqliteStatement
        let stamps = UnsafeMutableBufferPointer<Int>.allocate(capacity: fields.count)
        stamps.initialize(repeating: -1)
        defer { stamps.deallocate() }
        try bitsTable.withUnsafeBufferPointer { table in
            try kinds.withUnsafeBufferPointer { kinds in
                for index in rows.indices {
                    sqlite3_reset(handle)
                    sqlite3_bind_int64(handle, 1, first + Int64(index))
                    sqlite3_bind_int64(handle, 2, number)
                    sqlite3_bind_int64(handle, 3, 1)
                    try DictionaryEntries.forEach(in: rows[index]) { key, value in
                        guard let slot = slot(of: key, in: table) else { throw rules.unknownKey(in: rows[index], row: index) }
                        stamps[slot] = index
                        let parameter = CInt(slot + 4)
                        switch kinds[slot] {
                        case .int64:
                            if let int = ValueComparison.exact(at: value, as: Int64.self) {
                                sqlite3_bind_int64(handle, parameter, int)
                                return
                            }
                        case .double:
                            if let double = ValueComparison.exact(at: value, as: Double.self) {
                                sqlite3_bind_double(handle, parameter, double)
                                return
                            }
                        case .string:
                            if let string = ValueComparison.exact(at: value, as: String.self) {
                                try statement.bindValue(string.databaseValue, at: parameter)
                                return
                            }
                        case .other:
                            break
                        }
                        let converted = try rules.value(value.pointee, at: positions[slot], row: index)
                        try statement.bindValue(try SQLiteValueCoding.databaseValue(converted, column: columns[slot]), at: parameter)
                    }
                    for slot in stamps.indices where stamps[slot] != index {
                        try statement.bindValue(defaults[slot], at: CInt(slot + 4))
                    }
                    _ = try statement.stepRow(db)
                }
            }
        }
        sqlite3_reset(handle)
    }

    /// The slot of the field named `key`, nil when there is none.
    ///
    /// A key with the same bits as a field's name is that name (a small string's bits are its
    /// UTF-8 bytes; a large one's include its storage), so most keys cost a multiply and a
    /// comparison of two words instead of hashing the string; other keys go through ``slots``.
    @inline(__always)
    private func slot(of key: UnsafePointer<String>, in table: UnsafeBufferPointer<(UInt64, UInt64, Int)>) -> Int? {
        if MemoryLayout<String>.size == 16 {
            let bits = UnsafeRawPointer(key).load(as: (UInt64, UInt64).self)
            var index = Self.probe(bits, count: table.count)
            while true {
                let entry = table[index]
                if entry.2 < 0 { break }
                if entry.0 == bits.0, entry.1 == bits.1 { return entry.2 }
                index = (index + 1) & (table.count - 1)
            }
        }
        return slots[key.pointee]
    }

    @inline(__always)
    private static func probe(_ bits: (UInt64, UInt64), count: Int) -> Int {
        let mixed = (bits.0 ^ (bits.1 &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> 32) & (count - 1)
    }
}
