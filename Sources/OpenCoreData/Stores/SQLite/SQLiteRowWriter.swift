import Foundation
import GRDB

/// Writes the rows of one save inside its transaction: inserts, updates (`AND Z_OPT = ?`) and
/// deletes, each through a statement prepared once per entity and key set, every value bound.
///
/// An update or delete that matches no row (another coordinator changed or deleted it) is
/// collected in ``conflicts`` instead of throwing, so the store can report every conflict of the
/// save at once before the transaction rolls back.
struct SQLiteRowWriter {
    let store: SQLiteStore
    let db: Database
    /// The store's schema and row layouts, read once per save.
    private let schema: SQLiteSchema
    private let layouts: [String: SQLiteRowLayout]
    /// The updates and deletes that found their row changed (or gone) since it was read. Only
    /// these: the rows this transaction did update carry their new `Z_OPT` by then, so reading
    /// the versions again would wrongly count them too.
    private(set) var conflicts = StoreSaveChanges()

    /// Statements and their fields by entity (inserts) and by entity and key set (updates),
    /// looked up once per save rather than by SQL text per row.
    private var inserts: [Int64: Prepared] = [:]
    private var updates: [UpdateKey: Prepared] = [:]
    /// The last entity placed, and the last insert's and update's statements: a save's rows
    /// mostly come in runs of one entity and one key set.
    private var lastPlace: (entity: ObjectIdentifier, layout: SQLiteRowLayout, number: Int64)?
    private var lastInsert: (number: Int64, prepared: Prepared)?
    private var lastUpdate: (key: UpdateKey, prepared: Prepared)?
    /// Delete statements by entity, with the entity's join-table deletes and destination keys
    /// to clear: building each statement's text and looking it up per row (quoting the table
    /// name, hashing the SQL) cost more than SQLite's delete itself.
    private var deletes: [Int64: PreparedDelete] = [:]
    private var lastDelete: (number: Int64, prepared: PreparedDelete)?

    private struct PreparedDelete {
        let statement: Statement
        /// `DELETE FROM <join table> WHERE <source column> = ?`, one per many-to-many relationship.
        let joinRows: [Statement]
        /// The destination tables' columns that hold the deleted row's key.
        let destinationKeys: [(table: String, column: String, orderColumn: String?)]
    }

    private struct Prepared {
        let statement: Statement
        let fields: [SQLiteRowLayout.Field]
        let steps: ContiguousArray<SQLiteRowLayout.Step>

        init(statement: Statement, fields: [SQLiteRowLayout.Field], steps: ContiguousArray<SQLiteRowLayout.Step>? = nil) {
            self.statement = statement
            self.fields = fields
            self.steps = steps ?? SQLiteRowLayout.steps(of: fields)
        }
    }

    private typealias UpdateKey = SQLiteRowLayout.UpdateKey

    init(store: SQLiteStore, db: Database) {
        self.store = store
        self.db = db
        schema = store.schema
        layouts = store.layouts
    }

    private mutating func place(_ snapshot: ObjectSnapshot) -> (layout: SQLiteRowLayout, number: Int64) {
        let entity = ObjectIdentifier(snapshot.objectID.entity)
        if let lastPlace, lastPlace.entity == entity { return (lastPlace.layout, lastPlace.number) }
        // `checkIDs` ran first: every snapshot's entity has a table.
        let mapping = schema.entity(named: snapshot.objectID.entity.name ?? "")!
        let layout = layouts[mapping.tableName]!
        lastPlace = (entity, layout, mapping.number)
        return (layout, mapping.number)
    }

    /// Inserts a new row at version 1.
    mutating func insert(_ snapshot: ObjectSnapshot) throws {
        let (layout, number) = place(snapshot)
        let prepared: Prepared
        if let lastInsert, lastInsert.number == number {
            prepared = lastInsert.prepared
        } else if let cached = inserts[number] {
            prepared = cached
        } else {
            let fields = layout.writeFields(number: number)
            prepared = Prepared(statement: try db.cachedStatement(sql: layout.insertSQL(fields: fields, dialect: store.dialect)), fields: fields)
            inserts[number] = prepared
        }
        lastInsert = (number, prepared)
        var values = ParameterBinder(prepared.statement)
        try values.append((snapshot.objectID.primaryKey ?? 0).databaseValue)
        try values.append(number.databaseValue)
        try values.append(1.databaseValue)
        try layout.columnValues(of: snapshot, number: number, fields: prepared.fields, steps: prepared.steps, store: store, into: &values)
        try values.run(db)
    }

    /// Updates the columns of `keys` (every column when `nil`) and increments `Z_OPT`, if the
    /// row is still at the snapshot's version.
    mutating func update(_ snapshot: ObjectSnapshot, keys: Set<String>?) throws {
        let (layout, number) = place(snapshot)
        let key = UpdateKey(entity: number, keys: keys)
        let prepared: Prepared
        if let lastUpdate, lastUpdate.key == key {
            prepared = lastUpdate.prepared
        } else if let cached = updates[key] {
            prepared = cached
        } else {
            let plan = layout.updatePlan(key, dialect: store.dialect)
            prepared = Prepared(statement: try db.cachedStatement(sql: plan.sql), fields: plan.fields, steps: plan.steps)
            updates[key] = prepared
        }
        lastUpdate = (key, prepared)
        var values = ParameterBinder(prepared.statement)
        try layout.columnValues(of: snapshot, number: number, fields: prepared.fields, steps: prepared.steps, store: store, into: &values)
        try values.append((snapshot.objectID.primaryKey ?? 0).databaseValue)
        try values.append(snapshot.version.databaseValue)
        try values.run(db)
        if db.changesCount == 0 { conflicts.updated.append(snapshot) }
    }

    /// Deletes the row if it is still at the snapshot's version, with its join-table rows.
    mutating func delete(_ snapshot: ObjectSnapshot) throws {
        let (layout, number) = place(snapshot)
        let key = snapshot.objectID.primaryKey ?? 0
        let dialect = store.dialect
        let prepared: PreparedDelete
        if let lastDelete, lastDelete.number == number {
            prepared = lastDelete.prepared
        } else if let cached = deletes[number] {
            prepared = cached
        } else {
            var joinRows: [Statement] = []
            var destinationKeys: [(table: String, column: String, orderColumn: String?)] = []
            for mapping in schema.entity(number: number).map({ Array($0.toMany.values) }) ?? [] {
                switch mapping {
                case .joinTable(let name, let source, _, _):
                    joinRows.append(try db.cachedStatement(sql: "DELETE FROM \(dialect.quote(name)) WHERE \(dialect.quote(source)) = ?"))
                case .destinationKey(let table, let column, let orderColumn, _):
                    destinationKeys.append((table, column, orderColumn))
                case .inverseForeignKey:
                    continue
                }
            }
            prepared = PreparedDelete(statement: try db.cachedStatement(sql: "DELETE FROM \(dialect.quote(layout.table)) WHERE Z_PK = ? AND Z_OPT = ?"),
                                      joinRows: joinRows, destinationKeys: destinationKeys)
            deletes[number] = prepared
        }
        lastDelete = (number, prepared)
        var values = ParameterBinder(prepared.statement)
        try values.append(key.databaseValue)
        try values.append(snapshot.version.databaseValue)
        try values.run(db)
        if db.changesCount == 0 {
            conflicts.deleted.append(snapshot)
            return
        }
        for statement in prepared.joinRows { try statement.run([key.databaseValue], db) }
        for (table, column, orderColumn) in prepared.destinationKeys {
            try store.clearDestinationKeys(table: table, column: column, orderColumn: orderColumn, source: key, db: db)
        }
    }
}
