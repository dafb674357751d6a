/// A value that answers keys by name, as Foundation's key-value coding does.
///
/// Adopt it in your own types to make them readable by predicates, sort descriptors and
/// ``KeyValueAccess``. `value(forKey:)` is Apple's spelling and returns `nil` for a missing
/// value; ``valueThrowing(forKey:)`` is the strict path, which should throw
/// ``KeyValueCodingError/unknownKey(key:owner:)`` for a key the type does not have (a managed
/// object reports `owner: "entity Run"`). Its default calls `value(forKey:)`; a class whose
/// subclasses may refine it (as `NSManagedObject` will) should implement it itself, `open`, so
/// that the overrides are dispatched dynamically.
///
/// Differs from Apple: Apple's `NSObject` raises `NSUnknownKeyException`; here unknown keys are
/// thrown errors, and types that do not adopt the protocol are read through `Mirror`.
public protocol KeyValueCoding {
    /// The value for `key`, or `nil`.
    func value(forKey key: String) -> Any?
    /// The value for `key`, throwing ``KeyValueCodingError/unknownKey(key:owner:)`` for an unknown key.
    func valueThrowing(forKey key: String) throws -> Any?
}

extension KeyValueCoding {
    /// Returns `value(forKey:)`: a lenient type treats every key as known.
    public func valueThrowing(forKey key: String) throws -> Any? {
        value(forKey: key)
    }

    /// The value at a dotted key path, with collection operators, throwing instead of trapping.
    /// Not in Apple's API.
    public func valueThrowing(forKeyPath keyPath: String) throws -> Any? {
        try KeyValueAccess.value(forKeyPath: keyPath, of: self)
    }
}

/// Why a key or key path could not be read.
public enum KeyValueCodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `owner` (such as `"type Person"` or `"entity Run"`) has no property named `key`.
    case unknownKey(key: String, owner: String)
    /// `@name` is not one of Apple's collection operators.
    case unknownCollectionOperator(String)
    /// The collection operator needs a key path on its right (`@sum.price`, `@max.self`).
    case missingKeyPath(collectionOperator: String)
    /// The collection operator was applied to a value of `typeName`, which is not a collection.
    case notACollection(collectionOperator: String, typeName: String)
    /// `@sum` or `@avg` met a value of `typeName` that is not a number.
    case notANumber(collectionOperator: String, typeName: String)
    /// `@min` or `@max` met values of types that cannot be ordered against each other.
    case incomparable(collectionOperator: String, typeNames: [String])

    public var description: String {
        switch self {
        case let .unknownKey(key, owner):
            return "\(owner) has no property '\(key)'"
        case let .unknownCollectionOperator(name):
            return "'\(name)' is not a collection operator (use @count, @sum, @avg, @min, @max or an @…UnionOf… operator)"
        case let .missingKeyPath(op):
            return "\(op) needs a key path on its right, such as \(op).self"
        case let .notACollection(op, typeName):
            return "\(op) needs a collection, not a value of type \(typeName)"
        case let .notANumber(op, typeName):
            return "\(op) needs numbers, not a value of type \(typeName)"
        case let .incomparable(op, typeNames):
            return "\(op) can't order values of types \(typeNames.joined(separator: " and "))"
        }
    }
}

extension KeyValueCodingError: LocalizedError {
    /// The same text as ``description``, so that `localizedDescription` names the problem too.
    public var errorDescription: String? { description }
}

/// Key-value coding over any value: dictionaries, arrays, sets, ``KeyValueCoding`` adopters and,
/// through `Mirror`, plain Swift structs and classes.
///
/// The rules follow Foundation's:
/// - `self` is the value itself; a nil or `NSNull` receiver gives nil for every key.
/// - `[String: Any]`, `[AnyHashable: Any]` and `NSDictionary` return the entry, nil when missing.
///   A key starting with `@` asks the dictionary itself: `@count` is its number of entries.
/// - Arrays map the key over their elements into an array, with `NSNull` where an element gave
///   nil; `NSOrderedSet` maps into an `NSOrderedSet` likewise. Sets map into a set without the nils.
/// - ``KeyValueCoding`` adopters answer through ``KeyValueCoding/valueThrowing(forKey:)``.
/// - Strings answer `length` (in UTF-16 units, as `NSString`); data answers it in bytes, as
///   `NSData` (Core Data's compiled length constraints on binary attributes read it).
/// - Other values are read with `Mirror` (stored properties, including those of superclasses; a
///   property wrapper `_key` is unwrapped). A key they do not have throws
///   ``KeyValueCodingError/unknownKey(key:owner:)``.
/// - Key paths are read one key at a time, so `a.b` on an array maps `a`, then maps `b` over
///   the result. A component starting with `@` is a collection operator applied to the rest of
///   the path (see `CollectionOperator`).
public enum KeyValueAccess {
    /// The value of `key` in `object`. `key` is one key, even if it contains dots.
    public static func value(forKey key: String, of object: Any?) throws -> Any? {
        let object = ValueComparison.unwrap(object)
        if key.hasPrefix("@") { return try CollectionOperator.apply(key, path: [], to: object) }
        return try valueForKey(key, of: object)
    }

    /// The value at the dotted `keyPath` in `object`, with collection operators.
    public static func value(forKeyPath keyPath: String, of object: Any?) throws -> Any? {
        try value(forPath: keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)[...],
                  of: object)
    }

    /// Reads one key at a time in a loop, so that a path of any length (`SELF.SELF.….a`) uses
    /// constant stack.
    static func value(forPath path: ArraySlice<String>, of object: Any?) throws -> Any? {
        var object = ValueComparison.unwrap(object)
        var rest = path
        while let key = rest.first {
            if key.hasPrefix("@") {
                return try CollectionOperator.apply(key, path: rest.dropFirst(), to: object)
            }
            object = ValueComparison.unwrap(try valueForKey(key, of: object))
            rest = rest.dropFirst()
        }
        return object
    }

    /// One key on one value, mapping over collections.
    private static func valueForKey(_ key: String, of object: Any?) throws -> Any? {
        guard let object = ValueComparison.unwrap(object), !ValueComparison.isNSNull(object) else { return nil }
        if key == "self" { return object }
        if let coding = object as? KeyValueCoding {
            return ValueComparison.unwrap(try coding.valueThrowing(forKey: key))
        }
        if let dictionary = dictionary(object) {
            return dictionary[key].flatMap(ValueComparison.unwrap)
        }
        if key == "length", let string = ValueComparison.string(object) { return string.utf16.count }
        if let collection = CollectionValue(object) {
            switch collection.kind {
            case .array:
                return try collection.elements.map { try valueForKey(key, of: $0) ?? NSNull() }
            case .orderedSet:
                return CollectionValue.make(try collection.elements.map { try valueForKey(key, of: $0) ?? NSNull() }, kind: .orderedSet)
            case .set:
                return CollectionValue.make(try collection.elements.compactMap { try valueForKey(key, of: $0) }, kind: .set)
            }
        }
        if key == "length" {
            if let data = object as? Data { return data.count }
            if let data = object as? NSData { return data.length }
        }
        return try mirroredValue(key, of: object)
    }

    /// The entries of a dictionary with string keys, or `nil` when `object` is not one.
    static func dictionary(_ object: Any?) -> [String: Any]? {
        switch object {
        case let d as [String: Any]: return d
        case let d as [AnyHashable: Any]:
            var result: [String: Any] = [:]
            for (key, value) in d { if let key = ValueComparison.string(key.base) { result[key] = value } }
            return result
        case let d as NSDictionary:
            var result: [String: Any] = [:]
            for (key, value) in d { if let key = ValueComparison.string(key) { result[key] = value } }
            return result
        default: return nil
        }
    }

    private static func mirroredValue(_ key: String, of object: Any) throws -> Any? {
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                if child.label == key { return ValueComparison.unwrap(child.value) }
                if child.label == "_" + key {
                    let wrapped = Mirror(reflecting: child.value).children.first { $0.label == "wrappedValue" }
                    return ValueComparison.unwrap(wrapped?.value ?? child.value)
                }
            }
            mirror = current.superclassMirror
        }
        throw KeyValueCodingError.unknownKey(key: key, owner: "type \(type(of: object))")
    }
}
