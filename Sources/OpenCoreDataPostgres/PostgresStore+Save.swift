import Foundation
import OpenCoreData
import PostgresNIO

/// Saving: keys from `Z_PRIMARYKEY` in ranges, one transaction per save, optimistic locking
/// on `Z_OPT`, every value a bound parameter, and a notice of the save on the store's change
/// channel (`PostgresStore+RemoteChange.swift`).
extension PostgresStore {
    func allocateObjectIDs(for entity: NSEntityDescription, count: Int) throws -> [NSManagedObjectID] {
        if count == 0 { return [] }
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        let opened = try open()
        guard let mapping = opened.schema.entity(named: entity.name ?? "") else {
            throw PersistentStoreErrors.make(NSPersistentStoreSaveError,
                "The \(PersistentStoreErrors.name(of: self)) has no entity '\(entity.name ?? "?")'.", stores: [self])
        }
        let range = try withConnection { [logger] connection, opened in
            try await opened.primaryKeys.allocate(count, forEntity: mapping.rootNumber, on: connection, logger: logger)
        }
        return range.map { NSManagedObjectID(entity: entity, store: self, primaryKey: $0) }
    }

    func checkChanges(_ changes: StoreSaveChanges) throws {
        if changes.isEmpty { return }
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        try checkIDs(changes)
        let conflicts = try withConnection { [logger] connection, opened in
            try await self.conflicts(among: changes.updated + changes.deleted, opened: opened, on: connection, logger: logger)
        }
        if !conflicts.isEmpty { throw mergeError(conflicts) }
    }

    /// Writes in one transaction. Updates and deletes carry `AND "Z_OPT" = $n`: those that
    /// match no row are the save's conflicts (133020), reported together, and nothing is written.
    func saveChanges(_ changes: StoreSaveChanges) throws {
        if changes.isEmpty { return }
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        try checkIDs(changes)
        let pending = pendingMetadata()
        let notices = PostgresChangeNotice.payloads(for: changes, sender: instanceToken, schema: try open().schema)
        // Rows read ahead before the save must not fulfil faults after it.
        readAheads.invalidate()
        defer { readAheads.invalidate() }
        do {
            try withConnection { [logger] connection, opened in
                try await Self.transaction(on: connection, logger: logger) { connection in
                    try await self.checkSchemaIsTheOneOpened(opened, on: connection, logger: logger)
                    var writer = PostgresRowWriter(opened: opened, connection: connection, logger: logger)
                    for snapshot in changes.deleted { try await writer.delete(snapshot) }
                    for snapshot in changes.inserted { try await writer.insert(snapshot) }
                    for snapshot in changes.updated { try await writer.update(snapshot) }
                    if !writer.conflicts.isEmpty {
                        throw self.mergeError(try await self.conflicts(among: writer.conflicts, opened: opened, on: connection, logger: logger))
                    }
                    try await writer.writeToMany(changes)
                    if let (metadata, _) = pending {
                        try await Self.writeMetadata(metadata.value, schema: opened.location.schema, on: connection, logger: logger)
                    }
                    // Last, so that the history counter's row lock is held for a moment only.
                    if self.recordsPersistentHistory { try await self.recordHistory(changes, opened: opened, on: connection, logger: logger) }
                    // Delivered to listeners only if the transaction commits.
                    let channel = PostgresChangeChannel(schema: opened.location.schema)
                    for notice in notices { try await channel.notify(notice, on: connection, logger: logger) }
                }
            }
        } catch {
            throw writeFailure(error)
        }
        if let (_, count) = pending { metadataWritten(count) }
    }

    /// Takes the store's advisory lock shared for the save's transaction (waiting while a
    /// migration holds it) and checks that the schema under the store's name is still the one
    /// this store opened; a migration by another coordinator swapped it otherwise, and the save
    /// fails with `NSPersistentStoreIncompatibleSchemaError` (134020).
    func checkSchemaIsTheOneOpened(_ opened: Opened, on connection: PostgresConnection, logger: Logger) async throws {
        let schema = opened.location.schema, key = Self.advisoryLockKey(schema: schema)
        try await connection.query("SELECT pg_advisory_xact_lock_shared(hashtext(\(key)))", logger: logger)
        // A statement of its own: one statement sees the catalog as it was when it began,
        // before it waited for the lock.
        guard try await Self.schemaOID(schema, on: connection, logger: logger) != opened.schemaOID else { return }
        throw PersistentStoreErrors.make(NSPersistentStoreIncompatibleSchemaError,
            "The \(PersistentStoreErrors.name(of: self)) was migrated by another coordinator since it was opened (schema \(schema) was replaced); "
                + "nothing was saved. Add the store again with the model it now has.", stores: [self], url: url)
    }

    /// The error a failed write throws: Core Data's errors as they are, a violated unique index
    /// (SQLSTATE 23505) as `NSManagedObjectConstraintMergeError` (133021), anything else as
    /// `NSPersistentStoreSaveError` (134030) with the server's message.
    func writeFailure(_ error: Error) -> Error {
        if (error as NSError).domain == NSCocoaErrorDomain { return error }
        if PostgresErrors.sqlState(error) == "23505" {
            return PersistentStoreErrors.make(NSManagedObjectConstraintMergeError,
                "The \(PersistentStoreErrors.name(of: self)) refused the save: a uniqueness constraint is violated (\(PostgresErrors.describe(error))).",
                stores: [self], underlying: error)
        }
        return PersistentStoreErrors.make(NSPersistentStoreSaveError,
            "The \(PersistentStoreErrors.name(of: self)) could not save: \(PostgresErrors.describe(error)).", stores: [self], url: url, underlying: error)
    }

    private func checkIDs(_ changes: StoreSaveChanges) throws {
        let opened = try open()
        for snapshot in changes.inserted + changes.updated + changes.deleted {
            let id = snapshot.objectID
            guard !id.isTemporaryID, id.persistentStore === self, opened.reading.table(for: id.entity) != nil else {
                throw PersistentStoreErrors.make(NSPersistentStoreSaveError,
                    "Object \(id) does not belong to the \(PersistentStoreErrors.name(of: self)).", stores: [self],
                    userInfo: [NSAffectedObjectsErrorKey: [id]])
            }
        }
    }

    /// The objects among `snapshots` whose `Z_OPT` is not the version the context read (or
    /// whose row is gone), with what the store holds now.
    func conflicts(among snapshots: [ObjectSnapshot], opened: Opened, on connection: PostgresConnection,
                   logger: Logger) async throws -> [NSMergeConflict] {
        if snapshots.isEmpty { return [] }
        let current = try await readSnapshots(snapshots.map(\.objectID), opened: opened, on: connection, logger: logger)
        var byID: [NSManagedObjectID: ObjectSnapshot] = [:]
        for snapshot in current { byID[snapshot.objectID] = snapshot }
        return snapshots.compactMap { snapshot in
            let persisted = byID[snapshot.objectID]
            guard persisted?.version != snapshot.version else { return nil }
            return NSMergeConflict(sourceObjectID: snapshot.objectID, newVersion: Int(persisted?.version ?? 0), oldVersion: Int(snapshot.version),
                                   objectSnapshot: snapshot.dictionaryRepresentation, persistedSnapshot: persisted?.dictionaryRepresentation)
        }
    }

    func mergeError(_ conflicts: [NSMergeConflict]) -> NSError {
        PersistentStoreErrors.mergeConflicts(conflicts, store: self)
    }
}
