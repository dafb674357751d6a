import Foundation
import GRDB
import GRDBSQLite

/// Prefetching for `relationshipKeyPathsForPrefetching`: one statement per relationship, the
/// source keys bound as ONE parameter (a JSON array read with `json_each`), never spliced, or
/// none at all when every object of the sources' entity is a source (the one-pass read).
extension SQLiteStore {
    /// The column name the source key is selected under, after the destination's columns.
    private static let sourceColumn = "Z_PREFETCH_SOURCE"

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
    ///
    /// A to-many relationship's lists come as positions in the snapshots too
    /// (``RelationshipPrefetch/destinationPositions``).
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
        // The statements above order their rows by source first (all but the one-pass read), so
        // each source's destinations come as one run (see `RelationshipPrefetchBuilder`).
        var builder = RelationshipPrefetchBuilder(relationship, sources: sources, mayRepeat: mayRepeat)
        let sourcePosition = CInt(layout.columns.count)
        var decoding = SQLiteRowDecoding(origin: origin)
        try (connection ?? openDatabase()).inDatabase { db in
            try forEachRow(sql: sql, arguments: arguments.map(\.databaseValue), db: db) { statement in
                // The source's key is read before the row is decoded: a row of no source (which
                // the one-pass read returns, and the other reads' SQL leaves out) is skipped
                // without decoding it. A key that is not an integer names no source.
                let keyCell = sqlite3_column_value(statement, sourcePosition)
                guard sqlite3_value_type(keyCell) == SQLITE_INTEGER,
                      builder.wantsRow(ofSource: sqlite3_value_int64(keyCell)) else { return }
                builder.add(try layout.snapshot(at: statement, store: self, decoding: &decoding))
            }
        }
        let result = builder.finish()
        if connection == nil { rowCache.insert(contentsOf: result.snapshots) }
        return result
    }
}
