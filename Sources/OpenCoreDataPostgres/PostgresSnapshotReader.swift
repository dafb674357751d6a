import Foundation
import OpenCoreData
import PostgresNIO

/// Decodes the rows of one snapshot query, one row per call, as postgres-nio hands them to a
/// query's `onRow` closure (``PostgresRowReading/snapshots(_:table:store:on:logger:)``).
///
/// Each row's cells are read once, in order, and each value goes straight into the snapshot's
/// slot (``SnapshotRowBuilder``); `Integer 64` columns, the most common, skip the
/// attribute-type switch.
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
    /// Each to-one's destination key and entity number, filled while a row's cells pass.
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

    /// Decodes `row` into ``rows``.
    func read(_ row: PostgresRow) throws {
        var cells = row.makeIterator()
        guard let keyCell = cells.next(), let numberCell = cells.next(), let versionCell = cells.next() else {
            throw reading.unreadable(table.name, "Z_OPT", 0, "the row has fewer columns than the table")
        }
        let key = try PostgresValueCoding.requiredInt64(keyCell)
        let number = try PostgresValueCoding.requiredInt64(numberCell)
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
        let version = try PostgresValueCoding.requiredInt64(versionCell)
        let toOneCount = decoder.toOne.count
        if toOneCount > 0 {
            if keys.count < toOneCount {
                keys = Array(repeating: nil, count: toOneCount)
                numbers = keys
            } else {
                for index in 0..<toOneCount { keys[index] = nil; numbers[index] = nil }
            }
        }
        // The decoder's builder is changed in place: a copy would retain its entity, layout and
        // store origin (side-table reference counts, slow) for every row.
        var index = 3
        while index < columnCount, let cell = cells.next() {
            switch decoder.actions[index] {
            case .skip:
                break
            case .int64(let slot):
                do {
                    if let value = try PostgresValueCoding.int64(cell) { decoder.builder.setInt64(value, at: slot) }
                } catch let error as NSError {
                    throw reading.unreadable(table.name, table.columns[index], key, error.localizedDescription)
                }
            case .value(let slot, let attribute):
                do {
                    guard let value = try PostgresValueCoding.value(cell, type: attribute.attributeType, column: table.columns[index]) else { break }
                    if attribute.attributeType == .transformableAttributeType, let data = value as? Data {
                        decoder.builder.set(TransformableValueCoding.loadedValue(data, attribute: TransformableValueCoding.label(attribute),
                                                                         transformerName: attribute.valueTransformerName), at: slot)
                    } else {
                        decoder.builder.set(value, at: slot)
                    }
                } catch let error as NSError {
                    throw reading.unreadable(table.name, table.columns[index], key, error.localizedDescription)
                }
            case .toOneKey(let step):
                keys[step] = try PostgresValueCoding.int64(cell)
            case .toOneEntity(let step):
                numbers[step] = try PostgresValueCoding.int64(cell)
            }
            index += 1
        }
        for (step, toOne) in decoder.toOne.enumerated() {
            guard let destinationKey = keys[step] else { continue }
            var target = toOne.destination
            if let destinationNumber = numbers[step] { target = reading.entity(number: destinationNumber) ?? target }
            guard let target else { continue }
            decoder.builder.setDestination(target, primaryKey: destinationKey, at: toOne.slot)
        }
        let snapshot = knownID(key, of: decoder.builder.entity).map { decoder.builder.finish(objectID: $0, version: version) }
            ?? decoder.builder.finish(primaryKey: key, version: version)
        last = (number, decoder)
        rows.append((snapshot, try cells.next().map(PostgresValueCoding.requiredInt64)))
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
