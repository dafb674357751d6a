import Foundation
import GRDB

/// Whether a store on disk fits the model it is opened with.
///
/// The rule (issue 6): a store is compatible when the model's version hashes equal those in
/// `Z_METADATA`. When they differ — Apple's hashes may differ from ours for the same model —
/// the store's schema decides: it is compatible when
/// 1. `Z_PRIMARYKEY` lists exactly the model's entities with the same `Z_ENT` numbers and
///    superentities (a `Z_NAME` may be the entity's renaming identifier: Apple's migrations
///    keep the old name there). Rows numbered above 15000 are Apple's own entities — persistent
///    history (`CHANGE`, `TRANSACTION`, `TRANSACTIONSTRING`, tables `ACHANGE`, `ATRANSACTION`,
///    `ATRANSACTIONSTRING`, numbered from 16001) and CloudKit mirroring (`ANSCK…` tables) — and
///    are not compared. Source: Core Data's batch delete treats `entityID > 15000` as its own
///    ancillary entities (decompiled `_executeBatchDeleteRequest`); a public Notes store shows
///    `ATRANSACTIONSTRING` rows with `Z_ENT` 16003.
/// 2. every table the model maps to exists with exactly the columns (names and declared types)
///    the mapping gives, join tables included. Derived attributes are columns like any other
///    (Apple's triggers compute them; see ``SQLFunctions/registerAppleTriggerFunctions(on:)``).
///    A table with more columns than the model maps is a different model (an attribute was
///    removed), as Apple's version hashes would say; so is a store with composite attributes,
///    which we don't map to columns (Apple's column naming for them is unconfirmed).
/// Tables that are not the model's (`Z_MODELCACHE`, persistent history, CloudKit, an app's
/// own), their indexes and triggers are not compared.
/// Otherwise opening fails with `NSPersistentStoreIncompatibleVersionHashError` (134100), whose
/// description names the first difference. `NSIgnorePersistentStoreVersioningOption` skips the
/// check.
extension SQLiteStore {
    func checkCompatibility(storedMetadata: [String: Any], database db: Database) throws {
        guard let model = managedObjectModel, storeOptionBool(options, NSIgnorePersistentStoreVersioningOption) != true else { return }
        if storedMetadata[NSStoreModelVersionHashesKey] != nil,
           model.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: storedMetadata) {
            return
        }
        guard let difference = try schemaDifference(db) else { return }
        throw PersistentStoreErrors.make(
            NSPersistentStoreIncompatibleVersionHashError,
            "The model used to open the \(PersistentStoreErrors.name(of: self)) is incompatible with the one used to create it: \(difference).",
            stores: [self], url: url, userInfo: ["metadata": storedMetadata])
    }

    /// The highest `Z_ENT` a model's entity can have: Apple numbers its own entities
    /// (persistent history, CloudKit mirroring) above it.
    static let lastModelEntityNumber: Int64 = 15000

    /// The first difference between the database's schema and ``schema``, or `nil`.
    func schemaDifference(_ db: Database) throws -> String? {
        let stored = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT <= ? ORDER BY Z_ENT",
                                      arguments: [Self.lastModelEntityNumber]).map { row in
            (number: row["Z_ENT"] as Int64? ?? 0, name: row["Z_NAME"] as String? ?? "", superNumber: row["Z_SUPER"] as Int64? ?? 0)
        }
        // A store migrated by Apple keeps an entity's old name in Z_NAME: the renaming
        // identifier matches too.
        let matches = stored.count == schema.entities.count && zip(stored, schema.entities).allSatisfy { row, entity in
            let renamed = managedObjectModel?.entitiesByName[entity.name]?.renamingIdentifier
            return row.number == entity.number && row.superNumber == entity.superNumber && (row.name == entity.name || row.name == renamed)
        }
        if !matches {
            return "Z_PRIMARYKEY lists [\(stored.map { "\($0.number) \($0.name) \($0.superNumber)" }.joined(separator: ", "))], "
                + "the model [\(schema.entities.map { "\($0.number) \($0.name) \($0.superNumber)" }.joined(separator: ", "))]"
        }
        func columns(of table: String) throws -> Set<String> {
            Set(try Row.fetchAll(db, sql: "SELECT name, type FROM pragma_table_info(?)", arguments: [table]).map { row in
                "\((row["name"] as String).uppercased()) \((row["type"] as String).uppercased())"
            })
        }
        let integer = dialect.typeName(.integer)
        for table in schema.tables {
            let want = Set(["Z_PK \(integer)", "Z_ENT \(integer)", "Z_OPT \(integer)"]
                + table.columns.map { "\($0.name.uppercased()) \(dialect.typeName($0.type))" })
            let have = try columns(of: table.name)
            if have != want {
                let missing = want.subtracting(have).sorted(), extra = have.subtracting(want).sorted()
                return "table \(table.name) lacks [\(missing.joined(separator: ", "))] and has [\(extra.joined(separator: ", "))] the model does not"
            }
        }
        for table in schema.joinTables {
            let want = Set(([table.firstColumn, table.secondColumn] + table.orderColumns).map { "\($0) \(integer)" })
            let have = try columns(of: table.name)
            if have != want { return "join table \(table.name) has columns [\(have.sorted().joined(separator: ", "))], the model [\(want.sorted().joined(separator: ", "))]" }
        }
        return nil
    }
}
