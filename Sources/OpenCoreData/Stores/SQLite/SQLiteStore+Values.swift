import Foundation
import GRDB

/// Attribute values to and from SQLite columns, by attribute type (DESIGN decision 5):
/// integers and Booleans as INTEGER, dates as REAL seconds since 2001, Decimal as REAL,
/// strings and URIs as text, UUIDs as 16-byte blobs, binary and transformable data as blobs —
/// behind Apple's one-byte marker when the attribute allows external storage (``ExternalData``).
///
/// **Decimal.** Apple's stores declare Decimal columns `DECIMAL` (NUMERIC affinity), which we
/// match. What value Apple binds is not confirmed by any source we could check (no fixture
/// store has a Decimal attribute; public issues and pages only show that decimals stored as
/// SQLite numbers lose digits beyond a double's): a REAL is the likely form. We write REAL
/// whenever it reads back as the same decimal, which covers prices and most amounts; a decimal
/// with more digits than REAL keeps is written as its text in a blob, so no digit is lost.
/// Differs from Apple: Apple's Core Data would not read such a blob back as the decimal.
/// The SQL compiler orders, compares and takes extremes of both forms by decimal
/// value (``SQLFunctions``).
enum SQLiteValueCoding {
    /// The column value of an attribute, through its value transformer when it is transformable.
    static func databaseValue(_ value: Any?, column: SQLAttributeColumn) throws -> DatabaseValue {
        guard !column.storesExternally else {
            return ExternalData.inline(try plainDatabaseValue(value, column: column))
        }
        return try plainDatabaseValue(value, column: column)
    }

    /// The column value of an attribute before the external-data marker: a transformable value
    /// through ``TransformableValueCoding``.
    private static func plainDatabaseValue(_ value: Any?, column: SQLAttributeColumn) throws -> DatabaseValue {
        guard column.attributeType == .transformableAttributeType, let value = ValueComparison.unwrap(value),
              !ValueComparison.isNSNull(value) else {
            return try databaseValue(value, type: column.attributeType, attribute: column.attributeName)
        }
        do {
            return try TransformableValueCoding.storedData(value, attribute: column.attributeName,
                                                           transformerName: column.valueTransformerName).databaseValue
        } catch let error as TransformableValueError {
            throw PersistentStoreErrors.make(NSPersistentStoreSaveError, error.description)
        }
    }

    /// The attribute value of a column value, through the attribute's value transformer
    /// (``TransformableValueCoding``). A column of an attribute that allows external storage is
    /// first read through ``ExternalData/bytes(_:directory:)``: `externalDataDirectory` is only
    /// evaluated for a value stored in a file.
    static func value(_ databaseValue: DatabaseValue, column: SQLAttributeColumn,
                      externalDataDirectory: @autoclosure () -> URL? = nil) throws(SQLiteValueMismatch) -> Any? {
        var databaseValue = databaseValue
        if column.storesExternally, case .blob(let stored) = databaseValue.storage {
            guard let bytes = ExternalData.bytes(stored, directory: externalDataDirectory()) else { return nil }
            databaseValue = bytes.databaseValue
        }
        let raw = try value(databaseValue, type: column.attributeType)
        guard column.attributeType == .transformableAttributeType, let data = raw as? Data else { return raw }
        return TransformableValueCoding.loadedValue(data, attribute: column.attributeName, transformerName: column.valueTransformerName)
    }

    /// The column value of `value` for an attribute of `type`. Throws for a value the type
    /// can't hold (a transformable value that is not `Data`: Linux has no archiver for it).
    static func databaseValue(_ value: Any?, type: NSAttributeType, attribute: String) throws -> DatabaseValue {
        guard let value else { return .null }
        // The types setters and stores keep, recognized by their metatype before any cast.
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            if let int = ValueComparison.exact(value, as: Int64.self) { return int.databaseValue }
        case .stringAttributeType:
            if let string = ValueComparison.exact(value, as: String.self) { return string.databaseValue }
        case .doubleAttributeType:
            if let double = ValueComparison.exact(value, as: Double.self) { return double.databaseValue }
        default:
            break
        }
        guard !ValueComparison.isNSNull(value) else { return .null }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            if let int = value as? Int64 { return int.databaseValue }
            if let bool = value as? Bool { return (bool ? 1 : 0 as Int64).databaseValue }
            if let number = integer(value) { return number.databaseValue }
        case .dateAttributeType:
            if let date = value as? Date { return date.timeIntervalSinceReferenceDate.databaseValue }
        case .doubleAttributeType, .floatAttributeType:
            if let double = double(value) { return double.databaseValue }
        case .decimalAttributeType:
            // As REAL, as Apple stores it, when the REAL reads back as the same decimal; else as
            // the decimal's text in a blob (which column affinity leaves alone), so no digit is lost.
            if let decimal = value as? Decimal {
                let double = NSDecimalNumber(decimal: decimal).doubleValue
                if Decimal(string: "\(double)") == decimal { return double.databaseValue }
                return Data(decimal.description.utf8).databaseValue
            }
            if let double = double(value) { return double.databaseValue }
        case .stringAttributeType:
            if let string = value as? String { return string.databaseValue }
        case .URIAttributeType:
            if let url = value as? URL { return url.absoluteString.databaseValue }
            if let string = value as? String { return string.databaseValue }
        case .UUIDAttributeType:
            if let uuid = value as? UUID { return withUnsafeBytes(of: uuid.uuid) { Data($0) }.databaseValue }
        case .binaryDataAttributeType, .transformableAttributeType:
            if let data = value as? Data { return data.databaseValue }
        case .objectIDAttributeType:
            if let id = value as? NSManagedObjectID, !id.isTemporaryID { return id.uriRepresentation().absoluteString.databaseValue }
        case .undefinedAttributeType, .compositeAttributeType:
            break
        }
        throw PersistentStoreErrors.make(NSPersistentStoreSaveError,
            "The value of '\(attribute)' (\(Swift.type(of: value))) can't be stored in a \(type.xcodeName) column.")
    }

    /// The Swift value of a column value for an attribute of `type`; `nil` for NULL.
    ///
    /// A value the attribute can't hold is an error, never a value of another type or a
    /// silent `nil`: text or a blob in a number or date column (`'NaN'` included: SQLite stores
    /// no NaN, and text a number column's affinity left alone is no number), a real number out
    /// of an integer's range, text that is no URL in a URI column, a blob that is not 16 bytes
    /// in a UUID column. Numeric text (what a column without affinity may hold) reads as its
    /// number. The caller names the table, column and row (``SQLiteRowLayout``).
    static func value(_ databaseValue: DatabaseValue, type: NSAttributeType) throws(SQLiteValueMismatch) -> Any? {
        switch databaseValue.storage {
        case .null: return nil
        case .int64(let int):
            switch type {
            case .URIAttributeType, .objectIDAttributeType, .UUIDAttributeType, .binaryDataAttributeType, .transformableAttributeType:
                throw SQLiteValueMismatch(databaseValue, type)
            default:
                return fromNumber(int: int, double: Double(int), type: type)
            }
        case .double(let double):
            switch type {
            case .URIAttributeType, .objectIDAttributeType, .UUIDAttributeType, .binaryDataAttributeType, .transformableAttributeType:
                throw SQLiteValueMismatch(databaseValue, type)
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
                guard let int = Int64(exactly: double.rounded(.towardZero)) else { throw SQLiteValueMismatch(databaseValue, type) }
                return fromNumber(int: int, double: double, type: type)
            default:
                return fromNumber(int: Int64(exactly: double.rounded(.towardZero)) ?? 0, double: double, type: type)
            }
        case .string(let string):
            switch type {
            case .URIAttributeType, .objectIDAttributeType:
                guard let url = URL(string: string) else { throw SQLiteValueMismatch(databaseValue, type) }
                return url
            case .stringAttributeType: return string
            case .decimalAttributeType:
                guard let decimal = Decimal(string: string, locale: Locale(identifier: "en_US_POSIX")), !decimal.isNaN else {
                    throw SQLiteValueMismatch(databaseValue, type)
                }
                return decimal
            case .binaryDataAttributeType, .transformableAttributeType: return Data(string.utf8)
            case .UUIDAttributeType:
                guard let uuid = UUID(uuidString: string) else { throw SQLiteValueMismatch(databaseValue, type) }
                return uuid
            case .undefinedAttributeType, .compositeAttributeType: return string
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
                let trimmed = string.trimmingCharacters(in: .whitespaces)
                if let int = Int64(trimmed) { return fromNumber(int: int, double: Double(int), type: type) }
                guard let double = Double(trimmed), double.isFinite, let int = Int64(exactly: double.rounded(.towardZero)) else {
                    throw SQLiteValueMismatch(databaseValue, type)
                }
                return fromNumber(int: int, double: double, type: type)
            case .dateAttributeType, .doubleAttributeType, .floatAttributeType:
                guard let double = Double(string.trimmingCharacters(in: .whitespaces)), double.isFinite else {
                    throw SQLiteValueMismatch(databaseValue, type)
                }
                return fromNumber(int: Int64(exactly: double.rounded(.towardZero)) ?? 0, double: double, type: type)
            }
        case .blob(let data):
            switch type {
            case .UUIDAttributeType:
                guard data.count == 16 else { throw SQLiteValueMismatch(databaseValue, type) }
                let bytes = [UInt8](data)
                return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                   bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
            case .stringAttributeType: return String(decoding: data, as: UTF8.self)
            case .decimalAttributeType:
                guard let decimal = Decimal(string: String(decoding: data, as: UTF8.self), locale: Locale(identifier: "en_US_POSIX")),
                      !decimal.isNaN else { throw SQLiteValueMismatch(databaseValue, type) }
                return decimal
            case .binaryDataAttributeType, .transformableAttributeType, .undefinedAttributeType, .compositeAttributeType:
                return data
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
                 .dateAttributeType, .doubleAttributeType, .floatAttributeType, .URIAttributeType, .objectIDAttributeType:
                throw SQLiteValueMismatch(databaseValue, type)
            }
        }
    }

    private static func fromNumber(int: Int64, double: Double, type: NSAttributeType) -> Any? {
        switch type {
        case .integer16AttributeType: return Int16(truncatingIfNeeded: int)
        case .integer32AttributeType: return Int32(truncatingIfNeeded: int)
        case .integer64AttributeType: return int
        case .booleanAttributeType: return int != 0
        case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: double)
        case .doubleAttributeType: return double
        case .floatAttributeType: return Float(double)
        case .decimalAttributeType: return Decimal(string: "\(double)") ?? Decimal(double)
        case .stringAttributeType: return "\(int)" == "\(double)" ? "\(int)" : "\(double)"
        default: return int
        }
    }

    private static func integer(_ value: Any) -> Int64? {
        switch value {
        case let value as Int64: return value
        case let value as Int: return Int64(value)
        case let value as Int32: return Int64(value)
        case let value as Int16: return Int64(value)
        case let value as NSNumber: return value.int64Value
        default: return nil
        }
    }

    private static func double(_ value: Any) -> Double? {
        switch value {
        case let value as Double: return value
        case let value as Float: return Double(value)
        case let value as NSNumber: return value.doubleValue
        case let value as Decimal: return NSDecimalNumber(decimal: value).doubleValue
        default: return integer(value).map(Double.init)
        }
    }
}

/// A column value an attribute can't hold (text in a date column, a 3-byte blob in a UUID
/// column…): what it is and what the attribute needed, for an error that also names the table,
/// column and row.
struct SQLiteValueMismatch: Error, CustomStringConvertible {
    let description: String

    init(_ value: DatabaseValue, _ type: NSAttributeType) {
        description = "\(Self.describe(value)) is not a value of a \(type.xcodeName) attribute"
    }

    init(_ description: String) { self.description = description }

    /// How a column value reads in messages: `NULL`, `integer 5`, `real 1.5`, `text 'abc'`
    /// (the first 40 characters), `a 12-byte blob`.
    static func describe(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let int): return "integer \(int)"
        case .double(let double): return "real \(double)"
        case .string(let string):
            let shown = string.count > 40 ? String(string.prefix(40)) + "…" : string
            return "text '\(shown.replacingOccurrences(of: "\n", with: "\\n"))'"
        case .blob(let data): return "a \(data.count)-byte blob"
        }
    }
}
