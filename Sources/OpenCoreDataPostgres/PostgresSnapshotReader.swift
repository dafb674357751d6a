import Foundation
import OpenCoreData
import PostgresNIO

/// Decodes the rows of one snapshot query, one row per call, as postgres-nio hands them to a
/// query's `onRow` closure (``PostgresRowReading/snapshots(_:table:store:on:logger:)``).
///
/// Each row is one record of the table's columns; its fields are read once, in order, and each
/// value goes straight into the snapshot's slot (``SnapshotRowBuilder``); integer fields are
/// read in place, without a cell.
///
/// `@unchecked Sendable`: postgres-nio calls `onRow` for one query's rows one after another on
/// the connection's event loop, and the caller reads ``rows`` only after the query's future has
/// completed, which orders those calls before the read. For the same reason its variables skip
/// the runtime's exclusivity checks (`@exclusivity(unchecked)`): in a profile of W5 they took
/// about a tenth of the event loop's time.
final class PostgresSnapshotReader: @unchecked Sendable {
    private let reading: PostgresRowReading
    private let table: PostgresRowReading.Table
    private let store: PostgresStore
    private let columnCount: Int
    /// The decoder of each entity met, by entity number, and the last one used.
    @exclusivity(unchecked) private var decoders: [Int64: RowDecoder] = [:]
    @exclusivity(unchecked) private var last: (number: Int64, decoder: RowDecoder)?
    /// Each to-one's destination key and entity number, filled while a row's fields pass.
    @exclusivity(unchecked) private var keys: [Int64?] = []
    @exclusivity(unchecked) private var numbers: [Int64?] = []
    /// The snapshots read so far, each with the row's extra `Integer 64` column when it has one.
    @exclusivity(unchecked) private(set) var rows: [(snapshot: ObjectSnapshot, extraKey: Int64?)] = []
    /// IDs the snapshots reuse (a read by ID asked for them), sorted by primary key, and where
    /// the next row's is expected: rows read by a key range come in key order.
    private let knownIDs: [NSManagedObjectID]
    private let knownKeys: [Int64]
    @exclusivity(unchecked) private var nextKnown = 0

    init(reading: PostgresRowReading, table: PostgresRowReading.Table, store: PostgresStore, knownIDs: [NSManagedObjectID] = []) {
        self.reading = reading
        self.table = table
        self.store = store
        self.columnCount = table.columns.count
        self.knownIDs = knownIDs
        self.knownKeys = knownIDs.map { $0.primaryKey ?? -1 }
    }

    /// The known ID of row `key` of `entity`, if there is one: the one after the last found,
    /// else found by a binary search.
    private func knownID(_ key: Int64, of entity: NSEntityDescription) -> NSManagedObjectID? {
        guard !knownKeys.isEmpty else { return nil }
        var index = nextKnown
        if index >= knownKeys.count || knownKeys[index] != key {
            let low = knownKeys.lowerBound { $0 < key }
            guard low < knownKeys.count, knownKeys[low] == key else { return nil }
            index = low
        }
        nextKnown = index + 1
        let id = knownIDs[index]
        return id.entity === entity ? id : nil
    }

    /// Decodes `row` into ``rows``: one record of the table's columns (`SELECT ROW(…)`, see
    /// ``readRecord(_:)``), then perhaps the extra `Integer 64` column.
    func read(_ row: PostgresRow) throws {
        var cells = row.makeIterator()
        guard let first = cells.next(), first.dataType == .record, first.format == .binary, let record = first.bytes else {
            throw reading.unreadable(table.name, "Z_PK", 0, "the row is not one binary record of the table's columns")
        }
        let snapshot = try readRecord(record)
        rows.append((snapshot, try cells.next().map(PostgresValueCoding.requiredInt64)))
    }

    /// A field's value on its way to a slot: NULL, an integer read in place, or a cell made for
    /// a value of another type.
    private enum ColumnValue {
        case null
        case integer(Int64)
        case cell(PostgresCell)
    }

    /// Decodes a row selected as one record of the table's columns, in PostgreSQL's binary
    /// record format: the number of fields, then for each its type, its length (-1 for NULL)
    /// and its bytes. Integers are read where they lie; only other values become cells. One
    /// cell a row instead of one a column: postgres-nio makes each cell with a slice of the
    /// row and a checked access to its storage, most of the event loop's work on wide rows.
    private func readRecord(_ record: ByteBuffer) throws -> ObjectSnapshot {
        try record.withUnsafeReadableBytes { raw in
            var offset = 0
            func malformed(_ key: Int64) -> NSError {
                reading.unreadable(table.name, "Z_PK", key, "the row's record is malformed")
            }
            /// The next field's type, start and length (-1 for NULL).
            func field(_ key: Int64) throws -> (type: UInt32, start: Int, length: Int) {
                guard offset + 8 <= raw.count else { throw malformed(key) }
                let type = UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                let length = Int(Int32(bigEndian: raw.loadUnaligned(fromByteOffset: offset + 4, as: Int32.self)))
                offset += 8
                guard length >= -1, length <= raw.count - offset else { throw malformed(key) }
                let start = offset
                offset += max(length, 0)
                return (type, start, length)
            }
            func integer(_ field: (type: UInt32, start: Int, length: Int)) -> Int64? {
                switch (field.type, field.length) {
                case (PostgresDataType.int8.rawValue, 8): Int64(bigEndian: raw.loadUnaligned(fromByteOffset: field.start, as: Int64.self))
                case (PostgresDataType.int4.rawValue, 4): Int64(Int32(bigEndian: raw.loadUnaligned(fromByteOffset: field.start, as: Int32.self)))
                case (PostgresDataType.int2.rawValue, 2): Int64(Int16(bigEndian: raw.loadUnaligned(fromByteOffset: field.start, as: Int16.self)))
                default: nil
                }
            }
            func cell(_ field: (type: UInt32, start: Int, length: Int), column: Int) -> PostgresCell {
                PostgresCell(bytes: field.length < 0 ? nil : record.getSlice(at: record.readerIndex + field.start, length: field.length),
                             dataType: PostgresDataType(field.type), format: .binary, columnName: table.columns[column], columnIndex: column)
            }
            func required(_ column: Int, key: Int64) throws -> Int64 {
                let field = try field(key)
                if let value = integer(field) { return value }
                return try PostgresValueCoding.requiredInt64(cell(field, column: column))
            }
            guard raw.count >= 4, Int(Int32(bigEndian: raw.loadUnaligned(as: Int32.self))) == columnCount else {
                throw reading.unreadable(table.name, "Z_PK", 0, "the row's record doesn't have the table's \(columnCount) columns")
            }
            offset = 4
            let key = try required(0, key: 0)
            let decoder = try decoder(number: try required(1, key: key), key: key)
            let version = try required(2, key: key)
            for index in 3..<columnCount {
                let field = try field(key)
                let value: ColumnValue
                switch decoder.actions[index] {
                case .skip:
                    continue
                case .int64, .toOneKey, .toOneEntity:
                    value = field.length < 0 ? .null : integer(field).map(ColumnValue.integer) ?? .cell(cell(field, column: index))
                case .value:
                    value = field.length < 0 ? .null : .cell(cell(field, column: index))
                }
                try take(value, column: index, key: key, decoder: decoder)
            }
            return finish(decoder, key: key, version: version)
        }
    }

    /// The decoder of entity `number`'s rows (`key` for the error when there is none).
    @inline(__always)
    private func decoder(number: Int64, key: Int64) throws -> RowDecoder {
        let decoder: RowDecoder
        if let last, last.number == number {
            decoder = last.decoder
        } else if let known = decoders[number] {
            decoder = known
        } else {
            guard let plan = table.entities[number] else {
                throw reading.unreadable(table.name, "Z_ENT", key, "entity number \(number) is not one of the model's")
            }
            decoder = RowDecoder(plan: plan, store: store, columnCount: columnCount)
            decoders[number] = decoder
        }
        last = (number, decoder)
        let toOneCount = decoder.toOne.count
        if toOneCount > 0 {
            if keys.count < toOneCount {
                keys = Array(repeating: nil, count: toOneCount)
                numbers = keys
            } else {
                for index in 0..<toOneCount { keys[index] = nil; numbers[index] = nil }
            }
        }
        return decoder
    }

    /// Puts the value of column `column` of row `key` where `decoder` says it goes.
    @inline(__always)
    private func take(_ value: ColumnValue, column index: Int, key: Int64, decoder: RowDecoder) throws {
        // The decoder's builder is changed in place: a copy would retain its entity, layout and
        // store origin (side-table reference counts, slow) for every row.
        func integer() throws -> Int64? {
            switch value {
            case .null: return nil
            case .integer(let value): return value
            case .cell(let cell): return try PostgresValueCoding.int64(cell)
            }
        }
        do {
            switch decoder.actions[index] {
            case .skip:
                break
            case .int64(let slot):
                if let value = try integer() { decoder.builder.setInt64(value, at: slot) }
            case .value(let slot, let attribute):
                guard case .cell(let cell) = value,
                      let value = try PostgresValueCoding.value(cell, type: attribute.attributeType, column: table.columns[index]) else { break }
                if attribute.attributeType == .transformableAttributeType, let data = value as? Data {
                    decoder.builder.set(TransformableValueCoding.loadedValue(data, attribute: TransformableValueCoding.label(attribute),
                                                                     transformerName: attribute.valueTransformerName), at: slot)
                } else {
                    decoder.builder.set(value, at: slot)
                }
            case .toOneKey(let step):
                keys[step] = try integer()
            case .toOneEntity(let step):
                numbers[step] = try integer()
            }
        } catch {
            throw reading.unreadable(table.name, table.columns[index], key, PostgresErrors.problem(error))
        }
    }

    /// The snapshot of row `key` once its columns are in `decoder`'s builder: its to-one
    /// destinations set, under the known ID of the row when there is one.
    private func finish(_ decoder: RowDecoder, key: Int64, version: Int64) -> ObjectSnapshot {
        for (step, toOne) in decoder.toOne.enumerated() {
            guard let destinationKey = keys[step] else { continue }
            var target = toOne.destination
            if let destinationNumber = numbers[step] { target = reading.entity(number: destinationNumber) ?? target }
            guard let target else { continue }
            decoder.builder.setDestination(target, primaryKey: destinationKey, at: toOne.slot)
        }
        return knownID(key, of: decoder.builder.entity).map { decoder.builder.finish(objectID: $0, version: version) }
            ?? decoder.builder.finish(primaryKey: key, version: version)
    }

    /// How one entity's rows decode in one read: what each column of the table holds for it,
    /// and the builder of its snapshots (which knows the store). A class, so that the rows of
    /// one read share it without copies.
    private final class RowDecoder {
        /// What a column's cell is for this entity.
        enum Action {
            /// Another entity's column (or one this model doesn't read).
            case skip
            /// An `Integer 64` attribute's slot.
            case int64(slot: Int)
            /// Any other attribute's slot.
            case value(slot: Int, attribute: NSAttributeDescription)
            /// The destination key of the to-one relationship ``toOne``[n].
            case toOneKey(Int)
            /// The destination entity number of the to-one relationship ``toOne``[n].
            case toOneEntity(Int)
        }
        struct ToOne {
            let slot: Int
            let destination: NSEntityDescription?
        }
        @exclusivity(unchecked) var builder: SnapshotRowBuilder
        /// One action per column of the table, by the column's position.
        let actions: [Action]
        let toOne: [ToOne]

        init(plan: PostgresRowReading.EntityPlan, store: PostgresStore, columnCount: Int) {
            let builder = SnapshotRowBuilder(entity: plan.entity, store: store)
            self.builder = builder
            var actions = [Action](repeating: .skip, count: columnCount)
            for (name, index, attribute, _) in plan.attributes {
                guard let slot = builder.slot(forKey: name) else { continue }
                actions[index] = attribute.attributeType == .integer64AttributeType ? .int64(slot: slot) : .value(slot: slot, attribute: attribute)
            }
            var toOne: [ToOne] = []
            for (name, index, entityIndex, destination) in plan.toOne {
                guard let slot = builder.slot(forKey: name) else { continue }
                actions[index] = .toOneKey(toOne.count)
                if let entityIndex { actions[entityIndex] = .toOneEntity(toOne.count) }
                toOne.append(ToOne(slot: slot, destination: destination))
            }
            self.actions = actions
            self.toOne = toOne
        }
    }
}
