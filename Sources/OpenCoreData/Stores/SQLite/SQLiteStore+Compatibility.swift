import Foundation
import GRDB

/// Whether a store on disk fits the model it is opened with.
///
/// The rule (issue 6): a store is compatible when the model's version hashes equal those in
/// `Z_METADATA`. When they differ — Apple's hashes may differ from ours for the same model —
/// the store's schema decides: it is compatible when
/// 1. `Z_PRIMARYKEY` lists exactly the model's entities with the same `Z_ENT` numbers and
///    superentities, and
/// 2. every table the model maps to exists with exactly the columns (names and declared types)
///    the mapping gives, join tables included.
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

    /// The first difference between the database's schema and ``schema``, or `nil`.
    func schemaDifference(_ db: Database) throws -> String? {
        let stored = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { row in
            "\(row["Z_ENT"] as Int64? ?? 0) \(row["Z_NAME"] as String? ?? "") \(row["Z_SUPER"] as Int64? ?? 0)"
        }
        let expected = schema.entities.map { "\($0.number) \($0.name) \($0.superNumber)" }
        if stored != expected {
            return "Z_PRIMARYKEY lists [\(stored.joined(separator: ", "))], the model [\(expected.joined(separator: ", "))]"
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
