import Foundation
import OpenCoreData
import PostgresNIO

/// Prefetching (`relationshipKeyPathsForPrefetching`): one statement per relationship, as the
/// SQLite store prefetches.
extension PostgresStore {
    /// The destinations of `relationship` for every source in `sourceIDs`, with their rows, in
    /// one statement: the destination rows selected with their source's key (through the
    /// source's foreign key for a to-one, the inverse key or the join table for a to-many).
    /// An ordered relationship's rows come ordered by source, then by position, then by key;
    /// an unordered one's as the server finds them.
    func prefetchRows(_ relationship: NSRelationshipDescription, for sourceIDs: [NSManagedObjectID]) throws -> RelationshipPrefetch {
        let opened = try open()
        var sources: [Int64: NSManagedObjectID] = [:]
        for id in sourceIDs where id.persistentStore === self {
            if let key = id.primaryKey { sources[key] = id }
        }
        guard !sources.isEmpty, let source = opened.schema.entity(named: relationship.entity?.name ?? ""),
              let destinationName = relationship.destinationEntity?.name,
              let destinationTableName = opened.schema.entity(named: destinationName)?.tableName,
              let table = opened.reading.tables[destinationTableName] else { return RelationshipPrefetch() }
        let schema = opened.location.schema
        let columns = table.record(alias: "t")
        let destinationTable = PostgresSQL.qualified(schema, destinationTableName)
        let sql: String
        // Through a key in the destination row each destination has one source: no repeats.
        let mayRepeat: Bool
        if !relationship.isToMany {
            mayRepeat = true
            guard let key = source.toOne[relationship.name] else { return RelationshipPrefetch() }
            sql = """
                SELECT \(columns), s."Z_PK" FROM \(PostgresSQL.qualified(schema, source.tableName)) s \
                JOIN \(destinationTable) t ON t."Z_PK" = s.\(PostgresSQL.quote(key.column)) \
                WHERE s."Z_PK" = ANY($1) ORDER BY s."Z_PK"
                """
        } else {
            switch source.toMany[relationship.name] {
            case .inverseForeignKey(let rowTable, let column, let orderColumn, _)?, .destinationKey(let rowTable, let column, let orderColumn, _)?:
                mayRepeat = false
                // An unordered relationship's rows are grouped by source here, not by the
                // server: sorting them took about half of the server's time in W4.
                let order = orderColumn.map { " ORDER BY t.\(PostgresSQL.quote(column)), t.\(PostgresSQL.quote($0)), t.\"Z_PK\"" } ?? ""
                sql = """
                    SELECT \(columns), t.\(PostgresSQL.quote(column)) FROM \(PostgresSQL.qualified(schema, rowTable)) t \
                    WHERE t.\(PostgresSQL.quote(column)) = ANY($1)\(order)
                    """
            case .joinTable(let name, let sourceColumn, let destinationColumn, let orderColumn)?:
                mayRepeat = true
                let order = orderColumn.map { " ORDER BY j.\(PostgresSQL.quote(sourceColumn)), j.\(PostgresSQL.quote($0)), t.\"Z_PK\"" } ?? ""
                sql = """
                    SELECT \(columns), j.\(PostgresSQL.quote(sourceColumn)) FROM \(PostgresSQL.qualified(schema, name)) j \
                    JOIN \(destinationTable) t ON t."Z_PK" = j.\(PostgresSQL.quote(destinationColumn)) \
                    WHERE j.\(PostgresSQL.quote(sourceColumn)) = ANY($1)\(order)
                    """
            case nil:
                return RelationshipPrefetch()
            }
        }
        let keys = sources.keys.sorted()
        let rows = try withConnection { [logger] connection, opened in
            var bindings = PostgresBindings()
            bindings.append(keys)
            return try await opened.reading.snapshots(PostgresQuery(unsafeSQL: sql, binds: bindings), table: table, store: self,
                                                      on: connection, logger: logger)
        }
        // Each row comes with its source's key (a to-many relationship's lists also as
        // positions: see `RelationshipPrefetchBuilder`).
        let snapshots = opened.reading.resolvingObjectIDs(rows.map(\.snapshot), store: self)
        var builder = RelationshipPrefetchBuilder(relationship, sources: sources, mayRepeat: mayRepeat)
        for (snapshot, row) in zip(snapshots, rows) {
            guard let sourceKey = row.extraKey, builder.wantsRow(ofSource: sourceKey) else { continue }
            builder.add(snapshot)
        }
        return builder.finish()
    }
}
