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
    ///
    /// Round trips: `BEGIN`, the schema lock, the rows (one statement per entity for inserts and for updates),
    /// one statement that queues the change notices and reads the schema's OID, `COMMIT`.
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
                    try await Self.lockSchemaShared(opened, on: connection, logger: logger)
                    var writer = PostgresRowWriter(opened: opened, connection: connection, logger: logger)
                    for snapshot in changes.deleted { try await writer.delete(snapshot) }
                    try await writer.insert(changes.inserted)
                    try await writer.update(changes.updated)
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
                    let oid = try await PostgresChangeChannel(schema: opened.location.schema)
                        .notify(notices, readingOIDOf: opened.location.schema, on: connection, logger: logger)
                    if oid != opened.schemaOID { throw self.schemaReplacedError(opened) }
                }
            }
        } catch {
            throw replacedSchemaFailure(error) ?? writeFailure(error)
        }
        if let (_, count) = pending { metadataWritten(count) }
    }

    /// Takes the store's advisory lock shared for the save's transaction (waiting while a
    /// migration holds it) and checks that the schema under the store's name is still the one
    /// this store opened; a migration by another coordinator swapped it otherwise, and the save
    /// fails with `NSPersistentStoreIncompatibleSchemaError` (134020).
    func checkSchemaIsTheOneOpened(_ opened: Opened, on connection: PostgresConnection, logger: Logger) async throws {
        try await Self.lockSchemaShared(opened, on: connection, logger: logger)
        // A statement of its own: one statement sees the catalog as it was when it began,
        // before it waited for the lock.
        guard try await Self.schemaOID(opened.location.schema, on: connection, logger: logger) != opened.schemaOID else { return }
        throw schemaReplacedError(opened)
    }

    /// Takes the store's advisory lock shared for the transaction, waiting while a migration
    /// holds it. A statement that begins once it is held sees the schema the migration left.
    static func lockSchemaShared(_ opened: Opened, on connection: PostgresConnection, logger: Logger) async throws {
        let key = advisoryLockKey(schema: opened.location.schema)
        try await connection.query("SELECT pg_advisory_xact_lock_shared(hashtext(\(key)))", logger: logger)
    }

    /// The error of a write to a schema a migration by another coordinator swapped in since the
    /// store opened: `NSPersistentStoreIncompatibleSchemaError` (134020).
    func schemaReplacedError(_ opened: Opened) -> NSError {
        PersistentStoreErrors.make(NSPersistentStoreIncompatibleSchemaError,
            "The \(PersistentStoreErrors.name(of: self)) was migrated by another coordinator since it was opened (schema \(opened.location.schema) "
                + "was replaced); nothing was saved. Add the store again with the model it now has.", stores: [self], url: url)
    }

    /// The schema error, when a save failed because its statements met a schema a migration
    /// swapped in (the server refused them, or rows were not at the versions read): the save
    /// checks the schema last, so a statement can fail on the new one first. Nil for other
    /// errors, when the schema is the one opened, or when the check itself fails.
    private func replacedSchemaFailure(_ error: Error) -> Error? {
        let nsError = error as NSError
        guard nsError.domain != NSCocoaErrorDomain || nsError.code == NSManagedObjectMergeError else { return nil }
        guard let opened = try? open(),
              let oid = try? withConnection({ [logger] connection, opened in
                  try await Self.schemaOID(opened.location.schema, on: connection, logger: logger)
              }), oid != opened.schemaOID else { return nil }
        return schemaReplacedError(opened)
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
