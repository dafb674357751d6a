import Foundation
import OpenCoreData
import PostgresNIO

/// How the rows of each table read back as snapshots: the columns a SELECT names, and for
/// each entity number, which column holds each attribute and to-one relationship. Computed
/// once when the store opens.
struct PostgresRowReading: @unchecked Sendable {
    // @unchecked Sendable: entity and attribute descriptions of a model in use are immutable.

    /// One table's SELECT list and the entities stored in it.
    struct Table {
        let name: String
        /// `"schema"."TABLE"`.
        let qualifiedName: String
        /// Every column of the table, `Z_PK`, `Z_ENT` and `Z_OPT` first: the columns a SELECT of
        /// snapshots names, in this order.
        let columns: [String]
        /// ``columns`` as one record, `ROW("Z_PK", "Z_ENT", "Z_OPT", …)`: what reads of snapshots
        /// select, one cell a row (``PostgresSnapshotReader``).
        let record: String
        /// The columns of ``record`` after `Z_PK` and `Z_ENT`.
        var columnsAfterKeys: [String] { Array(columns.dropFirst(2)) }
        let entities: [Int64: EntityPlan]

        /// ``record`` with each column qualified by the table alias `alias`.
        func record(alias: String) -> String {
            "ROW(" + columns.map { "\(alias).\(PostgresSQL.quote($0))" }.joined(separator: ", ") + ")"
        }
    }

    /// Where one entity's values are among a row's cells.
    struct EntityPlan {
        let entity: NSEntityDescription
        let attributes: [(name: String, index: Int, attribute: NSAttributeDescription, column: String)]
        let toOne: [(name: String, index: Int, entityIndex: Int?, destination: NSEntityDescription?)]
    }

    let tables: [String: Table]
    /// The table name of each of the model's entities, by the entity's identity.
    private let tableNames: [ObjectIdentifier: String]
    /// The model's entities by their number (`Z_ENT`).
    private let entitiesByNumber: [Int64: NSEntityDescription]
    let schema: SQLiteSchema
    let model: NSManagedObjectModel
    /// Whether an entity has an object-ID attribute (see ``resolvingObjectIDs(_:store:)``).
    let hasObjectIDAttributes: Bool

    init(schema: SQLiteSchema, model: NSManagedObjectModel, qualifiedSchema: String) {
        self.schema = schema
        self.model = model
        var tables: [String: Table] = [:]
        for table in schema.tables {
            let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)
            let index = Dictionary(columns.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            var entities: [Int64: EntityPlan] = [:]
            for mapping in schema.entities where mapping.tableName == table.name {
                guard let entity = model.entitiesByName[mapping.name] else { continue }
                let attributes = mapping.attributes.values.sorted { $0.column < $1.column }.compactMap { column in
                    entity.attributesByName[column.attributeName].flatMap { attribute in
                        index[column.column].map { (column.attributeName, $0, attribute, column.column) }
                    }
                }
                let toOne = mapping.toOne.values.sorted { $0.column < $1.column }.compactMap { key in
                    index[key.column].map { (key.relationshipName, $0, key.entityColumn.flatMap { index[$0] }, model.entitiesByName[key.destinationName]) }
                }
                entities[mapping.number] = EntityPlan(entity: entity, attributes: attributes, toOne: toOne)
            }
            tables[table.name] = Table(name: table.name, qualifiedName: PostgresSQL.qualified(qualifiedSchema, table.name), columns: columns,
                                       record: "ROW(" + columns.map(PostgresSQL.quote).joined(separator: ", ") + ")", entities: entities)
        }
        self.tables = tables
        var tableNames: [ObjectIdentifier: String] = [:]
        var entitiesByNumber: [Int64: NSEntityDescription] = [:]
        for mapping in schema.entities {
            guard let entity = model.entitiesByName[mapping.name] else { continue }
            tableNames[ObjectIdentifier(entity)] = mapping.tableName
            entitiesByNumber[mapping.number] = entity
        }
        self.tableNames = tableNames
        self.entitiesByNumber = entitiesByNumber
        hasObjectIDAttributes = model.entities.contains { entity in
            entity.attributesByName.values.contains { $0.attributeType == .objectIDAttributeType }
        }
    }

    /// The table of `entity`'s rows.
    func table(for entity: NSEntityDescription) -> Table? {
        if let name = tableNames[ObjectIdentifier(entity)] { return tables[name] }
        return schema.entity(named: entity.name ?? "").flatMap { tables[$0.tableName] }
    }

    /// The name of the table of `entity`'s rows: a lookup by the entity's identity, for each
    /// ID a read names.
    func tableName(for entity: NSEntityDescription) -> String? {
        tableNames[ObjectIdentifier(entity)] ?? schema.entity(named: entity.name ?? "")?.tableName
    }

    /// The model's entity numbered `number` (`Z_ENT`): a lookup by number, for each row with
    /// a to-one whose destination has subentities.
    func entity(number: Int64) -> NSEntityDescription? {
        entitiesByNumber[number]
    }

    /// The snapshots of the rows `query` selects (`table`'s ``Table/record``, then
    /// perhaps one more column: an `Integer 64`, returned with each snapshot), as objects of
    /// `store`. A value the attribute can't hold fails with `NSPersistentStoreOperationError`
    /// (134070) naming the table, column and row.
    ///
    /// The rows are decoded on the connection's event loop as they arrive (postgres-nio's
    /// `onRow`), by a ``PostgresSnapshotReader``: no hand-off to another thread for each row, and
    /// nothing there waits (see ``PostgresConnectionBridge``).
    ///
    /// `knownIDs`, sorted by primary key, are IDs the rows' snapshots reuse when they match
    /// (the IDs a read by ID asked for), instead of making new ones.
    func snapshots(_ query: PostgresQuery, table: Table, store: PostgresStore, knownIDs: [NSManagedObjectID] = [],
                   on connection: PostgresConnection, logger: Logger) async throws -> [(snapshot: ObjectSnapshot, extraKey: Int64?)] {
        let reader = PostgresSnapshotReader(reading: self, table: table, store: store, knownIDs: knownIDs)
        _ = try await connection.query(query, logger: logger) { row in try reader.read(row) }.get()
        return reader.rows
    }

    /// `snapshots` with each object-ID attribute, read as the ID's URI, turned back into the ID
    /// when the coordinator knows its store (else no value). Runs on the calling thread, not in
    /// ``snapshots(_:table:store:)``: the coordinator's lock, which the caller may hold, is
    /// not the bridge's thread's to take.
    func resolvingObjectIDs(_ snapshots: [ObjectSnapshot], store: PostgresStore) -> [ObjectSnapshot] {
        guard hasObjectIDAttributes else { return snapshots }
        let coordinator = store.persistentStoreCoordinator
        return snapshots.map { snapshot in
            var snapshot = snapshot
            for attribute in snapshot.objectID.entity.attributesByName.values where attribute.attributeType == .objectIDAttributeType {
                guard let uri = snapshot[attribute.name] as? URL else { continue }
                snapshot[attribute.name] = coordinator?.managedObjectID(forURIRepresentation: uri)
            }
            return snapshot
        }
    }

    /// The IDs of the rows `query` selects (`"Z_PK", "Z_ENT"` first), read on the connection's
    /// event loop as they arrive, as ``snapshots(_:table:store:on:logger:)`` reads rows.
    func objectIDs(_ query: PostgresQuery, table: String, store: PostgresStore, on connection: PostgresConnection,
                   logger: Logger) async throws -> [NSManagedObjectID] {
        let reader = PostgresObjectIDReader(reading: self, table: table, store: store)
        _ = try await connection.query(query, logger: logger) { row in try reader.read(row) }.get()
        return reader.ids
    }

    /// The IDs of `entity`'s rows whose keys `query` selects as one array
    /// (``SQLFetchStatements/postgresPrimaryKeyArray(_:entity:schema:model:)``), read on the
    /// connection's event loop.
    func objectIDs(keyArray query: PostgresQuery, of entity: NSEntityDescription, table: String, store: PostgresStore,
                   on connection: PostgresConnection, logger: Logger) async throws -> [NSManagedObjectID] {
        let reader = PostgresObjectIDReader(reading: self, table: table, store: store)
        _ = try await connection.query(query, logger: logger) { row in try reader.readKeys(row, of: entity) }.get()
        return reader.ids
    }

    func unreadable(_ table: String, _ column: String, _ key: Int64, _ problem: String) -> NSError {
        PersistentStoreErrors.make(NSPersistentStoreOperationError,
            "The PostgreSQL store can't read row Z_PK \(key) of \(table), column \(column): \(problem).")
    }
}
