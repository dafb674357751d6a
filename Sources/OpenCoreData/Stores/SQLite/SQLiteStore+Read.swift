import Foundation
import GRDB
import GRDBSQLite

/// Reading rows: snapshots by primary key, to-many destinations, and fetches.
///
/// Reads run with `inDatabase`, outside an explicit transaction: each is one statement (or a
/// few `IN (…)` chunks), which SQLite runs on a consistent snapshot of its own. GRDB's `read`
/// would wrap every fault and fetch in four more statements (BEGIN, query_only on and off,
/// COMMIT).
extension SQLiteStore {
    /// The model's entity named `name`.
    func modelEntity(_ name: String) -> NSEntityDescription? {
        managedObjectModel?.entitiesByName[name]
    }

    /// The row layout of the table holding `entity`'s rows.
    func layout(for entity: NSEntityDescription) -> SQLiteRowLayout? {
        schema.entity(named: entity.name ?? "").flatMap { layouts[$0.tableName] }
    }

    /// Runs `sql`, which selects `layout.selectList`, with `arguments`, and decodes every row
    /// (the one way rows become snapshots). The statement is prepared once per connection.
    /// With `cache`, rows the cache holds at their current `Z_OPT` are not decoded again (what a
    /// fetch passes: re-fetching unchanged rows costs no decoding).
    func readSnapshots(_ layout: SQLiteRowLayout, sql: String, arguments: [DatabaseValue], db: Database,
                       reusing cache: SQLiteRowCache? = nil) throws -> [ObjectSnapshot] {
        var result: [ObjectSnapshot] = []
        try forEachSnapshot(layout, sql: sql, arguments: arguments, db: db, reusing: cache) { snapshot, _ in result.append(snapshot) }
        return result
    }

    /// Runs `sql`, which selects the layout's columns first (extra columns may follow, at
    /// positions from `layout.columns.count`), and calls `body` with each row's snapshot and the
    /// statement positioned on the row.
    func forEachSnapshot(_ layout: SQLiteRowLayout, sql: String, arguments: [DatabaseValue], db: Database,
                         reusing cache: SQLiteRowCache? = nil, _ body: (ObjectSnapshot, SQLiteStatement) throws -> Void) throws {
        let cache = cache.flatMap { $0.count == 0 ? nil : $0 }   // an empty cache can't answer
        var decoding = SQLiteRowDecoding(origin: objectIDOrigin())
        try forEachRow(sql: sql, arguments: arguments, db: db) { statement in
            try body(try layout.snapshot(at: statement, store: self, decoding: &decoding, reusing: cache), statement)
        }
    }

    /// Runs `sql` with `arguments` (the statement prepared once per connection) and calls `body`
    /// with the statement positioned on each row.
    func forEachRow(sql: String, arguments: [DatabaseValue], db: Database, _ body: (SQLiteStatement) throws -> Void) throws {
        let statement = try db.cachedStatement(sql: sql)
        try statement.rebind(arguments)
        defer { sqlite3_reset(statement.sqliteStatement) }
        while try statement.stepRow(db) {
            try body(statement.sqliteStatement)
        }
    }

    /// Runs `sql`, which selects `Z_PK, Z_ENT` of rows of `table` first, and makes the object ID
    /// of every row (a million IDs cost a million IDs, not a million GRDB rows). A row whose
    /// `Z_ENT` names no entity of the model throws (``SQLiteRowErrors``).
    func readObjectIDs(sql: String, arguments: [DatabaseValue], table: String, db: Database) throws -> [NSManagedObjectID] {
        var result: [NSManagedObjectID] = []
        let layout = layouts[table]
        let origin = objectIDOrigin()
        // Rows come in runs of one entity: its number is looked up once per run.
        var last: (number: Int64, entity: NSEntityDescription)?
        try forEachRow(sql: sql, arguments: arguments, db: db) { row in
            // Each column read once (see `SQLiteRowLayout.snapshot(at:…)`).
            let key = sqlite3_column_value(row, 0), number = sqlite3_column_value(row, 1)
            if sqlite3_value_type(key) == SQLITE_INTEGER, sqlite3_value_type(number) == SQLITE_INTEGER {
                let entityNumber = sqlite3_value_int64(number)
                if last?.number != entityNumber { last = layout?.entity(number: entityNumber).map { (entityNumber, $0) } }
                if let entity = last?.entity {
                    result.append(NSManagedObjectID(entity: entity, origin: origin, primaryKey: sqlite3_value_int64(key)))
                    return
                }
            }
            // Not integers, or an unknown entity number: throws naming the column and row.
            result.append(try objectID(key: DatabaseValue(sqliteStatement: row, index: 0),
                                       entity: DatabaseValue(sqliteStatement: row, index: 1), table: table, layout: layout))
        }
        return result
    }

    /// The ID of the row of `table` whose `Z_PK` and `Z_ENT` are `key` and `entity`; throws
    /// naming the table, column and row when either is not an integer or the entity number
    /// names no entity of the model. `layout` is `table`'s row layout, read once by the caller.
    func objectID(key: DatabaseValue, entity number: DatabaseValue, table: String, layout: SQLiteRowLayout?) throws -> NSManagedObjectID {
        guard case .int64(let pk) = key.storage else {
            throw SQLiteRowErrors.unreadableRow(table: table, column: "Z_PK", primaryKey: nil,
                                                "\(SQLiteValueMismatch.describe(key)) is not a primary key", store: self)
        }
        guard case .int64(let value) = number.storage, let entity = layout?.entity(number: value) else {
            throw SQLiteRowErrors.unreadableRow(table: table, column: "Z_ENT", primaryKey: pk,
                                                "\(SQLiteValueMismatch.describe(number)) names no entity stored in this table", store: self)
        }
        return NSManagedObjectID(entity: entity, store: self, primaryKey: pk)
    }

    /// The snapshots of rows of `layout`'s table with the primary keys `keys`, in ascending key
    /// order (see ``readSnapshots(_:rows:db:)``).
    func readSnapshots(_ layout: SQLiteRowLayout, keys: [Int64], db: Database) throws -> [ObjectSnapshot] {
        try readSnapshots(layout, rows: keys.map { KeyedRow(key: $0, id: nil) }, db: db)
    }

    /// The snapshots of rows of `layout`'s table with the given primary keys, in ascending key
    /// order. A row whose entity is that of the ID given with its key is answered under that ID
    /// (a batch of faults needs no new IDs); other rows get IDs of their own.
    ///
    /// More consecutive keys than a batch of faults holds (the windows of a batched fetch walked
    /// in key order, `fetchBatchSize` 500 say) are one `Z_PK BETWEEN ? AND ?` range, which
    /// SQLite reads in one pass over the table's b-tree; other keys go in chunks of
    /// `Z_PK IN (…)`, one b-tree search per key, which costs little more for a batch of up to
    /// ``BatchFaulting/defaultBatchSize`` faults.
    func readSnapshots(_ layout: SQLiteRowLayout, rows: [KeyedRow], db: Database) throws -> [ObjectSnapshot] {
        var wanted = rows
        if !wanted.indices.dropFirst().allSatisfy({ wanted[$0 - 1].key < wanted[$0].key }) {
            wanted.sort { $0.key < $1.key }
            // The same key twice is read once (the first ID given wins).
            var kept = 0
            for index in wanted.indices where kept == 0 || wanted[kept - 1].key != wanted[index].key {
                wanted[kept] = wanted[index]
                kept += 1
            }
            wanted.removeLast(wanted.count - kept)
        }
        guard let first = wanted.first?.key, let last = wanted.last?.key else { return [] }
        var result: [ObjectSnapshot] = []
        result.reserveCapacity(wanted.count)
        var cursor = 0
        var decoding = SQLiteRowDecoding(origin: objectIDOrigin())
        func read(_ sql: String, _ arguments: [DatabaseValue]) throws {
            try forEachRow(sql: sql, arguments: arguments, db: db) { statement in
                let key = sqlite3_column_int64(statement, 0)
                while cursor < wanted.count && wanted[cursor].key < key { cursor += 1 }
                let known = cursor < wanted.count && wanted[cursor].key == key ? wanted[cursor].id : nil
                result.append(try layout.snapshot(at: statement, store: self, decoding: &decoding, objectID: known))
            }
        }
        let table = dialect.quote(layout.table)
        let (span, overflow) = last.subtractingReportingOverflow(first)
        if !overflow && span == Int64(wanted.count - 1) && wanted.count > BatchFaulting.defaultBatchSize {
            try read("SELECT \(layout.selectList) FROM \(table) WHERE Z_PK BETWEEN ? AND ? ORDER BY Z_PK",
                     [first.databaseValue, last.databaseValue])
        } else {
            for chunk in BatchFaulting.chunks(wanted) {
                try read("SELECT \(layout.selectList) FROM \(table) WHERE Z_PK IN (\(dialect.placeholders(count: chunk.count))) ORDER BY Z_PK",
                         chunk.map(\.key.databaseValue))
            }
        }
        return result
    }

    /// The rows of `objectIDs`, read on `connection` (a query generation's) or else on the
    /// store's own connection.
    func readSnapshots(for objectIDs: [NSManagedObjectID], on connection: DatabaseQueue? = nil) throws -> [ObjectSnapshot] {
        let queue = try connection ?? openDatabase()
        var rowsByTable: [String: [KeyedRow]] = [:]
        // IDs come in runs of one entity: look its table up once per run.
        // The run's rows gather in `run` and join the table's list when the run ends: the table
        // is hashed once per run, not once per ID.
        var lastEntity: NSEntityDescription?
        var lastTable: String?
        var run: [KeyedRow] = []
        func endRun() {
            guard let table = lastTable, !run.isEmpty else { return }
            if rowsByTable[table] == nil {
                // The table's first run (usually its only one) is moved in, not copied.
                rowsByTable[table] = run
                run = []
            } else {
                rowsByTable[table, default: []].append(contentsOf: run)
                run.removeAll(keepingCapacity: true)
            }
        }
        var namesSuperentity = false
        let origin = objectIDOrigin()
        run.reserveCapacity(objectIDs.count)
        for id in objectIDs where holds(id, origin: origin) {
            if id.entity !== lastEntity {
                endRun()
                lastEntity = id.entity
                lastTable = layout(for: id.entity)?.table
                if !id.entity.subentities.isEmpty { namesSuperentity = true }
            }
            guard lastTable != nil, let key = id.primaryKey else { continue }
            run.append(KeyedRow(key: key, id: id))
        }
        endRun()
        var read: [ObjectSnapshot] = []
        try queue.inDatabase { db in
            for (table, rows) in rowsByTable {
                guard let layout = layouts[table] else { continue }
                let snapshots = try readSnapshots(layout, rows: rows, db: db)
                // One table (the usual case): the array as it is, not copied snapshot by snapshot.
                if read.isEmpty { read = snapshots } else { read += snapshots }
            }
        }
        // An ID of an entity with subentities may name a row of a subentity: answer under the
        // ID asked for. Otherwise every row's ID equals the one asked for.
        guard namesSuperentity else { return read }
        var byID: [NSManagedObjectID: ObjectSnapshot] = [:]
        for snapshot in read { byID[snapshot.objectID] = snapshot }
        return objectIDs.compactMap { id in
            // Another store's ID is not answered by a row that has its primary key.
            guard holds(id, origin: origin) else { return nil }
            if let found = byID[id] { return found }
            guard let key = id.primaryKey else { return nil }
            return byID.first { $0.key.primaryKey == key && $0.key.entity.isKindOf(entity: id.entity) }?.value
        }
    }

    /// One object's to-many destinations, read on `connection` (a query generation's) or else
    /// on the store's own connection.
    func readRelatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID,
                              on connection: DatabaseQueue? = nil) throws -> [NSManagedObjectID] {
        guard holds(objectID), let key = objectID.primaryKey,
              let mapping = schema.entity(named: objectID.entity.name ?? "")?.toMany[relationship.name] else { return [] }
        let queue = try connection ?? openDatabase()
        return try queue.inDatabase { db in try relatedIDs(mapping, key: key, relationship: relationship, db: db) }
    }

    /// The destinations of one object's to-many relationship, in order for ordered ones.
    func relatedIDs(_ mapping: SQLToManyMapping, key: Int64, relationship: NSRelationshipDescription, db: Database) throws -> [NSManagedObjectID] {
        let schema = self.schema
        let rows: [Row]
        let rowTable: String
        switch mapping {
        case .inverseForeignKey(let table, let column, let orderColumn, _), .destinationKey(let table, let column, let orderColumn, _):
            rowTable = table
            let order = orderColumn.map { "\(dialect.quote($0)), Z_PK" } ?? "Z_PK"
            rows = try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT FROM \(dialect.quote(table)) WHERE \(dialect.quote(column)) = ? ORDER BY \(order)",
                                    arguments: [key])
        case .joinTable(let name, let source, let destination, let orderColumn):
            guard let destinationTable = schema.entity(named: relationship.destinationEntity?.name ?? "")?.tableName else { return [] }
            rowTable = destinationTable
            let order = orderColumn.map { "j.\(dialect.quote($0)), t.Z_PK" } ?? "t.Z_PK"
            rows = try Row.fetchAll(db, sql: """
                SELECT t.Z_PK, t.Z_ENT FROM \(dialect.quote(name)) j JOIN \(dialect.quote(destinationTable)) t ON t.Z_PK = j.\(dialect.quote(destination)) \
                WHERE j.\(dialect.quote(source)) = ? ORDER BY \(order)
                """, arguments: [key])
        }
        let layout = layouts[rowTable]
        return try rows.map { row in try objectID(key: row[0] as DatabaseValue, entity: row[1] as DatabaseValue, table: rowTable, layout: layout) }
    }

    // MARK: Fetching

    /// Runs a fetch. Without a predicate, sort descriptors or dictionary results, everything
    /// (entity filter, offset, limit, count) happens in SQL; otherwise the store's rows of the
    /// entity are read and evaluated with the same in-memory evaluator as the atomic stores.
    /// The SQL compiler (`SQL/`) replaces that second path with compiled SQL.
    ///
    /// It runs on `queue`: the store's own connection, a reader of its pool, or a query
    /// generation's connection. Rows `cache` holds at their current `Z_OPT` are not decoded
    /// again (a generation passes none: the cache holds the newest rows); filling the cache is
    /// the caller's.
    func runFetch(_ request: NSFetchRequest<NSFetchRequestResult>, on queue: DatabaseQueue, reusing cache: SQLiteRowCache?) throws -> StoreFetchResult {
        let name = request.entity?.name ?? request.entityName ?? ""
        guard let mapping = schema.entity(named: name), let entity = modelEntity(name) else {
            throw PersistentStoreErrors.make(NSCoreDataError,
                "The fetch request names no entity known to the \(PersistentStoreErrors.name(of: self)): '\(name)'.", stores: [self])
        }
        let kinds = request.includesSubentities ? mapping.kindNumbers : [mapping.number]
        // As the SQL compiler: no filter when every row of the table qualifies, so a row whose
        // Z_ENT names no entity is read (and reported), never skipped without a word.
        let everyRow = entity.superentity == nil && (request.includesSubentities || entity.subentities.isEmpty)
        let entityFilter = everyRow ? "1" : "Z_ENT IN (\(kinds.map(String.init).joined(separator: ", ")))"
        let table = dialect.quote(mapping.tableName)
        let simple = request.predicate == nil && (request.sortDescriptors ?? []).isEmpty && request.resultType != .dictionaryResultType
        if simple {
            let window = dialect.finish(dialect.limitClause(limit: request.fetchLimit, offset: request.fetchOffset))
            let arguments = window.arguments
            return try queue.inDatabase { db in
                switch request.resultType {
                case .countResultType:
                    let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (SELECT Z_PK FROM \(table) WHERE \(entityFilter) \(window.sql))",
                                                 arguments: arguments) ?? 0
                    return .count(count)
                case .managedObjectIDResultType:
                    return .objectIDs(try readObjectIDs(sql: "SELECT Z_PK, Z_ENT FROM \(table) WHERE \(entityFilter) ORDER BY Z_PK \(window.sql)",
                                                        arguments: window.bindings.map(\.databaseValue), table: mapping.tableName, db: db))
                default:
                    guard let layout = layouts[mapping.tableName] else { return .snapshots([]) }
                    return .snapshots(try readSnapshots(layout, sql: "SELECT \(layout.selectList) FROM \(table) WHERE \(entityFilter) ORDER BY Z_PK \(window.sql)",
                                                        arguments: window.bindings.map(\.databaseValue), db: db, reusing: cache))
                }
            }
        }
        return try compiledFetch(request, entity: entity, queue: queue, cache: cache)
    }
}

/// A row ``SQLiteStore/readSnapshots(_:rows:db:)`` reads: its primary key, and the ID to answer
/// it under when the row is of that ID's entity (nil: the row gets an ID of its own).
///
/// A struct, not a `(key:id:)` tuple: an array of tuples is freed through the runtime's generic
/// tuple value witness (about 140 instructions an element, 1.4% of a batched walk), an array of
/// these through this type's own.
struct KeyedRow {
    let key: Int64
    let id: NSManagedObjectID?
}
