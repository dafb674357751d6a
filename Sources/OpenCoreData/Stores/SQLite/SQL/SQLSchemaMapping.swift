/// What the SQL compiler needs from a SQL store's schema: where each entity, attribute and
/// relationship lives, and how a column value reads back as an attribute value. The SQLite
/// store's schema mapping conforms; the compiler knows nothing else of the schema.
protocol SQLSchemaMapping {
    /// The table holding the rows of `entity` (its root entity's table).
    func tableName(for entity: NSEntityDescription) throws -> String
    /// The column of a persistent attribute.
    func columnName(for attribute: NSAttributeDescription) throws -> String
    /// The foreign-key column (destination `Z_PK`) of a to-one relationship.
    func foreignKeyColumnName(for relationship: NSRelationshipDescription) throws -> String
    /// The join table of a many-to-many relationship, with the column holding the source row's
    /// primary key and the column holding the destination row's.
    func joinTable(for relationship: NSRelationshipDescription) throws -> (table: String, sourceColumn: String, destinationColumn: String)
    /// The column of the destination's table holding the source row's primary key, for a
    /// to-many relationship without an inverse (`Z<n><REL>` in Core Data's schema).
    func destinationKeyColumnName(for relationship: NSRelationshipDescription) throws -> String
    /// The `Z_ENT` value of an entity.
    func entityNumber(for entity: NSEntityDescription) throws -> Int64
    /// The entity of a `Z_ENT` value.
    func entity(forNumber number: Int64) -> NSEntityDescription?
    /// The value of `attribute` from a non-NULL value of its column, by the store's one table
    /// of attribute type ↔ column value (``SQLiteValueCoding`` for SQLite). Throws for a value
    /// the attribute can't hold.
    func attributeValue(_ value: SQLValue, of attribute: NSAttributeDescription) throws -> Any?
    /// The primary-key, entity and optimistic-lock column names (`Z_PK`, `Z_ENT`).
    var primaryKeyColumn: String { get }
    var entityColumn: String { get }
}

extension SQLSchemaMapping {
    var primaryKeyColumn: String { "Z_PK" }
    var entityColumn: String { "Z_ENT" }

    /// The `Z_ENT` values of `entity` and, when asked, its subentities.
    func entityNumbers(for entity: NSEntityDescription, includingSubentities: Bool) throws -> [Int64] {
        let entities = includingSubentities ? [entity] + entity.allSubentities : [entity]
        return try entities.map { try entityNumber(for: $0) }
    }
}

extension NSEntityDescription {
    /// The entity at the top of this entity's inheritance chain.
    var rootEntity: NSEntityDescription {
        var entity = self
        while let parent = entity.superentity { entity = parent }
        return entity
    }
}
