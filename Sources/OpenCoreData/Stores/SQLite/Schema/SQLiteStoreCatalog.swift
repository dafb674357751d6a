import Foundation
import GRDB

/// What an existing SQLite store says about its own schema: its `Z_PRIMARYKEY` rows and, from
/// `sqlite_master`, its tables and their columns. Read once when the store opens; the schema the
/// store uses is the model's reconciled with it (``SQLiteSchema/reconciled(model:configurationName:catalog:)``).
///
/// Values of the wrong type in `Z_PRIMARYKEY` (text or NULL `Z_ENT`, text `Z_SUPER` or `Z_MAX`)
/// are `NSFileReadCorruptFileError` (259) naming the table, column and row; a NULL `Z_SUPER` or
/// `Z_MAX` reads as 0.
struct SQLiteStoreCatalog: Sendable {
    /// A table: its name as written and its columns (name and declared type) in order.
    struct Table: Sendable {
        let name: String
        let columns: [(name: String, type: String)]

        /// The column named `name`, compared case-insensitively as SQLite does, as written.
        func column(_ name: String) -> String? {
            let upper = name.uppercased()
            return columns.first { $0.name.uppercased() == upper }?.name
        }
    }

    /// Every `Z_PRIMARYKEY` row, in `Z_ENT` order (Apple's own entities above 15000 included).
    let entities: [SQLiteStoreEntityRow]
    /// The tables, by uppercased name.
    let tables: [String: Table]

    /// The table named `name` (case-insensitive).
    func table(_ name: String) -> Table? { tables[name.uppercased()] }

    /// Reads the catalog of the open database.
    static func read(_ db: Database) throws -> SQLiteStoreCatalog {
        var tables: [String: Table] = [:]
        for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name IS NOT NULL") {
            let columns = try Row.fetchAll(db, sql: "SELECT name, type FROM pragma_table_info(?)", arguments: [name]).map { row in
                (name: (row["name"] as String?) ?? "", type: (row["type"] as String?) ?? "")
            }
            tables[name.uppercased()] = Table(name: name, columns: columns)
        }
        return SQLiteStoreCatalog(entities: try primaryKeyRows(db), tables: tables)
    }

    /// The `Z_PRIMARYKEY` rows, each value checked for its type (the one reader of that table).
    static func primaryKeyRows(_ db: Database) throws -> [SQLiteStoreEntityRow] {
        let table = SQLiteSchema.primaryKeyTable
        return try Row.fetchAll(db, sql: "SELECT rowid, Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM \(table) ORDER BY Z_ENT").map { row in
            let rowid: DatabaseValue = row[0]
            let place = "row \(rowid)"
            guard let number = try integer(row[1], table: table, column: "Z_ENT", row: place) else {
                throw corrupt(table: table, column: "Z_ENT", row: place, "is NULL")
            }
            let nameValue: DatabaseValue = row[2]
            guard case .string(let name) = nameValue.storage else {
                throw corrupt(table: table, column: "Z_NAME", row: place, "holds \(SQLiteValueMismatch.describe(nameValue)), not text")
            }
            return SQLiteStoreEntityRow(
                entityNumber: number, name: name,
                superEntityNumber: try integer(row[3], table: table, column: "Z_SUPER", row: place) ?? 0,
                maxPrimaryKey: try integer(row[4], table: table, column: "Z_MAX", row: place) ?? 0)
        }
    }

    /// An integer column value: `nil` for NULL, an error naming table, column and row for text,
    /// blobs and fractional numbers.
    static func integer(_ value: DatabaseValue, table: String, column: String, row: String) throws -> Int64? {
        switch value.storage {
        case .null: return nil
        case .int64(let int): return int
        case .double(let double) where double.rounded() == double && abs(double) < 9e18: return Int64(double)
        default: throw corrupt(table: table, column: column, row: row, "holds \(SQLiteValueMismatch.describe(value)), not an integer")
        }
    }

    /// `NSFileReadCorruptFileError` naming a value of the store.
    static func corrupt(table: String, column: String, row: String, _ problem: String) -> NSError {
        PersistentStoreErrors.make(NSFileReadCorruptFileError, "The store's \(table).\(column) at \(row) \(problem).")
    }
}

