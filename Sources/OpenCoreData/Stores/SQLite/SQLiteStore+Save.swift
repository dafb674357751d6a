import Foundation
import GRDB

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
            let last = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [mapping.rootNumber]) ?? 0
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [last + Int64(count), mapping.rootNumber])
            return last
        }
        return (0..<Int64(count)).map { NSManagedObjectID(entity: entity, store: self, primaryKey: last + 1 + $0) }
    }

    func checkChanges(_ changes: StoreSaveChanges) throws {
        if changes.isEmpty { return }
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        try checkIDs(changes)
        let queue = try openDatabase()
        let conflicts = try queue.read { db in try self.conflicts(in: changes, db: db) }
        if !conflicts.isEmpty { throw mergeError(conflicts) }
    }

    func saveChanges(_ changes: StoreSaveChanges) throws {
        if changes.isEmpty { return }
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        try checkIDs(changes)
        let queue = try openDatabase()
        do {
            try queue.write { db in
                let conflicts = try self.conflicts(in: changes, db: db)
                if !conflicts.isEmpty { throw mergeError(conflicts) }
                for snapshot in changes.deleted { try delete(snapshot, db: db) }
                for snapshot in changes.inserted { try insert(snapshot, db: db) }
                for snapshot in changes.updated { try update(snapshot, db: db) }
                try writeToManyRelationships(changes, db: db)
                try raisePrimaryKeyCounters(changes.inserted, db: db)
                try writeCurrentMetadata(db)
            }
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw PersistentStoreErrors.make(NSPersistentStoreSaveError,
                "The \(PersistentStoreErrors.name(of: self)) could not save: \(error).", stores: [self], url: url, underlying: error)
        }
    }

    // MARK: Checks

    private func checkIDs(_ changes: StoreSaveChanges) throws {
        for snapshot in changes.inserted + changes.updated + changes.deleted {
            let id = snapshot.objectID
            guard !id.isTemporaryID, id.storeIdentifier == identifier, schema.entity(named: id.entity.name ?? "") != nil else {
                throw PersistentStoreErrors.make(NSPersistentStoreSaveError,
                    "Object \(id) does not belong to the \(PersistentStoreErrors.name(of: self)).", stores: [self],
                    userInfo: [NSAffectedObjectsErrorKey: [id]])
            }
        }
    }

    /// The updated and deleted objects whose `Z_OPT` is not the version the context read.
    private func conflicts(in changes: StoreSaveChanges, db: Database) throws -> [NSMergeConflict] {
        var result: [NSMergeConflict] = []
        for snapshot in changes.updated + changes.deleted {
            let mapping = schema.entity(named: snapshot.objectID.entity.name ?? "")!
            let current = try Row.fetchOne(db, sql: "SELECT * FROM \(dialect.quote(mapping.tableName)) WHERE Z_PK = ?",
                                           arguments: [snapshot.objectID.primaryKey ?? 0])
            let version: Int64 = current?["Z_OPT"] ?? 0
            guard current == nil || version != snapshot.version else { continue }
            result.append(NSMergeConflict(
                sourceObjectID: snapshot.objectID, newVersion: Int(version), oldVersion: Int(snapshot.version),
                objectSnapshot: snapshot.dictionaryRepresentation,
                persistedSnapshot: current.flatMap(self.snapshot(of:))?.dictionaryRepresentation))
        }
        return result
    }

    private func mergeError(_ conflicts: [NSMergeConflict]) -> NSError {
        PersistentStoreErrors.make(
            NSManagedObjectMergeError,
            "Could not merge changes: \(conflicts.count) object(s) changed in the \(PersistentStoreErrors.name(of: self)) since they were read (\(conflicts.map { $0.sourceObjectID.description }.joined(separator: ", "))).",
            stores: [self], url: url,
            userInfo: [NSPersistentStoreSaveConflictsErrorKey: conflicts, NSAffectedObjectsErrorKey: conflicts.map(\.sourceObjectID)])
    }

    // MARK: Rows

    /// The column values of a snapshot's attributes and to-one relationships.
    private func columnValues(of snapshot: ObjectSnapshot, mapping: SQLEntityMapping) throws -> [(String, DatabaseValue)] {
        var result: [(String, DatabaseValue)] = []
        for (name, column) in mapping.attributes.sorted(by: { $0.value.column < $1.value.column }) {
            result.append((column.column, try SQLiteValueCoding.databaseValue(snapshot.values[name], type: column.attributeType, attribute: name)))
        }
        for (name, key) in mapping.toOne.sorted(by: { $0.value.column < $1.value.column }) {
            let destination = snapshot.values[name] as? NSManagedObjectID
            result.append((key.column, destination?.primaryKey.map { $0.databaseValue } ?? .null))
            if let entityColumn = key.entityColumn {
                let number = destination.flatMap { schema.entity(named: $0.entity.name ?? "")?.number }
                result.append((entityColumn, number?.databaseValue ?? .null))
            }
        }
        return result
    }

    private func insert(_ snapshot: ObjectSnapshot, db: Database) throws {
        let mapping = schema.entity(named: snapshot.objectID.entity.name ?? "")!
        let values = try columnValues(of: snapshot, mapping: mapping)
        let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + values.map(\.0)
        let arguments: [DatabaseValue] = [(snapshot.objectID.primaryKey ?? 0).databaseValue, mapping.number.databaseValue, 1.databaseValue]
            + values.map(\.1)
        try db.execute(sql: "INSERT INTO \(dialect.quote(mapping.tableName)) (\(dialect.columnList(columns))) VALUES (\(dialect.placeholders(count: columns.count)))",
                       arguments: StatementArguments(arguments))
    }

    private func update(_ snapshot: ObjectSnapshot, db: Database) throws {
        let mapping = schema.entity(named: snapshot.objectID.entity.name ?? "")!
        let values = try columnValues(of: snapshot, mapping: mapping)
        let assignments = (values.map { "\(dialect.quote($0.0)) = ?" } + ["Z_OPT = Z_OPT + 1"]).joined(separator: ", ")
        try db.execute(sql: "UPDATE \(dialect.quote(mapping.tableName)) SET \(assignments) WHERE Z_PK = ? AND Z_OPT = ?",
                       arguments: StatementArguments(values.map(\.1) + [(snapshot.objectID.primaryKey ?? 0).databaseValue, snapshot.version.databaseValue]))
        if db.changesCount == 0 { throw mergeError(try conflicts(in: StoreSaveChanges(updated: [snapshot]), db: db)) }
    }

    private func delete(_ snapshot: ObjectSnapshot, db: Database) throws {
        let mapping = schema.entity(named: snapshot.objectID.entity.name ?? "")!
        let key = snapshot.objectID.primaryKey ?? 0
        try db.execute(sql: "DELETE FROM \(dialect.quote(mapping.tableName)) WHERE Z_PK = ? AND Z_OPT = ?", arguments: [key, snapshot.version])
        if db.changesCount == 0 { throw mergeError(try conflicts(in: StoreSaveChanges(deleted: [snapshot]), db: db)) }
        for case .joinTable(let name, let source, _, _) in mapping.toMany.values {
            try db.execute(sql: "DELETE FROM \(dialect.quote(name)) WHERE \(dialect.quote(source)) = ?", arguments: [key])
        }
    }

    /// Join-table rows and `Z_FOK_` orders from the to-many relationships the snapshots carry
    /// (a relationship missing from a snapshot was not loaded and is left as it is). All
    /// deletions run before any insertion, so the two sides of a many-to-many can both be saved.
    private func writeToManyRelationships(_ changes: StoreSaveChanges, db: Database) throws {
        let written = changes.inserted + changes.updated
        for snapshot in written {
            let mapping = schema.entity(named: snapshot.objectID.entity.name ?? "")!
            for (name, _) in snapshot.toMany {
                guard case .joinTable(let table, let source, _, _) = mapping.toMany[name] else { continue }
                try db.execute(sql: "DELETE FROM \(dialect.quote(table)) WHERE \(dialect.quote(source)) = ?", arguments: [snapshot.objectID.primaryKey ?? 0])
            }
        }
        for snapshot in written {
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

    /// The `Z_FOK_` value of position `index`: spaced like Apple's, so that order survives
    /// rows written by either framework.
    static func orderValue(_ index: Int) -> Int64 { Int64(index + 1) * 1024 }

    /// Keeps `Z_MAX` of each root entity at least the largest key inserted.
    private func raisePrimaryKeyCounters(_ inserted: [ObjectSnapshot], db: Database) throws {
        var maxima: [Int64: Int64] = [:]
        for snapshot in inserted {
            guard let root = schema.entity(named: snapshot.objectID.entity.name ?? "")?.rootNumber else { continue }
            maxima[root] = max(maxima[root] ?? 0, snapshot.objectID.primaryKey ?? 0)
        }
        for (root, key) in maxima {
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(COALESCE(Z_MAX, 0), ?) WHERE Z_ENT = ?", arguments: [key, root])
        }
    }
}
