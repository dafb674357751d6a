import Foundation
import GRDB
import GRDBSQLite

/// Prefetching for `relationshipKeyPathsForPrefetching`: one statement per relationship, the
/// source keys bound as ONE parameter (a JSON array read with `json_each`), never spliced, or
/// none at all when every object of the sources' entity is a source (the one-pass read).
extension SQLiteStore {
    /// The column name the source key is selected under, after the destination's columns.
    private static let sourceColumn = "Z_PREFETCH_SOURCE"

    /// A source's run of destinations: their IDs and their positions in the snapshots read.
    private struct Run {
        let key: Int64
        /// Whether `key` is a source's (the one-pass read also returns rows of no source).
        let known: Bool
        var ids: [NSManagedObjectID] = []
        var positions: [Int] = []
    }

    /// A source's destinations, as IDs and as positions in the snapshots read.
    private struct Destinations {
        var ids: [NSManagedObjectID] = []
        var positions: [Int] = []
    }

    /// Files a source's run of destinations under its key: a source's first run becomes its
    /// lists (moved in, where appending to the empty lists copied each ID), a later one is
    /// appended.
    private static func file(_ run: Run, in destinations: inout [Int64: Destinations]) {
        if let index = destinations.index(forKey: run.key), !destinations.values[index].ids.isEmpty {
            destinations.values[index].ids.append(contentsOf: run.ids)
            destinations.values[index].positions.append(contentsOf: run.positions)
        } else {
            destinations[run.key] = Destinations(ids: run.ids, positions: run.positions)
        }
    }

    /// On `connection` (a query generation's) the rows read don't go into the row cache, which
    /// holds the newest rows; else the store's own connection is used.
    ///
    /// When the sources are every object of their entity (`sourcesCoverEntity`) and the
    /// destinations hold the key (no join table, no order), the destination table is read in one
    /// pass, `NOT INDEXED`, as a join of the two tables would: looking each source up in the
    /// key's index and then each row in the table costs SQLite about 1.5 times as much when
    /// most rows are wanted (W4's shape in the `sqlite3` shell: 12.5 ms against 8.2 ms). The rows
    /// then come in primary-key order, each source's as several runs. That read selects the rows
    /// whose key is set, not those whose key is among the sources': most are wanted, and a row
    /// whose key names no source (a row that is not a source, such as an object of another
    /// entity sharing an inherited relationship or one deleted in the context, or no row at all)
    /// is skipped below, undecoded. Probing the sources' list for each row cost SQLite a fifth of
    /// its work in W4.
    func readPrefetch(_ relationship: NSRelationshipDescription, for sourceIDs: [NSManagedObjectID],
                      sourcesCoverEntity: Bool = false, on connection: DatabaseQueue? = nil) throws -> RelationshipPrefetch {
        var sources: [Int64: NSManagedObjectID] = [:]
        let origin = objectIDOrigin()
        for id in sourceIDs where holds(id, origin: origin) {
            if let key = id.primaryKey { sources[key] = id }
        }
        guard !sources.isEmpty, let sourceName = relationship.entity?.name, let source = schema.entity(named: sourceName),
              let destinationName = relationship.destinationEntity?.name,
              let destinationTable = schema.entity(named: destinationName)?.tableName,
              let layout = layouts[destinationTable] else { return RelationshipPrefetch() }
        let columns = layout.columns.map { "t." + dialect.quote($0) }.joined(separator: ", ")
        let inKeys = "IN (SELECT value FROM json_each(?))"
        let sql: String
        // The source keys, bound to `inKeys` (the one-pass read binds nothing).
        var bindsKeys = true
        // Through the inverse key each destination row has one source: no duplicates to skip.
        var mayRepeat = true
        if !relationship.isToMany {
            guard let key = source.toOne[relationship.name] else { return RelationshipPrefetch() }
            sql = """
                SELECT \(columns), s.Z_PK AS \(Self.sourceColumn) FROM \(dialect.quote(source.tableName)) s \
                JOIN \(dialect.quote(destinationTable)) t ON t.Z_PK = s.\(dialect.quote(key.column)) \
                WHERE s.Z_PK \(inKeys) ORDER BY s.Z_PK
                """
        } else {
            switch source.toMany[relationship.name] {
            case .inverseForeignKey(let table, let column, let orderColumn, _)?, .destinationKey(let table, let column, let orderColumn, _)?:
                mayRepeat = false
                let keyColumn = "t.\(dialect.quote(column))"
                let onePass = sourcesCoverEntity && orderColumn == nil
                let order = orderColumn.map { "t.\(dialect.quote($0)), " } ?? ""
                if onePass {
                    bindsKeys = false
                    sql = """
                        SELECT \(columns), \(keyColumn) AS \(Self.sourceColumn) FROM \(dialect.quote(table)) t NOT INDEXED \
                        WHERE \(keyColumn) IS NOT NULL
                        """
                } else {
                    sql = """
                        SELECT \(columns), \(keyColumn) AS \(Self.sourceColumn) FROM \(dialect.quote(table)) t \
                        WHERE \(keyColumn) \(inKeys) ORDER BY \(keyColumn), \(order)t.Z_PK
                        """
                }
            case .joinTable(let name, let sourceColumn, let destinationColumn, let orderColumn)?:
                let order = orderColumn.map { "j.\(dialect.quote($0)), " } ?? ""
                sql = """
                    SELECT \(columns), j.\(dialect.quote(sourceColumn)) AS \(Self.sourceColumn) FROM \(dialect.quote(name)) j \
                    JOIN \(dialect.quote(destinationTable)) t ON t.Z_PK = j.\(dialect.quote(destinationColumn)) \
                    WHERE j.\(dialect.quote(sourceColumn)) \(inKeys) ORDER BY j.\(dialect.quote(sourceColumn)), \(order)t.Z_PK
                    """
            case nil:
                return RelationshipPrefetch()
            }
        }
        let arguments = bindsKeys ? ["[" + sources.keys.sorted().map(String.init).joined(separator: ",") + "]"] : [String]()
        var result = RelationshipPrefetch()
        // Destinations gathered by the source's key (an integer hashes cheaply; an ID hashes
        // and compares through NSObject), then filed under the sources' IDs.
        var destinations: [Int64: Destinations] = [:]
        if relationship.isToMany { for key in sources.keys { destinations[key] = Destinations() } }
        // Where a destination that may come again (`mayRepeat`) was first read.
        var firstPositions: [ObjectIDKey: Int] = [:]
        let sourcePosition = CInt(layout.columns.count)
        // The statements above order their rows by source first (all but the one-pass read), so
        // each source's destinations come as one run: the source is looked up when its run
        // starts and the run is filed when it ends, not twice a row. A source whose rows come in
        // several runs (the one-pass read) still gets all of them: each run is appended. No local
        // function files it: capturing `run` in one would make every access to it checked at
        // run time.
        var run: Run?
        var decoding = SQLiteRowDecoding(origin: origin)
        try (connection ?? openDatabase()).inDatabase { db in
            try forEachRow(sql: sql, arguments: arguments.map(\.databaseValue), db: db) { statement in
                // The source's key is read before the row is decoded: a row of no source (which
                // the one-pass read returns, and the other reads' SQL leaves out) is skipped
                // without decoding it, so that it can't fail the prefetch either. A key that is
                // not an integer names no source.
                let keyCell = sqlite3_column_value(statement, sourcePosition)
                guard sqlite3_value_type(keyCell) == SQLITE_INTEGER else { return }
                let sourceKey = sqlite3_value_int64(keyCell)
                if run?.key != sourceKey {
                    if let ended = run.take(), ended.known { Self.file(ended, in: &destinations) }
                    run = Run(key: sourceKey, known: sources[sourceKey] != nil)
                }
                guard run?.known == true else { return }
                let snapshot = try layout.snapshot(at: statement, store: self, decoding: &decoding)
                run?.ids.append(snapshot.objectID)
                var position = result.snapshots.count
                if mayRepeat {
                    position = firstPositions[snapshot.objectID.key, default: position]
                    if position < result.snapshots.count {
                        run?.positions.append(position)
                        return
                    }
                    firstPositions[snapshot.objectID.key] = position
                }
                run?.positions.append(position)
                result.snapshots.append(snapshot)
            }
        }
        if let ended = run.take(), ended.known { Self.file(ended, in: &destinations) }
        result.destinations.reserveCapacity(destinations.count)
        var positions: [NSManagedObjectID: [Int]] = [:]
        positions.reserveCapacity(destinations.count)
        for (key, found) in destinations {
            guard let sourceID = sources[key] else { continue }
            result.destinations[sourceID] = found.ids
            positions[sourceID] = found.positions
        }
        result.destinationPositions = positions
        if connection == nil { rowCache.insert(contentsOf: result.snapshots.suffix(rowCache.capacity)) }
        return result
    }
}
