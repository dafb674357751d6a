import Foundation

/// Core Data's SQL schema for a set of entities: pure names and shapes, computed from the model
/// (DESIGN decision 5), checked against Apple-written stores. When a store is opened, the
/// store's own `Z_PRIMARYKEY` and `sqlite_master` decide (``SQLiteSchema/reconciled(model:configurationName:catalog:)``).
///
/// The rules, each verified on the fixture stores or on published DDL of Apple-written stores:
/// - **Entity numbers (`Z_ENT`):** root entities in case-insensitive alphabetical order
///   (`SyncableSettingsMetadata` before `SyncFeatureEntity`; names equal but for case fall back
///   to byte order, which Apple's stores do not show), each followed depth-first by its
///   subentities (siblings in the same order). `Z_SUPER` is the superentity's number, 0 for a
///   root. Primary keys are allocated per root entity (`Z_MAX` of subentities stays 0).
/// - **Tables:** one per root entity, `Z` + the uppercased entity name; subentities share it.
/// - **Columns:** `Z_PK`, `Z_ENT`, `Z_OPT`, then the property columns grouped by storage:
///   integers (attributes, then to-one keys, then the keys of to-many relationships without an
///   inverse that point here), then floating values (Date, Double, Float, Decimal, by name),
///   then VARCHAR, then BLOB. Within a group, entities come in `Z_ENT` order and each entity's
///   own properties by name. A name already used in the table gets a counter (`ZACCOUNT1`).
///   Transient properties get no column.
/// - **To-one:** `Z<REL>`, followed by `Z<n>_<REL>` (the destination row's `Z_ENT`, `n` the
///   destination's number) when the destination has subentities, and by `Z_FOK_<REL>` when the
///   inverse is an ordered to-many.
/// - **To-many without an inverse:** a key column in the destination's table,
///   `Z<n><REL>` (`n` the number of the entity declaring the relationship) holding the source
///   row's `Z_PK`, and `Z_FOK_<n><REL>` when ordered. Seen in an Apple-written store
///   (`ZMOTEAMSPLAYER.Z23PLAYERS`, `Z_FOK_23PLAYERS`); its index `<TABLE>_Z<n><REL>_INDEX` is
///   ours, by analogy with to-one keys (not confirmed).
/// - **Many-to-many:** a join table `Z_<n><REL>` named after the side whose entity number is
///   lower (ties: the relationship name), with one column per side, `Z_<m><NAME>` holding the
///   primary key of the destination `m` of relationship `NAME`, the owner side's inverse first;
///   ordered sides add `Z_FOK_<m><NAME>`. Join-table column names are unique across the schema:
///   a repeated name gets a counter (`Z_4PARENTS1`, `Z_17USERS1`), as in Apple-written stores.
///   A self-referencing many-to-many may be named after either side in Apple's stores: opening
///   accepts both names.
/// - **Indexes:** `<TABLE>_Z_ENT_INDEX` with subentities, `<TABLE>_Z<REL>_INDEX` per to-one key,
///   `Z_<Entity>_UNIQUE_<a>_<b>` per uniqueness constraint and `Z_<Entity>_<name>` per fetch
///   index, on `(<column> COLLATE BINARY ASC, …)`.
package struct SQLiteSchema: Sendable {
    /// Every entity, in `Z_ENT` order.
    package let entities: [SQLEntityMapping]
    /// The root tables, in root-entity order.
    package let tables: [SQLTableMapping]
    /// The many-to-many join tables.
    package let joinTables: [SQLJoinTableMapping]

    let entityIndexByName: [String: Int]
    let entityIndexByNumber: [Int64: Int]

    /// A schema of these parts (indexes by name and number computed).
    package init(entities: [SQLEntityMapping], tables: [SQLTableMapping], joinTables: [SQLJoinTableMapping]) {
        self.entities = entities
        self.tables = tables
        self.joinTables = joinTables
        entityIndexByName = Dictionary(entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        entityIndexByNumber = Dictionary(entities.enumerated().map { ($1.number, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The entity with `name`.
    package func entity(named name: String) -> SQLEntityMapping? {
        entityIndexByName[name].map { entities[$0] }
    }

    /// The entity numbered `number` (`Z_ENT`).
    package func entity(number: Int64) -> SQLEntityMapping? {
        entityIndexByNumber[number].map { entities[$0] }
    }

    /// The table that holds the rows of the entity with `name` (its root's table).
    package func table(forEntityNamed name: String) -> SQLTableMapping? {
        guard let entity = entity(named: name) else { return nil }
        return tables.first { $0.name == entity.tableName }
    }

    /// The join table of a many-to-many relationship (either side).
    package func joinTable(forRelationship relationship: String, ofEntity entity: String) -> SQLJoinTableMapping? {
        guard let mapping = self.entity(named: entity)?.toMany[relationship],
              case .joinTable(let name, _, _, _) = mapping else { return nil }
        return joinTables.first { $0.name == name }
    }
}

/// One entity: its number, table and the columns of its properties (inherited ones included).
package struct SQLEntityMapping: Sendable, Hashable {
    /// The entity's name (`Z_NAME`).
    package let name: String
    /// `Z_ENT`.
    package let number: Int64
    /// `Z_SUPER`: the superentity's number, 0 for a root entity.
    package let superNumber: Int64
    /// The root entity's name.
    package let rootName: String
    /// The root entity's number, whose `Z_PRIMARYKEY` row allocates primary keys.
    package let rootNumber: Int64
    /// The root table's name.
    package let tableName: String
    /// This entity's number and its descendants' (for `Z_ENT IN (…)`).
    package let kindNumbers: [Int64]
    /// The column of each persistent attribute (inherited included), by attribute name.
    package let attributes: [String: SQLAttributeColumn]
    /// The columns of each persistent to-one relationship (inherited included).
    package let toOne: [String: SQLForeignKey]
    /// How each persistent to-many relationship (inherited included) is stored.
    package let toMany: [String: SQLToManyMapping]

    /// Whether rows of this entity share the table with other entities.
    package var isRoot: Bool { superNumber == 0 }
}

/// The column of one attribute.
package struct SQLAttributeColumn: Sendable, Hashable {
    package let attributeName: String
    package let column: String
    package let type: SQLColumnType
    package let attributeType: NSAttributeType
    /// The value transformer of a transformable attribute.
    package var valueTransformerName: String? = nil
    /// Whether the attribute allows external binary data storage: its blobs carry Apple's
    /// one-byte marker (``SQLiteValueCoding/ExternalData``).
    package var storesExternally = false
}

/// The columns of one to-one relationship.
package struct SQLForeignKey: Sendable, Hashable {
    package let relationshipName: String
    /// `Z<REL>`: the destination's `Z_PK`.
    package let column: String
    /// `Z<n>_<REL>`: the destination's `Z_ENT`, when the destination has subentities.
    package let entityColumn: String?
    /// `Z_FOK_<REL>`: this row's position in the inverse ordered to-many.
    package let orderColumn: String?
    /// The destination entity's name.
    package let destinationName: String
}

/// How a to-many relationship is stored.
package enum SQLToManyMapping: Sendable, Hashable {
    /// Through the inverse to-one key on the destination's table: `table.column` holds the
    /// source's `Z_PK`, `orderColumn` the position when ordered.
    case inverseForeignKey(table: String, column: String, orderColumn: String?, destinationName: String)
    /// A to-many relationship without an inverse: the destination's table holds the source's
    /// `Z_PK` in `column` (`Z<n><REL>`) and the position in `orderColumn` when ordered. Unlike
    /// ``inverseForeignKey(table:column:orderColumn:destinationName:)``, the source's saves write it.
    case destinationKey(table: String, column: String, orderColumn: String?, destinationName: String)
    /// Through a join table: `sourceColumn` holds this object's `Z_PK`, `destinationColumn`
    /// the destination's, `orderColumn` the destination's position when this side is ordered.
    case joinTable(name: String, sourceColumn: String, destinationColumn: String, orderColumn: String?)
}

/// A root table: its columns in Apple's order and its indexes.
package struct SQLTableMapping: Sendable, Hashable {
    package let name: String
    package let rootEntityName: String
    /// Every column after `Z_PK`, `Z_ENT`, `Z_OPT`, in declaration order.
    package let columns: [SQLColumnDefinition]
    package let indexes: [SQLIndexDefinition]
}

/// A column of a table.
package struct SQLColumnDefinition: Sendable, Hashable {
    package let name: String
    package let type: SQLColumnType
}

/// An index of a table.
package struct SQLIndexDefinition: Sendable, Hashable {
    package let name: String
    package let table: String
    /// Column terms as written (`ZOWNER`, or `ZNUMBERPLATE COLLATE BINARY ASC`).
    package let terms: [String]
    package let isUnique: Bool
}

/// A many-to-many join table.
package struct SQLJoinTableMapping: Sendable, Hashable {
    package let name: String
    /// The two key columns, primary key in this order.
    package let firstColumn: String
    package let secondColumn: String
    /// Whether each side is ordered (`Z_FOK_` + the key column without `Z_`).
    package var firstIsOrdered = false
    package var secondIsOrdered = false
    /// The name after the other side of the relationship (`Z_<n><INVERSE>`), under which Apple
    /// may have written it (seen for self-referencing many-to-many relationships).
    package var alternativeName: String? = nil
    /// The key column names before a counter made them unique (`Z_17USERS` for `Z_17USERS1`).
    package var firstBaseName: String? = nil
    package var secondBaseName: String? = nil

    /// Order columns (`Z_FOK_<column>`), for ordered sides: the second side's first.
    package var orderColumns: [String] {
        (secondIsOrdered ? [Self.orderColumn(of: secondColumn)] : []) + (firstIsOrdered ? [Self.orderColumn(of: firstColumn)] : [])
    }

    /// `Z_FOK_4ITEMS` for `Z_4ITEMS`.
    package static func orderColumn(of keyColumn: String) -> String { "Z_FOK_" + keyColumn.dropFirst(2) }

    /// The reverse index `<TABLE>_<second>_INDEX` on `(second, first)`.
    package var reverseIndex: SQLIndexDefinition {
        SQLIndexDefinition(name: "\(name)_\(secondColumn)_INDEX", table: name, terms: [secondColumn, firstColumn], isUnique: false)
    }
}
