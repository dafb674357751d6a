import Foundation
import GRDB

/// Reading rows: snapshots by primary key, to-many destinations, and fetches.
extension SQLiteStore {
    /// The model's entity named `name`.
    func modelEntity(_ name: String) -> NSEntityDescription? {
        managedObjectModel?.entitiesByName[name]
    }

    /// The snapshot of one row of `table` (all columns selected).
    func snapshot(of row: Row) -> ObjectSnapshot? {
        let number: Int64 = row["Z_ENT"] ?? 0
        guard let mapping = schema.entity(number: number), let entity = modelEntity(mapping.name) else { return nil }
        var values: [String: Any] = [:]
        for (name, column) in mapping.attributes {
            guard let value = SQLiteValueCoding.value(row[column.column] as DatabaseValue, column: column) else { continue }
            if column.attributeType == .objectIDAttributeType {
                // Stored as the ID's URI; it comes back when the coordinator knows its store.
                if let uri = value as? URL, let id = persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri) {
                    values[name] = id
                }
            } else {
                values[name] = value
            }
        }
        for (name, key) in mapping.toOne {
            guard let primaryKey: Int64 = row[key.column] else { continue }
            var destination = key.destinationName
            if let entityColumn = key.entityColumn, let destinationNumber: Int64 = row[entityColumn],
               let actual = schema.entity(number: destinationNumber) {
                destination = actual.name
            }
            guard let destinationEntity = modelEntity(destination) else { continue }
            values[name] = NSManagedObjectID(entity: destinationEntity, store: self, primaryKey: primaryKey)
        }
        let primaryKey: Int64 = row["Z_PK"]
        return ObjectSnapshot(objectID: NSManagedObjectID(entity: entity, store: self, primaryKey: primaryKey),
                              values: values, version: row["Z_OPT"] ?? 0)
    }

    func readSnapshots(for objectIDs: [NSManagedObjectID]) throws -> [ObjectSnapshot] {
        let queue = try openDatabase()
        var keysByTable: [String: [Int64]] = [:]
        for id in objectIDs where id.storeIdentifier == identifier && !id.isTemporaryID {
            guard let name = id.entity.name, let table = schema.entity(named: name)?.tableName, let key = id.primaryKey else { continue }
            keysByTable[table, default: []].append(key)
        }
        var byID: [NSManagedObjectID: ObjectSnapshot] = [:]
        try queue.read { db in
            for (table, keys) in keysByTable {
                for chunk in stride(from: 0, to: keys.count, by: 500).map({ Array(keys[$0..<min($0 + 500, keys.count)]) }) {
                    let sql = "SELECT * FROM \(dialect.quote(table)) WHERE Z_PK IN (\(dialect.placeholders(count: chunk.count)))"
                    for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(chunk)) {
                        if let snapshot = snapshot(of: row) { byID[snapshot.objectID] = snapshot }
                    }
                }
            }
        }
        // Answer under the IDs asked for (an ID may name a superentity of the row's entity).
        return objectIDs.compactMap { id in
            if let found = byID[id] { return found }
            guard let key = id.primaryKey else { return nil }
            return byID.first { $0.key.primaryKey == key && $0.key.entity.isKindOf(entity: id.entity) }?.value
        }
    }

    func readRelatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID) throws -> [NSManagedObjectID] {
        guard objectID.storeIdentifier == identifier, let key = objectID.primaryKey,
              let mapping = schema.entity(named: objectID.entity.name ?? "")?.toMany[relationship.name] else { return [] }
        let queue = try openDatabase()
        return try queue.read { db in try relatedIDs(mapping, key: key, relationship: relationship, db: db) }
    }

    /// The destinations of one object's to-many relationship, in order for ordered ones.
    func relatedIDs(_ mapping: SQLToManyMapping, key: Int64, relationship: NSRelationshipDescription, db: Database) throws -> [NSManagedObjectID] {
        let rows: [Row]
        switch mapping {
        case .inverseForeignKey(let table, let column, let orderColumn, _):
            let order = orderColumn.map { "\(dialect.quote($0)), Z_PK" } ?? "Z_PK"
            rows = try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT FROM \(dialect.quote(table)) WHERE \(dialect.quote(column)) = ? ORDER BY \(order)",
                                    arguments: [key])
        case .joinTable(let name, let source, let destination, let orderColumn):
            guard let destinationTable = schema.entity(named: relationship.destinationEntity?.name ?? "")?.tableName else { return [] }
            let order = orderColumn.map { "j.\(dialect.quote($0)), t.Z_PK" } ?? "t.Z_PK"
            rows = try Row.fetchAll(db, sql: """
                SELECT t.Z_PK, t.Z_ENT FROM \(dialect.quote(name)) j JOIN \(dialect.quote(destinationTable)) t ON t.Z_PK = j.\(dialect.quote(destination)) \
                WHERE j.\(dialect.quote(source)) = ? ORDER BY \(order)
                """, arguments: [key])
        }
        return rows.compactMap { row in
            guard let mapping = schema.entity(number: row["Z_ENT"]), let entity = modelEntity(mapping.name) else { return nil }
            return NSManagedObjectID(entity: entity, store: self, primaryKey: row["Z_PK"])
        }
    }

    // MARK: Fetching

    /// Runs a fetch. Without a predicate, sort descriptors or dictionary results, everything
    /// (entity filter, offset, limit, count) happens in SQL; otherwise the store's rows of the
    /// entity are read and evaluated with the same in-memory evaluator as the atomic stores.
    /// The SQL compiler (`SQL/`) replaces that second path with compiled SQL.
    func runFetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult {
        let queue = try openDatabase()
        let name = request.entity?.name ?? request.entityName ?? ""
        guard let mapping = schema.entity(named: name), let entity = modelEntity(name) else {
            throw PersistentStoreErrors.make(NSCoreDataError,
                "The fetch request names no entity known to the \(PersistentStoreErrors.name(of: self)): '\(name)'.", stores: [self])
        }
        let kinds = request.includesSubentities ? mapping.kindNumbers : [mapping.number]
        let entityFilter = "Z_ENT IN (\(kinds.map(String.init).joined(separator: ", ")))"
        let table = dialect.quote(mapping.tableName)
        let simple = request.predicate == nil && (request.sortDescriptors ?? []).isEmpty && request.resultType != .dictionaryResultType
        if simple {
            let window = dialect.limitClause(limit: request.fetchLimit > 0 ? request.fetchLimit : nil,
                                             offset: request.fetchOffset > 0 ? request.fetchOffset : nil, firstParameterIndex: 1)
            let arguments = StatementArguments(window.parameters)
            return try queue.read { db in
                switch request.resultType {
                case .countResultType:
                    let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (SELECT Z_PK FROM \(table) WHERE \(entityFilter) \(window.sql))",
                                                 arguments: arguments) ?? 0
                    return .count(count)
                case .managedObjectIDResultType:
                    // A cursor: a million IDs must not first be a million rows in memory.
                    let rows = try Row.fetchCursor(db, sql: "SELECT Z_PK, Z_ENT FROM \(table) WHERE \(entityFilter) ORDER BY Z_PK \(window.sql)", arguments: arguments)
                    return .objectIDs(try Array(rows.compactMap { row in
                        guard let rowEntity = self.schema.entity(number: row["Z_ENT"]).flatMap({ self.modelEntity($0.name) }) else { return nil }
                        return NSManagedObjectID(entity: rowEntity, store: self, primaryKey: row["Z_PK"])
                    }))
                default:
                    let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(table) WHERE \(entityFilter) ORDER BY Z_PK \(window.sql)", arguments: arguments)
                    return .snapshots(rows.compactMap(snapshot(of:)))
                }
            }
        }
        return try compiledFetch(request, entity: entity, queue: queue)
    }
}
