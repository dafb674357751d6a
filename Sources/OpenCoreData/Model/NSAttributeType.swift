/// The type of an attribute's value, with Core Data's raw values.
public enum NSAttributeType: UInt, Sendable, CaseIterable {
    case undefinedAttributeType = 0
    case integer16AttributeType = 100
    case integer32AttributeType = 200
    case integer64AttributeType = 300
    case decimalAttributeType = 400
    case doubleAttributeType = 500
    case floatAttributeType = 600
    case stringAttributeType = 700
    case booleanAttributeType = 800
    case dateAttributeType = 900
    case binaryDataAttributeType = 1000
    case UUIDAttributeType = 1100
    case URIAttributeType = 1200
    case transformableAttributeType = 1800
    case objectIDAttributeType = 2000
    case compositeAttributeType = 2100
}

extension NSAttributeType {
    /// The spelling Xcode writes in `attributeType="…"` and the CLI prints.
    public var xcodeName: String {
        switch self {
        case .undefinedAttributeType: return "Undefined"
        case .integer16AttributeType: return "Integer 16"
        case .integer32AttributeType: return "Integer 32"
        case .integer64AttributeType: return "Integer 64"
        case .decimalAttributeType: return "Decimal"
        case .doubleAttributeType: return "Double"
        case .floatAttributeType: return "Float"
        case .stringAttributeType: return "String"
        case .booleanAttributeType: return "Boolean"
        case .dateAttributeType: return "Date"
        case .binaryDataAttributeType: return "Binary"
        case .UUIDAttributeType: return "UUID"
        case .URIAttributeType: return "URI"
        case .transformableAttributeType: return "Transformable"
        case .objectIDAttributeType: return "ObjectID"
        case .compositeAttributeType: return "Composite"
        }
    }

    /// The type Xcode spells `name`, or `nil` for an unknown spelling.
    public init?(xcodeName name: String) {
        guard let type = NSAttributeType.allCases.first(where: { $0.xcodeName == name }) else { return nil }
        self = type
    }

    /// The Objective-C class name Core Data reports for values of this type.
    var defaultValueClassName: String? {
        switch self {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
             .doubleAttributeType, .floatAttributeType, .booleanAttributeType:
            return "NSNumber"
        case .decimalAttributeType: return "NSDecimalNumber"
        case .stringAttributeType: return "NSString"
        case .dateAttributeType: return "NSDate"
        case .binaryDataAttributeType: return "NSData"
        case .UUIDAttributeType: return "NSUUID"
        case .URIAttributeType: return "NSURL"
        case .objectIDAttributeType: return "NSManagedObjectID"
        case .undefinedAttributeType, .transformableAttributeType, .compositeAttributeType: return nil
        }
    }

    /// Whether values of the type are numbers (the integer, decimal, floating-point types).
    var isNumeric: Bool {
        switch self {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
             .decimalAttributeType, .doubleAttributeType, .floatAttributeType:
            return true
        default:
            return false
        }
    }

    /// Parses a value written in a model file (`defaultValueString`, `minValueString`, …) to the
    /// Swift type Core Data bridges to: `Int16`/`Int32`/`Int64`, `Decimal`, `Double`, `Float`,
    /// `String`, `Bool`, `Date` (seconds since 2001-01-01), `UUID`, `URL`. `nil` when the string
    /// does not fit the type or the type has no textual value.
    func value(fromModelString string: String) -> Any? {
        let trimmed = string.trimmingCharacters(in: .whitespaces)
        switch self {
        case .integer16AttributeType: return integer(trimmed).flatMap { Int16(exactly: $0) }
        case .integer32AttributeType: return integer(trimmed).flatMap { Int32(exactly: $0) }
        case .integer64AttributeType: return integer(trimmed)
        case .decimalAttributeType: return Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
        case .doubleAttributeType: return Double(trimmed)
        case .floatAttributeType: return Float(trimmed)
        case .stringAttributeType: return string
        case .booleanAttributeType:
            switch trimmed.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: return nil
            }
        case .dateAttributeType:
            if let interval = Double(trimmed) { return Date(timeIntervalSinceReferenceDate: interval) }
            return ISO8601DateFormatter().date(from: trimmed)
        case .UUIDAttributeType: return UUID(uuidString: trimmed)
        case .URIAttributeType: return URL(string: trimmed)
        case .binaryDataAttributeType, .transformableAttributeType, .objectIDAttributeType,
             .undefinedAttributeType, .compositeAttributeType:
            return nil
        }
    }

    private func integer(_ string: String) -> Int64? {
        if let value = Int64(string) { return value }
        if let value = Double(string), value.rounded(.towardZero) == value { return Int64(exactly: value) }
        return nil
    }
}

extension NSAttributeDescription {
    /// The Swift-native spelling of an attribute's type (`.string`, `.integer64`, …), as in
    /// Core Data since iOS 15 / macOS 12; each value wraps an ``NSAttributeType``.
    public struct AttributeType: Hashable, Sendable {
        /// The wrapped ``NSAttributeType``.
        public let rawValue: NSAttributeType

        /// The attribute type wrapping `rawValue`.
        public init(_ rawValue: NSAttributeType) { self.rawValue = rawValue }

        public static let undefined = AttributeType(.undefinedAttributeType)
        public static let integer16 = AttributeType(.integer16AttributeType)
        public static let integer32 = AttributeType(.integer32AttributeType)
        public static let integer64 = AttributeType(.integer64AttributeType)
        public static let decimal = AttributeType(.decimalAttributeType)
        public static let double = AttributeType(.doubleAttributeType)
        public static let float = AttributeType(.floatAttributeType)
        public static let string = AttributeType(.stringAttributeType)
        public static let boolean = AttributeType(.booleanAttributeType)
        public static let date = AttributeType(.dateAttributeType)
        public static let binaryData = AttributeType(.binaryDataAttributeType)
        public static let uuid = AttributeType(.UUIDAttributeType)
        public static let uri = AttributeType(.URIAttributeType)
        public static let transformable = AttributeType(.transformableAttributeType)
        public static let objectID = AttributeType(.objectIDAttributeType)
        public static let composite = AttributeType(.compositeAttributeType)
    }

    /// The attribute's type in the Swift-native spelling; the same setting as ``attributeType``.
    public var type: AttributeType {
        get { AttributeType(attributeType) }
        set { attributeType = newValue.rawValue }
    }
}
