/// Converts values read through key-value coding into the static types of `@Managed` properties,
/// and typed property values back into the forms key-value coding takes.
///
/// - Numbers are bridged across widths as `NSNumber` does, exactly: a store may hand back an
///   `Int64` for an Integer 32 attribute, and `Int32(5)` reads as `Double` 5.0. A number that does
///   not fit the property's type (300 for `Int8`, 2.5 for `Int32`) is not converted.
/// - To-many relationships arrive as `Set<NSManagedObject>` (or `NSOrderedSet`) and are read as
///   `Set<Element>` for a typed element; a member of another class is not converted.
enum ManagedValueBridge {
    /// `value` as a `T`, or `nil` when it cannot be represented as one.
    static func cast<T>(_ value: Any, to type: T.Type) -> T? {
        if let typed = value as? T { return typed }
        if let numberType = T.self as? any ManagedNumberBridging.Type {
            return NumericValue(value).flatMap { numberType.init(numericValue: $0) } as? T
        }
        if let collectionType = T.self as? any ManagedCollectionBridging.Type {
            return collectionType.init(managedCollection: value) as? T
        }
        return nil
    }

    /// The form of a typed property value that `setValue(_:forKey:)` takes: `nil` for an empty
    /// optional, `Set<NSManagedObject>` for a typed set of managed objects, the value otherwise.
    static func keyValueForm<T>(_ value: T) -> Any? {
        if let optional = value as? any ManagedOptionalValue {
            guard let wrapped = optional.wrappedValue else { return nil }
            return keyValueForm(wrapped)
        }
        if let collection = value as? any ManagedCollectionBridging {
            return collection.keyValueForm
        }
        return value
    }

    /// The managed objects held by a to-many value (`Set`, `NSOrderedSet`, `NSSet`, array).
    static func managedObjects(in value: Any) -> [NSManagedObject]? {
        switch value {
        case let set as Set<NSManagedObject>: return Array(set)
        case let ordered as NSOrderedSet: return ordered.array.asManagedObjects
        case let set as NSSet: return set.allObjects.asManagedObjects
        case let array as [NSManagedObject]: return array
        case let array as [Any]: return array.asManagedObjects
        case let collection as any ManagedCollectionBridging:
            return managedObjects(in: collection.keyValueForm)
        default: return nil
        }
    }
}

extension Array where Element == Any {
    /// The elements as managed objects, or `nil` if one is not a managed object.
    fileprivate var asManagedObjects: [NSManagedObject]? {
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(count)
        for element in self {
            guard let object = element as? NSManagedObject else { return nil }
            objects.append(object)
        }
        return objects
    }
}

/// A number type a `@Managed` property may have; built exactly from any other number.
protocol ManagedNumberBridging {
    init?(numericValue: NumericValue)
}

extension ManagedNumberBridging where Self: FixedWidthInteger {
    init?(numericValue: NumericValue) {
        switch numericValue {
        case .unsigned(let value): self.init(exactly: value)
        default:
            guard let integer = numericValue.exactInteger else { return nil }
            self.init(exactly: integer)
        }
    }
}

extension Int: ManagedNumberBridging {}
extension Int8: ManagedNumberBridging {}
extension Int16: ManagedNumberBridging {}
extension Int32: ManagedNumberBridging {}
extension Int64: ManagedNumberBridging {}
extension UInt: ManagedNumberBridging {}
extension UInt8: ManagedNumberBridging {}
extension UInt16: ManagedNumberBridging {}
extension UInt32: ManagedNumberBridging {}
extension UInt64: ManagedNumberBridging {}

extension Double: ManagedNumberBridging {
    init?(numericValue: NumericValue) { self = numericValue.doubleValue }
}

extension Float: ManagedNumberBridging {
    init?(numericValue: NumericValue) { self = Float(numericValue.doubleValue) }
}

extension Decimal: ManagedNumberBridging {
    init?(numericValue: NumericValue) { self = numericValue.decimalValue }
}

extension Bool: ManagedNumberBridging {
    /// 0 and 1 only, as `NSNumber` bridges to `Bool`.
    init?(numericValue: NumericValue) {
        switch numericValue.exactInteger {
        case 0?: self = false
        case 1?: self = true
        default: return nil
        }
    }
}

/// A typed to-many value a `@Managed` property may have (`Set<Element>` of managed objects).
protocol ManagedCollectionBridging {
    /// Builds the typed collection from a to-many value, or fails if a member has another type.
    init?(managedCollection value: Any)
    /// The value as `setValue(_:forKey:)` takes it.
    var keyValueForm: Any { get }
}

extension Set: ManagedCollectionBridging where Element: NSManagedObject {
    init?(managedCollection value: Any) {
        guard let objects = ManagedValueBridge.managedObjects(in: value) else { return nil }
        var typed = Set<Element>(minimumCapacity: objects.count)
        for object in objects {
            guard let member = object as? Element else { return nil }
            typed.insert(member)
        }
        self = typed
    }

    var keyValueForm: Any { Set<NSManagedObject>(map { $0 as NSManagedObject }) }
}

/// `Optional`, seen through a protocol so that generic code can unwrap it.
protocol ManagedOptionalValue {
    var wrappedValue: Any? { get }
}

extension Optional: ManagedOptionalValue {
    var wrappedValue: Any? { map { $0 as Any } }
}
