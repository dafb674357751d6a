import Foundation
import GRDB
import GRDBSQLite

/// How the SQLite store reads the rows of one root table: which columns it selects, in which
/// order, and which of them make up the snapshot of each entity stored in the table.
///
/// Every statement that reads objects selects ``selectList`` (`Z_PK`, `Z_ENT`, `Z_OPT`, then the
/// table's columns in Apple's order) and decodes rows by column position, never by name: the
/// layout is computed once per store, when its schema is built. A row's `Z_ENT` picks the
/// fields of its entity (subentities share the root table, each with its own columns).
// @unchecked Sendable: immutable once made, apart from `updatePlans`, which its own lock guards.
final class SQLiteRowLayout: @unchecked Sendable {
    /// One property column (or column pair) of an entity's snapshot.
    struct Field {
        /// The property name (the snapshot key).
        let name: String
        /// The column position in ``SQLiteRowLayout/columns``.
        let index: CInt
        let kind: Kind
        /// The property's slot in its entity's ``EntityLayout`` (nil: kept by name).
        var slot: Int? = nil
        /// Whether an INTEGER column is read straight into an `Int64` value (a plain `Integer 64`
        /// attribute), skipping ``SQLiteValueCoding``.
        var readsInt64 = false
    }

    /// How the rows of one entity stored in the table are read.
    // @unchecked Sendable: immutable once made, like the layout that holds it.
    final class EntityRows: @unchecked Sendable {
        let entity: NSEntityDescription
        let layout: EntityLayout
        let fields: [Field]
        /// ``fields`` as plain numbers, read per row without copying a ``Field`` (its name and
        /// kind would be retained and released for every column of every row).
        let steps: ContiguousArray<Step>

        init(entity: NSEntityDescription, layout: EntityLayout, fields: [Field]) {
            self.entity = entity
            self.layout = layout
            self.fields = fields
            steps = SQLiteRowLayout.steps(of: fields)
        }
    }

    /// One field of ``EntityRows``: its column, its slot (-1: kept by name), its index in
    /// ``EntityRows/fields``, whether it is read straight as an `Int64`, and the destination of a
    /// to-one relationship whose rows all belong to one entity (no entity column), read straight
    /// into an ID.
    struct Step {
        let column: CInt
        let slot: Int
        let field: Int
        let readsInt64: Bool
        /// Unretained: the ``Field`` this step is made from, kept beside it in the same
        /// ``EntityRows`` (or the row writer's statement), holds the entity. A plain reference
        /// would be retained and released with every row (and entities take the slow path:
        /// their properties refer to them weakly).
        let toOne: Unmanaged<NSEntityDescription>?
    }

    enum Kind {
        /// An attribute, decoded through ``SQLiteValueCoding``.
        case attribute(SQLAttributeColumn)
        /// A to-one relationship: the destination's `Z_PK`, with the position of the
        /// `Z<n>_<REL>` column naming the destination's entity when it has subentities.
        case toOne(destination: NSEntityDescription, entityColumn: CInt?)
    }

    /// The table's name.
    let table: String
    /// The selected columns: `Z_PK`, `Z_ENT`, `Z_OPT`, then every other column of the table.
    let columns: [String]
    /// `"Z_PK", "Z_ENT", …` quoted and joined, ready for a `SELECT`.
    let selectList: String
    /// By `Z_ENT`: how rows of the entities stored in this table are read.
    private let entityRows: [Int64: EntityRows]
    /// The one entity stored in this table, when there is one (most tables): its rows are found
    /// without a dictionary lookup.
    private let onlyEntity: (number: Int64, rows: EntityRows)?
    /// By `Z_ENT`: every entity of the store, for the entity columns of to-one keys (`Z<n>_<REL>`).
    private let storeEntities: [Int64: NSEntityDescription]
    /// The UPDATEs made so far, by entity and key set (see ``updatePlan(_:dialect:)``).
    let updatePlans = Locked<[UpdateKey: UpdatePlan]>([:])

    /// The layout of `table` for the entities of `schema` it stores, resolved in `model`.
    init(table: SQLTableMapping, schema: SQLiteSchema, model: NSManagedObjectModel?, dialect: SQLiteDialect) {
        self.table = table.name
        let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)
        self.columns = columns
        selectList = columns.map(dialect.quote).joined(separator: ", ")
        let position = Dictionary(columns.enumerated().map { ($1, CInt($0)) }, uniquingKeysWith: { first, _ in first })
        var storeEntities: [Int64: NSEntityDescription] = [:]
        var entityRows: [Int64: EntityRows] = [:]
        for mapping in schema.entities { storeEntities[mapping.number] = model?.entitiesByName[mapping.name] }
        for mapping in schema.entities where mapping.tableName == table.name {
            guard let entity = model?.entitiesByName[mapping.name] else { continue }
            let layout = entity.layout
            var list: [Field] = []
            for (name, column) in mapping.attributes.sorted(by: { $0.key < $1.key }) {
                guard let index = position[column.column] else { continue }
                list.append(Field(name: name, index: index, kind: .attribute(column), slot: layout.slot(forKey: name),
                                  readsInt64: column.attributeType == .integer64AttributeType && !column.storesExternally))
            }
            for (name, key) in mapping.toOne.sorted(by: { $0.key < $1.key }) {
                guard let index = position[key.column], let destination = model?.entitiesByName[key.destinationName] else { continue }
                list.append(Field(name: name, index: index, kind: .toOne(destination: destination, entityColumn: key.entityColumn.flatMap { position[$0] }),
                                  slot: layout.slot(forKey: name)))
            }
            entityRows[mapping.number] = EntityRows(entity: entity, layout: layout, fields: list)
        }
        self.entityRows = entityRows
        self.onlyEntity = entityRows.count == 1 ? entityRows.first.map { (number: $0.key, rows: $0.value) } : nil
        self.storeEntities = storeEntities
    }

    /// How rows of the entity numbered `number` are read; nil for an entity not stored here.
    @inline(__always)
    private func rows(number: Int64) -> EntityRows? {
        if let onlyEntity, onlyEntity.number == number { return onlyEntity.rows }
        return entityRows[number]
    }

    /// The entity of rows numbered `number` in this table.
    func entity(number: Int64) -> NSEntityDescription? { rows(number: number)?.entity }

    /// The layout of the snapshots of the entity numbered `number`.
    func layout(number: Int64) -> EntityLayout? { rows(number: number)?.layout }

    /// The snapshot fields of the entity numbered `number` (empty for another table's entity).
    func fields(number: Int64) -> [Field] { rows(number: number)?.fields ?? [] }

    /// The snapshot of the row `statement` is on (selected with ``selectList``). With `cache`,
    /// a row the cache holds at the same `Z_OPT` is not decoded again: the cached snapshot is
    /// returned.
    ///
    /// A row that can't be read exactly throws `NSPersistentStoreOperationError` (134070) naming
    /// the table, the column and the row's `Z_PK` (``rowError(_:column:statement:store:)``): a
    /// `Z_ENT` that is NULL, not an integer or no entity stored in this table; a `Z_OPT` that
    /// is not an integer; a value its attribute can't hold (``SQLiteValueCoding/value(_:type:)``);
    /// a foreign key or destination entity number that is not an integer or names no entity.
    ///
    /// `known` is the row's ID when the caller has it (a fault's): it is used when its entity is
    /// the row's, instead of making an ID.
    ///
    /// `decoding` is what the rows of one statement share (``SQLiteRowDecoding``).
    func snapshot(at statement: SQLiteStatement, store: SQLiteStore, decoding: inout SQLiteRowDecoding,
                  reusing cache: SQLiteRowCache? = nil, objectID known: NSManagedObjectID? = nil) throws -> ObjectSnapshot {
        let entityCell = sqlite3_column_value(statement, 1)
        guard sqlite3_value_type(entityCell) == SQLITE_INTEGER, let rows = unretainedRows(number: sqlite3_value_int64(entityCell)) else {
            throw rowError("\(describe(statement, 1)) names no entity stored in this table", column: 1, statement: statement, store: store)
        }
        return try rows._withUnsafeGuaranteedRef { rows in
            try snapshot(of: rows, at: statement, store: store, decoding: &decoding, reusing: cache, objectID: known)
        }
    }

    /// ``rows(number:)``, not retained: ``entityRows`` keeps them for the layout's life. Returning
    /// them retained cost a retain and a release per row read.
    @inline(__always)
    private func unretainedRows(number: Int64) -> Unmanaged<EntityRows>? {
        rows(number: number).map(Unmanaged.passUnretained)
    }

    /// ``snapshot(at:store:decoding:reusing:objectID:)`` for a row of the entity `rows` reads.
    private func snapshot(of rows: EntityRows, at statement: SQLiteStatement, store: SQLiteStore, decoding: inout SQLiteRowDecoding,
                          reusing cache: SQLiteRowCache?, objectID known: NSManagedObjectID?) throws -> ObjectSnapshot {
        let objectID: NSManagedObjectID
        if let known, known.entity === rows.entity {
            objectID = known
        } else {
            objectID = NSManagedObjectID(entity: rows.entity, origin: decoding.origin, primaryKey: sqlite3_column_int64(statement, 0))
        }
        let versionCell = sqlite3_column_value(statement, 2)
        switch sqlite3_value_type(versionCell) {
        case SQLITE_INTEGER, SQLITE_NULL: break
        default: throw rowError("\(describe(statement, 2)) is not a version number", column: 2, statement: statement, store: store)
        }
        let version = sqlite3_value_int64(versionCell)
        if let cache, let cached = cache.snapshot(for: objectID, version: version) { return cached }
        var slots = rows.layout.makeEmptyValues()
        var byName: [(name: String, value: Any)] = []
        // One uniqueness check for the row, not one per slot (the buffer is the row's own).
        try slots.withUnsafeMutableBufferPointer { slots in
            let base = slots.baseAddress   // nil only for a layout without slots
            try rows.steps.withUnsafeBufferPointer { steps in
                for step in steps {
                    // The column's value read once: `sqlite3_column_type` and `sqlite3_column_int64`
                    // each take the connection's mutex; the `sqlite3_value` calls take none (the
                    // connection is used on its queue only, so the unprotected value is safe).
                    let cell = sqlite3_column_value(statement, step.column)
                    let type = sqlite3_value_type(cell)
                    if type == SQLITE_NULL { continue }
                    if step.readsInt64 && type == SQLITE_INTEGER, step.slot >= 0, let base {
                        // The slot still holds `.none` (each slot has one step: fields are
                        // properties, by name), which owns nothing: it is initialized over, not
                        // assigned (assigning, or even reading the case, copies and destroys the
                        // old value through the enum's outlined witnesses, two calls a column).
                        (base + step.slot).initialize(to: .int64(sqlite3_value_int64(cell)))
                        continue
                    }
                    if let toOne = step.toOne, type == SQLITE_INTEGER, step.slot >= 0, let base {
                        // As the general path below reads it, without copying the field.
                        let id = toOne._withUnsafeGuaranteedRef { destination in
                            decoding.destination(destination, primaryKey: sqlite3_value_int64(cell), column: step.column)
                        }
                        (base + step.slot).initialize(to: .objectID(id))
                        continue
                    }
                    guard let value = try self.value(of: rows.fields[step.field], type: type, at: statement, store: store, decoding: &decoding) else { continue }
                    if step.slot >= 0 { slots[step.slot] = SlotValue(some: value) } else { byName.append((rows.fields[step.field].name, value)) }
                }
            }
        }
        var snapshot = ObjectSnapshot(objectID: consume objectID, layout: rows.layout, slots: consume slots, version: version)
        for (name, value) in byName { snapshot[name] = value }
        return snapshot
    }

    /// The value of `field` in the row `statement` is on (its column's type is `type`, not
    /// NULL), through ``SQLiteValueCoding`` for an attribute; nil for a value left out (an object
    /// ID whose store the coordinator doesn't know).
    private func value(of field: Field, type: CInt, at statement: SQLiteStatement, store: SQLiteStore,
                       decoding: inout SQLiteRowDecoding) throws -> Any? {
        switch field.kind {
        case .attribute(let column):
            let decoded: Any?
            do {
                decoded = try SQLiteValueCoding.value(DatabaseValue(sqliteStatement: statement, index: field.index), column: column,
                                                      externalDataDirectory: store.externalDataDirectory)
            } catch {
                throw rowError(error.description, column: field.index, statement: statement, store: store)
            }
            guard let decoded else { return nil }
            guard column.attributeType == .objectIDAttributeType else { return decoded }
            // Stored as the ID's URI; it comes back when the coordinator knows its store.
            guard let uri = decoded as? URL else { return nil }
            return store.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri)
        case .toOne(var destination, let entityColumn):
            guard type == SQLITE_INTEGER else {
                throw rowError("\(describe(statement, field.index)) is not a primary key", column: field.index, statement: statement, store: store)
            }
            if let entityColumn, sqlite3_column_type(statement, entityColumn) != SQLITE_NULL {
                guard sqlite3_column_type(statement, entityColumn) == SQLITE_INTEGER,
                      let actual = storeEntities[sqlite3_column_int64(statement, entityColumn)],
                      actual.isKindOf(entity: destination) else {
                    throw rowError("\(describe(statement, entityColumn)) names no entity of the relationship's destination '\(destination.name ?? "?")'",
                                   column: entityColumn, statement: statement, store: store)
                }
                destination = actual
            }
            return decoding.destination(destination, primaryKey: sqlite3_column_int64(statement, field.index), column: field.index)
        }
    }

    /// The value at `index` of the row `statement` is on, as messages show it.
    private func describe(_ statement: SQLiteStatement, _ index: CInt) -> String {
        SQLiteValueMismatch.describe(DatabaseValue(sqliteStatement: statement, index: index))
    }

    /// The error for a row of this table whose column at `index` can't be read (see
    /// ``SQLiteRowErrors/unreadableRow(table:column:primaryKey:_:store:)``).
    private func rowError(_ problem: String, column index: CInt, statement: SQLiteStatement, store: SQLiteStore) -> NSError {
        let name = Int(index) < columns.count ? columns[Int(index)] : "column \(index)"
        return SQLiteRowErrors.unreadableRow(table: table, column: name, primaryKey: sqlite3_column_int64(statement, 0), problem, store: store)
    }
}

/// Stepping GRDB statements directly through SQLite's C API, for the store's hot paths (reading
/// thousands of rows, writing thousands of rows in one save), where building a GRDB `Row` or
/// `StatementArguments` per row costs more than SQLite itself.
///
/// Statements still come from GRDB (`cachedStatement(sql:)`), so they are prepared once per
/// connection, and every statement still goes through the SQL debug log's trace hook.
extension Statement {
    /// Resets the statement and binds `values` to its parameters, from 1; parameters past them
    /// are bound to NULL. Throws (see ``bindValue(_:at:)``) for a value SQLite refuses, so no
    /// parameter keeps an earlier row's value unnoticed.
    func rebind(_ values: [DatabaseValue]) throws {
        var binder = ParameterBinder(self)
        for value in values { try binder.append(value) }
        try binder.bindNullToRest()
    }

    /// Binds one value to parameter `index` (from 1). Text and blobs are copied by SQLite.
    /// Throws GRDB's `DatabaseError` with the statement's SQL when SQLite refuses the value (a
    /// text or blob longer than the connection's `SQLITE_LIMIT_LENGTH`, no memory).
    func bindValue(_ value: DatabaseValue, at index: CInt) throws {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let code: CInt
        switch value.storage {
        case .null: code = sqlite3_bind_null(sqliteStatement, index)
        case .int64(let int): code = sqlite3_bind_int64(sqliteStatement, index, int)
        case .double(let double): code = sqlite3_bind_double(sqliteStatement, index, double)
        case .string(let string): code = sqlite3_bind_text(sqliteStatement, index, string, CInt(string.utf8.count), transient)
        case .blob(let data):
            code = data.withUnsafeBytes { bytes in
                sqlite3_bind_blob(sqliteStatement, index, bytes.baseAddress, CInt(bytes.count), transient)
            }
        }
        if code != SQLITE_OK { throw bindError(code, at: index) }
    }

    /// The error for a value SQLite refused to bind to parameter `index`, with the statement's SQL.
    private func bindError(_ code: CInt, at index: CInt) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code),
                      message: "parameter \(index) can't be bound: \(String(cString: sqlite3_errstr(code)))", sql: sql)
    }

    /// Runs one step: `true` on a row, `false` when done. Throws GRDB's `DatabaseError` with the
    /// statement's SQL on failure (the statement is reset).
    func stepRow(_ db: Database) throws -> Bool {
        switch sqlite3_step(sqliteStatement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            sqlite3_reset(sqliteStatement)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
        }
    }

    /// Runs a statement that returns no rows, with `values` bound.
    func run(_ values: [DatabaseValue], _ db: Database) throws {
        try rebind(values)
        _ = try stepRow(db)
        sqlite3_reset(sqliteStatement)
    }
}

/// Binds a statement's parameters in order, from 1, as the values are made: a saved row's
/// values go straight into its `INSERT` or `UPDATE`, with no array of them in between
/// (building, reading and emptying one cost about 900 instructions a row).
struct ParameterBinder {
    let statement: Statement
    /// The parameter the next value goes to.
    private var next: CInt = 1

    /// A binder for `statement`, which is reset (it may be bound only between runs).
    init(_ statement: Statement) {
        self.statement = statement
        sqlite3_reset(statement.sqliteStatement)
    }

    /// Binds `value` to the next parameter. Throws (see ``Statement/bindValue(_:at:)``) for a
    /// value SQLite refuses.
    mutating func append(_ value: DatabaseValue) throws {
        try statement.bindValue(value, at: next)
        next += 1
    }

    /// Binds NULL to the parameters no value was bound to, so none keeps an earlier run's value.
    /// (One by one, not `sqlite3_clear_bindings`, which would clear the values bound too.)
    func bindNullToRest() throws {
        let count = sqlite3_bind_parameter_count(statement.sqliteStatement)
        var index = next
        while index <= count {
            try statement.bindValue(.null, at: index)
            index += 1
        }
    }

    /// Runs the statement once (it returns no rows), the parameters past the values bound to
    /// NULL (``bindNullToRest()``).
    func run(_ db: Database) throws {
        try bindNullToRest()
        _ = try statement.stepRow(db)
        sqlite3_reset(statement.sqliteStatement)
    }
}

/// What the rows of one statement share while they are decoded: the store's ID origin, looked
/// up once (a lock and the identifier), and the last to-one destination ID made for each
/// column, reused while consecutive rows name the same destination row (a prefetch's children
/// come sorted by their parent: a thousand children, one parent ID).
struct SQLiteRowDecoding {
    let origin: ObjectIDOrigin
    /// The last destination ID of each to-one column (a row has few: a list, not a table).
    private var destinations: [(column: CInt, id: NSManagedObjectID)] = []

    init(origin: ObjectIDOrigin) {
        self.origin = origin
    }

    /// The ID of row `primaryKey` of `entity`, the to-one destination in `column`.
    mutating func destination(_ entity: NSEntityDescription, primaryKey: Int64, column: CInt) -> NSManagedObjectID {
        if let index = destinations.firstIndex(where: { $0.column == column }) {
            let last = destinations[index].id
            if last.entity === entity && last.primaryKey == primaryKey { return last }
            let id = NSManagedObjectID(entity: entity, origin: origin, primaryKey: primaryKey)
            destinations[index].id = id
            return id
        }
        let id = NSManagedObjectID(entity: entity, origin: origin, primaryKey: primaryKey)
        destinations.append((column, id))
        return id
    }
}
