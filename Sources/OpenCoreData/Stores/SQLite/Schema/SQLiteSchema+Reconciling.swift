import Foundation

/// Why an existing store's schema can't be read with the model: what did not match.
struct SQLiteSchemaMismatch: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension SQLiteSchema {
    /// The schema of `model`'s entities as the existing store described by `catalog` lays them
    /// out: the store's own `Z_ENT` numbers (matched by `Z_NAME`, or an entity's renaming
    /// identifier), and the join-table and join-column names found in `sqlite_master`.
    ///
    /// Apple's names are not always the ones the model predicts: a self-referencing
    /// many-to-many may be named after either side, and a join column's counter (`Z_17USERS1`)
    /// depends on Apple's order of work. Both are taken from the store. Throws
    /// ``SQLiteSchemaMismatch`` naming the first thing the model needs that the store lacks: an
    /// entity missing from `Z_PRIMARYKEY` or with another superentity there, a table, a column,
    /// a join table or one of its columns. Tables and columns the model does not use are not
    /// looked at here (see ``SQLiteStore/schemaDifference(catalog:)``).
    static func reconciled(model: NSManagedObjectModel, configurationName: String?, catalog: SQLiteStoreCatalog) throws -> SQLiteSchema {
        let list = model.entities(forConfigurationName: configurationName) ?? model.entities
        let included = Set(list.compactMap(\.name))
        let rows = catalog.entities.filter { $0.entityNumber <= SQLiteStore.lastModelEntityNumber }
        let byName = Dictionary(rows.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var numbering: [String: Int64] = [:]
        var rowOf: [String: SQLiteStoreEntityRow] = [:]
        for entity in list {
            let name = entity.name ?? ""
            let row = byName[name] ?? entity.renamingIdentifier.flatMap { identifier in
                included.contains(identifier) ? nil : byName[identifier]
            }
            guard let row else {
                throw SQLiteSchemaMismatch("Z_PRIMARYKEY has no row for entity '\(name)' (it lists \(rows.map { "\($0.entityNumber) \($0.name)" }.joined(separator: ", ")))")
            }
            numbering[name] = row.entityNumber
            rowOf[name] = row
        }
        for entity in list {
            let name = entity.name ?? ""
            let expected = entity.superentity.flatMap { $0.name }.flatMap { included.contains($0) ? numbering[$0] : nil } ?? 0
            if let row = rowOf[name], row.superEntityNumber != expected {
                throw SQLiteSchemaMismatch("Z_PRIMARYKEY row \(row.entityNumber) '\(row.name)' has Z_SUPER \(row.superEntityNumber), the model's superentity of '\(name)' is \(expected == 0 ? "none" : "number \(expected)")")
            }
        }
        let schema = SQLiteSchema(entities: list, numbering: numbering)

        for table in schema.tables {
            guard let stored = catalog.table(table.name) else {
                throw SQLiteSchemaMismatch("the store has no table \(table.name) for entity '\(table.rootEntityName)'")
            }
            for column in ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name) where stored.column(column) == nil {
                throw SQLiteSchemaMismatch("table \(table.name) has no column \(column)")
            }
        }

        // Join tables: the name of either side, the key columns with or without a counter.
        var joinTables: [SQLJoinTableMapping] = []
        var renamed: [String: (table: String, columns: [String: String])] = [:]
        for table in schema.joinTables {
            let names = [table.name] + (table.alternativeName.map { [$0] } ?? [])
            guard let stored = names.lazy.compactMap({ catalog.table($0) }).first else {
                throw SQLiteSchemaMismatch("the store has no join table \(names.joined(separator: " or "))")
            }
            guard let first = Self.joinColumn(in: stored, generated: table.firstColumn, base: table.firstBaseName, excluding: nil),
                  let second = Self.joinColumn(in: stored, generated: table.secondColumn, base: table.secondBaseName, excluding: first) else {
                throw SQLiteSchemaMismatch("join table \(stored.name) has columns [\(stored.columns.map(\.name).joined(separator: ", "))], not \(table.firstColumn) and \(table.secondColumn)")
            }
            let resolved = SQLJoinTableMapping(
                name: stored.name, firstColumn: first, secondColumn: second,
                firstIsOrdered: table.firstIsOrdered, secondIsOrdered: table.secondIsOrdered,
                alternativeName: table.alternativeName, firstBaseName: table.firstBaseName, secondBaseName: table.secondBaseName)
            for column in resolved.orderColumns where stored.column(column) == nil {
                throw SQLiteSchemaMismatch("join table \(stored.name) has no order column \(column)")
            }
            joinTables.append(resolved)
            renamed[table.name] = (stored.name, [table.firstColumn: first, table.secondColumn: second])
        }
        let entities = schema.entities.map { entity in
            SQLEntityMapping(
                name: entity.name, number: entity.number, superNumber: entity.superNumber, rootName: entity.rootName,
                rootNumber: entity.rootNumber, tableName: entity.tableName, kindNumbers: entity.kindNumbers,
                attributes: entity.attributes, toOne: entity.toOne,
                toMany: entity.toMany.mapValues { mapping in
                    guard case .joinTable(let name, let source, let destination, let order) = mapping, let new = renamed[name] else { return mapping }
                    let newDestination = new.columns[destination] ?? destination
                    return .joinTable(name: new.table, sourceColumn: new.columns[source] ?? source, destinationColumn: newDestination,
                                      orderColumn: order.map { _ in SQLJoinTableMapping.orderColumn(of: newDestination) })
                })
        }
        return SQLiteSchema(entities: entities, tables: schema.tables, joinTables: joinTables)
    }

    /// The column of `table` holding one side's keys: the name we generate, else the base name
    /// with or without a counter (`Z_17USERS`, `Z_17USERS1`) when exactly one column has it.
    private static func joinColumn(in table: SQLiteStoreCatalog.Table, generated: String, base: String?, excluding: String?) -> String? {
        let columns = table.columns.map(\.name).filter { $0 != excluding }
        if let exact = columns.first(where: { $0.uppercased() == generated.uppercased() }) { return exact }
        let base = (base ?? generated).uppercased()
        let candidates = columns.filter { name in
            let upper = name.uppercased()
            guard upper.hasPrefix(base) else { return false }
            return upper.dropFirst(base.count).allSatisfy(\.isASCII) && upper.dropFirst(base.count).allSatisfy(\.isNumber)
        }
        return candidates.count == 1 ? candidates[0] : candidates.first { $0.uppercased() == base }
    }
}
