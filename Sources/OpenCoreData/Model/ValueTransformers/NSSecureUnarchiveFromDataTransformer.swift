import Foundation

#if !canImport(Darwin)
/// Foundation's `NSSecureUnarchiveFromDataTransformer`: unarchives `Data` holding an
/// `NSKeyedArchiver` archive (``transformedValue(_:)``) and archives a value into one
/// (``reverseTransformedValue(_:)``), accepting only objects of ``allowedTopLevelClasses``.
/// It is the default for Transformable attributes that name no transformer.
///
/// Archives are read and written in Apple's format (a binary property list with `$archiver`,
/// `$version` 100000, `$top` and `$objects`), so values are interchangeable with Apple's Core
/// Data. Unarchived values come back as bridged Swift values: `String`, `Int`/`Double`/`Bool`,
/// `Date`, `Data`, `URL`, `UUID`, `[Any]`, `[String: Any]` (or `[AnyHashable: Any]`),
/// `Set<AnyHashable>`, `NSOrderedSet` and `NSNull`.
///
/// Subclass and override ``allowedTopLevelClasses`` to narrow (or name) the accepted classes, as on
/// Apple platforms. Differs from Apple: Linux can't instantiate arbitrary archived classes, so
/// only the Foundation value classes above can be unarchived or archived; another class (even
/// when allowed) is reported as not decodable. A refused or undecodable archive makes
/// ``transformedValue(_:)`` return `nil` (Apple logs and returns `nil` too); the stores report
/// the reason (see ``unarchivedValue(from:)``). Values nesting deeper than 256 levels (or
/// archives whose objects contain themselves) are refused with an error rather than exhausting
/// the stack.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer {
    public override init() { super.init() }

    /// The classes an archive may contain (subclasses included). Default: Foundation's value
    /// classes, as Apple's (`NSArray`, `NSDictionary`, `NSSet`, `NSString`, `NSNumber`,
    /// `NSDate`, `NSData`, `NSURL`, `NSUUID`, `NSNull`).
    open class var allowedTopLevelClasses: [AnyClass] {
        [NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self,
         NSData.self, NSURL.self, NSUUID.self, NSNull.self]
    }

    open override class func transformedValueClass() -> AnyClass { NSObject.self }
    open override class func allowsReverseTransformation() -> Bool { true }

    /// The value archived in `value` (`Data`), or `nil` when it is not an archive of allowed classes.
    open override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return try? unarchivedValue(from: data)
    }

    /// `value` archived as `Data`, or `nil` when it can't be archived.
    open override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return try? archivedData(of: value)
    }

    /// The value archived in `data`; throws ``TransformableValueError`` saying why it can't be
    /// unarchived (not an archive, a class not allowed, a class Linux can't decode).
    public func unarchivedValue(from data: Data) throws -> Any {
        let names = restrictsClasses ? Set(type(of: self).allowedTopLevelClasses.map { String(describing: $0) }) : nil
        return try KeyedArchive.bridgedValue(of: data, allowedClassNames: names)
    }

    /// `value` archived in Apple's format; throws ``TransformableValueError`` for a value of a type
    /// that can't be archived.
    public func archivedData(of value: Any) throws -> Data {
        if restrictsClasses {
            let names = Set(type(of: self).allowedTopLevelClasses.map { String(describing: $0) })
            return try KeyedArchiveWriter.archive(value, allowedClassNames: names)
        }
        return try KeyedArchiveWriter.archive(value, allowedClassNames: nil)
    }

    /// Whether only ``allowedTopLevelClasses`` are accepted (`false` for the non-secure
    /// `NSKeyedUnarchiveFromData`).
    var restrictsClasses: Bool { true }
}

/// `NSKeyedUnarchiveFromData` and `NSUnarchiveFromData`: keyed archives of any class Linux can
/// decode, without the secure class list.
final class KeyedUnarchiveFromDataTransformer: NSSecureUnarchiveFromDataTransformer {
    override var restrictsClasses: Bool { false }
}
#endif

/// Why a transformable value can't be turned into `Data` or back.
public struct TransformableValueError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
