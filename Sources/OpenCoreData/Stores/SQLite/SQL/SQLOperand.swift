/// The kind of value a compiled expression yields, so that the compiler can apply the
/// evaluator's rules (``ValueComparison``) at compile time: values of different kinds are never
/// equal and never ordered, whatever SQLite's type affinity would say (`'5' = 5` is true for an
/// INTEGER column in SQLite, false in the evaluator).
enum SQLValueKind: Equatable, Sendable {
    /// Integers, floating-point numbers, decimals and Booleans (0/1), which compare by value.
    case number
    case string
    /// Seconds since 2001-01-01 as REAL.
    case date
    case data
    /// 16 bytes.
    case uuid
    /// The absolute string.
    case url
    /// A primary key of a row of the table of the named root entity.
    case object(root: String)
    /// Not known at compile time (a registered function's result).
    case unknown

    /// Whether two kinds may hold equal values.
    func isCompatible(with other: SQLValueKind) -> Bool {
        self == .unknown || other == .unknown || self == other
    }

    /// Whether SQL's own operators compare values of this kind as the evaluator does.
    var comparesNatively: Bool {
        switch self {
        case .number, .date, .data, .uuid, .object: return true
        case .string, .url, .unknown: return false
        }
    }

    /// The kind of values of an attribute type, or nil when the type can't be compared in SQL.
    init?(_ type: NSAttributeType) {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
             .decimalAttributeType, .doubleAttributeType, .floatAttributeType, .booleanAttributeType:
            self = .number
        case .stringAttributeType: self = .string
        case .dateAttributeType: self = .date
        case .binaryDataAttributeType: self = .data
        case .UUIDAttributeType: self = .uuid
        case .URIAttributeType: self = .url
        default: return nil
        }
    }
}

/// A compiled scalar expression: its SQL, its kind, and whether it is the null constant.
struct SQLOperand {
    var fragment: SQLFragment
    var kind: SQLValueKind
    var isNull = false
    /// The attribute the value was read from, for decoding results.
    var attribute: NSAttributeDescription?

    /// Whether the value may be a decimal kept exactly as its text in a blob (a Decimal column,
    /// which the SQLite store writes so when REAL would lose digits, or such a constant): it is
    /// compared through `ocd_predicate`, which reads those blobs back as decimals, and sorted
    /// and taken extremes of by decimal value (``SQLCompiler/numericallyOrdered(_:)``,
    /// ``SQLCompiler/extreme(_:_:)``).
    var isDecimal: Bool {
        attribute?.attributeType == .decimalAttributeType || isExactDecimalConstant
    }
    var isExactDecimalConstant = false

    /// Whether the value is known to be an integer (an integer or Boolean attribute, an integer
    /// constant, a bitwise result), so that SQL's bitwise operators compute what the evaluator does.
    var isInteger: Bool {
        if let type = attribute?.attributeType {
            return [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType].contains(type)
        }
        if knownInteger { return true }
        if fragment.sql == "?", fragment.bindings.count == 1, case .integer = fragment.bindings[0] { return true }
        return false
    }
    var knownInteger = false

    static let null = SQLOperand(fragment: "NULL", kind: .unknown, isNull: true)
}

/// Constants of predicates as bound SQL values, with the store's value conventions (DESIGN
/// decision 5): dates as seconds since 2001, Booleans as 0/1, UUIDs as 16 bytes, URLs as their
/// absolute string, objects as their primary key.
enum SQLConstant {
    /// The bound value and kind of `value`; nil when the value has no SQL form (a collection,
    /// a temporary object ID, an arbitrary object).
    static func operand(_ value: Any?) -> SQLOperand? {
        let value = ValueComparison.unwrap(value)
        if ValueComparison.isNull(value) { return .null }
        guard let value else { return .null }
        // An NSNumber (the usual `%@` argument) is no string: read it without trying the casts.
        let isNumberObject = type(of: value) is NSNumber.Type
        if !isNumberObject, let string = ValueComparison.string(value) {
            return SQLOperand(fragment: .bind(.text(string)), kind: .string)
        }
        if let number = NumericValue(value) {
            switch number {
            case .integer(let v): return SQLOperand(fragment: .bind(.integer(v)), kind: .number)
            case .unsigned(let v): return SQLOperand(fragment: .bind(.real(Double(v))), kind: .number)
            case .double(let v): return SQLOperand(fragment: .bind(.real(v)), kind: .number)
            case .decimal(let v):
                let double = NSDecimalNumber(decimal: v).doubleValue
                if Decimal(string: "\(double)") == v { return SQLOperand(fragment: .bind(.real(double)), kind: .number) }
                return SQLOperand(fragment: .bind(.blob(Data(v.description.utf8))), kind: .number, isExactDecimalConstant: true)
            }
        }
        switch value {
        case let date as Date:
            return SQLOperand(fragment: .bind(.real(date.timeIntervalSinceReferenceDate)), kind: .date)
        case let data as Data:
            return SQLOperand(fragment: .bind(.blob(data)), kind: .data)
        case let uuid as UUID:
            return SQLOperand(fragment: .bind(.blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })), kind: .uuid)
        case let url as URL:
            return SQLOperand(fragment: .bind(.text(url.absoluteString)), kind: .url)
        case let id as NSManagedObjectID:
            guard let pk = id.primaryKey else { return nil }
            return SQLOperand(fragment: .bind(.integer(pk)), kind: .object(root: id.entity.rootEntity.name ?? ""))
        case let object as NSManagedObject:
            return operand(object.objectID)
        default:
            return nil
        }
    }

    /// Whether `value` is a temporary object ID (or an object that has one), which no stored row
    /// can equal.
    static func isUnsavedObject(_ value: Any?) -> Bool {
        guard let value = ValueComparison.unwrap(value) else { return false }
        // The dynamic type first: a failed cast of a number or string to a class costs the
        // runtime's search for bridging conformances (about 1,500 instructions each).
        let type = Swift.type(of: value)
        if type == NSManagedObjectID.self, let id = value as? NSManagedObjectID { return id.primaryKey == nil }
        guard type is NSManagedObject.Type, let object = value as? NSManagedObject else { return false }
        return object.objectID.primaryKey == nil
    }
}
