import Foundation
import GRDB

/// Batch deletes in SQL, set by set (``SQLBatchDeleteStatements``): no row is read into
/// memory except the tombstone values history keeps.
extension SQLiteStore {
    /// Deletes `objectIDs` (of this store) and applies the batch delete rules, in one transaction.
    func deleteRows(_ objectIDs: [NSManagedObjectID], returningIDs: Bool) throws -> StoreBatchOutcome {
        guard let model = managedObjectModel else { return StoreBatchOutcome(count: 0, objectIDs: []) }
        try BatchDeletePlan.checkRules(of: objectIDs)
        let statements = SQLBatchDeleteStatements.sqlite(schema: schema, model: model)
        var deleted: [NSManagedObjectID] = []
        var updated: [NSManagedObjectID: Set<String>] = [:]
        var updatedOrder: [NSManagedObjectID] = []
        let queue = try openDatabase()
        var written: Int?
        do {
            try queue.write { db in
                for statement in statements.prepare { try db.execute(sql: statement) }
                try seed(objectIDs, statements: statements, db: db)
                let cascades = statements.edges.filter { $0.relationship.deleteRule == .cascadeDeleteRule }.compactMap(statements.cascade)
                var added = cascades.isEmpty ? 0 : 1
                while added > 0 {
                    added = 0
                    for sql in cascades {
                        try db.execute(sql: sql)
                        added += db.changesCount
                    }
                }
                let nullified = statements.edges.filter { $0.relationship.deleteRule == .nullifyDeleteRule && $0.relationship.inverseRelationship != nil }
                for edge in nullified {
                    guard let sql = statements.mandatoryInverseViolation(edge), let row = try Row.fetchOne(db, sql: sql),
                          let inverse = edge.relationship.inverseRelationship else { continue }
                    let id = try objectID(key: row[0], entity: row[1], table: edge.destinationTable, layout: layouts[edge.destinationTable])
                    throw BatchDeletePlan.mandatoryInverseError(inverse, object: id, store: self)
                }
                for edge in nullified {
                    guard let sql = statements.nullify(edge) else { continue }
                    let layout = layouts[edge.destinationTable]
                    for row in try Row.fetchAll(db, sql: sql) {
                        let id = try objectID(key: row[0], entity: row[1], table: edge.destinationTable, layout: layout)
                        if updated[id] == nil { updatedOrder.append(id) }
                        updated[id, default: []].insert(edge.relationship.inverseRelationship?.name ?? "")
                    }
                }
                deleted = try Row.fetchAll(db, sql: statements.deletedRows).compactMap { row in
                    guard let mapping = schema.entity(number: row[1]) else { return nil }
                    return try objectID(key: row[0], entity: row[1], table: mapping.tableName, layout: layouts[mapping.tableName])
                }
                var changes = StoreSaveChanges()
                if recordsPersistentHistory {
                    changes.deleted = try tombstoneSnapshots(deleted, db: db)
                    changes.updated = updatedOrder.map { ObjectSnapshot(objectID: $0) }
                    changes.changedKeys = updated
                }
                for sql in statements.removal(of: try Int64.fetchAll(db, sql: statements.deletedEntities)) { try db.execute(sql: sql) }
                if recordsPersistentHistory { try recordHistory(changes, db: db) }
                try db.execute(sql: statements.clear)
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

    /// Puts the given objects whose rows exist into the deleted table, one cached statement a key.
    private func seed(_ objectIDs: [NSManagedObjectID], statements: SQLBatchDeleteStatements, db: Database) throws {
        var last: (entity: ObjectIdentifier, sql: String?)?
        for id in objectIDs {
            guard let key = id.primaryKey else { continue }
            if last?.entity != ObjectIdentifier(id.entity) {
                last = (ObjectIdentifier(id.entity), statements.seed(id.entity.name ?? "", keys: "= ?"))
            }
            guard let sql = last?.sql else { continue }
            try db.cachedStatement(sql: sql).execute(arguments: [key])
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
}
