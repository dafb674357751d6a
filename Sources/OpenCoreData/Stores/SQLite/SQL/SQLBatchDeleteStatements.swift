import Foundation

/// A batch delete in SQL, set by set, for every SQL store: the objects to delete go into a
/// temporary table, the cascades add to it until nothing new comes, and each delete rule
/// becomes one statement per relationship, the way Apple's SQLite store runs batch deletes
/// with its triggers. Only the store runs the statements (and reads the tombstone values
/// history keeps); their text is the same for both.
///
/// The rules are ``BatchDeletePlan``'s, which the other stores apply over snapshots: cascade
/// deletes the destinations; nullify clears a to-one inverse, drops the deleted objects from a
/// to-many inverse and raises the destinations' versions, failing the whole request when a
/// mandatory inverse would be left empty; no action leaves the destinations as they are; deny
/// fails the request before anything is written.
// @unchecked Sendable: every property is immutable, and the model's descriptions it keeps
// don't change once a coordinator uses the model.
package struct SQLBatchDeleteStatements: @unchecked Sendable {
    /// One relationship of an entity as the statements use it.
    package struct Edge {
        let source: SQLEntityMapping
        package let relationship: NSRelationshipDescription
        let destination: SQLEntityMapping
        /// The table of the inverse's entity.
        package var destinationTable: String { destination.tableName }
    }

    let schema: SQLiteSchema
    let dialect: any SQLDialect
    /// The temporary table of deleted rows, as the statements name it.
    let table: String
    /// Makes the temporary table, empty.
    package let prepare: [String]
    /// Its column giving the order in which rows were added.
    private let order: String
    /// `INSERT … SELECT …` that skips rows already in the table.
    private let insertIgnoring: @Sendable (_ columns: String, _ select: String) -> String
    /// Every stored relationship of the model, sorted by entity and name.
    package let edges: [Edge]

    /// The statements for the SQLite store (a connection's `temp` table, ordered by `rowid`).
    static func sqlite(schema: SQLiteSchema, model: NSManagedObjectModel) -> Self {
        Self(schema: schema, model: model, dialect: SQLiteDialect(), table: "temp.ocd_batch_delete", prepare: [
            "CREATE TEMP TABLE IF NOT EXISTS ocd_batch_delete (root INTEGER NOT NULL, pk INTEGER NOT NULL, ent INTEGER NOT NULL, UNIQUE (root, pk))",
            "DELETE FROM temp.ocd_batch_delete",
        ], order: "rowid") { "INSERT OR IGNORE INTO temp.ocd_batch_delete (\($0)) \($1)" }
    }

    /// The statements for the PostgreSQL store (a temporary table dropped when the
    /// transaction ends, ordered by a serial column).
    package static func postgres(schema: SQLiteSchema, model: NSManagedObjectModel) -> Self {
        Self(schema: schema, model: model, dialect: PostgreSQLDialect(), table: "pg_temp.batch_delete", prepare: [
            "CREATE TEMP TABLE batch_delete (seq BIGSERIAL, root BIGINT NOT NULL, pk BIGINT NOT NULL, ent BIGINT NOT NULL, UNIQUE (root, pk)) ON COMMIT DROP",
        ], order: "seq") { "INSERT INTO pg_temp.batch_delete (\($0)) \($1) ON CONFLICT DO NOTHING" }
    }

    private init(schema: SQLiteSchema, model: NSManagedObjectModel, dialect: any SQLDialect, table: String, prepare: [String], order: String,
                 insertIgnoring: @escaping @Sendable (String, String) -> String) {
        self.schema = schema
        self.dialect = dialect
        self.table = table
        self.prepare = prepare
        self.order = order
        self.insertIgnoring = insertIgnoring
        edges = model.entities.flatMap { entity -> [Edge] in
            guard let source = schema.entity(named: entity.name ?? "") else { return [] }
            return entity.relationshipsByName.values.sorted { $0.name < $1.name }.compactMap { relationship in
                guard relationship.entity === entity, !relationship.isTransient,
                      let destination = relationship.destinationEntity.flatMap({ schema.entity(named: $0.name ?? "") }) else { return nil }
                return Edge(source: source, relationship: relationship, destination: destination)
            }
        }
    }

    private func q(_ identifier: String) -> String { dialect.quote(identifier) }

    // MARK: Statements

    /// Adds the rows of `entityName`'s table whose `Z_PK` matches `keys` (`= ?`, `= ANY($1)`).
    package func seed(_ entityName: String, keys: String) -> String? {
        guard let mapping = schema.entity(named: entityName) else { return nil }
        return insertIgnoring("root, pk, ent", "SELECT \(mapping.rootNumber), \(q("Z_PK")), \(q("Z_ENT")) FROM \(q(mapping.tableName)) WHERE \(q("Z_PK")) \(keys)")
    }

    /// Adds the destinations of a cascading `edge`; nil when it has none in SQL.
    package func cascade(_ edge: Edge) -> String? {
        guard let keys = destinationKeys(edge) else { return nil }
        return insertIgnoring("root, pk, ent", "SELECT \(edge.destination.rootNumber), \(q("Z_PK")), \(q("Z_ENT")) FROM \(q(edge.destination.tableName)) WHERE \(q("Z_PK")) IN (\(keys))")
    }

    /// `SELECT "Z_PK", "Z_ENT" … LIMIT 1` of a surviving destination whose mandatory inverse
    /// nullifying `edge` would leave empty; nil when the inverse may be empty.
    package func mandatoryInverseViolation(_ edge: Edge) -> String? {
        guard let inverse = edge.relationship.inverseRelationship, let keys = destinationKeys(edge),
              let owner = inverse.entity.flatMap({ schema.entity(named: $0.name ?? "") }) else { return nil }
        let survivors = "SELECT \(q("Z_PK")), \(q("Z_ENT")) FROM \(q(edge.destination.tableName)) AS d WHERE \(q("Z_PK")) IN (\(keys)) "
            + "AND \(q("Z_PK")) NOT IN (\(deletedRootKeys(edge.destination)))"
        if !inverse.isToMany {
            return inverse.isOptional ? nil : survivors + " LIMIT 1"
        }
        guard !inverse.isOptional || inverse.minCount > 0 else { return nil }
        let remaining: String
        switch owner.toMany[inverse.name] {
        case .inverseForeignKey(let table, let column, _, _), .destinationKey(let table, let column, _, _):
            remaining = "SELECT 1 FROM \(q(table)) AS s WHERE s.\(q(column)) = d.\(q("Z_PK")) AND s.\(q("Z_PK")) NOT IN (\(deletedRootKeys(edge.source)))"
        case .joinTable(let table, let source, let destination, _):
            remaining = "SELECT 1 FROM \(q(table)) AS j WHERE j.\(q(source)) = d.\(q("Z_PK")) AND j.\(q(destination)) NOT IN (\(deletedRootKeys(edge.source)))"
        case nil:
            return nil
        }
        return survivors + " AND NOT EXISTS (\(remaining)) LIMIT 1"
    }

    /// `UPDATE … RETURNING "Z_PK", "Z_ENT"`: nullifies the surviving destinations' inverse of
    /// `edge` and raises their versions; nil when there is nothing to nullify.
    package func nullify(_ edge: Edge) -> String? {
        guard let inverse = edge.relationship.inverseRelationship,
              let owner = inverse.entity.flatMap({ schema.entity(named: $0.name ?? "") }) else { return nil }
        let table = q(edge.destination.tableName)
        let version = "\(q("Z_OPT")) = \(q("Z_OPT")) + 1"
        let survivors = "\(q("Z_PK")) NOT IN (\(deletedRootKeys(edge.destination))) RETURNING \(q("Z_PK")), \(q("Z_ENT"))"
        if !inverse.isToMany, let key = owner.toOne[inverse.name] {
            let cleared = ([key.column] + [key.entityColumn, key.orderColumn].compactMap { $0 }).map { "\(q($0)) = NULL" }
            return "UPDATE \(table) SET \(cleared.joined(separator: ", ")), \(version) WHERE \(q(key.column)) IN (\(deletedKeys(edge.source))) AND " + survivors
        }
        if inverse.isToMany, let keys = destinationKeys(edge) {
            return "UPDATE \(table) SET \(version) WHERE \(q("Z_PK")) IN (\(keys)) AND " + survivors
        }
        return nil
    }

    /// `SELECT pk, ent`: the deleted rows in the order they were added (the given objects,
    /// then cascades).
    package var deletedRows: String { "SELECT pk, ent FROM \(table) ORDER BY \(order)" }

    /// `SELECT DISTINCT ent`: the entity numbers of the deleted rows.
    package var deletedEntities: String { "SELECT DISTINCT ent FROM \(table)" }

    /// Deletes the rows of the entities `numbers` (``deletedEntities``), their join-table rows
    /// and the keys their to-many relationships without an inverse left in destination rows.
    package func removal(of numbers: [Int64]) -> [String] {
        var statements: [String] = []
        var tables: [String: SQLEntityMapping] = [:]
        for number in numbers {
            guard let mapping = schema.entity(number: number) else { continue }
            tables[mapping.tableName] = mapping
            let keys = "SELECT pk FROM \(table) WHERE root = \(mapping.rootNumber) AND ent = \(number)"
            for toMany in mapping.toMany.values.sorted(by: { "\($0)" < "\($1)" }) {
                switch toMany {
                case .joinTable(let join, let source, _, _):
                    statements.append("DELETE FROM \(q(join)) WHERE \(q(source)) IN (\(keys))")
                case .destinationKey(let destination, let column, let orderColumn, _):
                    let assignments = ([column] + (orderColumn.map { [$0] } ?? [])).map { "\(q($0)) = NULL" }.joined(separator: ", ")
                    statements.append("UPDATE \(q(destination)) SET \(assignments) WHERE \(q(column)) IN (\(keys))")
                case .inverseForeignKey:
                    continue
                }
            }
        }
        for (name, mapping) in tables.sorted(by: { $0.key < $1.key }) {
            statements.append("DELETE FROM \(q(name)) WHERE \(q("Z_PK")) IN (\(deletedRootKeys(mapping)))")
        }
        return statements
    }

    /// Empties the temporary table.
    package var clear: String { "DELETE FROM \(table)" }

    // MARK: Subqueries

    /// `SELECT pk …`: the deleted keys of `mapping`'s rows (its subentities' included).
    private func deletedKeys(_ mapping: SQLEntityMapping) -> String {
        let kinds = mapping.kindNumbers.map(String.init).joined(separator: ", ")
        return "SELECT pk FROM \(table) WHERE root = \(mapping.rootNumber) AND ent IN (\(kinds))"
    }

    /// `SELECT pk …`: every deleted key of `mapping`'s root table.
    private func deletedRootKeys(_ mapping: SQLEntityMapping) -> String {
        "SELECT pk FROM \(table) WHERE root = \(mapping.rootNumber)"
    }

    /// `SELECT key …`: the destinations' keys of `edge` for the deleted sources.
    private func destinationKeys(_ edge: Edge) -> String? {
        let name = edge.relationship.name
        if !edge.relationship.isToMany {
            guard let key = edge.source.toOne[name] else { return nil }
            return "SELECT \(q(key.column)) FROM \(q(edge.source.tableName)) WHERE \(q("Z_PK")) IN (\(deletedKeys(edge.source))) AND \(q(key.column)) IS NOT NULL"
        }
        switch edge.source.toMany[name] {
        case .inverseForeignKey(let table, let column, _, _), .destinationKey(let table, let column, _, _):
            return "SELECT \(q("Z_PK")) FROM \(q(table)) WHERE \(q(column)) IN (\(deletedKeys(edge.source)))"
        case .joinTable(let table, let source, let destination, _):
            return "SELECT \(q(destination)) FROM \(q(table)) WHERE \(q(source)) IN (\(deletedKeys(edge.source)))"
        case nil:
            return nil
        }
    }
}
