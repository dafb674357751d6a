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

    /// Binds the column values of `snapshot` for `fields`, in ``columnNames(of:)`` order, to the
    /// next parameters of `values`. Throws for an attribute value its column type can't hold.
    /// Values are read by slot when the snapshot has the layout the fields were made for (always,
    /// for a model in use), else by name. `steps` are ``steps(of:)`` of `fields`: a plain
    /// `Integer 64` value goes straight into its column value, others through
    /// ``SQLiteValueCoding``.
    func columnValues(of snapshot: ObjectSnapshot, number: Int64, fields: [Field], steps: ContiguousArray<Step>,
                      store: SQLiteStore, into values: inout ParameterBinder) throws {
        let bySlot = snapshot.layout === layout(number: number)
        // The slots are read where they lie: an integer is matched in place, not copied out of
        // the buffer first (the enum's outlined copy and destroy, twice a column).
        try snapshot.slots.withUnsafeBufferPointer { slots in
            try steps.withUnsafeBufferPointer { steps in
                for step in steps {
                    if bySlot && step.slot >= 0 {
                        precondition(step.slot < slots.count, "slot out of range")
                        if step.readsInt64 {
                            switch slots[step.slot] {
                            case .none:
                                try values.append(.null)
                                continue
                            case .int64(let int):
                                try values.append(int.databaseValue)
                                continue
                            default: break
                            }
                        }
                        try append(slots[step.slot].anyInPlace(), of: fields[step.field], store: store, into: &values)
                    } else {
                        try append(snapshot[fields[step.field].name], of: fields[step.field], store: store, into: &values)
                    }
                }
            }
        }
    }

    /// The write plan of `fields` (see ``Step``), made once per statement.
    static func steps(of fields: [Field]) -> ContiguousArray<Step> {
        ContiguousArray(fields.indices.map { index in
            let toOne: Unmanaged<NSEntityDescription>?
            if case .toOne(let destination, entityColumn: nil) = fields[index].kind { toOne = .passUnretained(destination) } else { toOne = nil }
            return Step(column: fields[index].index, slot: fields[index].slot ?? -1, field: index, readsInt64: fields[index].readsInt64,
                        toOne: toOne)
        })
    }

    /// Binds the column value (two for a to-one relationship into a table of several
    /// entities) of `value` for `field` to the next parameters of `values`.
    private func append(_ value: Any?, of field: Field, store: SQLiteStore, into values: inout ParameterBinder) throws {
        switch field.kind {
        case .attribute(let column):
            try values.append(try SQLiteValueCoding.databaseValue(value, column: column))
        case .toOne(_, let entityColumn):
            let destination = value as? NSManagedObjectID
            try values.append(destination?.primaryKey.map(\.databaseValue) ?? .null)
            if entityColumn != nil {
                let number = destination.flatMap { store.schema.entity(named: $0.entity.name ?? "")?.number }
                try values.append(number?.databaseValue ?? .null)
            }
        }
    }

    /// `INSERT INTO table (Z_PK, Z_ENT, Z_OPT, …) VALUES (?, …)` for `fields`.
    func insertSQL(fields: [Field], dialect: SQLiteDialect) -> String {
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columnNames(of: fields)
        return "INSERT INTO \(dialect.quote(table)) (\(dialect.columnList(names))) VALUES (\(dialect.placeholders(count: names.count)))"
    }

    /// The entity (`Z_ENT`) and the keys an UPDATE writes (nil: every column).
    struct UpdateKey: Hashable {
        let entity: Int64
        let keys: Set<String>?
    }

    /// An UPDATE's SQL and the fields it binds, in order.
    struct UpdatePlan {
        let sql: String
        let fields: [Field]
        let steps: ContiguousArray<Step>
    }

    /// The UPDATE that writes `key`'s columns: made once per layout and key set, then reused by
    /// every save (making them again cost a save of ten updated objects 17,600 instructions).
    func updatePlan(_ key: UpdateKey, dialect: SQLiteDialect) -> UpdatePlan {
        if let plan = updatePlans.withLock({ $0[key] }) { return plan }
        let fields = writeFields(number: key.entity, keys: key.keys)
        let plan = UpdatePlan(sql: updateSQL(fields: fields, dialect: dialect), fields: fields, steps: Self.steps(of: fields))
        updatePlans.withLock { plans in
            // Key sets are few in practice; a program changing ever-new sets starts over.
            if plans.count >= 256 { plans.removeAll() }
            plans[key] = plan
        }
        return plan
    }

    /// `UPDATE table SET … = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ? AND Z_OPT = ?` for `fields`.
    func updateSQL(fields: [Field], dialect: SQLiteDialect) -> String {
        let assignments = (columnNames(of: fields).map { "\(dialect.quote($0)) = ?" } + ["Z_OPT = Z_OPT + 1"]).joined(separator: ", ")
        return "UPDATE \(dialect.quote(table)) SET \(assignments) WHERE Z_PK = ? AND Z_OPT = ?"
    }
}
