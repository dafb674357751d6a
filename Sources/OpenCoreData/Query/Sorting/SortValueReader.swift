/// Reads the sorted value of an object for a sort descriptor.
///
/// TEMPORARY: reads `[String: Any]` dictionaries along a dotted key path only. It is replaced by
/// the evaluator's key-value coding (any KVC value, collection operators) when that lands; there
/// must be one KVC in the package.
enum SortValueReader {
    static func value(of object: Any, forKeyPath keyPath: String) -> Any? {
        var current: Any? = object
        for key in keyPath.split(separator: ".", omittingEmptySubsequences: false) {
            guard let value = nonNull(current) else { return nil }
            guard let dictionary = value as? [String: Any] else {
                preconditionFailure("NSSortDescriptor: \(type(of: value)) has no value for the key \(key) of \(keyPath)")
            }
            current = dictionary[String(key)]
        }
        return current
    }

    /// `nil` for `nil`, `NSNull` and an empty `Optional` boxed in `Any`.
    static func nonNull(_ value: Any?) -> Any? {
        guard let value = PredicateFormatter.unwrapOptional(value), !(value is NSNull) else { return nil }
        return value
    }
}
