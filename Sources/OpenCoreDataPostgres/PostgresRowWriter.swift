import Foundation
import OpenCoreData
import PostgresNIO

/// Writes the rows of one save inside its transaction: inserts at version 1, updates and
/// deletes guarded by `"Z_OPT" = $n`, join-table rows and to-many orders.
///
/// An update or delete that matches no row (another process changed or deleted it) is
/// collected in ``conflicts`` instead of throwing, so the save can report every conflict at
/// once before the transaction rolls back.
struct PostgresRowWriter {
    let opened: PostgresStore.Opened
    let connection: PostgresConnection
    let logger: Logger
    private(set) var conflicts: [ObjectSnapshot] = []
    private var plans: [Int64: Plan] = [:]

    /// One entity's columns, in the order its statements bind them.
    private struct Plan {
        let number: Int64
        let table: String
        let attributes: [(name: String, column: String, attribute: NSAttributeDescription)]
        let toOne: [SQLForeignKey]
        /// The column names, in binding order.
        var columns: [String] { attributes.map(\.column) + toOne.flatMap { [$0.column] + ($0.entityColumn.map { [$0] } ?? []) } }
    }

    init(opened: PostgresStore.Opened, connection: PostgresConnection, logger: Logger) {
        self.opened = opened
        self.connection = connection
        self.logger = logger
    }

    private var schemaName: String { opened.location.schema }

    private mutating func plan(for entity: NSEntityDescription) throws -> Plan {
        guard let mapping = opened.schema.entity(named: entity.name ?? "") else {
            throw PersistentStoreErrors.make(NSPersistentStoreSaveError, "The PostgreSQL store has no table for entity '\(entity.name ?? "?")'.")
        }
        if let plan = plans[mapping.number] { return plan }
        let attributes = mapping.attributes.values.sorted { $0.column < $1.column }.compactMap { column in
            entity.attributesByName[column.attributeName].map { (column.attributeName, column.column, $0) }
        }
        let plan = Plan(number: mapping.number, table: PostgresSQL.qualified(schemaName, mapping.tableName), attributes: attributes,
                        toOne: mapping.toOne.values.sorted { $0.column < $1.column })
        plans[mapping.number] = plan
        return plan
    }

    /// Binds the plan's column values of `snapshot`, in ``Plan/columns`` order.
    private func bindValues(of snapshot: ObjectSnapshot, plan: Plan, into bindings: inout PostgresBindings) throws {
        for (name, _, attribute) in plan.attributes {
            try PostgresValueCoding.bind(snapshot[name], of: attribute, into: &bindings)
        }
        for key in plan.toOne {
            let destination = snapshot[key.relationshipName] as? NSManagedObjectID
            if let primaryKey = destination?.primaryKey { bindings.append(primaryKey) } else { bindings.appendNull() }
            if key.entityColumn != nil {
                if let destination, let number = opened.schema.entity(named: destination.entity.name ?? "")?.number {
                    bindings.append(number)
                } else {
                    bindings.appendNull()
                }
            }
        }
    }

    /// Inserts a new row at version 1.
    mutating func insert(_ snapshot: ObjectSnapshot) async throws {
        let plan = try plan(for: snapshot.objectID.entity)
        var bindings = PostgresBindings()
        bindings.append(snapshot.objectID.primaryKey ?? 0)
        bindings.append(plan.number)
        try bindValues(of: snapshot, plan: plan, into: &bindings)
        let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + plan.columns
        let values = ["$1", "$2", "1"] + (0..<plan.columns.count).map { "$\($0 + 3)" }
        try await connection.query(PostgresQuery(unsafeSQL:
            "INSERT INTO \(plan.table) (\(columns.map(PostgresSQL.quote).joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))",
            binds: bindings), logger: logger)
    }

    /// Writes every column of the entity and increments `Z_OPT`, if the row is still at the
    /// snapshot's version.
    mutating func update(_ snapshot: ObjectSnapshot) async throws {
        let plan = try plan(for: snapshot.objectID.entity)
        var bindings = PostgresBindings()
        try bindValues(of: snapshot, plan: plan, into: &bindings)
        let columns = plan.columns
        bindings.append(snapshot.objectID.primaryKey ?? 0)
        bindings.append(snapshot.version)
        let assignments = columns.enumerated().map { "\(PostgresSQL.quote($1)) = $\($0 + 1)" } + ["\"Z_OPT\" = \"Z_OPT\" + 1"]
        let rows = try await connection.query(PostgresQuery(unsafeSQL:
            "UPDATE \(plan.table) SET \(assignments.joined(separator: ", ")) WHERE \"Z_PK\" = $\(columns.count + 1) AND \"Z_OPT\" = $\(columns.count + 2) RETURNING \"Z_PK\"",
            binds: bindings), logger: logger)
        if try await !Self.anyRow(rows) { conflicts.append(snapshot) }
    }

    /// Deletes the row if it is still at the snapshot's version, with its join-table rows and
    /// the destination keys of its to-many relationships without an inverse.
    mutating func delete(_ snapshot: ObjectSnapshot) async throws {
        let plan = try plan(for: snapshot.objectID.entity)
        let key = snapshot.objectID.primaryKey ?? 0
        var bindings = PostgresBindings()
        bindings.append(key)
        bindings.append(snapshot.version)
        let rows = try await connection.query(PostgresQuery(unsafeSQL:
            "DELETE FROM \(plan.table) WHERE \"Z_PK\" = $1 AND \"Z_OPT\" = $2 RETURNING \"Z_PK\"", binds: bindings), logger: logger)
        guard try await Self.anyRow(rows) else {
            conflicts.append(snapshot)
            return
        }
        for mapping in (opened.schema.entity(number: plan.number)?.toMany ?? [:]).values {
            switch mapping {
            case .joinTable(let name, let source, _, _):
                try await run("DELETE FROM \(PostgresSQL.qualified(schemaName, name)) WHERE \(PostgresSQL.quote(source)) = $1", key)
            case .destinationKey(let table, let column, let orderColumn, _):
                try await clearDestinationKeys(table: table, column: column, orderColumn: orderColumn, source: key)
            case .inverseForeignKey:
                continue
            }
        }
    }

    /// Join-table rows and `Z_FOK_` orders from the to-many relationships the snapshots carry
    /// (a relationship missing from a snapshot was not loaded and is left as it is). All
    /// deletions run before any insertion, so the two sides of a many-to-many can both be saved.
    mutating func writeToMany(_ changes: StoreSaveChanges) async throws {
        let written = changes.toManyWrites
        for snapshot in written {
            guard let mapping = opened.schema.entity(named: snapshot.objectID.entity.name ?? "") else { continue }
            let key = snapshot.objectID.primaryKey ?? 0
            for name in snapshot.toMany.keys {
                switch mapping.toMany[name] {
                case .joinTable(let table, let source, _, _):
                    try await run("DELETE FROM \(PostgresSQL.qualified(schemaName, table)) WHERE \(PostgresSQL.quote(source)) = $1", key)
                case .destinationKey(let table, let column, let orderColumn, _):
                    try await clearDestinationKeys(table: table, column: column, orderColumn: orderColumn, source: key)
                default:
                    continue
                }
            }
        }
        for snapshot in written {
            guard let mapping = opened.schema.entity(named: snapshot.objectID.entity.name ?? "") else { continue }
            let key = snapshot.objectID.primaryKey ?? 0
            for (name, destinations) in snapshot.toMany {
                let keys = destinations.compactMap(\.primaryKey)
                let orders = keys.indices.map { SQLiteStore.orderValue($0) }
                switch mapping.toMany[name] {
                case .joinTable(let table, let source, let destination, let orderColumn):
                    // One statement for every row: the destinations and their positions as arrays.
                    let order = orderColumn.map { ", " + PostgresSQL.quote($0) } ?? ""
                    let orderValue = orderColumn == nil ? "" : ", o"
                    try await run("""
                        INSERT INTO \(PostgresSQL.qualified(schemaName, table)) (\(PostgresSQL.quote(source)), \(PostgresSQL.quote(destination))\(order)) \
                        SELECT $1, d\(orderValue) FROM unnest($2::bigint[], $3::bigint[]) AS u(d, o) ON CONFLICT DO NOTHING
                        """, key, keys, orders)
                case .destinationKey(let table, let column, let orderColumn, _):
                    let order = orderColumn.map { ", \(PostgresSQL.quote($0)) = u.o" } ?? ""
                    try await run("""
                        UPDATE \(PostgresSQL.qualified(schemaName, table)) AS t SET \(PostgresSQL.quote(column)) = $1\(order) \
                        FROM unnest($2::bigint[], $3::bigint[]) AS u(d, o) WHERE t."Z_PK" = u.d
                        """, key, keys, orders)
                case .inverseForeignKey(let table, _, let orderColumn?, _):
                    try await run("""
                        UPDATE \(PostgresSQL.qualified(schemaName, table)) AS t SET \(PostgresSQL.quote(orderColumn)) = u.o \
                        FROM unnest($1::bigint[], $2::bigint[]) AS u(d, o) WHERE t."Z_PK" = u.d
                        """, keys, orders)
                default:
                    continue
                }
            }
        }
    }

    /// Sets the key (and order) column of a to-many relationship without an inverse to NULL in
    /// every destination row of `source`. The destinations' `Z_OPT` stays: their own properties
    /// did not change.
    private func clearDestinationKeys(table: String, column: String, orderColumn: String?, source: Int64) async throws {
        let assignments = ([column] + (orderColumn.map { [$0] } ?? [])).map { "\(PostgresSQL.quote($0)) = NULL" }.joined(separator: ", ")
        try await run("UPDATE \(PostgresSQL.qualified(schemaName, table)) SET \(assignments) WHERE \(PostgresSQL.quote(column)) = $1", source)
    }

    /// Runs `sql` with `values` bound to `$1`, `$2`…
    private func run(_ sql: String, _ values: any PostgresEncodable & Sendable...) async throws {
        var bindings = PostgresBindings()
        for value in values { try bindings.append(value) }
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
    }

    private static func anyRow(_ rows: PostgresRowSequence) async throws -> Bool {
        var found = false
        for try await _ in rows { found = true }
        return found
    }
}
