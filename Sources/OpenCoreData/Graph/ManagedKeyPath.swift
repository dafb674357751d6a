import Foundation

/// The key (Core Data's key path string) of a Swift key path to `@Managed` properties:
/// `\Book.title` is `"title"`, `\Book.author.name` is `"author.name"`.
///
/// Differs from Apple: Linux has no Objective-C runtime, so a key path carries no
/// `_kvcKeyPathString`. The key path is applied to a probe: an instance of its root class on an
/// entity of its own, whose `@Managed` getters record the keys they read and return a
/// placeholder (nil, zero, empty, or another probe for a relationship, so that the path goes
/// on). A key path that reads no `@Managed` property (a computed property) traps with a message
/// that says so, where Apple's would also fail; one that ends in a property of a type the probe
/// can't make a placeholder for traps naming it.
enum ManagedKeyPath {
    /// The key path string of `keyPath`.
    static func key<Root: NSManagedObject, Value>(of keyPath: KeyPath<Root, Value>) -> String {
        let recorder = KeyPathProbeEntity(rootDescription: "\(keyPath)")
        // `probe(of:)` instantiates through the metatype, so the instance is a `Root`.
        let probe = unsafeDowncast(recorder.probe(of: Root.self), to: Root.self)
        _ = probe[keyPath: keyPath]
        guard !recorder.keys.isEmpty else {
            preconditionFailure("\(keyPath) reads no @Managed property of \(Root.self); pass the key as a string instead")
        }
        return recorder.keys.joined(separator: ".")
    }
}

/// The entity of key path probes (see ``ManagedKeyPath``): it has no properties, so every
/// `@Managed` getter of a probe takes ``NSManagedObject/managedValue(forKey:as:)``'s slow path,
/// which hands the key to ``record(_:as:)``. One per key path being read, shared by the probes
/// of the path's relationships.
final class KeyPathProbeEntity: NSEntityDescription, @unchecked Sendable {
    // @unchecked Sendable: an instance lives inside one call of `ManagedKeyPath.key(of:)` on one
    // thread and is never shared.

    /// The keys read, in order.
    private(set) var keys: [String] = []
    private let rootDescription: String

    init(rootDescription: String) {
        self.rootDescription = rootDescription
        super.init()
        name = "KeyPathProbe"
    }

    /// A probe instance of `type`.
    func probe(of type: NSManagedObject.Type) -> NSManagedObject {
        type.init(_entity: self, insertInto: nil)
    }

    /// Records `key` and returns the value a getter of type `T` hands back.
    func record<T>(_ key: String, as type: T.Type) -> T {
        keys.append(key)
        if let value = placeholder(T.self) { return value }
        preconditionFailure("\(rootDescription): property '\(key)' has type \(T.self), which a key path can't be read through on this platform; pass the key as a string instead")
    }

    /// A value of `T` to hand back from a probe's getter: another probe for a managed object
    /// (so that a longer path goes on), else nil, zero, false, empty or a fixed value.
    private func placeholder<T>(_ type: T.Type) -> T? {
        var target: Any.Type = T.self
        if let optional = T.self as? OptionalConvertible.Type { target = optional.wrappedType }
        if let objectType = target as? NSManagedObject.Type {
            return ManagedValueConversion.cast(probe(of: objectType), to: T.self)
        }
        if let optional = T.self as? any ExpressibleByNilLiteral.Type { return optional.init(nilLiteral: ()) as? T }
        if let number = T.self as? any AdditiveArithmetic.Type { return number.zero as? T }
        if let array = T.self as? any ExpressibleByArrayLiteral.Type { return Self.emptyLiteral(array) as? T }
        if let dictionary = T.self as? any ExpressibleByDictionaryLiteral.Type { return Self.emptyLiteral(dictionary) as? T }
        if let cases = T.self as? any CaseIterable.Type { return Self.firstCase(cases) as? T }
        if T.self == NSSet.self { return NSSet() as? T }
        if T.self == NSOrderedSet.self { return NSOrderedSet() as? T }
        let fixed: Any? = switch T.self {
        case is Bool.Type: false
        case is String.Type: ""
        case is Date.Type: Date(timeIntervalSinceReferenceDate: 0)
        case is Data.Type: Data()
        case is UUID.Type: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        case is URL.Type: URL(fileURLWithPath: "/")
        default: nil
        }
        return fixed as? T
    }

    private static func emptyLiteral<A: ExpressibleByArrayLiteral>(_ type: A.Type) -> A { [] }
    private static func emptyLiteral<D: ExpressibleByDictionaryLiteral>(_ type: D.Type) -> D { [:] }
    private static func firstCase<C: CaseIterable>(_ type: C.Type) -> C? { C.allCases.first }
}
