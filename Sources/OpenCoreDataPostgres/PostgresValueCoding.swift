import Foundation
import OpenCoreData
import PostgresNIO

/// The one table of attribute type ↔ PostgreSQL column: the column type each attribute type
/// gets, how a value is bound, and how a column's value reads back. Every value reads back
/// equal to the value bound.
///
/// | attribute | column | notes |
/// |---|---|---|
/// | Integer 16 / 32 / 64 | `SMALLINT` / `INTEGER` / `BIGINT` | |
/// | Decimal | `NUMERIC` | exact |
/// | Double / Float | `DOUBLE PRECISION` / `REAL` | NaN and infinities kept |
/// | String | `TEXT` | |
/// | Boolean | `BOOLEAN` | |
/// | Date | `DOUBLE PRECISION` | seconds since 2001, as Core Data's SQLite schema keeps them: exact to the bit, where `TIMESTAMPTZ` would round to microseconds |
/// | Binary data, transformable | `BYTEA` | a transformable's value is transformed before it is bound |
/// | UUID | `UUID` | |
/// | URI | `TEXT` | the absolute string |
/// | Object ID | `TEXT` | the ID's URI (a saved ID only); it reads back as the URI, which the store turns into the ID |
public enum PostgresValueCoding {
    /// The column type of `type`; nil for types that are not stored (undefined, composite).
    public static func columnType(for type: NSAttributeType) -> String? {
        switch type {
        case .integer16AttributeType: "SMALLINT"
        case .integer32AttributeType: "INTEGER"
        case .integer64AttributeType: "BIGINT"
        case .decimalAttributeType: "NUMERIC"
        case .doubleAttributeType, .dateAttributeType: "DOUBLE PRECISION"
        case .floatAttributeType: "REAL"
        case .stringAttributeType, .URIAttributeType, .objectIDAttributeType: "TEXT"
        case .booleanAttributeType: "BOOLEAN"
        case .binaryDataAttributeType, .transformableAttributeType: "BYTEA"
        case .UUIDAttributeType: "UUID"
        default: nil
        }
    }

    /// Appends the stored form of `attribute`'s `value` (nil: NULL) to `bindings`: a
    /// transformable's value transformed to its data, any other as ``bind(_:type:key:into:)``.
    public static func bind(_ value: Any?, of attribute: NSAttributeDescription, into bindings: inout PostgresBindings) throws {
        var value = value
        if attribute.attributeType == .transformableAttributeType, let given = value, !(given is NSNull) {
            value = try TransformableValueCoding.storedData(given, attribute: TransformableValueCoding.label(attribute),
                                                            transformerName: attribute.valueTransformerName)
        }
        try bind(value, type: attribute.attributeType, key: attribute.name, into: &bindings)
    }

    /// Appends `value` (nil: NULL) as a value of `type` to `bindings`. A value of another
    /// type fails with `NSManagedObjectValidationError` (1550) naming `key`.
    public static func bind(_ value: Any?, type: NSAttributeType, key: String, into bindings: inout PostgresBindings) throws {
        guard let value, !(value is NSNull) else {
            bindings.appendNull()
            return
        }
        func mismatch() -> NSError {
            NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectValidationError, userInfo: [
                NSLocalizedDescriptionKey: "The value \(value) (\(Swift.type(of: value))) of '\(key)' can't be stored as \(type).",
                NSValidationKeyErrorKey: key,
            ])
        }
        switch type {
        case .integer16AttributeType:
            guard let integer = integer(value), let narrow = Int16(exactly: integer) else { throw mismatch() }
            bindings.append(narrow)
        case .integer32AttributeType:
            guard let integer = integer(value), let narrow = Int32(exactly: integer) else { throw mismatch() }
            bindings.append(narrow)
        case .integer64AttributeType:
            guard let integer = integer(value) else { throw mismatch() }
            bindings.append(integer)
        case .decimalAttributeType:
            guard let decimal = value as? Decimal ?? (value as? NSDecimalNumber)?.decimalValue else { throw mismatch() }
            try bindings.append(decimal)
        case .doubleAttributeType:
            guard let double = value as? Double ?? (value as? Float).map(Double.init) ?? (value as? NSNumber)?.doubleValue else { throw mismatch() }
            bindings.append(double)
        case .floatAttributeType:
            guard let float = value as? Float ?? (value as? NSNumber)?.floatValue else { throw mismatch() }
            bindings.append(float)
        case .dateAttributeType:
            guard let date = value as? Date else { throw mismatch() }
            bindings.append(date.timeIntervalSinceReferenceDate)
        case .stringAttributeType:
            guard let string = value as? String else { throw mismatch() }
            bindings.append(string)
        case .booleanAttributeType:
            guard let bool = value as? Bool ?? (value as? NSNumber)?.boolValue else { throw mismatch() }
            bindings.append(bool)
        case .binaryDataAttributeType, .transformableAttributeType:
            guard let data = value as? Data else { throw mismatch() }
            try bindings.append(data)
        case .UUIDAttributeType:
            guard let uuid = value as? UUID else { throw mismatch() }
            bindings.append(uuid)
        case .URIAttributeType:
            guard let url = value as? URL else { throw mismatch() }
            bindings.append(url.absoluteString)
        case .objectIDAttributeType:
            guard let url = (value as? NSManagedObjectID).flatMap({ $0.isTemporaryID ? nil : $0.uriRepresentation() }) ?? value as? URL else {
                throw mismatch()
            }
            bindings.append(url.absoluteString)
        default:
            throw mismatch()
        }
    }

    /// The value of `type` in `cell` (nil for NULL). A value the attribute can't hold fails with
    /// `NSPersistentStoreOperationError` (134070) naming `column`.
    public static func value(_ cell: PostgresCell, type: NSAttributeType, column: String) throws -> Any? {
        do {
            switch type {
            case .integer16AttributeType: return try cell.decode(Int16?.self)
            case .integer32AttributeType: return try cell.decode(Int32?.self)
            case .integer64AttributeType: return try cell.decode(Int64?.self)
            case .decimalAttributeType: return try cell.decode(Decimal?.self)
            case .doubleAttributeType: return try cell.decode(Double?.self)
            case .floatAttributeType: return try cell.decode(Float?.self)
            case .dateAttributeType: return try cell.decode(Double?.self).map { Date(timeIntervalSinceReferenceDate: $0) }
            case .stringAttributeType: return try cell.decode(String?.self)
            case .booleanAttributeType: return try cell.decode(Bool?.self)
            case .binaryDataAttributeType, .transformableAttributeType: return try cell.decode(Data?.self)
            case .UUIDAttributeType: return try cell.decode(UUID?.self)
            case .URIAttributeType, .objectIDAttributeType:
                guard let text = try cell.decode(String?.self) else { return nil }
                guard let url = URL(string: text) else { throw unreadable(column, "'\(text)' is not a URL") }
                return url
            default:
                throw unreadable(column, "\(type) is not stored in a column")
            }
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw unreadable(column, "a \(cell.dataType) value can't be read as \(type) (\(error))")
        }
    }

    /// The `BIGINT` in `cell` (nil for NULL), read straight from its bytes when it has the
    /// binary form postgres-nio asks for; other forms and types through postgres-nio's decoding.
    /// Keys, versions and `Integer 64` values are read this way: the generic decoding costs
    /// several times the read, on every cell of every row.
    @inline(__always)
    static func int64(_ cell: PostgresCell) throws -> Int64? {
        guard let bytes = cell.bytes else { return nil }
        if cell.format == .binary, cell.dataType == .int8, bytes.readableBytes == 8,
           let value = bytes.getInteger(at: bytes.readerIndex, as: Int64.self) {
            return value
        }
        return try cell.decode(Int64.self)
    }

    /// ``int64(_:)`` of a cell that must not be NULL (a key or a version).
    @inline(__always)
    static func requiredInt64(_ cell: PostgresCell) throws -> Int64 {
        guard let value = try int64(cell) else { return try cell.decode(Int64.self) }
        return value
    }

    /// An integer of any width (or an integral `NSNumber`).
    private static func integer(_ value: Any) -> Int64? {
        switch value {
        case let v as Int64: v
        case let v as Int: Int64(v)
        case let v as Int32: Int64(v)
        case let v as Int16: Int64(v)
        case let v as Int8: Int64(v)
        case let v as NSNumber: NSNumber(value: v.int64Value) == v ? v.int64Value : nil
        default: nil
        }
    }

    private static func unreadable(_ column: String, _ problem: String) -> NSError {
        NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError, userInfo: [
            NSLocalizedDescriptionKey: "The PostgreSQL column \(column) holds a value the store can't read: \(problem).",
        ])
    }
}
