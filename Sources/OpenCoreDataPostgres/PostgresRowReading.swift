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
        /// ``columns`` quoted, for a SELECT: `"Z_PK", "Z_ENT", "Z_OPT", …`.
        let selectList: String
        /// The columns of ``selectList`` after `Z_PK` and `Z_ENT`.
        var columnsAfterKeys: [String] { Array(columns.dropFirst(2)) }
        let entities: [Int64: EntityPlan]

        /// ``selectList`` with each column qualified by the table alias `alias`.
        func selectList(alias: String) -> String {
            columns.map { "\(alias).\(PostgresSQL.quote($0))" }.joined(separator: ", ")
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
                                       selectList: columns.map(PostgresSQL.quote).joined(separator: ", "), entities: entities)
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

    /// The snapshots of `rows`, selected with `table`'s ``Table/selectList``, as objects of `store`.
    /// A value the attribute can't hold fails with `NSPersistentStoreOperationError` (134070)
    /// naming the table, column and row.
    func snapshots(_ rows: PostgresRowSequence, table: Table, store: PostgresStore) async throws -> [ObjectSnapshot] {
        var result: [ObjectSnapshot] = []
        try await forEachSnapshot(rows, table: table, store: store) { snapshot, _ in result.append(snapshot) }
        return result
    }

    /// Calls `body` with the snapshot of each of `rows` (which select `table`'s
    /// ``Table/selectList`` first, and may select one more column after it) and that extra
    /// cell, if any.
    ///
    /// Each row's cells are read once, in order, and each value goes straight into the
    /// snapshot's slot (``SnapshotRowBuilder``); `Integer 64` columns, the most common, skip the
    /// attribute-type switch.
    func forEachSnapshot(_ rows: PostgresRowSequence, table: Table, store: PostgresStore,
                         _ body: (ObjectSnapshot, PostgresCell?) throws -> Void) async throws {
        var decoders: [Int64: RowDecoder] = [:]
        var last: (number: Int64, decoder: RowDecoder)?
        let columnCount = table.columns.count
        // Each to-one's destination key and entity number, filled while a row's cells pass.
        var keys: [Int64?] = [], numbers: [Int64?] = []
        for try await row in rows {
            var cells = row.makeIterator()
            guard let keyCell = cells.next(), let numberCell = cells.next(), let versionCell = cells.next() else {
                throw unreadable(table.name, "Z_OPT", 0, "the row has fewer columns than the table")
            }
            let key = try PostgresValueCoding.requiredInt64(keyCell)
            let number = try PostgresValueCoding.requiredInt64(numberCell)
            let decoder: RowDecoder
            if let last, last.number == number {
                decoder = last.decoder
            } else if let known = decoders[number] {
                decoder = known
            } else {
                guard let plan = table.entities[number] else {
                    throw unreadable(table.name, "Z_ENT", key, "entity number \(number) is not one of the model's")
                }
                decoder = RowDecoder(plan: plan, store: store, columnCount: columnCount)
                decoders[number] = decoder
            }
            let version = try PostgresValueCoding.requiredInt64(versionCell)
            let toOneCount = decoder.toOne.count
            if toOneCount > 0 {
                if keys.count < toOneCount {
                    keys = Array(repeating: nil, count: toOneCount)
                    numbers = keys
                } else {
                    for index in 0..<toOneCount { keys[index] = nil; numbers[index] = nil }
                }
            }
            var builder = decoder.builder
            var index = 3
            while index < columnCount, let cell = cells.next() {
                switch decoder.actions[index] {
                case .skip:
                    break
                case .int64(let slot):
                    do {
                        if let value = try PostgresValueCoding.int64(cell) { builder.setInt64(value, at: slot) }
                    } catch let error as NSError {
                        throw unreadable(table.name, table.columns[index], key, error.localizedDescription)
                    }
                case .value(let slot, let attribute):
                    do {
                        guard let value = try PostgresValueCoding.value(cell, type: attribute.attributeType, column: table.columns[index]) else { break }
                        if attribute.attributeType == .transformableAttributeType, let data = value as? Data {
                            builder.set(TransformableValueCoding.loadedValue(data, attribute: TransformableValueCoding.label(attribute),
                                                                             transformerName: attribute.valueTransformerName), at: slot)
                        } else {
                            builder.set(value, at: slot)
                        }
                    } catch let error as NSError {
                        throw unreadable(table.name, table.columns[index], key, error.localizedDescription)
                    }
                case .toOneKey(let step):
                    keys[step] = try PostgresValueCoding.int64(cell)
                case .toOneEntity(let step):
                    numbers[step] = try PostgresValueCoding.int64(cell)
                }
                index += 1
            }
            for (step, toOne) in decoder.toOne.enumerated() {
                guard let destinationKey = keys[step] else { continue }
                var target = toOne.destination
                if let destinationNumber = numbers[step] { target = entity(number: destinationNumber) ?? target }
                guard let target else { continue }
                builder.setDestination(target, primaryKey: destinationKey, at: toOne.slot)
            }
            let snapshot = builder.finish(primaryKey: key, version: version)
            decoder.builder = builder
            last = (number, decoder)
            try body(snapshot, cells.next())
        }
    }

    /// How one entity's rows decode in one read: what each column of the table holds for it,
    /// and the builder of its snapshots (which knows the store). A class, so that the rows of
    /// one read share it without copies.
    private final class RowDecoder {
        /// What a column's cell is for this entity.
        enum Action {
            /// Another entity's column (or one this model doesn't read).
            case skip
            /// An `Integer 64` attribute's slot.
            case int64(slot: Int)
            /// Any other attribute's slot.
            case value(slot: Int, attribute: NSAttributeDescription)
            /// The destination key of the to-one relationship ``toOne``[n].
            case toOneKey(Int)
            /// The destination entity number of the to-one relationship ``toOne``[n].
            case toOneEntity(Int)
        }
        struct ToOne {
            let slot: Int
            let destination: NSEntityDescription?
        }
        var builder: SnapshotRowBuilder
        /// One action per column of the table, by the column's position.
        let actions: [Action]
        let toOne: [ToOne]

        init(plan: EntityPlan, store: PostgresStore, columnCount: Int) {
            let builder = SnapshotRowBuilder(entity: plan.entity, store: store)
            self.builder = builder
            var actions = [Action](repeating: .skip, count: columnCount)
            for (name, index, attribute, _) in plan.attributes {
                guard let slot = builder.slot(forKey: name) else { continue }
                actions[index] = attribute.attributeType == .integer64AttributeType ? .int64(slot: slot) : .value(slot: slot, attribute: attribute)
            }
            var toOne: [ToOne] = []
            for (name, index, entityIndex, destination) in plan.toOne {
                guard let slot = builder.slot(forKey: name) else { continue }
                actions[index] = .toOneKey(toOne.count)
                if let entityIndex { actions[entityIndex] = .toOneEntity(toOne.count) }
                toOne.append(ToOne(slot: slot, destination: destination))
            }
            self.actions = actions
            self.toOne = toOne
        }
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
        // One builder per entity met: it looks the store's ID origin up once.
        var builders: [Int64: SnapshotRowBuilder] = [:]
        var last: (number: Int64, builder: SnapshotRowBuilder)?
        for try await row in rows {
            var cells = row.makeIterator()
            guard let keyCell = cells.next(), let numberCell = cells.next() else { continue }
            let key = try PostgresValueCoding.requiredInt64(keyCell), number = try PostgresValueCoding.requiredInt64(numberCell)
            if last?.number != number {
                if let known = builders[number] {
                    last = (number, known)
                } else {
                    guard let entity = entity(number: number) else {
                        throw unreadable(table, "Z_ENT", key, "entity number \(number) is not one of the model's")
                    }
                    let builder = SnapshotRowBuilder(entity: entity, store: store)
                    builders[number] = builder
                    last = (number, builder)
                }
            }
            guard let builder = last?.builder else { continue }
            result.append(builder.objectID(of: builder.entity, primaryKey: key))
        }
        return result
    }

    private func unreadable(_ table: String, _ column: String, _ key: Int64, _ problem: String) -> NSError {
        PersistentStoreErrors.make(NSPersistentStoreOperationError,
            "The PostgreSQL store can't read row Z_PK \(key) of \(table), column \(column): \(problem).")
    }
}
