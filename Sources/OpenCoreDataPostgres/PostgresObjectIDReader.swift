import Foundation
import OpenCoreData
import PostgresNIO

/// Reads the IDs of the rows of one query that selects `"Z_PK", "Z_ENT"` first, one row per
/// call, or the array of one entity's keys, as postgres-nio hands them to the query's `onRow`
/// closure
/// (``PostgresRowReading/objectIDs(_:table:store:on:logger:)``).
///
/// `@unchecked Sendable`, and its variables without exclusivity checks, for the reason
/// ``PostgresSnapshotReader`` gives: one query's rows come one after another on one event loop,
/// and ``ids`` is read after the query's future completes.
final class PostgresObjectIDReader: @unchecked Sendable {
    private let reading: PostgresRowReading
    private let table: String
    private let store: PostgresStore
    /// One builder per entity met: it looks the store's ID origin up once.
    @exclusivity(unchecked) private var builders: [Int64: SnapshotRowBuilder] = [:]
    @exclusivity(unchecked) private var last: (number: Int64, builder: SnapshotRowBuilder)?
    /// The IDs read so far, in the rows' order.
    @exclusivity(unchecked) private(set) var ids: [NSManagedObjectID] = []

    init(reading: PostgresRowReading, table: String, store: PostgresStore) {
        self.reading = reading
        self.table = table
        self.store = store
    }

    /// Appends the ID of `row` to ``ids``.
    func read(_ row: PostgresRow) throws {
        var cells = row.makeIterator()
        guard let keyCell = cells.next(), let numberCell = cells.next() else { return }
        let key = try PostgresValueCoding.requiredInt64(keyCell), number = try PostgresValueCoding.requiredInt64(numberCell)
        if last?.number != number {
            if let known = builders[number] {
                last = (number, known)
            } else {
                guard let entity = reading.entity(number: number) else {
                    throw reading.unreadable(table, "Z_ENT", key, "entity number \(number) is not one of the model's")
                }
                let builder = SnapshotRowBuilder(entity: entity, store: store)
                builders[number] = builder
                last = (number, builder)
            }
        }
        guard let builder = last?.builder else { return }
        ids.append(builder.objectID(of: builder.entity, primaryKey: key))
    }

    /// Appends the IDs of `entity`'s rows whose keys `row` holds as one array of `BIGINT`, in
    /// PostgreSQL's binary array format (``SQLFetchStatements/postgresPrimaryKeyArray(_:entity:schema:model:)``):
    /// the number of dimensions, a null flag, the element type, each dimension's length and
    /// lower bound, then each element as its length and its bytes.
    func readKeys(_ row: PostgresRow, of entity: NSEntityDescription) throws {
        var cells = row.makeIterator()
        guard let cell = cells.next(), var bytes = cell.bytes else { return }
        func malformed(_ problem: String) -> NSError {
            reading.unreadable(table, "Z_PK", 0, "the array of primary keys is malformed: \(problem)")
        }
        guard cell.format == .binary, let dimensions = bytes.readInteger(as: Int32.self),
              bytes.readInteger(as: Int32.self) != nil, let elementType = bytes.readInteger(as: UInt32.self) else {
            throw malformed("no binary array header")
        }
        if dimensions == 0 { return }
        guard dimensions == 1, elementType == PostgresDataType.int8.rawValue,
              let count = bytes.readInteger(as: Int32.self), count >= 0, bytes.readInteger(as: Int32.self) != nil,
              bytes.readableBytes == Int(count) * 12 else {
            throw malformed("not one dimension of BIGINT values")
        }
        let builder = SnapshotRowBuilder(entity: entity, store: store)
        ids.reserveCapacity(ids.count + Int(count))
        for _ in 0..<count {
            guard bytes.readInteger(as: Int32.self) == 8, let key = bytes.readInteger(as: Int64.self) else {
                throw malformed("a NULL element")
            }
            ids.append(builder.objectID(of: entity, primaryKey: key))
        }
    }
}
