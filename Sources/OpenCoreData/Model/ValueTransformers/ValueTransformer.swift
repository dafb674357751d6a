import Foundation

#if !canImport(Darwin)
/// The name of a registered value transformer, as Foundation spells it.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

extension NSValueTransformerName {
    /// Negates a Boolean (`NSNegateBoolean`); reversible.
    public static let negateBooleanTransformerName = NSValueTransformerName("NSNegateBoolean")
    /// Whether the value is `nil` (`NSIsNil`); not reversible.
    public static let isNilTransformerName = NSValueTransformerName("NSIsNil")
    /// Whether the value is not `nil` (`NSIsNotNil`); not reversible.
    public static let isNotNilTransformerName = NSValueTransformerName("NSIsNotNil")
    /// Unarchives `Data` (`NSUnarchiveFromData`). Differs from Apple: reads and writes keyed
    /// archives; old `NSArchiver` (typedstream) data is refused with an error.
    public static let unarchiveFromDataTransformerName = NSValueTransformerName("NSUnarchiveFromData")
    /// Unarchives a keyed archive (`NSKeyedUnarchiveFromData`), not restricted to secure classes.
    public static let keyedUnarchiveFromDataTransformerName = NSValueTransformerName("NSKeyedUnarchiveFromData")
    /// ``NSSecureUnarchiveFromDataTransformer`` (`NSSecureUnarchiveFromData`): the default for
    /// Transformable attributes that name no transformer.
    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
}

/// Foundation's `ValueTransformer`, which swift-corelibs-foundation lacks: turns a value into
/// another and, when ``allowsReverseTransformation()``, back. Transformable attributes name one
/// in `valueTransformerName`.
///
/// The registry of named transformers is process-wide, as Apple's API forces
/// (``setValueTransformer(_:forName:)`` is a class method): registering in a test suite's `init()`
/// affects every test. It is guarded by a lock, so registering and looking up are thread-safe.
/// The built-in transformers behind the ``NSValueTransformerName`` constants are registered from
/// the start. `ValueTransformer(forName:)` returns the registered instance, as on Apple platforms.
///
/// Differs from Apple: not `Sendable`-checked; like Apple, registered transformers are shared by
/// every thread, so they should be stateless.
open class ValueTransformer: NSObject {
    public override init() { super.init() }

    /// The class of the values ``transformedValue(_:)`` returns. Default `NSObject`.
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Whether ``reverseTransformedValue(_:)`` is supported. Default `false`, as on Apple.
    open class func allowsReverseTransformation() -> Bool { false }

    /// The value transformed. Default: unchanged.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// The transformed value turned back. Default: ``transformedValue(_:)`` when reversible
    /// (Apple's default), else `nil`.
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        type(of: self).allowsReverseTransformation() ? transformedValue(value) : nil
    }

    /// Registers `transformer` under `name`; `nil` removes the registration.
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        registry.withLock { $0[name.rawValue] = transformer }
    }

    /// The names of every registered transformer (the built-in ones included), sorted.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        registry.withLock { $0.keys.sorted() }.map(NSValueTransformerName.init(rawValue:))
    }

    /// The transformer registered under `name`, or `nil` (what `ValueTransformer(forName:)` returns).
    static func registered(forName name: NSValueTransformerName) -> ValueTransformer? {
        registry.withLock { $0[name.rawValue] }
    }

    /// The registered transformers by name, built-in ones first.
    private static let registry = TransformerRegistry([
        NSValueTransformerName.negateBooleanTransformerName.rawValue: NegateBooleanTransformer(),
        NSValueTransformerName.isNilTransformerName.rawValue: IsNilTransformer(negated: false),
        NSValueTransformerName.isNotNilTransformerName.rawValue: IsNilTransformer(negated: true),
        NSValueTransformerName.unarchiveFromDataTransformerName.rawValue: KeyedUnarchiveFromDataTransformer(),
        NSValueTransformerName.keyedUnarchiveFromDataTransformerName.rawValue: KeyedUnarchiveFromDataTransformer(),
        NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue: NSSecureUnarchiveFromDataTransformer(),
    ])
}

/// `ValueTransformer(forName:)`: a protocol extension initializer, because only those can hand
/// back an existing instance (the registered transformer) in Swift.
public protocol _ValueTransformerLookup {}
extension ValueTransformer: _ValueTransformerLookup {}
extension _ValueTransformerLookup {
    /// The transformer registered under `name`, or `nil` when none is (or it is not a `Self`).
    public init?(forName name: NSValueTransformerName) {
        guard let found = ValueTransformer.registered(forName: name).flatMap({ $0 as? Self }) else { return nil }
        self = found
    }
}

/// The transformers by name, behind a lock (the registry is process-wide and used from any thread).
private final class TransformerRegistry: @unchecked Sendable {  // `lock` guards `transformers`.
    private let lock = NSLock()
    private var transformers: [String: ValueTransformer]

    init(_ transformers: [String: ValueTransformer]) { self.transformers = transformers }

    func withLock<T>(_ body: (inout [String: ValueTransformer]) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&transformers)
    }
}

/// `NSNegateBoolean`: a Boolean (or number) negated, both ways.
private final class NegateBooleanTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        switch value {
        case let bool as Bool: return !bool
        case let number as NSNumber: return !number.boolValue
        default: return nil
        }
    }
}

/// `NSIsNil` and `NSIsNotNil`: whether the value is nil (`NSNull` counts as nil).
private final class IsNilTransformer: ValueTransformer {
    private let negated: Bool
    init(negated: Bool) { self.negated = negated }
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override func transformedValue(_ value: Any?) -> Any? {
        let isNil = value == nil || value is NSNull
        return negated ? !isNil : isNil
    }
}
#endif

extension ValueTransformer {
    /// The transformer registered under `name` on every platform.
    static func named(_ name: String) -> ValueTransformer? {
        ValueTransformer(forName: NSValueTransformerName(rawValue: name))
    }
}
