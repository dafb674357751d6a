import Foundation
import OpenCoreData
import PostgresNIO

/// Batch updates in one statement: `UPDATE … SET … FROM (SELECT …) RETURNING "Z_PK", "Z_ENT"`,
/// raising every row's `Z_OPT`, in one transaction with the history it records and the notice
/// other coordinators receive. No row is read into memory.
///
/// What PostgreSQL computes is the SQLite store's choice (`SQLBatchUpdatePlan` in the core
/// module); constants are bound in the `SET` clause with the store's own coding of the
/// attribute's type (``PostgresValueCoding``). When a value or the predicate has no SQL form,
/// or PostgreSQL refuses the statement (a type it can't compare, or arithmetic out of its
/// range, SQLSTATE classes 42 and 22), the store updates through snapshots as the other
/// stores do, and the evaluator gives the result or the error (an integer too large for its
/// attribute fails with 1550 there).
extension PostgresStore {
    /// The update in SQL, or nil when it must go through snapshots (see above).
    func updateRows(_ update: StoreBatchUpdate, returningIDs: Bool) throws -> StoreBatchOutcome? {
        let opened = try open()
        guard let compiled = try SQLFetchStatements.postgresBatchUpdate(update, schema: opened.schema, model: opened.model),
              let table = opened.schema.entity(named: update.entity.name ?? "")?.tableName else { return nil }
        let query = try Self.query(compiled.statement, constants: compiled.constants)
        let keys = Set(update.values.map(\.attribute.name))
        let pending = pendingMetadata()
        let sender = instanceToken
        // Rows read ahead before the update must not fulfil faults after it.
        readAheads.invalidate()
        defer { readAheads.invalidate() }
        let ids: [NSManagedObjectID]
        do {
            ids = try withConnection { [logger] connection, opened in
                try await Self.transaction(on: connection, logger: logger) { connection in
                    try await self.checkSchemaIsTheOneOpened(opened, on: connection, logger: logger)
                    let ids = try await opened.reading.objectIDs(query, table: table, store: self, on: connection, logger: logger)
                    if let (metadata, _) = pending {
                        try await Self.writeMetadata(metadata.value, schema: opened.location.schema, on: connection, logger: logger)
                    }
                    guard !ids.isEmpty else { return ids }
                    var changes = StoreSaveChanges()
                    changes.updated = ids.map { ObjectSnapshot(objectID: $0) }
                    for id in ids { changes.changedKeys[id] = keys }
                    if self.recordsPersistentHistory { try await self.recordHistory(changes, opened: opened, on: connection, logger: logger) }
                    // Delivered to listeners only if the transaction commits.
                    let channel = PostgresChangeChannel(schema: opened.location.schema)
                    for notice in PostgresChangeNotice.payloads(for: changes, sender: sender, schema: opened.schema) {
                        try await channel.notify(notice, on: connection, logger: logger)
                    }
                    return ids
                }
            }
        } catch where PostgresErrors.isStatementProblem(error) {
            logger.debug("PostgreSQL refused a batch update, running it through snapshots: \(PostgresErrors.describe(error))")
            return nil
        } catch {
            throw writeFailure(error)
        }
        if let (_, count) = pending { metadataWritten(count) }
        return StoreBatchOutcome(count: ids.count, objectIDs: returningIDs ? ids : nil)
    }
}
