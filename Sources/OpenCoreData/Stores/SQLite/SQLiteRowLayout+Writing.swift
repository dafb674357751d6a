import Foundation
import GRDB

/// Writing rows: the columns and values of an entity's snapshot, in the layout's order, and the
/// `INSERT` / `UPDATE` text for them (computed per entity and key set; the statements are
/// prepared once per connection by GRDB's statement cache).
extension SQLiteRowLayout {
    /// The fields of entity `number` among `keys` (all of them when `keys` is `nil`).
    func writeFields(number: Int64, keys: Set<String>? = nil) -> [Field] {
        let all = fields(number: number)
        guard let keys else { return all }
        return all.filter { keys.contains($0.name) }
    }

    /// The column names `fields` write: one per attribute, one or two per to-one relationship.
    func columnNames(of fields: [Field]) -> [String] {
        var names: [String] = []
        names.reserveCapacity(fields.count + 2)
        for field in fields {
            names.append(columns[Int(field.index)])
            if case .toOne(_, let entityColumn?) = field.kind { names.append(columns[Int(entityColumn)]) }
        }
        return names
    }

    /// The column values of `snapshot` for `fields`, in ``columnNames(of:)`` order. Throws for
    /// an attribute value its column type can't hold.
    /// Values are read by slot when the snapshot has the layout the fields were made for (always,
    /// for a model in use), else by name.
    func columnValues(of snapshot: ObjectSnapshot, number: Int64, fields: [Field], store: SQLiteStore,
                      into values: inout [DatabaseValue]) throws {
        let bySlot = snapshot.layout === layout(number: number)
        func value(_ field: Field) -> Any? {
            if bySlot, let slot = field.slot { return snapshot.slots[slot] }
            return snapshot[field.name]
        }
        for field in fields {
            switch field.kind {
            case .attribute(let column):
                values.append(try SQLiteValueCoding.databaseValue(value(field), column: column))
            case .toOne(_, let entityColumn):
                let destination = value(field) as? NSManagedObjectID
                values.append(destination?.primaryKey.map(\.databaseValue) ?? .null)
                if entityColumn != nil {
                    let number = destination.flatMap { store.schema.entity(named: $0.entity.name ?? "")?.number }
                    values.append(number?.databaseValue ?? .null)
                }
            }
        }
    }

    /// `INSERT INTO table (Z_PK, Z_ENT, Z_OPT, …) VALUES (?, …)` for `fields`.
    func insertSQL(fields: [Field], dialect: SQLiteDialect) -> String {
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columnNames(of: fields)
        return "INSERT INTO \(dialect.quote(table)) (\(dialect.columnList(names))) VALUES (\(dialect.placeholders(count: names.count)))"
    }

    /// `UPDATE table SET … = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ? AND Z_OPT = ?` for `fields`.
    func updateSQL(fields: [Field], dialect: SQLiteDialect) -> String {
        let assignments = (columnNames(of: fields).map { "\(dialect.quote($0)) = ?" } + ["Z_OPT = Z_OPT + 1"]).joined(separator: ", ")
        return "UPDATE \(dialect.quote(table)) SET \(assignments) WHERE Z_PK = ? AND Z_OPT = ?"
    }
}
