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
        /// `"Z_PK", "Z_ENT", "Z_OPT", …` every column of the table.
        let selectList: String
        /// The columns of ``selectList`` after `Z_PK` and `Z_ENT`.
        let columnsAfterKeys: [String]
        let entities: [Int64: EntityPlan]
    }

    /// Where one entity's values are among a row's cells.
    struct EntityPlan {
        let entity: NSEntityDescription
        let attributes: [(name: String, index: Int, attribute: NSAttributeDescription, column: String)]
        let toOne: [(name: String, index: Int, entityIndex: Int?, destination: NSEntityDescription?)]
    }

    let tables: [String: Table]
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
            tables[table.name] = Table(name: table.name, qualifiedName: PostgresSQL.qualified(qualifiedSchema, table.name),
                                       selectList: columns.map(PostgresSQL.quote).joined(separator: ", "),
                                       columnsAfterKeys: Array(columns.dropFirst(2)), entities: entities)
        }
        self.tables = tables
        hasObjectIDAttributes = model.entities.contains { entity in
            entity.attributesByName.values.contains { $0.attributeType == .objectIDAttributeType }
        }
    }

    /// The table of `entity`'s rows.
    func table(for entity: NSEntityDescription) -> Table? {
        schema.entity(named: entity.name ?? "").flatMap { tables[$0.tableName] }
    }

    /// The model's entity numbered `number` (`Z_ENT`).
    func entity(number: Int64) -> NSEntityDescription? {
        schema.entity(number: number).flatMap { model.entitiesByName[$0.name] }
    }

    /// The snapshots of `rows`, selected with `table`'s ``Table/selectList``, as objects of `store`.
    /// A value the attribute can't hold fails with `NSPersistentStoreOperationError` (134070)
    /// naming the table, column and row.
    func snapshots(_ rows: PostgresRowSequence, table: Table, store: PostgresStore) async throws -> [ObjectSnapshot] {
        var result: [ObjectSnapshot] = []
        for try await row in rows {
            let cells = row.makeRandomAccess()
            let key = try cells[0].decode(Int64.self)
            let number = try cells[1].decode(Int64.self)
            guard let plan = table.entities[number] else {
                throw unreadable(table.name, "Z_ENT", key, "entity number \(number) is not one of the model's")
            }
            let version = try cells[2].decode(Int64.self)
            var values: [String: Any] = [:]
            for (name, index, attribute, column) in plan.attributes {
                let value: Any?
                do {
                    value = try PostgresValueCoding.value(cells[index], type: attribute.attributeType, column: column)
                } catch let error as NSError {
                    throw unreadable(table.name, column, key, error.localizedDescription)
                }
                guard let value else { continue }
                if attribute.attributeType == .transformableAttributeType, let data = value as? Data {
                    values[name] = TransformableValueCoding.loadedValue(data, attribute: TransformableValueCoding.label(attribute),
                                                                      transformerName: attribute.valueTransformerName)
                } else {
                    values[name] = value
                }
            }
            for (name, index, entityIndex, destination) in plan.toOne {
                guard let destinationKey = try cells[index].decode(Int64?.self) else { continue }
                var target = destination
                if let entityIndex, let destinationNumber = try cells[entityIndex].decode(Int64?.self) {
                    target = entity(number: destinationNumber) ?? destination
                }
                guard let target else { continue }
                values[name] = NSManagedObjectID(entity: target, store: store, primaryKey: destinationKey)
            }
            result.append(ObjectSnapshot(objectID: NSManagedObjectID(entity: plan.entity, store: store, primaryKey: key),
                                         values: values, version: version))
        }
        return result
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

    /// The IDs of rows that select `"Z_PK", "Z_ENT"` first.
    func objectIDs(_ rows: PostgresRowSequence, table: String, store: PostgresStore) async throws -> [NSManagedObjectID] {
        var result: [NSManagedObjectID] = []
        for try await row in rows {
            let (key, number) = try row.decode((Int64, Int64).self)
            guard let entity = entity(number: number) else {
                throw unreadable(table, "Z_ENT", key, "entity number \(number) is not one of the model's")
            }
            result.append(NSManagedObjectID(entity: entity, store: store, primaryKey: key))
        }
        return result
    }

    private func unreadable(_ table: String, _ column: String, _ key: Int64, _ problem: String) -> NSError {
        PersistentStoreErrors.make(NSPersistentStoreOperationError,
            "The PostgreSQL store can't read row Z_PK \(key) of \(table), column \(column): \(problem).")
    }
}
