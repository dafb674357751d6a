import Foundation

/// How attribute values are spelled in an XML store file: the `type` attribute of an
/// `<attribute>` element and its text.
///
/// | Attribute type | `type` | Text |
/// |---|---|---|
/// | Integer 16/32/64 | `int16`, `int32`, `int64` | decimal |
/// | Boolean | `bool` | `0` or `1` |
/// | Date | `date` | seconds since 2001-01-01 UTC with 20 fraction digits (`%.20f`, as Apple writes: the exact binary value, so it reads back bit for bit) |
/// | Double, Float | `double`, `float` | shortest text that reads back to the same value |
/// | Decimal | `decimal` | the decimal's exact digits |
/// | String | `string` | the string, XML-escaped |
/// | Binary data | `binary` | base64 |
/// | UUID | `uuid` | `uuidString` |
/// | URI | `uri` | the absolute string |
/// | Object ID | `objectid` | the ID's URI |
/// | Transformable | `transformable` | base64 of the transformed data |
///
/// Transformables: the value goes through ``TransformableValueCoding`` (the attribute's value
/// transformer, by default ``NSSecureUnarchiveFromDataTransformer``: a keyed archive, as Apple
/// writes it), and the text is the base64 of that `Data`.
enum XMLStoreValueCoding {
    /// The `type` spelling of an attribute type.
    static func typeName(_ type: NSAttributeType) -> String {
        switch type {
        case .integer16AttributeType: return "int16"
        case .integer32AttributeType: return "int32"
        case .integer64AttributeType: return "int64"
        case .decimalAttributeType: return "decimal"
        case .doubleAttributeType: return "double"
        case .floatAttributeType: return "float"
        case .stringAttributeType: return "string"
        case .booleanAttributeType: return "bool"
        case .dateAttributeType: return "date"
        case .binaryDataAttributeType: return "binary"
        case .UUIDAttributeType: return "uuid"
        case .URIAttributeType: return "uri"
        case .objectIDAttributeType: return "objectid"
        case .transformableAttributeType, .undefinedAttributeType, .compositeAttributeType: return "transformable"
        }
    }

    /// The text of `value` for `attribute`; throws a message when the value can't be written.
    static func text(of value: Any, for attribute: NSAttributeDescription) throws -> String {
        func number<T: BinaryInteger>(_: T.Type) -> String? {
            switch value {
            case let v as Int16: return String(v)
            case let v as Int32: return String(v)
            case let v as Int64: return String(v)
            case let v as Int: return String(v)
            case let v as NSNumber: return String(v.int64Value)
            default: return nil
            }
        }
        let result: String?
        switch attribute.attributeType {
        case .integer16AttributeType: result = number(Int16.self)
        case .integer32AttributeType: result = number(Int32.self)
        case .integer64AttributeType: result = number(Int64.self)
        case .booleanAttributeType:
            switch value {
            case let v as Bool: result = v ? "1" : "0"
            case let v as NSNumber: result = v.boolValue ? "1" : "0"
            default: result = nil
            }
        case .dateAttributeType:
            result = (value as? Date).map { String(format: "%.20f", $0.timeIntervalSinceReferenceDate) }
        case .doubleAttributeType:
            result = (value as? Double ?? (value as? NSNumber)?.doubleValue).map { "\($0)" }
        case .floatAttributeType:
            result = (value as? Float ?? (value as? NSNumber)?.floatValue).map { "\($0)" }
        case .decimalAttributeType:
            result = (value as? Decimal ?? (value as? NSDecimalNumber)?.decimalValue).map { "\($0)" }
        case .stringAttributeType: result = value as? String
        case .binaryDataAttributeType: result = (value as? Data)?.base64EncodedString()
        case .UUIDAttributeType: result = (value as? UUID)?.uuidString
        case .URIAttributeType: result = (value as? URL)?.absoluteString
        case .objectIDAttributeType: result = (value as? NSManagedObjectID)?.uriRepresentation().absoluteString
        case .transformableAttributeType, .undefinedAttributeType, .compositeAttributeType:
            result = try transformedData(value, attribute).base64EncodedString()
        }
        guard let result else {
            throw XMLStoreValueError("a \(type(of: value)) value can't be stored in \(attribute.attributeType.xcodeName) attribute '\(attribute.name)'")
        }
        return result
    }

    /// The value `text` spells for `attribute` (the file's `type` is only a hint: the model
    /// decides). `resolveID` turns an object ID URI into an ID.
    static func value(of text: String, for attribute: NSAttributeDescription,
                      resolveID: (URL) -> NSManagedObjectID?) throws -> Any? {
        let trimmed = trim(text)
        let result: Any?
        switch attribute.attributeType {
        case .integer16AttributeType: result = Int16(trimmed) ?? Double(trimmed).flatMap { Int16(exactly: $0.rounded(.towardZero)) }
        case .integer32AttributeType: result = Int32(trimmed) ?? Double(trimmed).flatMap { Int32(exactly: $0.rounded(.towardZero)) }
        case .integer64AttributeType: result = Int64(trimmed) ?? Double(trimmed).flatMap { Int64(exactly: $0.rounded(.towardZero)) }
        case .booleanAttributeType:
            switch trimmed.lowercased() {
            case "1", "yes", "true": result = true
            case "0", "no", "false": result = false
            default: result = Int64(trimmed).map { $0 != 0 }
            }
        case .dateAttributeType:
            // 'NaN' and 'inf' parse as doubles but are no date Core Data writes.
            result = Double(trimmed).flatMap { $0.isFinite ? Date(timeIntervalSinceReferenceDate: $0) : nil }
        case .doubleAttributeType: result = Double(trimmed)
        case .floatAttributeType: result = Float(trimmed)
        case .decimalAttributeType: result = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
        case .stringAttributeType: result = text
        case .binaryDataAttributeType: result = Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters)
        case .UUIDAttributeType: result = UUID(uuidString: trimmed)
        case .URIAttributeType: result = URL(string: trimmed)
        case .objectIDAttributeType: result = URL(string: trimmed).flatMap(resolveID)
        case .transformableAttributeType, .undefinedAttributeType, .compositeAttributeType:
            guard let data = Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters) else { result = nil; break }
            result = try reverseTransformed(data, attribute)
        }
        guard let result else {
            throw XMLStoreValueError("'\(text.prefix(80))' is not a valid \(attribute.attributeType.xcodeName) value for attribute '\(attribute.name)'")
        }
        return result
    }

    /// `text` without surrounding whitespace; the common case (none) costs no copy.
    static func trim(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last,
              first.properties.isWhitespace || last.properties.isWhitespace else { return text }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func transformedData(_ value: Any, _ attribute: NSAttributeDescription) throws -> Data {
        do {
            return try TransformableValueCoding.storedData(value, attribute: TransformableValueCoding.label(attribute),
                                                           transformerName: attribute.valueTransformerName)
        } catch let error as TransformableValueError {
            throw XMLStoreValueError(error.description)
        }
    }

    private static func reverseTransformed(_ data: Data, _ attribute: NSAttributeDescription) throws -> Any? {
        TransformableValueCoding.loadedValue(data, attribute: TransformableValueCoding.label(attribute),
                                             transformerName: attribute.valueTransformerName)
    }
}

/// Why a value could not be read or written; the store wraps it in a Core Data error.
struct XMLStoreValueError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
