import Foundation
import GRDB

/// Whether a store on disk fits the model it is opened with, and the names its rows are read by.
///
/// First, always: the store's own `Z_PRIMARYKEY` numbering and `sqlite_master` names are the
/// truth (``SQLiteSchema/reconciled(model:configurationName:catalog:)``): the schema the store
/// reads and writes with is the model's, numbered as the store numbers its entities, with the
/// join tables and join columns the store has. A store lacking something the model needs (an
/// entity in `Z_PRIMARYKEY`, a table, a column, a join table) fails with 134100 naming it, even
/// with `NSIgnorePersistentStoreVersioningOption`: its rows can't be read right.
///
/// Then the rule (issue 6): a store is compatible when the model's version hashes equal those in
/// `Z_METADATA`. When they differ — Apple's hashes may differ from ours for the same model —
/// the store's schema decides: it is compatible when
/// 1. `Z_PRIMARYKEY` lists exactly the model's entities with the same superentities, in any
///    numbering (a `Z_NAME` may be the entity's renaming identifier: Apple's migrations
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
    /// Reads the existing store's catalog, adopts its schema (``install(schema:)``) and checks
    /// the model against the stored metadata. Throws 259 for a `Z_PRIMARYKEY` value of the
    /// wrong type and 134100 for a store the model does not fit.
    func adoptStoredSchema(storedMetadata: [String: Any], database db: Database) throws {
        guard let model = managedObjectModel else { return }
        let catalog = try SQLiteStoreCatalog.read(db)
        do {
            install(schema: try SQLiteSchema.reconciled(model: model, configurationName: configurationName, catalog: catalog))
        } catch let mismatch as SQLiteSchemaMismatch {
            throw incompatible(mismatch.description, storedMetadata: storedMetadata)
        }
        guard storeOptionBool(options, NSIgnorePersistentStoreVersioningOption) != true else { return }
        if storedMetadata[NSStoreModelVersionHashesKey] != nil,
           model.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: storedMetadata) {
            return
        }
        if let difference = schemaDifference(catalog: catalog) {
            throw incompatible(difference, storedMetadata: storedMetadata)
        }
    }

    /// `NSPersistentStoreIncompatibleVersionHashError` (134100) with `difference`.
    private func incompatible(_ difference: String, storedMetadata: [String: Any]) -> NSError {
        PersistentStoreErrors.make(
            NSPersistentStoreIncompatibleVersionHashError,
            "The model used to open the \(PersistentStoreErrors.name(of: self)) is incompatible with the one used to create it: \(difference).",
            stores: [self], url: url, userInfo: ["metadata": storedMetadata])
    }

    /// The highest `Z_ENT` a model's entity can have: Apple numbers its own entities
    /// (persistent history, CloudKit mirroring) above it.
    static let lastModelEntityNumber: Int64 = 15000

    /// The first difference between the store's catalog and ``schema`` (already reconciled with
    /// it), or `nil`: an entity the model does not have, a table whose columns are not exactly
    /// the mapped ones (names and declared types).
    func schemaDifference(catalog: SQLiteStoreCatalog) -> String? {
        let schema = self.schema
        let stored = catalog.entities.filter { $0.entityNumber <= Self.lastModelEntityNumber }
        let known = Set(schema.entities.map(\.number))
        let extra = stored.filter { !known.contains($0.entityNumber) }
        if !extra.isEmpty {
            return "Z_PRIMARYKEY lists entities the model does not have: [\(extra.map { "\($0.entityNumber) \($0.name)" }.joined(separator: ", "))]"
        }
        func columns(of table: String) -> Set<String> {
            Set((catalog.table(table)?.columns ?? []).map { "\($0.name.uppercased()) \($0.type.uppercased())" })
        }
        let integer = dialect.typeName(.integer)
        for table in schema.tables {
            let want = Set(["Z_PK \(integer)", "Z_ENT \(integer)", "Z_OPT \(integer)"]
                + table.columns.map { "\($0.name.uppercased()) \(dialect.typeName($0.type))" })
            let have = columns(of: table.name)
            if have != want {
                let missing = want.subtracting(have).sorted(), extra = have.subtracting(want).sorted()
                return "table \(table.name) lacks [\(missing.joined(separator: ", "))] and has [\(extra.joined(separator: ", "))] the model does not"
            }
        }
        for table in schema.joinTables {
            let want = Set(([table.firstColumn, table.secondColumn] + table.orderColumns).map { "\($0.uppercased()) \(integer)" })
            let have = columns(of: table.name)
            if have != want { return "join table \(table.name) has columns [\(have.sorted().joined(separator: ", "))], the model [\(want.sorted().joined(separator: ", "))]" }
        }
        return nil
    }
}
