/// Why a managed object refused a key-value coding call; the trapping forms print the same text.
public enum ManagedObjectAccessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A to-many relationship was given something that is not a collection of managed objects,
    /// or a to-one relationship something that is not a managed object.
    case unacceptableRelationshipValue(entity: String, key: String, given: String)
    /// Fetched properties are read-only.
    case readOnlyProperty(entity: String, key: String)
    /// The key names a property that is not a to-many relationship (for `mutableSetValue(forKey:)`).
    case notToMany(entity: String, key: String)
    /// A relationship between objects of two different contexts.
    case differentContexts(entity: String, key: String)

    public var description: String {
        switch self {
        case let .unacceptableRelationshipValue(entity, key, given):
            return "Unacceptable value for relationship '\(key)' of entity \(entity): given \(given)"
        case let .readOnlyProperty(entity, key):
            return "Property '\(key)' of entity \(entity) is a fetched property and can't be set"
        case let .notToMany(entity, key):
            return "Property '\(key)' of entity \(entity) is not a to-many relationship"
        case let .differentContexts(entity, key):
            return "Illegal attempt to establish relationship '\(key)' of entity \(entity) between objects in different contexts"
        }
    }
}

/// Converts values read from managed objects to the type an accessor asks for, and reads the
/// destinations of to-many values. What an attribute accepts is decided by
/// ``PropertyValueCoercion`` alone.
enum ManagedValueConversion {
    /// Whether the attribute holds a number or Boolean (a scalar in generated classes).
    static func isScalar(_ attribute: NSAttributeDescription) -> Bool {
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
             .doubleAttributeType, .floatAttributeType, .booleanAttributeType:
            return true
        default:
            return false
        }
    }

    /// The destinations in a to-many value: a set or array of managed objects, an `NSSet`,
    /// `NSOrderedSet` or `NSArray` of them, or a relationship proxy. `nil` gives none.
    static func objects(in value: Any?) -> [NSManagedObject]? {
        guard let value = ValueComparison.unwrap(value), !ValueComparison.isNSNull(value) else { return [] }
        switch value {
        case let array as [NSManagedObject]: return array
        case let set as Set<NSManagedObject>: return Array(set)
        case let proxy as ManagedSet: return proxy.allObjects
        case let proxy as ManagedOrderedSet: return proxy.array
        case let ordered as NSOrderedSet: return managedObjects(ordered.array)
        case let set as NSSet: return managedObjects(set.allObjects)
        case let array as NSArray: return managedObjects(array.map { $0 })
        case let set as Set<AnyHashable>: return managedObjects(set.map(\.base))
        case let array as [Any]: return managedObjects(array)
        default: return nil
        }
    }

    private static func managedObjects(_ values: [Any]) -> [NSManagedObject]? {
        var result: [NSManagedObject] = []
        for value in values {
            guard let object = value as? NSManagedObject else { return nil }
            result.append(object)
        }
        return result
    }

    /// `value` as `T`, converting numbers between widths and unwrapping optionals, or `nil`.
    static func cast<T>(_ value: Any?, to type: T.Type) -> T? {
        let value = ValueComparison.unwrap(value)
        if let direct = value as? T { return direct }
        guard let value else { return nil }
        if let optionalType = T.self as? OptionalConvertible.Type {
            return optionalType.wrapping(value) as? T
        }
        return convertNumber(value, to: T.self) as? T
    }

    /// A number converted to the numeric type `type` (an integer or floating-point type), or `nil`.
    static func convertNumber(_ value: Any, to type: Any.Type) -> Any? {
        guard let number = NumericValue(value) else { return nil }
        if let integerType = type as? any BinaryInteger.Type {
            guard let exact = number.exactInteger else { return nil }
            return integerType.init(exactly: exact)
        }
        if let floatType = type as? any BinaryFloatingPoint.Type {
            return floatType.init(number.doubleValue)
        }
        if type == Decimal.self { return number.decimalValue }
        if type == Bool.self { return number.exactInteger.map { $0 != 0 } }
        return nil
    }
}

/// Lets ``ManagedValueConversion/cast(_:to:)`` convert into the wrapped type of an optional.
protocol OptionalConvertible {
    static func wrapping(_ value: Any) -> Any?
    /// The type an optional of this type wraps.
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalConvertible {
    static var wrappedType: Any.Type { Wrapped.self }

    static func wrapping(_ value: Any) -> Any? {
        if let direct = value as? Wrapped { return Optional(direct) as Any }
        if let converted = ManagedValueConversion.convertNumber(value, to: Wrapped.self) as? Wrapped {
            return Optional(converted) as Any
        }
        return nil
    }
}
