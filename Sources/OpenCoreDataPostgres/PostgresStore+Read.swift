import Foundation
import OpenCoreData
import PostgresNIO

/// Reading: objects by ID, to-many destinations, and fetches.
extension PostgresStore {
    /// The snapshots of `objectIDs`: from a read started ahead for exactly these IDs no more
    /// than `maxAge` seconds ago (any age when negative, never when nil), else from the server.
    func objects(_ objectIDs: [NSManagedObjectID], readAheadWithin maxAge: TimeInterval?) throws -> [ObjectSnapshot] {
        // A read ahead that failed is read again, so that its error is reported as any read's.
        if let maxAge, let call = readAheads.take(objectIDs, maxAge: maxAge), let found = try? call.result() {
            return try open().reading.resolvingObjectIDs(found, store: self)
        }
        let mine = objectIDs.filter { $0.persistentStore === self && !$0.isTemporaryID }
        if mine.isEmpty { return [] }
        let found = try withConnection { [logger] connection, opened in
            try await self.readSnapshots(mine, opened: opened, on: connection, logger: logger)
        }
        return try open().reading.resolvingObjectIDs(found, store: self)
    }

    /// Starts reading the rows of `objectIDs`, all of this store, on a connection of the pool,
    /// and keeps the read for ``objects(_:readAheadWithin:)``; does nothing when such a read is
    /// kept already.
    func startReadingAhead(_ objectIDs: [NSManagedObjectID]) {
        guard !objectIDs.isEmpty, !readAheads.contains(objectIDs),
              objectIDs.allSatisfy({ $0.persistentStore === self && !$0.isTemporaryID }),
              let opened = try? open() else { return }
        let generation = readAheads.currentGeneration
        let started = ContinuousClock.now
        let call = opened.bridge.begin { [logger] client in
            try await client.withConnection { connection in
                try await self.readSnapshots(objectIDs, opened: opened, on: connection, logger: logger)
            }
        }
        readAheads.add(objectIDs, started: started, generation: generation, call: call)
    }

    /// The rows of `objectIDs`, one query per table, in the order asked: `BETWEEN` when the
    /// table's keys are consecutive (a batch of a `fetchBatchSize` walk usually is: an index
    /// range scan), else `= ANY($1)`.
    func readSnapshots(_ objectIDs: [NSManagedObjectID], opened: Opened, on connection: PostgresConnection,
                       logger: Logger) async throws -> [ObjectSnapshot] {
        // IDs come in runs of one entity: its table is looked up once per run.
        var byTable: [String: [NSManagedObjectID]] = [:]
        var last: (entity: NSEntityDescription, table: String?)?
        func table(of id: NSManagedObjectID) -> String? {
            if let last, last.entity === id.entity { return last.table }
            let table = opened.reading.tableName(for: id.entity)
            last = (id.entity, table)
            return table
        }
        if let first = objectIDs.first, let only = table(of: first), objectIDs.allSatisfy({ table(of: $0) == only }) {
            byTable[only] = objectIDs
        } else {
            for id in objectIDs {
                guard let table = table(of: id) else { continue }
                byTable[table, default: []].append(id)
            }
        }
        var found: [String: [Int64: ObjectSnapshot]] = [:]
        for (name, ids) in byTable {
            guard let table = opened.reading.tables[name] else { continue }
            // The rows' snapshots reuse the IDs asked for (sorted by key, as the rows come).
            var known = ids.compactMap { id in id.primaryKey.map { (key: $0, id: id) } }
            let askedInOrder = known.count == objectIDs.count && zip(known, known.dropFirst()).allSatisfy { $0.key < $1.key }
            if !askedInOrder { known.sort { $0.key < $1.key } }
            let sorted = known.map(\.key)
            var bindings = PostgresBindings()
            let condition: String
            if let first = sorted.first, let last = sorted.last, last - first == Int64(sorted.count - 1) {
                bindings.append(first)
                bindings.append(last)
                condition = "\"Z_PK\" BETWEEN $1 AND $2"
            } else {
                bindings.append(sorted)
                condition = "\"Z_PK\" = ANY($1)"
            }
            let rows = try await opened.reading.snapshots(PostgresQuery(unsafeSQL:
                "SELECT \(table.record) FROM \(table.qualifiedName) WHERE \(condition)", binds: bindings),
                table: table, store: self, knownIDs: known.map(\.id), on: connection, logger: logger)
            // The common case, a batch of a walk: every ID asked for in key order, one table, a
            // row for each, in that order. The rows are the answer as they are.
            if askedInOrder, rows.count == sorted.count, zip(rows, sorted).allSatisfy({ $0.snapshot.objectID.primaryKey == $1 }) {
                return rows.map(\.snapshot)
            }
            var snapshots: [Int64: ObjectSnapshot] = [:]
            snapshots.reserveCapacity(sorted.count)
            for (snapshot, _) in rows { if let key = snapshot.objectID.primaryKey { snapshots[key] = snapshot } }
            found[name] = snapshots
        }
        if byTable.count == 1, let (_, snapshots) = found.first {
            return objectIDs.compactMap { id in id.primaryKey.flatMap { snapshots[$0] } }
        }
        return objectIDs.compactMap { id in
            guard let name = table(of: id), let key = id.primaryKey else { return nil }
            return found[name]?[key]
        }
    }

    func destinations(of relationship: NSRelationshipDescription, from objectID: NSManagedObjectID) throws -> [NSManagedObjectID] {
        guard let key = objectID.primaryKey else { return [] }
        let name = relationship.name
        let entityName = objectID.entity.name ?? ""
        let destinationName = relationship.destinationEntity?.name ?? ""
        return try withConnection { [logger] connection, opened in
            guard let mapping = opened.schema.entity(named: entityName)?.toMany[name] else { return ([]) }
            let schema = opened.location.schema
            let sql: String
            let table: String
            switch mapping {
            case .inverseForeignKey(let rowTable, let column, let orderColumn, _), .destinationKey(let rowTable, let column, let orderColumn, _):
                table = rowTable
                let order = orderColumn.map { "\(PostgresSQL.quote($0)), \"Z_PK\"" } ?? "\"Z_PK\""
                sql = "SELECT \"Z_PK\", \"Z_ENT\" FROM \(PostgresSQL.qualified(schema, rowTable)) WHERE \(PostgresSQL.quote(column)) = $1 ORDER BY \(order)"
            case .joinTable(let join, let source, let destination, let orderColumn):
                guard let destinationTable = opened.schema.entity(named: destinationName)?.tableName else { return ([]) }
                table = destinationTable
                let order = orderColumn.map { "j.\(PostgresSQL.quote($0)), t.\"Z_PK\"" } ?? "t.\"Z_PK\""
                sql = "SELECT t.\"Z_PK\", t.\"Z_ENT\" FROM \(PostgresSQL.qualified(schema, join)) j JOIN \(PostgresSQL.qualified(schema, destinationTable)) t "
                    + "ON t.\"Z_PK\" = j.\(PostgresSQL.quote(destination)) WHERE j.\(PostgresSQL.quote(source)) = $1 ORDER BY \(order)"
            }
            var bindings = PostgresBindings()
            bindings.append(key)
            return try await opened.reading.objectIDs(PostgresQuery(unsafeSQL: sql, binds: bindings), table: table, store: self,
                                                      on: connection, logger: logger)
        }
    }

    // MARK: Fetching

    /// Runs a fetch. Object, ID and count requests run in SQL compiled by the one SQL compiler
    /// (its PostgreSQL dialect): predicate, sort, offset and limit in the statement, objects
    /// read by ID in a second statement on the same connection. A request the compiler can't
    /// translate to PostgreSQL (it needs a function only SQLite has, or PostgreSQL refuses the
    /// statement's types) and dictionary requests read the rows of the entity (and its
    /// subentities when asked) and evaluate them in memory with the evaluator the other stores
    /// share, so results are the same on every store.
    func fetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult {
        let opened = try open()
        let name = request.entity?.name ?? request.entityName ?? ""
        guard let mapping = opened.schema.entity(named: name), let entity = opened.model.entitiesByName[name],
              let table = opened.reading.tables[mapping.tableName] else {
            throw PersistentStoreErrors.make(NSCoreDataError,
                "The fetch request names no entity known to the \(PersistentStoreErrors.name(of: self)): '\(name)'.", stores: [self])
        }
        do {
            // One entity's IDs come as one array of keys, unless it is too big for one value.
            if let statement = SQLFetchStatements.postgresPrimaryKeyArray(request, entity: entity, schema: opened.schema, model: opened.model) {
                do {
                    return .objectIDs(try withConnection { [logger] connection, opened in
                        try await opened.reading.objectIDs(keyArray: Self.query(statement), of: entity, table: table.name, store: self,
                                                           on: connection, logger: logger)
                    })
                } catch where PostgresErrors.isStatementProblem(error) || PostgresErrors.isProgramLimit(error) {
                    logger.debug("PostgreSQL refused the array of keys, reading them as rows: \(PostgresErrors.describe(error))")
                }
            }
            // Objects come with their whole rows, in the order of the table's select list.
            let columns = request.resultType == .managedObjectResultType ? table.columnsAfterKeys : []
            if request.resultType != .dictionaryResultType,
               let statement = SQLFetchStatements.postgres(request, entity: entity, schema: opened.schema, model: opened.model, columns: columns) {
                do {
                    return try compiledFetch(request.resultType, statement, table: table)
                } catch where PostgresErrors.isStatementProblem(error) {
                    logger.debug("PostgreSQL refused a compiled fetch, evaluating it in memory: \(PostgresErrors.describe(error))")
                }
            }
            return try evaluatedFetch(request, entity: entity, kinds: request.includesSubentities ? mapping.kindNumbers : [mapping.number], table: table)
        } catch {
            throw PersistentStoreErrors.fetchFailed(Self.readFailure(error), entity: entity, store: self)
        }
    }

    /// Runs the compiled statement: the count, the IDs, or the objects' rows (selected with
    /// `table`'s select list).
    private func compiledFetch(_ resultType: NSFetchRequestResultType, _ statement: SQLFetchStatement,
                               table: PostgresRowReading.Table) throws -> StoreFetchResult {
        let result: StoreFetchResult = try withConnection { [logger] connection, opened in
            if resultType == .countResultType {
                var count: Int64 = 0
                for try await row in try await connection.query(Self.query(statement), logger: logger) { count = try row.decode(Int64.self) }
                return .count(Int(count))
            }
            if resultType == .managedObjectIDResultType {
                return .objectIDs(try await opened.reading.objectIDs(Self.query(statement), table: table.name, store: self,
                                                                     on: connection, logger: logger))
            }
            return .snapshots(try await opened.reading.snapshots(Self.query(statement), table: table, store: self,
                                                                 on: connection, logger: logger).map(\.snapshot))
        }
        guard case .snapshots(let snapshots) = result else { return result }
        return .snapshots(try open().reading.resolvingObjectIDs(snapshots, store: self))
    }

    /// `statement` as postgres-nio runs it, with a batch update's `constants` bound as their
    /// attributes' columns keep them.
    static func query(_ statement: SQLFetchStatement, constants: [(attribute: NSAttributeDescription, value: Any?)] = []) throws -> PostgresQuery {
        var bindings = PostgresBindings()
        for value in statement.bindings {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let v): bindings.append(v)
            case .real(let v): bindings.append(v)
            case .text(let v): bindings.append(v)
            case .blob(let v): try bindings.append(v)
            case .constant(let n):
                guard constants.indices.contains(n) else {
                    throw PersistentStoreErrors.make(NSCoreDataError, "The statement binds constant \(n), which it was not given: \(statement.sql)")
                }
                try PostgresValueCoding.bind(constants[n].value, of: constants[n].attribute, into: &bindings)
            }
        }
        return PostgresQuery(unsafeSQL: statement.sql, binds: bindings)
    }

    /// Reads the rows of `kinds` in primary-key order and evaluates `request` over them.
    private func evaluatedFetch(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription, kinds: [Int64],
                                table: PostgresRowReading.Table) throws -> StoreFetchResult {
        let read = try withConnection { [logger] connection, opened in
            var bindings = PostgresBindings()
            bindings.append(kinds)
            return try await opened.reading.snapshots(PostgresQuery(unsafeSQL:
                "SELECT \(table.record) FROM \(table.qualifiedName) WHERE \"Z_ENT\" = ANY($1) ORDER BY \"Z_PK\"", binds: bindings),
                table: table, store: self, on: connection, logger: logger).map(\.snapshot)
        }
        let rows = try open().reading.resolvingObjectIDs(read, store: self)
        var resolved: [NSManagedObjectID: ObjectSnapshot] = [:]
        for row in rows { resolved[row.objectID] = row }
        return try SnapshotFetch.run(request, entity: entity, rows: rows, snapshot: { [unowned self] id in
            if let known = resolved[id] { return known }
            let found = (try? self.objects([id], readAheadWithin: nil))?.first
            resolved[id] = found
            return found
        }, toMany: { [unowned self] relationship, id in
            (try? self.destinations(of: relationship, from: id)) ?? []
        })
    }

    /// A read error as the store reports it: Core Data's errors as they are, the server's as
    /// `NSPersistentStoreOperationError` (134070) with its message.
    static func readFailure(_ error: Error) -> Error {
        if (error as NSError).domain == NSCocoaErrorDomain { return error }
        return PersistentStoreErrors.make(NSPersistentStoreOperationError, "PostgreSQL refused a read: \(PostgresErrors.describe(error)).",
                                          underlying: error)
    }
}
