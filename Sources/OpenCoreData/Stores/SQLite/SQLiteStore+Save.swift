import Foundation
import GRDB
import GRDBSQLite

/// Saving: one transaction per save, keys from `Z_PRIMARYKEY.Z_MAX`, optimistic locking on
/// `Z_OPT`, every value a bound parameter.
extension SQLiteStore {
    /// Allocates keys from the root entity's `Z_MAX` in one transaction. Keys handed out are
    /// never reused, even when their objects are not saved.
    func allocateObjectIDs(for entity: NSEntityDescription, count: Int) throws -> [NSManagedObjectID] {
        guard let mapping = schema.entity(named: entity.name ?? "") else {
            throw PersistentStoreErrors.make(NSPersistentStoreSaveError,
                "The \(PersistentStoreErrors.name(of: self)) has no entity '\(entity.name ?? "?")'.", stores: [self])
        }
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        let queue = try openDatabase()
        let last: Int64 = try queue.write { db in
            let stored = try DatabaseValue.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [mapping.rootNumber])
            let last = try SQLiteStoreCatalog.integer(stored ?? .null, table: SQLiteSchema.primaryKeyTable, column: "Z_MAX",
                                                       row: "Z_ENT \(mapping.rootNumber)") ?? 0
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [last + Int64(count), mapping.rootNumber])
            return last
        }
        let origin = objectIDOrigin()
        return (0..<Int64(count)).map { NSManagedObjectID(entity: entity, origin: origin, primaryKey: last + 1 + $0) }
    }

    func checkChanges(_ changes: StoreSaveChanges) throws {
        if changes.isEmpty { return }
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        try checkIDs(changes)
        let queue = try openDatabase()
        // Not `read`: its `PRAGMA query_only` switches expire every prepared statement of the
        // connection, which SQLite then recompiles at their next step. The save's transaction
        // checks the versions again (`AND Z_OPT = ?`), so this check needs no transaction.
        let conflicts = try queue.inDatabase { db in try self.conflicts(in: changes, db: db) }
        if !conflicts.isEmpty { throw mergeError(conflicts) }
    }

    /// Writes in one transaction. Updates and deletes carry `AND Z_OPT = ?`: those that match no
    /// row are the save's conflicts (133020), reported together, and the transaction rolls back.
    func saveChanges(_ changes: StoreSaveChanges) throws {
        if changes.isEmpty { return }
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        try checkIDs(changes)
        let queue = try openDatabase()
        var written: Int?
        do {
            try queue.writeWithoutTransaction { db in try db.inReusedTransaction {
                var writer = SQLiteRowWriter(store: self, db: db)
                for snapshot in changes.deleted { try writer.delete(snapshot) }
                for snapshot in changes.inserted { try writer.insert(snapshot) }
                for snapshot in changes.updated { try writer.update(snapshot, keys: changes.changedKeys[snapshot.objectID]) }
                if !writer.conflicts.isEmpty {
                    throw mergeError(try conflicts(in: writer.conflicts, db: db))
                }
                try writeToManyRelationships(changes, db: db)
                try raisePrimaryKeyCounters(changes.inserted, db: db)
                if recordsPersistentHistory { try recordHistory(changes, db: db) }
                written = try writeCurrentMetadata(db)
            } }
            if let written { metadataWritten(written) }
        } catch {
            throw writeFailure(error)
        }
    }

    /// The error a failed write throws: Core Data's errors as they are, a violated unique
    /// index as `NSManagedObjectConstraintMergeError` (133021), anything else as
    /// `NSPersistentStoreSaveError` (134030) with the database's error underneath.
    func writeFailure(_ error: Error) -> Error {
        if let error = error as? DatabaseError {
            if error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                // A row another coordinator wrote since the context checked its constraints.
                return NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectConstraintMergeError, userInfo: [
                    NSLocalizedDescriptionKey: "The \(PersistentStoreErrors.name(of: self)) refused the save: a uniqueness constraint is violated (\(error.message ?? "\(error)")).",
                    NSAffectedStoresErrorKey: [self], NSUnderlyingErrorKey: error,
                ])
            }
        } else if (error as NSError).domain == NSCocoaErrorDomain {
            return error
        }
        return PersistentStoreErrors.make(NSPersistentStoreSaveError,
            "The \(PersistentStoreErrors.name(of: self)) could not save: \(error).", stores: [self], url: url, underlying: error)
    }

    // MARK: Checks

    private func checkIDs(_ changes: StoreSaveChanges) throws {
        var checkedEntity: ObjectIdentifier?
        let origin = objectIDOrigin()
        for snapshots in [changes.inserted, changes.updated, changes.deleted] {
            // By index: iterating would copy each snapshot (a retain and a release per reference).
            for index in snapshots.indices {
                let id = snapshots[index].objectID
                let entity = ObjectIdentifier(id.entity)
                guard holds(id, origin: origin),
                      entity == checkedEntity || layout(for: id.entity) != nil else {
                    throw PersistentStoreErrors.make(NSPersistentStoreSaveError,
                        "Object \(id) does not belong to the \(PersistentStoreErrors.name(of: self)).", stores: [self],
                        userInfo: [NSAffectedObjectsErrorKey: [id]])
                }
                checkedEntity = entity
            }
        }
    }

    /// The updated and deleted objects whose `Z_OPT` is not the version the context read: the
    /// versions are read in `Z_PK IN (…)` chunks, and only conflicting rows are read whole.
    private func conflicts(in changes: StoreSaveChanges, db: Database) throws -> [NSMergeConflict] {
        var byTable: [String: [ObjectSnapshot]] = [:]
        for snapshot in changes.updated + changes.deleted {
            guard let table = layout(for: snapshot.objectID.entity)?.table else { continue }
            byTable[table, default: []].append(snapshot)
        }
        var result: [NSMergeConflict] = []
        for (table, snapshots) in byTable.sorted(by: { $0.key < $1.key }) {
            guard let layout = layouts[table] else { continue }
            var versions: [Int64: Int64] = [:]
            let keys = snapshots.map { $0.objectID.primaryKey ?? 0 }
            for chunk in BatchFaulting.chunks(keys) {
                let statement = try db.cachedStatement(sql: "SELECT Z_PK, Z_OPT FROM \(dialect.quote(table)) WHERE Z_PK IN (\(dialect.placeholders(count: chunk.count)))")
                try statement.rebind(chunk.map(\.databaseValue))
                defer { sqlite3_reset(statement.sqliteStatement) }
                while try statement.stepRow(db) {
                    versions[sqlite3_column_int64(statement.sqliteStatement, 0)] = sqlite3_column_int64(statement.sqliteStatement, 1)
                }
            }
            for snapshot in snapshots {
                let key = snapshot.objectID.primaryKey ?? 0
                let version = versions[key]
                guard version != snapshot.version else { continue }
                let persisted = version == nil ? nil : try readSnapshots(layout, keys: [key], db: db).first
                result.append(NSMergeConflict(
                    sourceObjectID: snapshot.objectID, newVersion: Int(version ?? 0), oldVersion: Int(snapshot.version),
                    objectSnapshot: snapshot.dictionaryRepresentation, persistedSnapshot: persisted?.dictionaryRepresentation))
            }
        }
        return result
    }

    func mergeError(_ conflicts: [NSMergeConflict]) -> NSError {
        PersistentStoreErrors.mergeConflicts(conflicts, store: self)
    }

    /// Join-table rows and `Z_FOK_` orders from the to-many relationships the snapshots carry
    /// (a relationship missing from a snapshot was not loaded and is left as it is). All
    /// deletions run before any insertion, so the two sides of a many-to-many can both be saved.
    private func writeToManyRelationships(_ changes: StoreSaveChanges, db: Database) throws {
        let schema = self.schema
        // An updated object rewrites only the to-many relationships that changed.
        let written = changes.toManyWrites
        for snapshot in written where !snapshot.toMany.isEmpty {
            let mapping = schema.entity(named: snapshot.objectID.entity.name ?? "")!
            for (name, _) in snapshot.toMany {
                switch mapping.toMany[name] {
                case .joinTable(let table, let source, _, _):
                    try db.execute(sql: "DELETE FROM \(dialect.quote(table)) WHERE \(dialect.quote(source)) = ?", arguments: [snapshot.objectID.primaryKey ?? 0])
                case .destinationKey(let table, let column, let orderColumn, _):
                    try clearDestinationKeys(table: table, column: column, orderColumn: orderColumn, source: snapshot.objectID.primaryKey ?? 0, db: db)
                default:
                    continue
                }
            }
        }
        for snapshot in written where !snapshot.toMany.isEmpty {
            let mapping = schema.entity(named: snapshot.objectID.entity.name ?? "")!
            let key = snapshot.objectID.primaryKey ?? 0
            for (name, destinations) in snapshot.toMany {
                switch mapping.toMany[name] {
                case .joinTable(let table, let source, let destination, let orderColumn):
                    let insert = dialect.insertIgnoringDuplicates(into: table, columns: [source, destination], firstParameterIndex: 1)
                    for (index, id) in destinations.enumerated() {
                        guard let other = id.primaryKey else { continue }
                        try db.execute(sql: insert, arguments: [key, other])
                        if let orderColumn {
                            try db.execute(sql: "UPDATE \(dialect.quote(table)) SET \(dialect.quote(orderColumn)) = ? WHERE \(dialect.quote(source)) = ? AND \(dialect.quote(destination)) = ?",
                                           arguments: [Self.orderValue(index), key, other])
                        }
                    }
                case .destinationKey(let table, let column, let orderColumn, _):
                    // Without an inverse the destination row holds the source's key: this save writes it.
                    let assignments = ([column] + (orderColumn.map { [$0] } ?? [])).map { "\(dialect.quote($0)) = ?" }.joined(separator: ", ")
                    let update = "UPDATE \(dialect.quote(table)) SET \(assignments) WHERE Z_PK = ?"
                    for (index, id) in destinations.enumerated() {
                        guard let other = id.primaryKey else { continue }
                        let order: [DatabaseValueConvertible] = orderColumn == nil ? [] : [Self.orderValue(index)]
                        try db.execute(sql: update, arguments: StatementArguments([key] + order + [other]))
                    }
                case .inverseForeignKey(let table, _, let orderColumn?, _):
                    for (index, id) in destinations.enumerated() {
                        try db.execute(sql: "UPDATE \(dialect.quote(table)) SET \(dialect.quote(orderColumn)) = ? WHERE Z_PK = ?",
                                       arguments: [Self.orderValue(index), id.primaryKey ?? 0])
                    }
                default:
                    continue
                }
            }
        }
    }

    /// Sets the key (and order) column of a to-many relationship without an inverse to NULL in
    /// every destination row of `source`: before its new destinations are written, and when it
    /// is deleted. The destinations' `Z_OPT` stays: their own properties did not change.
    func clearDestinationKeys(table: String, column: String, orderColumn: String?, source: Int64, db: Database) throws {
        let assignments = ([column] + (orderColumn.map { [$0] } ?? [])).map { "\(dialect.quote($0)) = NULL" }.joined(separator: ", ")
        try db.cachedStatement(sql: "UPDATE \(dialect.quote(table)) SET \(assignments) WHERE \(dialect.quote(column)) = ?").run([source.databaseValue], db)
    }

    /// The `Z_FOK_` value of position `index`: spaced like Apple's, so that order survives
    /// rows written by either framework.
    package static func orderValue(_ index: Int) -> Int64 { Int64(index + 1) * 1024 }

    /// Keeps `Z_MAX` of each root entity at least the largest key inserted.
    private func raisePrimaryKeyCounters(_ inserted: [ObjectSnapshot], db: Database) throws {
        let schema = self.schema
        var maxima: [Int64: Int64] = [:]
        // Inserted rows come in runs of one entity: its root is looked up once a run and the
        // run's largest key kept apart (a lookup by name and two dictionary accesses a row cost
        // about 900 instructions). By index: iterating would copy each snapshot.
        var entity: NSEntityDescription?
        var root: Int64?
        var largest: Int64 = 0
        for index in inserted.indices {
            let id = inserted[index].objectID
            if id.entity !== entity {
                if let root { maxima[root] = max(maxima[root] ?? 0, largest) }
                entity = id.entity
                root = schema.entity(named: id.entity.name ?? "")?.rootNumber
                largest = 0
            }
            largest = max(largest, id.primaryKey ?? 0)
        }
        if let root { maxima[root] = max(maxima[root] ?? 0, largest) }
        for (root, key) in maxima {
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(COALESCE(Z_MAX, 0), ?) WHERE Z_ENT = ?", arguments: [key, root])
        }
    }
}

extension Database {
    /// Runs `body` in an immediate transaction that begins and commits through cached
    /// statements; on an error it rolls back and rethrows. GRDB's `write` prepares `BEGIN` and
    /// `COMMIT` again for every transaction (about 27,000 instructions, a tenth of a small
    /// save's time under the coordinator's lock). What `body` throws is the error thrown; a
    /// failed rollback (the transaction already rolled back by SQLite) is not reported over it,
    /// as in GRDB's `inTransaction`.
    func inReusedTransaction(_ body: () throws -> Void) throws {
        try cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            try body()
            try cachedStatement(sql: "COMMIT TRANSACTION").execute()
        } catch {
            try? rollback()
            throw error
        }
    }
}
