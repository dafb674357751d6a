/// Whether a managed object class overrides the methods validation reads values through:
/// `value(forKey:)`, `valueThrowing(forKey:)`, `willAccessValue(forKey:)`,
/// `didAccessValue(forKey:)` and `validateValue(_:forKey:)`.
///
/// Validation at save reads every property through those methods so that a subclass's overrides
/// run (see ``ObjectValidation/validate(_:for:)``). A class that overrides none of them gets the
/// same answers from the object's slots, read directly: about 60 instructions a property
/// instead of 480 (W8a, typed `@Managed` subclasses, spent a sixth of its time there).
///
/// Swift has no reflection of overrides, so this reads the class's vtable in its runtime
/// metadata. Where an entry sits is not hard-coded: five probe classes each override one of the
/// methods, and the metadata word in which a probe differs from a class that overrides nothing
/// (other than the word they all differ in, their type descriptor) is that method's entry. A
/// subclass overrides the method exactly when its word there differs from `NSManagedObject`'s.
/// When the metadata doesn't look as expected (an Objective-C runtime's class layout, a word
/// that isn't found exactly once) every subclass counts as overriding, and validation takes
/// the slower, always correct path.
enum KeyValueOverrides {
    /// Whether `type` (`NSManagedObject` or a subclass) overrides any of the five methods.
    static func overridesValueAccess(_ type: NSManagedObject.Type) -> Bool {
        if type == NSManagedObject.self { return false }
        guard let entries = vtableEntries else { return true }
        let base = metadataWords(of: NSManagedObject.self), words = metadataWords(of: type)
        return entries.contains { words[$0] != base[$0] }
    }

    /// The indices, in metadata words from the address point, of the five methods' vtable
    /// entries; nil when they can't be found.
    private static let vtableEntries: [Int]? = findVTableEntries()

    private final class Plain: NSManagedObject {}
    private final class OverridesValue: NSManagedObject {
        override func value(forKey key: String) -> Any? { super.value(forKey: key) }
    }
    private final class OverridesValueThrowing: NSManagedObject {
        override func valueThrowing(forKey key: String) throws -> Any? { try super.valueThrowing(forKey: key) }
    }
    private final class OverridesWillAccessValue: NSManagedObject {
        override func willAccessValue(forKey key: String?) {}
    }
    private final class OverridesDidAccessValue: NSManagedObject {
        override func didAccessValue(forKey key: String?) {}
    }
    private final class OverridesValidateValue: NSManagedObject {
        override func validateValue(_ value: inout Any?, forKey key: String) throws {
            try super.validateValue(&value, forKey: key)
        }
    }

    private static func metadataWords(of type: AnyClass) -> UnsafePointer<UInt> {
        unsafeBitCast(type, to: UnsafePointer<UInt>.self)
    }

    /// The number of words of `type`'s class metadata from its address point: the runtime's
    /// `ClassSize` minus `ClassAddressPoint` (32-bit fields at bytes 32 and 36 of a class's
    /// metadata without Objective-C interoperability); nil when they don't make sense.
    private static func metadataWordCount(of type: AnyClass) -> Int? {
        #if canImport(ObjectiveC)
        return nil
        #else
        let raw = UnsafeRawPointer(metadataWords(of: type))
        let size = Int(raw.load(fromByteOffset: 32, as: UInt32.self))
        let addressPoint = Int(raw.load(fromByteOffset: 36, as: UInt32.self))
        let stride = MemoryLayout<UInt>.stride
        guard size > addressPoint, (size - addressPoint) % stride == 0 else { return nil }
        let count = (size - addressPoint) / stride
        return (8...4_096).contains(count) ? count : nil
        #endif
    }

    private static func findVTableEntries() -> [Int]? {
        guard let count = metadataWordCount(of: NSManagedObject.self) else { return nil }
        let probes: [AnyClass] = [OverridesValue.self, OverridesValueThrowing.self, OverridesWillAccessValue.self,
                                  OverridesDidAccessValue.self, OverridesValidateValue.self]
        guard metadataWordCount(of: Plain.self) == count,
              probes.allSatisfy({ metadataWordCount(of: $0) == count }) else { return nil }
        let plain = metadataWords(of: Plain.self), base = metadataWords(of: NSManagedObject.self)
        let differences = probes.map { probe in
            let words = metadataWords(of: probe)
            return Set((0..<count).filter { words[$0] != plain[$0] })
        }
        let shared = differences.dropFirst().reduce(differences[0]) { $0.intersection($1) }
        var entries: [Int] = []
        for difference in differences {
            let own = difference.subtracting(shared)
            // One entry, which the class that overrides nothing inherited from NSManagedObject.
            guard own.count == 1, let entry = own.first, plain[entry] == base[entry] else { return nil }
            entries.append(entry)
        }
        return entries
    }
}
