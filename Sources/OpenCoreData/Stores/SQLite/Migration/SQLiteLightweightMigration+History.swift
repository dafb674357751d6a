import Foundation
import GRDB

/// Persistent history through an in-place migration: the history a store kept stays readable
/// under the destination model, and the migration itself is recorded as a transaction.
///
/// - **Kept history.** A change names its object by `Z_ENT` and primary key, its updated
///   properties by bit positions in the entity's columns, its tombstones by slot; a migration
///   renumbers entities and moves columns. So each change of a migrated entity gets the
///   destination's `Z_ENT`, its `ZCOLUMNS` re-encoded by property (following renames) and its
///   tombstones moved to the destination's slots. Changes of entities the destination no longer
///   has are removed: no object ID can name their objects any more.
/// - **The migration's transaction**, when the store is opened with
///   `NSPersistentHistoryTrackingKey`: author ``historyAuthor``, with one update change per
///   migrated object whose entity gained stored values (attributes filled with a constant or a
///   default), naming those attributes. Apple's Core Data is not known to record its migrations;
///   the issue asks for it, and a history reader can skip the transaction by its author.
extension SQLiteLightweightMigration {
    /// The author of the transaction an in-place migration records.
    static let historyAuthor = "NSPersistentStoreMigration"

    /// How one source entity's history becomes the destination's.
    private struct HistoryRemap {
        let number: Int64
        let sourceProperties: [String]
        let destinationProperties: [String]
        /// Source property name → destination property name.
        let renamed: [String: String]
        let sourceTombstones: [String]
        let destinationTombstones: [String]

        var keepsColumns: Bool {
            sourceProperties == destinationProperties && renamed.allSatisfy { $0.key == $0.value }
        }
    }

    /// Runs after the tables were replaced, inside the migration's transaction.
    func migrateHistory(_ db: Database, recording: Bool) throws {
        guard try db.tableExists("ACHANGE"), try db.tableExists("ATRANSACTION") else { return }
        let sourceLayouts = Self.layouts(of: source, model: sourceModel)
        let destinationLayouts = Self.layouts(of: destination, model: destinationModel)
        var remaps: [Int64: HistoryRemap] = [:]
        for link in links {
            remaps[link.source.number] = HistoryRemap(
                number: link.destination.number,
                sourceProperties: SQLiteStore.historyColumnProperties(of: link.sourceEntity, number: link.source.number,
                                                                      layout: sourceLayouts[link.source.tableName]),
                destinationProperties: SQLiteStore.historyColumnProperties(of: link.destinationEntity, number: link.destination.number,
                                                                           layout: destinationLayouts[link.destination.tableName]),
                renamed: renamedProperties(link),
                sourceTombstones: SQLiteStore.tombstoneAttributes(of: link.sourceEntity).map(\.name),
                destinationTombstones: SQLiteStore.tombstoneAttributes(of: link.destinationEntity).map(\.name))
        }
        try SQLiteStore.addTombstoneColumns(count: SQLiteStore.historyTombstoneCount(schema: destination, model: destinationModel), db: db)
        try remapChanges(remaps, db: db)
        if recording { try recordMigration(remaps, db: db) }
    }

    /// The row layouts of `schema`'s tables under `model`.
    private static func layouts(of schema: SQLiteSchema, model: NSManagedObjectModel) -> [String: SQLiteRowLayout] {
        Dictionary(schema.tables.map { ($0.name, SQLiteRowLayout(table: $0, schema: schema, model: model, dialect: SQLiteDialect())) },
                   uniquingKeysWith: { first, _ in first })
    }

    /// Source property name → destination property name for `link`: the mapping's attribute
    /// and relationship sources, and properties of the same name the mapping leaves implicit.
    private func renamedProperties(_ link: Link) -> [String: String] {
        var renamed: [String: String] = [:]
        for (name, source) in link.view.attributes {
            if case .sourceAttribute(let sourceName) = source { renamed[sourceName] = name }
        }
        for (name, sourceName) in link.view.relationships { renamed[sourceName] = name }
        for name in link.sourceEntity.propertiesByName.keys where renamed[name] == nil && link.destinationEntity.propertiesByName[name] != nil
            && link.view.attributes[name] == nil && link.view.relationships[name] == nil {
            renamed[name] = name
        }
        return renamed
    }

    /// Rewrites each kept change for the destination; removes those of removed entities.
    private func remapChanges(_ remaps: [Int64: HistoryRemap], db: Database) throws {
        let slots = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pragma_table_info('ACHANGE') WHERE name LIKE 'ZTOMBSTONE%'") ?? 0
        let tombstoneColumns = (0..<slots).map { "ZTOMBSTONE\($0)" }
        let selected = (["Z_PK", "ZENTITY", "ZCOLUMNS"] + tombstoneColumns).joined(separator: ", ")
        let rows = try Row.fetchAll(db, sql: "SELECT \(selected) FROM ACHANGE WHERE ZENTITY <= ?", arguments: [SQLiteStore.lastModelEntityNumber])
        let update = try db.makeStatement(sql: "UPDATE ACHANGE SET ZENTITY = ?, ZCOLUMNS = ?"
            + tombstoneColumns.map { ", \($0) = ?" }.joined() + " WHERE Z_PK = ?")
        let delete = try db.makeStatement(sql: "DELETE FROM ACHANGE WHERE Z_PK = ?")
        for row in rows {
            let key: DatabaseValue = row[0]
            guard let number = row[1] as Int64?, let remap = remaps[number] else {
                try delete.execute(arguments: [key])
                continue
            }
            var columns: DatabaseValue = row[2]
            if !remap.keepsColumns, let mask = row[2] as Data? {
                let names = SQLiteStore.properties(in: mask, of: remap.sourceProperties) ?? []
                columns = SQLiteStore.columnMask(remap.destinationProperties, keys: Set(names.compactMap { remap.renamed[$0] })).databaseValue
            }
            var tombstones = (0..<slots).map { row[3 + $0] as DatabaseValue }
            if remap.sourceTombstones != remap.destinationTombstones || !remap.keepsColumns {
                var moved = [DatabaseValue](repeating: .null, count: slots)
                for (slot, name) in remap.sourceTombstones.enumerated() where slot < slots {
                    guard let renamed = remap.renamed[name], let target = remap.destinationTombstones.firstIndex(of: renamed), target < slots else { continue }
                    moved[target] = tombstones[slot]
                }
                tombstones = moved
            }
            try update.execute(arguments: StatementArguments([remap.number.databaseValue, columns] + tombstones + [key]))
        }
    }

    /// One transaction with an update change per migrated object that gained stored values.
    private func recordMigration(_ remaps: [Int64: HistoryRemap], db: Database) throws {
        let transaction = try SQLiteStore.insertHistoryTransaction(author: Self.historyAuthor, contextName: nil, db: db)
        var filled: [Int64: (table: String, names: Set<String>, properties: [String])] = [:]
        for link in links {
            let names = link.destination.attributes.keys.filter { name in
                if case .sourceAttribute = link.view.attributes[name] ?? .defaultValue { return false }
                return true
            }
            guard let remap = remaps[link.source.number] else { continue }
            filled[link.destination.number, default: (link.destination.tableName, [], remap.destinationProperties)].names.formUnion(names)
        }
        for (number, entry) in filled.sorted(by: { $0.key < $1.key }) {
            guard let mask = SQLiteStore.columnMask(entry.properties, keys: entry.names) else { continue }
            let table = SQLiteDialect().quote(entry.table)
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE Z_ENT = ?", arguments: [number]) ?? 0
            guard count > 0 else { continue }
            let first = try SQLiteStore.reserveHistoryKeys(SQLiteStore.historyChangeEntity, count: count, db: db, table: "ACHANGE")
            try db.execute(sql: """
                INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) \
                SELECT ? - 1 + ROW_NUMBER() OVER (ORDER BY Z_PK), ?, 1, ?, Z_ENT, Z_PK, ?, ? FROM \(table) WHERE Z_ENT = ?
                """, arguments: [first, SQLiteStore.historyChangeEntity, NSPersistentHistoryChangeType.update.rawValue, transaction, mask, number])
        }
    }
}
