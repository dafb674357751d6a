import Foundation
import GRDB

/// Batch deletes in SQL, set by set: the objects to delete go into a temporary table, the
/// cascades add to it until nothing new comes, and each delete rule becomes one statement per
/// relationship, the way Apple's SQLite store runs batch deletes with its triggers. No row is
/// read into memory except the tombstone values history keeps.
///
/// The rules are ``BatchDeletePlan``'s, which the other stores apply over snapshots: cascade
/// deletes the destinations; nullify clears a to-one inverse, drops the deleted objects from a
/// to-many inverse and raises the destinations' versions, failing the whole request when a
/// mandatory inverse would be left empty; no action leaves the destinations as they are; deny
/// fails the request before anything is written.
extension SQLiteStore {
    /// One relationship of an entity as the delete's statements use it.
    private struct DeleteEdge {
        let source: SQLEntityMapping
        let relationship: NSRelationshipDescription
        let destination: SQLEntityMapping
    }

    private static let deletedTable = "temp.ocd_batch_delete"

    /// Deletes `objectIDs` (of this store) and applies the batch delete rules, in one transaction.
    func deleteRows(_ objectIDs: [NSManagedObjectID], returningIDs: Bool) throws -> StoreBatchOutcome {
        guard let model = managedObjectModel else { return StoreBatchOutcome(count: 0, objectIDs: []) }
        var checked: Set<ObjectIdentifier> = []
        for entity in Set(objectIDs.map { ObjectIdentifier($0.entity) }).compactMap({ id in objectIDs.first { ObjectIdentifier($0.entity) == id }?.entity }) {
            try BatchDeletePlan.checkRules(of: entity, checked: &checked)
        }
        let schema = self.schema
        let edges = model.entities.flatMap { entity -> [DeleteEdge] in
            guard let source = schema.entity(named: entity.name ?? "") else { return [] }
            return entity.relationshipsByName.values.sorted { $0.name < $1.name }.compactMap { relationship in
                guard relationship.entity === entity, !relationship.isTransient,
                      let destination = relationship.destinationEntity.flatMap({ schema.entity(named: $0.name ?? "") }) else { return nil }
                return DeleteEdge(source: source, relationship: relationship, destination: destination)
            }
        }
        var deleted: [NSManagedObjectID] = []
        var updated: [NSManagedObjectID: Set<String>] = [:]
        var updatedOrder: [NSManagedObjectID] = []
        let queue = try openDatabase()
        var written: Int?
        do {
            try queue.write { db in
                try db.execute(sql: """
                    CREATE TEMP TABLE IF NOT EXISTS ocd_batch_delete (root INTEGER NOT NULL, pk INTEGER NOT NULL, ent INTEGER NOT NULL, UNIQUE (root, pk));
                    DELETE FROM \(Self.deletedTable);
                    """)
                try seed(objectIDs, db: db)
                try cascade(edges.filter { $0.relationship.deleteRule == .cascadeDeleteRule }, db: db)
                let nullified = edges.filter { $0.relationship.deleteRule == .nullifyDeleteRule && $0.relationship.inverseRelationship != nil }
                for edge in nullified { try checkMandatoryInverse(edge, db: db) }
                for edge in nullified {
                    for id in try nullify(edge, db: db) {
                        if updated[id] == nil { updatedOrder.append(id) }
                        updated[id, default: []].insert(edge.relationship.inverseRelationship?.name ?? "")
                    }
                }
                deleted = try deletedIDs(db: db)
                var changes = StoreSaveChanges()
                if recordsPersistentHistory {
                    changes.deleted = try tombstoneSnapshots(deleted, db: db)
                    changes.updated = updatedOrder.map { ObjectSnapshot(objectID: $0) }
                    changes.changedKeys = updated
                }
                try removeDeletedRows(db: db)
                if recordsPersistentHistory { try recordHistory(changes, db: db) }
                try db.execute(sql: "DELETE FROM \(Self.deletedTable)")
                written = try writeCurrentMetadata(db)
            }
            if let written { metadataWritten(written) }
        } catch {
            rowCache.remove(deleted + updatedOrder)
            throw writeFailure(error)
        }
        rowCache.remove(deleted + updatedOrder)
        return StoreBatchOutcome(count: deleted.count, objectIDs: returningIDs ? deleted : nil, updatedObjectIDs: updatedOrder)
    }

    // MARK: Statements

    /// `SELECT pk FROM …`: the deleted keys of `mapping`'s rows (its subentities' included).
    private func deletedKeys(_ mapping: SQLEntityMapping) -> String {
        let kinds = mapping.kindNumbers.map(String.init).joined(separator: ", ")
        return "SELECT pk FROM \(Self.deletedTable) WHERE root = \(mapping.rootNumber) AND ent IN (\(kinds))"
    }

    /// `SELECT pk FROM …`: every deleted key of `mapping`'s root table.
    private func deletedRootKeys(_ mapping: SQLEntityMapping) -> String {
        "SELECT pk FROM \(Self.deletedTable) WHERE root = \(mapping.rootNumber)"
    }

    /// `SELECT key …`: the destinations' keys of `edge` for the deleted sources.
    private func destinationKeys(_ edge: DeleteEdge) -> String? {
        let name = edge.relationship.name
        if !edge.relationship.isToMany {
            guard let key = edge.source.toOne[name] else { return nil }
            return "SELECT \(dialect.quote(key.column)) FROM \(dialect.quote(edge.source.tableName)) WHERE Z_PK IN (\(deletedKeys(edge.source))) AND \(dialect.quote(key.column)) IS NOT NULL"
        }
        switch edge.source.toMany[name] {
        case .inverseForeignKey(let table, let column, _, _), .destinationKey(let table, let column, _, _):
            return "SELECT Z_PK FROM \(dialect.quote(table)) WHERE \(dialect.quote(column)) IN (\(deletedKeys(edge.source)))"
        case .joinTable(let table, let source, let destination, _):
            return "SELECT \(dialect.quote(destination)) FROM \(dialect.quote(table)) WHERE \(dialect.quote(source)) IN (\(deletedKeys(edge.source)))"
        case nil:
            return nil
        }
    }

    /// Puts the given objects whose rows exist into the deleted table.
    private func seed(_ objectIDs: [NSManagedObjectID], db: Database) throws {
        var lastEntity: (ObjectIdentifier, SQLEntityMapping)?
        for id in objectIDs {
            guard let key = id.primaryKey else { continue }
            let mapping: SQLEntityMapping
            if let lastEntity, lastEntity.0 == ObjectIdentifier(id.entity) {
                mapping = lastEntity.1
            } else {
                guard let found = schema.entity(named: id.entity.name ?? "") else { continue }
                mapping = found
                lastEntity = (ObjectIdentifier(id.entity), found)
            }
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(Self.deletedTable) (root, pk, ent) SELECT ?, Z_PK, Z_ENT FROM \(dialect.quote(mapping.tableName)) WHERE Z_PK = ?")
                .execute(arguments: [mapping.rootNumber, key])
        }
    }

    /// Adds the destinations of cascading relationships until no new object comes.
    private func cascade(_ edges: [DeleteEdge], db: Database) throws {
        guard !edges.isEmpty else { return }
        var added = 1
        while added > 0 {
            added = 0
            for edge in edges {
                guard let keys = destinationKeys(edge) else { continue }
                try db.execute(sql: """
                    INSERT OR IGNORE INTO \(Self.deletedTable) (root, pk, ent) \
                    SELECT \(edge.destination.rootNumber), Z_PK, Z_ENT FROM \(dialect.quote(edge.destination.tableName)) WHERE Z_PK IN (\(keys))
                    """)
                added += db.changesCount
            }
        }
    }

    /// Fails when nullifying `edge` would leave a surviving destination's mandatory inverse empty.
    private func checkMandatoryInverse(_ edge: DeleteEdge, db: Database) throws {
        guard let inverse = edge.relationship.inverseRelationship, let keys = destinationKeys(edge),
              let owner = inverse.entity.flatMap({ schema.entity(named: $0.name ?? "") }) else { return }
        let survivors = "SELECT Z_PK, Z_ENT FROM \(dialect.quote(edge.destination.tableName)) AS d WHERE Z_PK IN (\(keys)) AND Z_PK NOT IN (\(deletedRootKeys(edge.destination)))"
        let sql: String
        if !inverse.isToMany {
            guard !inverse.isOptional else { return }
            sql = survivors + " LIMIT 1"
        } else {
            guard !inverse.isOptional || inverse.minCount > 0 else { return }
            let remaining: String
            switch owner.toMany[inverse.name] {
            case .inverseForeignKey(let table, let column, _, _), .destinationKey(let table, let column, _, _):
                remaining = "SELECT 1 FROM \(dialect.quote(table)) AS s WHERE s.\(dialect.quote(column)) = d.Z_PK AND s.Z_PK NOT IN (\(deletedRootKeys(edge.source)))"
            case .joinTable(let table, let source, let destination, _):
                remaining = "SELECT 1 FROM \(dialect.quote(table)) AS j WHERE j.\(dialect.quote(source)) = d.Z_PK AND j.\(dialect.quote(destination)) NOT IN (\(deletedRootKeys(edge.source)))"
            case nil:
                return
            }
            sql = survivors + " AND NOT EXISTS (\(remaining)) LIMIT 1"
        }
        guard let row = try Row.fetchOne(db, sql: sql) else { return }
        let id = try objectID(key: row[0], entity: row[1], table: edge.destination.tableName, layout: layouts[edge.destination.tableName])
        throw BatchDeletePlan.mandatoryInverseError(inverse, object: id, store: self)
    }

    /// Nullifies the surviving destinations' inverse of `edge` and raises their versions;
    /// returns them.
    private func nullify(_ edge: DeleteEdge, db: Database) throws -> [NSManagedObjectID] {
        guard let inverse = edge.relationship.inverseRelationship,
              let owner = inverse.entity.flatMap({ schema.entity(named: $0.name ?? "") }) else { return [] }
        let table = dialect.quote(edge.destination.tableName)
        let sql: String
        if !inverse.isToMany, let key = owner.toOne[inverse.name] {
            let cleared = ([key.column] + [key.entityColumn, key.orderColumn].compactMap { $0 }).map { "\(dialect.quote($0)) = NULL" }
            sql = "UPDATE \(table) SET \(cleared.joined(separator: ", ")), Z_OPT = Z_OPT + 1 WHERE \(dialect.quote(key.column)) IN (\(deletedKeys(edge.source))) "
                + "AND Z_PK NOT IN (\(deletedRootKeys(edge.destination))) RETURNING Z_PK, Z_ENT"
        } else if inverse.isToMany, let keys = destinationKeys(edge) {
            sql = "UPDATE \(table) SET Z_OPT = Z_OPT + 1 WHERE Z_PK IN (\(keys)) AND Z_PK NOT IN (\(deletedRootKeys(edge.destination))) RETURNING Z_PK, Z_ENT"
        } else {
            return []
        }
        let layout = layouts[edge.destination.tableName]
        return try Row.fetchAll(db, sql: sql).map { try objectID(key: $0[0], entity: $0[1], table: edge.destination.tableName, layout: layout) }
    }

    /// The deleted objects, in the order they were added (the given ones, then cascades).
    private func deletedIDs(db: Database) throws -> [NSManagedObjectID] {
        try Row.fetchAll(db, sql: "SELECT root, pk, ent FROM \(Self.deletedTable) ORDER BY rowid").compactMap { row in
            guard let mapping = schema.entity(number: row[2]) else { return nil }
            return try objectID(key: row[1], entity: row[2], table: mapping.tableName, layout: layouts[mapping.tableName])
        }
    }

    /// The deleted objects for history: with the values of their tombstone attributes.
    private func tombstoneSnapshots(_ ids: [NSManagedObjectID], db: Database) throws -> [ObjectSnapshot] {
        var keeping: [String: [Int64]] = [:]
        for id in ids where !Self.tombstoneAttributes(of: id.entity).isEmpty {
            guard let table = schema.entity(named: id.entity.name ?? "")?.tableName else { continue }
            keeping[table, default: []].append(id.primaryKey ?? 0)
        }
        var read: [NSManagedObjectID: ObjectSnapshot] = [:]
        for (table, keys) in keeping {
            guard let layout = layouts[table] else { continue }
            for chunk in BatchFaulting.chunks(keys) {
                for snapshot in try readSnapshots(layout, keys: Array(chunk), db: db) { read[snapshot.objectID] = snapshot }
            }
        }
        return ids.map { read[$0] ?? ObjectSnapshot(objectID: $0) }
    }

    /// Deletes the rows, their join-table rows and the keys their to-many relationships without
    /// an inverse left in destination rows.
    private func removeDeletedRows(db: Database) throws {
        let numbers = try Int64.fetchAll(db, sql: "SELECT DISTINCT ent FROM \(Self.deletedTable)")
        var tables: [String: SQLEntityMapping] = [:]
        for number in numbers {
            guard let mapping = schema.entity(number: number) else { continue }
            tables[mapping.tableName] = mapping
            let keys = "SELECT pk FROM \(Self.deletedTable) WHERE root = \(mapping.rootNumber) AND ent = \(number)"
            for toMany in mapping.toMany.values.sorted(by: { "\($0)" < "\($1)" }) {
                switch toMany {
                case .joinTable(let table, let source, _, _):
                    try db.execute(sql: "DELETE FROM \(dialect.quote(table)) WHERE \(dialect.quote(source)) IN (\(keys))")
                case .destinationKey(let table, let column, let orderColumn, _):
                    let assignments = ([column] + (orderColumn.map { [$0] } ?? [])).map { "\(dialect.quote($0)) = NULL" }.joined(separator: ", ")
                    try db.execute(sql: "UPDATE \(dialect.quote(table)) SET \(assignments) WHERE \(dialect.quote(column)) IN (\(keys))")
                case .inverseForeignKey:
                    continue
                }
            }
        }
        for (table, mapping) in tables.sorted(by: { $0.key < $1.key }) {
            try db.execute(sql: "DELETE FROM \(dialect.quote(table)) WHERE Z_PK IN (\(deletedRootKeys(mapping)))")
        }
    }
}
