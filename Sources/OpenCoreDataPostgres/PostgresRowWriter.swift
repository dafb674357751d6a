import Foundation
import OpenCoreData
import PostgresNIO

/// Writes the rows of one save inside its transaction: inserts at version 1, updates and
/// deletes guarded by `"Z_OPT" = $n`, join-table rows and to-many orders. Inserts and updates
/// write the rows of one entity in one statement, as many as its parameters allow.
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
        /// The columns' types, in binding order: what a `VALUES` list casts its parameters to.
        var columnTypes: [String] {
            attributes.map { PostgresValueCoding.columnType(for: $0.attribute.attributeType) ?? "TEXT" }
                + toOne.flatMap { $0.entityColumn == nil ? ["BIGINT"] : ["BIGINT", "BIGINT"] }
        }
    }

    /// The most parameters one statement binds: PostgreSQL counts them in 16 bits (65,535).
    static let parameterLimit = 32_767

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

    /// `snapshots` by entity, in the order each entity first appears, each entity's in order.
    private mutating func groupedByEntity(_ snapshots: [ObjectSnapshot]) throws -> [(plan: Plan, snapshots: [ObjectSnapshot])] {
        var groups: [(plan: Plan, snapshots: [ObjectSnapshot])] = []
        var groupOfEntity: [Int64: Int] = [:]
        for snapshot in snapshots {
            let plan = try plan(for: snapshot.objectID.entity)
            if let group = groupOfEntity[plan.number] {
                groups[group].snapshots.append(snapshot)
            } else {
                groupOfEntity[plan.number] = groups.count
                groups.append((plan, [snapshot]))
            }
        }
        return groups
    }

    /// `snapshots` in runs that bind at most ``parameterLimit`` parameters, `width` per row.
    private static func statementRuns(_ snapshots: [ObjectSnapshot], width: Int) -> [ArraySlice<ObjectSnapshot>] {
        let perStatement = max(1, parameterLimit / max(1, width))
        return stride(from: 0, to: snapshots.count, by: perStatement).map { snapshots[$0..<min($0 + perStatement, snapshots.count)] }
    }

    /// The placeholders of a `VALUES` row: `$first`… one per entry of `columns`, each a fixed
    /// text (`1`), a bare placeholder (nil) or one cast to the given type.
    private static func valuesRow(_ columns: [ValuesColumn], first: Int) -> String {
        var next = first
        return "(" + columns.map { column in
            switch column {
            case .literal(let text): return text
            case .parameter(let type):
                defer { next += 1 }
                return type.map { "$\(next)::\($0)" } ?? "$\(next)"
            }
        }.joined(separator: ", ") + ")"
    }

    /// One column of a `VALUES` row.
    private enum ValuesColumn {
        case literal(String)
        /// A bound value, cast to the type when one is given.
        case parameter(String?)
    }

    /// Inserts the new rows at version 1: the rows of one entity in one statement (as many as
    /// its parameters allow).
    mutating func insert(_ snapshots: [ObjectSnapshot]) async throws {
        for (plan, snapshots) in try groupedByEntity(snapshots) {
            let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + plan.columns
            let row = [ValuesColumn.parameter(nil), .parameter(nil), .literal("1")] + plan.columns.map { _ in .parameter(nil) }
            let width = columns.count - 1
            for run in Self.statementRuns(snapshots, width: width) {
                var bindings = PostgresBindings()
                var rows: [String] = []
                rows.reserveCapacity(run.count)
                for (index, snapshot) in run.enumerated() {
                    bindings.append(snapshot.objectID.primaryKey ?? 0)
                    bindings.append(plan.number)
                    try bindValues(of: snapshot, plan: plan, into: &bindings)
                    rows.append(Self.valuesRow(row, first: index * width + 1))
                }
                try await connection.query(PostgresQuery(unsafeSQL:
                    "INSERT INTO \(plan.table) (\(columns.map(PostgresSQL.quote).joined(separator: ", "))) VALUES \(rows.joined(separator: ", "))",
                    binds: bindings), logger: logger)
            }
        }
    }

    /// Writes every column of each snapshot's entity and increments `Z_OPT` of each row still at
    /// its snapshot's version. The rows of one entity go in one statement (as many as its
    /// parameters allow): their values in a `VALUES` list joined on `Z_PK` and `Z_OPT`, so a
    /// save of many objects costs one round trip per entity, not one per object. The values
    /// are cast to their columns' types, which a `VALUES` list does not take from the table.
    mutating func update(_ snapshots: [ObjectSnapshot]) async throws {
        for (plan, snapshots) in try groupedByEntity(snapshots) {
            let columns = plan.columns
            let row = (plan.columnTypes + ["BIGINT", "BIGINT"]).map { ValuesColumn.parameter($0) }
            let names = columns.indices.map { "v\($0)" } + ["pk", "opt"]
            let assignments = zip(columns, names).map { "\(PostgresSQL.quote($0)) = v.\($1)" } + ["\"Z_OPT\" = t.\"Z_OPT\" + 1"]
            for run in Self.statementRuns(snapshots, width: row.count) {
                var bindings = PostgresBindings()
                var rows: [String] = []
                rows.reserveCapacity(run.count)
                for (index, snapshot) in run.enumerated() {
                    try bindValues(of: snapshot, plan: plan, into: &bindings)
                    bindings.append(snapshot.objectID.primaryKey ?? 0)
                    bindings.append(snapshot.version)
                    rows.append(Self.valuesRow(row, first: index * row.count + 1))
                }
                let written = try await connection.query(PostgresQuery(unsafeSQL: """
                    UPDATE \(plan.table) AS t SET \(assignments.joined(separator: ", ")) \
                    FROM (VALUES \(rows.joined(separator: ", "))) AS v(\(names.joined(separator: ", "))) \
                    WHERE t."Z_PK" = v.pk AND t."Z_OPT" = v.opt RETURNING t."Z_PK"
                    """, binds: bindings), logger: logger)
                var keys = Set<Int64>()
                for try await row in written { keys.insert(try row.decode(Int64.self)) }
                if keys.count < run.count {
                    conflicts += run.filter { !keys.contains($0.objectID.primaryKey ?? 0) }
                }
            }
        }
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
                try await clearDestinationKeys(table: table, column: column, orderColumn: orderColumn, sources: [key])
            case .inverseForeignKey:
                continue
            }
        }
    }

    /// Join-table rows and `Z_FOK_` orders from the to-many relationships the snapshots carry
    /// (a relationship missing from a snapshot was not loaded and is left as it is). All
    /// deletions run before any insertion, so the two sides of a many-to-many can both be saved.
    /// Each relationship's rows are written in one statement for all the snapshots, with the
    /// keys as arrays; a new object has no rows to delete.
    mutating func writeToMany(_ changes: StoreSaveChanges) async throws {
        let written = changes.toManyWrites
        if written.isEmpty { return }
        let inserted = Set(changes.inserted.map(\.objectID))
        // Per relationship mapping, in the order first met: the sources whose rows go, and the
        // rows to write (source, destination, position).
        var mappings: [SQLToManyMapping] = []
        var cleared: [SQLToManyMapping: [Int64]] = [:]
        var rows: [SQLToManyMapping: (sources: [Int64], destinations: [Int64], orders: [Int64])] = [:]
        for snapshot in written {
            guard let entity = opened.schema.entity(named: snapshot.objectID.entity.name ?? "") else { continue }
            let key = snapshot.objectID.primaryKey ?? 0
            for (name, destinations) in snapshot.toMany {
                guard let mapping = entity.toMany[name] else { continue }
                if cleared[mapping] == nil && rows[mapping] == nil { mappings.append(mapping) }
                if !inserted.contains(snapshot.objectID) { cleared[mapping, default: []].append(key) }
                let keys = destinations.compactMap(\.primaryKey)
                if keys.isEmpty { continue }
                var entry = rows.removeValue(forKey: mapping) ?? ([], [], [])
                entry.sources += repeatElement(key, count: keys.count)
                entry.destinations += keys
                entry.orders += keys.indices.map { SQLiteStore.orderValue($0) }
                rows[mapping] = entry
            }
        }
        for mapping in mappings {
            guard let sources = cleared[mapping] else { continue }
            switch mapping {
            case .joinTable(let table, let source, _, _):
                try await run("DELETE FROM \(PostgresSQL.qualified(schemaName, table)) WHERE \(PostgresSQL.quote(source)) = ANY($1)", sources)
            case .destinationKey(let table, let column, let orderColumn, _):
                try await clearDestinationKeys(table: table, column: column, orderColumn: orderColumn, sources: sources)
            case .inverseForeignKey:
                continue
            }
        }
        for mapping in mappings {
            guard let (sources, destinations, orders) = rows[mapping] else { continue }
            switch mapping {
            case .joinTable(let table, let source, let destination, let orderColumn):
                let order = orderColumn.map { ", " + PostgresSQL.quote($0) } ?? ""
                let orderValue = orderColumn == nil ? "" : ", o"
                try await run("""
                    INSERT INTO \(PostgresSQL.qualified(schemaName, table)) (\(PostgresSQL.quote(source)), \(PostgresSQL.quote(destination))\(order)) \
                    SELECT s, d\(orderValue) FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS u(s, d, o) ON CONFLICT DO NOTHING
                    """, sources, destinations, orders)
            case .destinationKey(let table, let column, let orderColumn, _):
                // A destination listed twice takes its last place, as if written one by one.
                let (sources, destinations, orders) = Self.lastPerDestination(sources, destinations, orders)
                let order = orderColumn.map { ", \(PostgresSQL.quote($0)) = u.o" } ?? ""
                try await run("""
                    UPDATE \(PostgresSQL.qualified(schemaName, table)) AS t SET \(PostgresSQL.quote(column)) = u.s\(order) \
                    FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS u(s, d, o) WHERE t."Z_PK" = u.d
                    """, sources, destinations, orders)
            case .inverseForeignKey(let table, _, let orderColumn?, _):
                let (_, destinations, orders) = Self.lastPerDestination(sources, destinations, orders)
                try await run("""
                    UPDATE \(PostgresSQL.qualified(schemaName, table)) AS t SET \(PostgresSQL.quote(orderColumn)) = u.o \
                    FROM unnest($1::bigint[], $2::bigint[]) AS u(d, o) WHERE t."Z_PK" = u.d
                    """, destinations, orders)
            case .inverseForeignKey:
                continue
            }
        }
    }

    /// The rows with each destination's last occurrence only, in their order: one `UPDATE …
    /// FROM` must not meet a row twice (PostgreSQL would apply either).
    private static func lastPerDestination(_ sources: [Int64], _ destinations: [Int64],
                                           _ orders: [Int64]) -> ([Int64], [Int64], [Int64]) {
        var last: [Int64: Int] = [:]
        for (index, destination) in destinations.enumerated() { last[destination] = index }
        if last.count == destinations.count { return (sources, destinations, orders) }
        let kept = destinations.indices.filter { last[destinations[$0]] == $0 }
        return (kept.map { sources[$0] }, kept.map { destinations[$0] }, kept.map { orders[$0] })
    }

    /// Sets the key (and order) column of a to-many relationship without an inverse to NULL in
    /// every destination row of the `sources`. The destinations' `Z_OPT` stays: their own
    /// properties did not change.
    private func clearDestinationKeys(table: String, column: String, orderColumn: String?, sources: [Int64]) async throws {
        let assignments = ([column] + (orderColumn.map { [$0] } ?? [])).map { "\(PostgresSQL.quote($0)) = NULL" }.joined(separator: ", ")
        try await run("UPDATE \(PostgresSQL.qualified(schemaName, table)) SET \(assignments) WHERE \(PostgresSQL.quote(column)) = ANY($1)", sources)
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
