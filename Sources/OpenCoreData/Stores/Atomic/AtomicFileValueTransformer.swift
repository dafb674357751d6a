import Foundation

#if !canImport(Darwin)
/// The name of a registered value transformer, as Foundation spells it.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Foundation's `ValueTransformer`, which swift-corelibs-foundation lacks: the transformer a
/// transformable attribute's `valueTransformerName` names turns its value into `Data` for the
/// stores and back.
///
/// Differences from Apple: registered transformers are looked up with
/// ``ValueTransformer/registered(forName:)`` (Swift can't return a registered instance from
/// `init(forName:)`); there are no built-in transformers.
open class ValueTransformer: @unchecked Sendable {
    public init() {}

    /// Whether ``reverseTransformedValue(_:)`` is supported. Default `true`.
    open class func allowsReverseTransformation() -> Bool { true }

    /// The value turned into the stored form (`Data` for the stores). Default: unchanged.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// The stored form turned back into the value. Default: unchanged.
    open func reverseTransformedValue(_ value: Any?) -> Any? { value }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var transformers: [String: ValueTransformer] = [:]

    /// Registers `transformer` under `name`; `nil` removes the registration.
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        lock.lock()
        defer { lock.unlock() }
        transformers[name.rawValue] = transformer
    }

    /// The transformer registered under `name`, or `nil`.
    public static func registered(forName name: NSValueTransformerName) -> ValueTransformer? {
        lock.lock()
        defer { lock.unlock() }
        return transformers[name.rawValue]
    }

    /// The names of every registered transformer.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        lock.lock()
        defer { lock.unlock() }
        return transformers.keys.sorted().map(NSValueTransformerName.init(rawValue:))
    }
}
#endif

extension ValueTransformer {
    /// The transformer registered under `name` on every platform.
    static func named(_ name: String) -> ValueTransformer? {
        #if canImport(Darwin)
        ValueTransformer(forName: NSValueTransformerName(rawValue: name))
        #else
        ValueTransformer.registered(forName: NSValueTransformerName(rawValue: name))
        #endif
    }
}
