/// Turning selected column values back into the values of dictionary results.
///
/// Two sources of values, two sets of rules:
/// - **Attribute values** (a property or key path, and `min:`/`max:` of one, which return one
///   of its values) are read by the store's one table of attribute type ↔ column value,
///   through ``SQLSchemaMapping/attributeValue(_:of:)`` (``SQLiteValueCoding`` for SQLite), so
///   a dictionary holds exactly what the object would.
/// - **Expression results** that are no attribute's value keep SQL's own values, as the
///   in-memory evaluator's results compare with them: counts and integer sums and arithmetic
///   are `Int64`; averages, real sums and real arithmetic `Double`; string functions
///   (`lowercase:`…) `String`; a value of date kind (`now()`, date arithmetic the evaluator
///   computes) a `Date` from its seconds since 2001; anything else as ``SQLFunctions/value(_:)``
///   reads it. NULL is no entry.
extension SQLResultDecoding {
    /// The entry's value from its column values (one, or two for an object ID); nil for NULL.
    /// An object ID whose key or entity number is not an integer or names no entity, or a value
    /// its attribute can't hold, throws.
    func decode(_ values: [SQLValue], mapping: any SQLSchemaMapping, store: NSPersistentStore) throws -> Any? {
        switch self {
        case .objectID:
            guard values.count == 2, values[0] != .null else { return nil }
            guard case .integer(let pk) = values[0], case .integer(let number) = values[1],
                  let entity = mapping.entity(forNumber: number) else {
                throw SQLCompileError("an object ID", "its row's Z_PK \(values[0]) and Z_ENT \(values[1]) name no object of the model")
            }
            return NSManagedObjectID(entity: entity, store: store, primaryKey: pk)
        case .value(let kind, let attribute):
            guard let value = values.first, value != .null else { return nil }
            if let attribute { return try mapping.attributeValue(value, of: attribute) }
            return Self.expressionValue(value, kind: kind)
        }
    }

    /// The value of an expression result that is not an attribute's value.
    static func expressionValue(_ value: SQLValue, kind: SQLValueKind) -> Any? {
        switch (kind, value) {
        case (.date, .real(let seconds)): return Date(timeIntervalSinceReferenceDate: seconds)
        case (.date, .integer(let seconds)): return Date(timeIntervalSinceReferenceDate: Double(seconds))
        default: return SQLFunctions.value(value)
        }
    }
}
