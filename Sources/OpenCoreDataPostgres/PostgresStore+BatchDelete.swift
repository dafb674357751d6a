import Foundation
import OpenCoreData
import PostgresNIO

/// Batch deletes in SQL, set by set, as the SQLite store runs them (`SQLBatchDeleteStatements`
/// in the core module, PostgreSQL's statements): the objects go into a temporary table dropped
/// at commit, cascades add to it until nothing new comes, and each delete rule is one
/// statement per relationship, in one transaction with the history it records and the notice
/// other coordinators receive. No row is read into memory except the tombstone values history
/// keeps.
extension PostgresStore {
    /// Deletes `objectIDs` (of this store) and applies the batch delete rules, in one transaction.
    func deleteRows(_ objectIDs: [NSManagedObjectID], returningIDs: Bool) throws -> StoreBatchOutcome {
        let opened = try open()
        try BatchDeletePlan.checkRules(of: objectIDs)
        let statements = SQLBatchDeleteStatements.postgres(schema: opened.schema, model: opened.model)
        // The given keys by entity, each entity's in one statement.
        var seeds: [(entity: String, keys: [Int64])] = []
        for id in objectIDs where id.persistentStore === self {
            guard let key = id.primaryKey else { continue }
            let name = id.entity.name ?? ""
            if seeds.last?.entity == name { seeds[seeds.count - 1].keys.append(key) } else { seeds.append((name, [key])) }
        }
        let pending = pendingMetadata()
        let seeded = seeds
        let sender = instanceToken
        let history = recordsPersistentHistory
        readAheads.invalidate()
        defer { readAheads.invalidate() }
        let (deleted, updated): ([NSManagedObjectID], [NSManagedObjectID])
        do {
            (deleted, updated) = try withConnection { [logger] connection, opened in
                try await Self.transaction(on: connection, logger: logger) { connection in
                    try await self.checkSchemaIsTheOneOpened(opened, on: connection, logger: logger)
                    func run(_ sql: String, _ bindings: PostgresBindings = PostgresBindings()) async throws -> Int {
                        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger) { _ in }.get().rows ?? 0
                    }
                    func ids(_ sql: String, table: String) async throws -> [NSManagedObjectID] {
                        try await opened.reading.objectIDs(PostgresQuery(unsafeSQL: sql), table: table, store: self, on: connection, logger: logger)
                    }
                    for sql in statements.prepare { _ = try await run(sql) }
                    for (entity, keys) in seeded {
                        guard let sql = statements.seed(entity, keys: "= ANY($1)") else { continue }
                        var bindings = PostgresBindings()
                        bindings.append(keys)
                        _ = try await run(sql, bindings)
                    }
                    let cascades = statements.edges.filter { $0.relationship.deleteRule == .cascadeDeleteRule }.compactMap(statements.cascade)
                    var added = cascades.isEmpty ? 0 : 1
                    while added > 0 {
                        added = 0
                        for sql in cascades { added += try await run(sql) }
                    }
                    let nullified = statements.edges.filter { $0.relationship.deleteRule == .nullifyDeleteRule && $0.relationship.inverseRelationship != nil }
                    for edge in nullified {
                        guard let sql = statements.mandatoryInverseViolation(edge), let inverse = edge.relationship.inverseRelationship,
                              let id = try await ids(sql, table: edge.destinationTable).first else { continue }
                        throw BatchDeletePlan.mandatoryInverseError(inverse, object: id, store: self)
                    }
                    var changes = StoreSaveChanges()
                    for edge in nullified {
                        guard let sql = statements.nullify(edge) else { continue }
                        for id in try await ids(sql, table: edge.destinationTable) {
                            if changes.changedKeys[id] == nil { changes.updated.append(ObjectSnapshot(objectID: id)) }
                            changes.changedKeys[id, default: []].insert(edge.relationship.inverseRelationship?.name ?? "")
                        }
                    }
                    let deleted = try await ids(statements.deletedRows, table: "the batch delete's rows")
                    if history {
                        // Deleted objects keep their tombstone values in history.
                        let keeping = deleted.filter { !SQLiteStore.tombstoneAttributes(of: $0.entity).isEmpty }
                        var read: [NSManagedObjectID: ObjectSnapshot] = [:]
                        for snapshot in try await self.readSnapshots(keeping, opened: opened, on: connection, logger: logger) {
                            read[snapshot.objectID] = snapshot
                        }
                        changes.deleted = deleted.map { read[$0] ?? ObjectSnapshot(objectID: $0) }
                    } else {
                        changes.deleted = deleted.map { ObjectSnapshot(objectID: $0) }
                    }
                    var numbers: [Int64] = []
                    for try await number in try await connection.query(PostgresQuery(unsafeSQL: statements.deletedEntities), logger: logger).decode(Int64.self) {
                        numbers.append(number)
                    }
                    for sql in statements.removal(of: numbers) { _ = try await run(sql) }
                    if let (metadata, _) = pending {
                        try await Self.writeMetadata(metadata.value, schema: opened.location.schema, on: connection, logger: logger)
                    }
                    if !changes.isEmpty {
                        if history { try await self.recordHistory(changes, opened: opened, on: connection, logger: logger) }
                        // Delivered to listeners only if the transaction commits.
                        let channel = PostgresChangeChannel(schema: opened.location.schema)
                        for notice in PostgresChangeNotice.payloads(for: changes, sender: sender, schema: opened.schema) {
                            try await channel.notify(notice, on: connection, logger: logger)
                        }
                    }
                    return (deleted, changes.updated.map(\.objectID))
                }
            }
        } catch {
            throw writeFailure(error)
        }
        if let (_, count) = pending { metadataWritten(count) }
        return StoreBatchOutcome(count: deleted.count, objectIDs: returningIDs ? deleted : nil, updatedObjectIDs: updated)
    }
}
