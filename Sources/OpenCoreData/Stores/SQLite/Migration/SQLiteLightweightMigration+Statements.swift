import Foundation
import GRDB

/// The SQL of a planned lightweight migration, run inside the caller's transaction.
///
/// Every destination table (entity tables and join tables) is built anew under a temporary name
/// (`_T_<NAME>`) from the source tables, which stay readable until all are built; then the
/// source tables are dropped, the new ones renamed to their names and the destination's indexes
/// created. This one form covers new, removed, renamed and retyped columns, renamed tables,
/// renumbered entities (`Z_ENT`, the `Z<n>_<REL>` columns and `Z_<n><REL>` join tables named
/// after numbers), and relationships changing between a key column and a join table.
///
/// Relationships are copied as pairs of primary keys, `(src, dst)`, read from wherever the
/// source kept them (a to-one key, the inverse's key, a join table, an inverse-less to-many's
/// key column) and kept only when both ends' rows are migrated into entities the destination
/// relationship allows. A destination relationship without a mapping takes its inverse's pairs.
/// When the source kept no order for an ordered destination, the order is that of the primary
/// keys. A to-one made from a to-many takes the related row with the lowest primary key; an
/// inverse-less to-many keeps a related row in one owner's list only (its key column holds one
/// owner), the one with the lowest primary key.
extension SQLiteLightweightMigration {
    static let temporaryPrefix = "_T_"

    private var dialect: SQLiteDialect { SQLiteDialect() }
    private func q(_ identifier: String) -> String { dialect.quote(identifier) }

    /// The named steps, in order; each runs its statements on `db`.
    func steps() -> [(name: String, run: (Database) throws -> Void)] {
        var steps: [(String, (Database) throws -> Void)] = []
        steps.append(("create", { db in try createTemporaryTables(db) }))
        for table in destination.tables {
            steps.append(("copy \(table.name)", { db in try copyRows(into: table, db) }))
        }
        for table in destination.joinTables {
            steps.append(("copy \(table.name)", { db in try copyLinks(into: table, db) }))
        }
        steps.append(("validate", { db in try validate(db) }))
        steps.append(("replace", { db in try replaceTables(db) }))
        steps.append(("bookkeeping", { db in try rewritePrimaryKeyTable(db) }))
        return steps
    }

    // MARK: Tables

    private func createTemporaryTables(_ db: Database) throws {
        for table in destination.tables {
            let temporary = SQLTableMapping(name: Self.temporaryPrefix + table.name, rootEntityName: table.rootEntityName,
                                            columns: table.columns, indexes: [])
            try db.execute(sql: destination.createTable(temporary, dialect: dialect))
        }
        for table in destination.joinTables {
            let temporary = SQLJoinTableMapping(name: Self.temporaryPrefix + table.name, firstColumn: table.firstColumn,
                                            secondColumn: table.secondColumn, firstIsOrdered: table.firstIsOrdered,
                                            secondIsOrdered: table.secondIsOrdered)
            try db.execute(sql: destination.createJoinTable(temporary, dialect: dialect))
        }
    }

    /// One `INSERT … SELECT` per entity link into `table`.
    private func copyRows(into table: SQLTableMapping, _ db: Database) throws {
        for link in links where link.destination.tableName == table.name {
            var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
            var values = ["s.Z_PK", "\(link.destination.number)", "s.Z_OPT"]
            var arguments: [DatabaseValue] = []
            for (name, column) in link.destination.attributes.sorted(by: { $0.key < $1.key }) {
                columns.append(column.column)
                switch link.view.attributes[name] ?? .defaultValue {
                case .sourceAttribute(let sourceName):
                    guard let sourceColumn = link.source.attributes[sourceName],
                          let sql = Self.valueSQL(from: sourceColumn, to: column, alias: "s") else {
                        throw SQLiteSchemaMismatch("attribute '\(name)' of mapping '\(link.view.mappingName)' can't be read from '\(sourceName)'")
                    }
                    // A non-optional attribute with a default (an optional one made mandatory)
                    // gets its default where the source has no value, as the object path does.
                    if let attribute = link.destinationEntity.attributesByName[name], !attribute.isOptional,
                       let defaultValue = attribute.defaultValue {
                        values.append("COALESCE(\(sql), ?)")
                        arguments.append(try SQLiteValueCoding.databaseValue(defaultValue, column: column))
                    } else {
                        values.append(sql)
                    }
                case .constant(let value):
                    values.append("?")
                    arguments.append(try SQLiteValueCoding.databaseValue(value, column: column))
                case .defaultValue:
                    let attribute = link.destinationEntity.attributesByName[name]
                    values.append("?")
                    arguments.append(try SQLiteValueCoding.databaseValue(attribute?.defaultValue, column: column))
                }
            }
            for (name, key) in link.destination.toOne.sorted(by: { $0.key < $1.key }) {
                guard let relationship = link.destinationEntity.relationshipsByName[name], let pairs = pairs(for: relationship) else { continue }
                columns.append(key.column)
                values.append("(SELECT q.dst FROM (\(pairs)) q WHERE q.src = s.Z_PK ORDER BY q.dst LIMIT 1)")
                if let entityColumn = key.entityColumn {
                    columns.append(entityColumn)
                    values.append("(SELECT q.dent FROM (\(pairs)) q WHERE q.src = s.Z_PK ORDER BY q.dst LIMIT 1)")
                }
                if let orderColumn = key.orderColumn, let inverse = relationship.inverseRelationship {
                    columns.append(orderColumn)
                    let inversePairs = self.pairs(for: inverse) ?? "SELECT NULL AS src, NULL AS dst, NULL AS ord, NULL AS dent WHERE 0"
                    values.append("COALESCE((SELECT q.ord FROM (\(inversePairs)) q WHERE q.dst = s.Z_PK ORDER BY q.src LIMIT 1), s.Z_PK)")
                }
            }
            // Keys of inverse-less to-many relationships pointing at rows of this entity.
            for owner in destination.entities {
                for (name, mapping) in owner.toMany.sorted(by: { $0.key < $1.key }) {
                    guard case .destinationKey(let keyTable, let column, let orderColumn, let destinationName) = mapping,
                          keyTable == table.name, !columns.contains(column),
                          let target = destinationModel.entitiesByName[destinationName], link.destinationEntity.isKindOf(entity: target),
                          let relationship = destinationModel.entitiesByName[owner.name]?.relationshipsByName[name],
                          let pairs = pairs(for: relationship) else { continue }
                    columns.append(column)
                    values.append("(SELECT q.src FROM (\(pairs)) q WHERE q.dst = s.Z_PK ORDER BY q.src LIMIT 1)")
                    if let orderColumn {
                        columns.append(orderColumn)
                        values.append("(SELECT COALESCE(q.ord, q.dst) FROM (\(pairs)) q WHERE q.dst = s.Z_PK ORDER BY q.src LIMIT 1)")
                    }
                }
            }
            let sql = "INSERT INTO \(q(Self.temporaryPrefix + table.name)) (\(columns.map(q).joined(separator: ", "))) "
                + "SELECT \(values.joined(separator: ", ")) FROM \(q(link.source.tableName)) s WHERE s.Z_ENT = \(link.source.number)"
            try db.execute(sql: sql, arguments: StatementArguments(arguments))
        }
    }

    /// The links of a many-to-many relationship, from either side's mapping.
    private func copyLinks(into table: SQLJoinTableMapping, _ db: Database) throws {
        var found: (relationship: NSRelationshipDescription, source: String, destination: String, order: String?)?
        for entity in destination.entities where found == nil {
            for (name, mapping) in entity.toMany.sorted(by: { $0.key < $1.key }) {
                guard case .joinTable(table.name, let sourceColumn, let destinationColumn, let order) = mapping,
                      let relationship = destinationModel.entitiesByName[entity.name]?.relationshipsByName[name] else { continue }
                found = (relationship, sourceColumn, destinationColumn, order)
                break
            }
        }
        guard let found, let pairs = pairs(for: found.relationship) else { return }
        var columns = [found.source, found.destination]
        var values = ["q.src", "q.dst"]
        if let order = found.order {
            columns.append(order)
            values.append("MIN(COALESCE(q.ord, q.dst))")
        }
        for order in table.orderColumns where !columns.contains(order) {
            columns.append(order)
            values.append("q.src")
        }
        try db.execute(sql: "INSERT INTO \(q(Self.temporaryPrefix + table.name)) (\(columns.map(q).joined(separator: ", "))) "
                       + "SELECT \(values.joined(separator: ", ")) FROM (\(pairs)) q GROUP BY q.src, q.dst")
    }

    // MARK: Relationship pairs

    /// A query of the links a destination relationship keeps, `(src, dst, ord, dent)`: the
    /// primary keys of the owner and related rows, the related row's position when the source
    /// kept one, and the related row's destination `Z_ENT`. `nil` when neither the relationship
    /// nor its inverse is mapped.
    func pairs(for relationship: NSRelationshipDescription) -> String? {
        let direct = parts(for: relationship, reversed: false)
        if !direct.isEmpty { return direct.joined(separator: " UNION ALL ") }
        guard let inverse = relationship.inverseRelationship else { return nil }
        let reversed = parts(for: inverse, reversed: true)
        return reversed.isEmpty ? nil : reversed.joined(separator: " UNION ALL ")
    }

    /// One `SELECT` per link mapping `relationship` (of the links' destination entities);
    /// `reversed` reads it as its inverse's pairs.
    private func parts(for relationship: NSRelationshipDescription, reversed: Bool) -> [String] {
        guard let owner = relationship.entity else { return [] }
        var parts: [String] = []
        for link in links where link.destinationEntity.isKindOf(entity: owner) {
            guard let sourceName = link.view.relationships[relationship.name],
                  let sourceRelationship = link.sourceEntity.relationshipsByName[sourceName],
                  let targetName = sourceRelationship.destinationEntity?.name,
                  let targetTable = source.entity(named: targetName)?.tableName,
                  let raw = rawPairs(of: link.source, relationship: sourceName),
                  let related = relationship.destinationEntity else { continue }
            // Related rows are kept when they become rows of the relationship's destination.
            let kept = keptSourceNumbers(kindOf: related)
            guard !kept.isEmpty else { continue }
            let keptList = kept.map(String.init).joined(separator: ", ")
            let select = reversed
                ? "SELECT p.b AS src, p.a AS dst, NULL AS ord, \(link.destination.number) AS dent"
                : "SELECT p.a AS src, p.b AS dst, p.ord AS ord, \(destinationNumberCase("t.Z_ENT")) AS dent"
            parts.append("\(select) FROM (\(raw)) p JOIN \(q(link.source.tableName)) o ON o.Z_PK = p.a "
                         + "JOIN \(q(targetTable)) t ON t.Z_PK = p.b WHERE o.Z_ENT = \(link.source.number) AND t.Z_ENT IN (\(keptList))")
        }
        return parts
    }

    /// The source entity numbers whose rows become rows of `entity` or of its subentities.
    private func keptSourceNumbers(kindOf entity: NSEntityDescription) -> [Int64] {
        links.filter { $0.destinationEntity.isKindOf(entity: entity) }.map(\.source.number).sorted()
    }

    /// `CASE x WHEN <source Z_ENT> THEN <destination Z_ENT> … END`.
    private func destinationNumberCase(_ expression: String) -> String {
        let cases = destinationNumberOfSource.sorted { $0.key < $1.key }.map { "WHEN \($0.key) THEN \($0.value)" }
        return cases.isEmpty ? "NULL" : "CASE \(expression) \(cases.joined(separator: " ")) END"
    }

    /// `(a, b, ord)` for a source relationship: the owner's and the related row's primary keys,
    /// and the related row's position when the relationship is ordered.
    private func rawPairs(of entity: SQLEntityMapping, relationship name: String) -> String? {
        if let key = entity.toOne[name] {
            return "SELECT x.Z_PK AS a, x.\(q(key.column)) AS b, NULL AS ord FROM \(q(entity.tableName)) x WHERE x.\(q(key.column)) IS NOT NULL"
        }
        switch entity.toMany[name] {
        case .inverseForeignKey(let table, let column, let order, _), .destinationKey(let table, let column, let order, _):
            return "SELECT x.\(q(column)) AS a, x.Z_PK AS b, \(order.map { "x.\(q($0))" } ?? "NULL") AS ord FROM \(q(table)) x WHERE x.\(q(column)) IS NOT NULL"
        case .joinTable(let table, let sourceColumn, let destinationColumn, let order):
            return "SELECT j.\(q(sourceColumn)) AS a, j.\(q(destinationColumn)) AS b, \(order.map { "j.\(q($0))" } ?? "NULL") AS ord FROM \(q(table)) j"
        case nil:
            return nil
        }
    }

    // MARK: Validation, replacing, bookkeeping

    /// Every migrated row has a value for each non-optional attribute (after defaults), as
    /// Apple's migration validates its destination; else `NSMigrationError` (134110) naming
    /// the entity, attribute and row.
    private func validate(_ db: Database) throws {
        for link in links {
            for (name, column) in link.destination.attributes.sorted(by: { $0.key < $1.key }) {
                guard let attribute = link.destinationEntity.attributesByName[name], !attribute.isOptional else { continue }
                let filter = "FROM \(q(Self.temporaryPrefix + link.destination.tableName)) WHERE Z_ENT = \(link.destination.number) AND \(q(column.column)) IS NULL"
                if let key = try Int64.fetchOne(db, sql: "SELECT Z_PK \(filter) LIMIT 1") {
                    let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) \(filter)") ?? 1
                    let validation = NSError(domain: NSCocoaErrorDomain, code: NSValidationMissingMandatoryPropertyError, userInfo: [
                        NSLocalizedDescriptionKey: "\(link.destination.name).\(name) is required but row \(key) (from \(link.source.name)) has no value for it.",
                        NSValidationKeyErrorKey: name])
                    // The keys and wording of the migration manager's validation error.
                    let more = count > 1 ? " (and \(count - 1) more validation errors)" : ""
                    throw PersistentStoreErrors.make(NSMigrationError,
                        "The migrated \(link.destination.name) row \(key) lacks the non-optional attribute '\(name)' (mapping '\(link.view.mappingName)' gives it no value and it has no default)\(more).",
                        underlying: validation, userInfo: ["entity": link.destination.name, "attribute": name])
                }
            }
        }
    }

    /// Drops the source's entity and join tables, renames the new ones into place, creates the
    /// destination's indexes.
    private func replaceTables(_ db: Database) throws {
        for name in Set(source.tables.map(\.name) + source.joinTables.map(\.name)).sorted() {
            try db.execute(sql: "DROP TABLE IF EXISTS \(q(name))")
        }
        for name in destination.tables.map(\.name) + destination.joinTables.map(\.name) {
            try db.execute(sql: "ALTER TABLE \(q(Self.temporaryPrefix + name)) RENAME TO \(q(name))")
        }
        for table in destination.tables {
            for index in table.indexes { try db.execute(sql: destination.createIndex(index, dialect: dialect)) }
        }
        for table in destination.joinTables {
            try db.execute(sql: destination.createIndex(table.reverseIndex, dialect: dialect))
        }
    }

    /// `Z_PRIMARYKEY`: the destination's entities, each root's `Z_MAX` that of the table its rows
    /// came from (never below its largest primary key). Apple's own rows (above 15000) stay.
    private func rewritePrimaryKeyTable(_ db: Database) throws {
        let sourceMax = Dictionary(catalog.entities.map { ($0.entityNumber, $0.maxPrimaryKey) }, uniquingKeysWith: max)
        try db.execute(sql: "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT <= ?", arguments: [SQLiteStore.lastModelEntityNumber])
        for entity in destination.entities {
            var maximum: Int64 = 0
            if entity.isRoot {
                if let sourceTable = feedingTable[entity.tableName],
                   let sourceRoot = source.entities.first(where: { $0.tableName == sourceTable && $0.isRoot }) {
                    maximum = sourceMax[sourceRoot.number] ?? 0
                }
                maximum = max(maximum, try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM \(q(entity.tableName))") ?? 0)
            }
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                           arguments: [entity.number, entity.name, entity.superNumber, maximum])
        }
    }
}
