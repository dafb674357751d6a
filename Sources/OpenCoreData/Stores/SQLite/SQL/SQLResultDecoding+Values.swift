/// Turning selected column values back into the values of dictionary results, with the store's
/// value conventions (DESIGN decision 5).
extension SQLResultDecoding {
    /// The entry's value from its column values (one, or two for an object ID); nil for NULL.
    func decode(_ values: [SQLValue], mapping: any SQLSchemaMapping, store: NSPersistentStore) -> Any? {
        switch self {
        case .objectID:
            guard values.count == 2, case .integer(let pk) = values[0], case .integer(let number) = values[1],
                  let entity = mapping.entity(forNumber: number) else { return nil }
            return NSManagedObjectID(entity: entity, store: store, primaryKey: pk)
        case .value(let kind, let attribute):
            guard let value = values.first else { return nil }
            if let attribute { return Self.decode(value, as: attribute.attributeType) }
            switch (kind, value) {
            case (_, .null): return nil
            case (.date, .real(let seconds)): return Date(timeIntervalSinceReferenceDate: seconds)
            case (.date, .integer(let seconds)): return Date(timeIntervalSinceReferenceDate: Double(seconds))
            default: return SQLFunctions.value(value)
            }
        }
    }

    /// A column value read as an attribute type.
    static func decode(_ value: SQLValue, as type: NSAttributeType) -> Any? {
        let number: Double? = {
            switch value {
            case .integer(let v): return Double(v)
            case .real(let v): return v
            default: return nil
            }
        }()
        let integer: Int64? = {
            switch value {
            case .integer(let v): return v
            case .real(let v): return v.rounded(.towardZero) == v && abs(v) < 9.2e18 ? Int64(v) : nil
            default: return nil
            }
        }()
        switch type {
        case .integer16AttributeType: return integer.flatMap { Int16(exactly: $0) } ?? number
        case .integer32AttributeType: return integer.flatMap { Int32(exactly: $0) } ?? number
        case .integer64AttributeType: return integer ?? number
        case .decimalAttributeType: return number.map { Decimal($0) }
        case .doubleAttributeType: return number
        case .floatAttributeType: return number.map { Float($0) }
        case .booleanAttributeType: return integer.map { $0 != 0 }
        case .dateAttributeType: return number.map { Date(timeIntervalSinceReferenceDate: $0) }
        case .stringAttributeType:
            if case .text(let s) = value { return s }
        case .binaryDataAttributeType:
            if case .blob(let d) = value { return d }
        case .UUIDAttributeType:
            if case .blob(let d) = value, d.count == 16 {
                return d.withUnsafeBytes { raw in UUID(uuid: raw.loadUnaligned(as: uuid_t.self)) }
            }
        case .URIAttributeType:
            if case .text(let s) = value { return URL(string: s) }
        default:
            break
        }
        return SQLFunctions.value(value)
    }
}
