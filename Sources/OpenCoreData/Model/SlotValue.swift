import Foundation

/// One slot's value in an object or a snapshot (``SlotValues``): the attribute types' common
/// Swift values and to-one destinations inline, anything else in a boxed existential.
///
/// An `Any?` slot costs the runtime's value witnesses on every copy and destroy, even for an
/// `Int64` held inline (an indirect call through the value's type metadata, about 70
/// instructions a copy); these cases copy as plain bits (or one retain, for a `String`). Values
/// keep their exact Swift type: an `Int64` stays ``int64(_:)``, an `Int` set on an attribute
/// that doesn't convert it stays `.other(Int)`, so ``anyInPlace()`` gives back what was stored.
enum SlotValue {
    case none
    case int64(Int64)
    case int32(Int32)
    case int16(Int16)
    case double(Double)
    case float(Float)
    case bool(Bool)
    case date(Date)
    case string(String)
    /// An object ID: a to-one destination in a snapshot, or in an object that kept its
    /// snapshot's values (``EntityLayout/keptDestinationSlot``); an attribute's `NSManagedObjectID`.
    case objectID(NSManagedObjectID)
    /// A to-one destination in an object, as loading a snapshot keeps it (a destination set
    /// through ``init(some:)`` is ``other(_:)``: telling a subclass instance apart takes a
    /// runtime cast).
    case object(NSManagedObject)
    /// Any other value (an ``ObjectList``, `Data`, `Decimal`, a transformed value, or a value
    /// of the wrong type kept until validation reports it), boxed: its 32-byte existential kept
    /// inline made every slot 40 bytes, and a snapshot of ten slots seven cache lines (24 bytes
    /// and four lines boxed). The common values have their own cases and need no box.
    indirect case other(Any)

    /// `value` in the case of its exact dynamic type (nil: ``none``).
    @inline(__always)
    init(_ value: Any?) {
        guard let value else {
            self = .none
            return
        }
        self.init(some: value)
    }

    /// `value` in the case of its exact dynamic type: the type metadata word of the existential
    /// is read once and compared with the inline cases' (no runtime cast), and the value is
    /// loaded from the existential's inline buffer, where all of these types are kept (see
    /// ``ValueComparison/exact(_:as:)``).
    init(some value: Any) {
        self = withUnsafePointer(to: value) { pointer -> SlotValue in
            let raw = UnsafeRawPointer(pointer)
            return SlotValue.inline(in: raw, type: raw.load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UInt.self)) ?? .other(value)
        }
    }

    /// `value` in its inline case when its dynamic type is exactly `type` (one of the inline
    /// cases' types), else nil (nil too for nil). Read in place, as ``init(some:)`` reads, from
    /// the optional's existential (`Any?` is laid out as `Any`, nil as a null type): unwrapping
    /// the optional first copies it through its value witnesses (about 110 instructions).
    @inline(__always)
    init?(_ value: borrowing Any?, exactly type: ObjectIdentifier) {
        guard ValueComparison.holds(value, exactly: type) else { return nil }
        let found: SlotValue? = withUnsafePointer(to: value) { pointer in
            SlotValue.inline(in: UnsafeRawPointer(pointer), type: UInt(bitPattern: type))
        }
        guard let found else { return nil }
        self = found
    }

    /// The value in the inline buffer of the existential at `raw` whose type metadata is `type`,
    /// in its inline case; nil for a type without one.
    @inline(__always)
    private static func inline(in raw: UnsafeRawPointer, type: UInt) -> SlotValue? {
        func metadata(_ type: Any.Type) -> UInt { UInt(bitPattern: ObjectIdentifier(type)) }
        switch type {
        case metadata(Int64.self): return .int64(raw.load(as: Int64.self))
        case metadata(String.self): return .string(raw.load(as: String.self))
        case metadata(Double.self): return .double(raw.load(as: Double.self))
        case metadata(Date.self): return .date(raw.load(as: Date.self))
        case metadata(Bool.self): return .bool(raw.load(as: Bool.self))
        case metadata(Int32.self): return .int32(raw.load(as: Int32.self))
        case metadata(Int16.self): return .int16(raw.load(as: Int16.self))
        case metadata(Float.self): return .float(raw.load(as: Float.self))
        case metadata(NSManagedObjectID.self): return .objectID(raw.load(as: NSManagedObjectID.self))
        default: return nil
        }
    }

    /// `value` in the inline case of its type `T` when `T` is exactly one of theirs (nil for any
    /// other type), without boxing it in an existential first (see ``init(some:)``).
    @inline(__always)
    init?<T>(inline value: T) {
        switch ObjectIdentifier(T.self) {
        case ObjectIdentifier(Int64.self): self = .int64(unsafeBitCast(value, to: Int64.self))
        case ObjectIdentifier(String.self): self = .string(unsafeBitCast(value, to: String.self))
        case ObjectIdentifier(Double.self): self = .double(unsafeBitCast(value, to: Double.self))
        case ObjectIdentifier(Date.self): self = .date(unsafeBitCast(value, to: Date.self))
        case ObjectIdentifier(Bool.self): self = .bool(unsafeBitCast(value, to: Bool.self))
        case ObjectIdentifier(Int32.self): self = .int32(unsafeBitCast(value, to: Int32.self))
        case ObjectIdentifier(Int16.self): self = .int16(unsafeBitCast(value, to: Int16.self))
        case ObjectIdentifier(Float.self): self = .float(unsafeBitCast(value, to: Float.self))
        default: return nil
        }
    }

    /// The value as `Any?`, of the type it was stored with, read where it is (a slot of a
    /// buffer): the case is matched in place and only its payload copied, not the whole enum
    /// first (an outlined copy of about 40 instructions a read).
    @inline(__always)
    borrowing func anyInPlace() -> Any? {
        switch self {
        case .none: nil
        case .int64(let value): value
        case .int32(let value): value
        case .int16(let value): value
        case .double(let value): value
        case .float(let value): value
        case .bool(let value): value
        case .date(let value): value
        case .string(let value): value
        case .objectID(let value): value
        case .object(let value): value
        case .other(let value): value
        }
    }

    /// ``anyInPlace()`` of a value the caller gives up (a change's old value, say).
    @inline(__always)
    consuming func any() -> Any? { anyInPlace() }

    /// The value of an inline case as a `T`, which must be its exact type (``inlineType`` is
    /// `T`'s; no runtime cast). Returns `T`, not `T?`: generic code that runs unspecialized
    /// would look up `Optional<T>`'s metadata at every call.
    @inline(__always)
    func inlineValue<T>(as type: T.Type) -> T {
        switch self {
        case .int64(let value): unsafeBitCast(value, to: T.self)
        case .int32(let value): unsafeBitCast(value, to: T.self)
        case .int16(let value): unsafeBitCast(value, to: T.self)
        case .double(let value): unsafeBitCast(value, to: T.self)
        case .float(let value): unsafeBitCast(value, to: T.self)
        case .bool(let value): unsafeBitCast(value, to: T.self)
        case .date(let value): unsafeBitCast(value, to: T.self)
        case .string(let value): unsafeBitCast(value, to: T.self)
        case .none, .objectID, .object, .other: preconditionFailure("inlineValue(as:) of a slot without an inline value")
        }
    }

    /// Whether the slot holds no value.
    @inline(__always)
    var isNone: Bool {
        if case .none = self { return true }
        return false
    }

    /// What the value's case says of its type, for checks that need both whether there is a
    /// value and its inline type: one match of the case (each match of a value read in place
    /// copies it, so ``isNone`` then ``inlineType`` copied it twice).
    enum CaseType: Equatable {
        case none
        /// An inline case, with the Swift type of its value.
        case inline(ObjectIdentifier)
        case other
    }

    /// ``CaseType`` of the value.
    @inline(__always)
    var caseType: CaseType {
        switch self {
        case .none: .none
        case .objectID, .object, .other: .other
        case .int64: .inline(ObjectIdentifier(Int64.self))
        case .int32: .inline(ObjectIdentifier(Int32.self))
        case .int16: .inline(ObjectIdentifier(Int16.self))
        case .double: .inline(ObjectIdentifier(Double.self))
        case .float: .inline(ObjectIdentifier(Float.self))
        case .bool: .inline(ObjectIdentifier(Bool.self))
        case .date: .inline(ObjectIdentifier(Date.self))
        case .string: .inline(ObjectIdentifier(String.self))
        }
    }

    /// The Swift type of an inline case's value (what ``SlotRule/exactType`` names); nil for
    /// ``none`` and ``other(_:)``.
    @inline(__always)
    var inlineType: ObjectIdentifier? {
        if case .inline(let type) = caseType { type } else { nil }
    }

    /// Whether two inline values of the same case are equal (nil: not both inline and of one
    /// case, or NaN: compare them with ``ValueComparison``, as ``ValueComparison/sameTypeEqual(_:_:)``
    /// leaves NaN to it).
    @inline(__always)
    func sameCaseEqual(_ other: SlotValue) -> Bool? {
        switch (self, other) {
        case (.none, .none): true
        case (.int64(let a), .int64(let b)): a == b
        case (.int32(let a), .int32(let b)): a == b
        case (.int16(let a), .int16(let b)): a == b
        case (.double(let a), .double(let b)): a.isNaN || b.isNaN ? nil : a == b
        case (.float(let a), .float(let b)): a.isNaN || b.isNaN ? nil : a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        default: nil
        }
    }
}

/// The two words of `value`'s existential that tell a class instance boxed in it, read without
/// copying the value out: the first word of its buffer (a class instance's reference, inline)
/// and the metadata of the type it was boxed as (0 for nil). `Any?` is laid out as `Any`
/// (Swift's stable ABI): a three-word buffer, then that metadata. `instance` is meaningful only
/// when `boxedAs` is a class's metadata (`isMetadata(_:of:)`).
///
/// What `isEqual(_:)` of managed objects and IDs reads: sets of them compare through
/// `NSObject`'s `==`, which boxes the other object as `NSObject`.
@inline(__always)
func boxedReference(_ value: Any?) -> (instance: UInt, boxedAs: UInt) {
    let words = unsafeBitCast(value, to: (UInt, UInt, UInt, UInt).self)
    return (words.0, words.3)
}

/// Whether `metadata` (a `boxedReference(_:)`'s `boxedAs`) is the metadata of `type`.
@inline(__always)
func isMetadata(_ metadata: UInt, of type: AnyClass) -> Bool {
    metadata == UInt(bitPattern: ObjectIdentifier(type))
}

/// `value` as an instance of the final class `T`, read out of its existential when its dynamic
/// type is exactly `T`, else through the runtime's cast.
///
/// The runtime's `as?` out of an `Any` costs about 350 instructions; a class instance is kept
/// inline, as its reference, in the first word of the existential's buffer (Swift's stable
/// layout of `Any`), so once the dynamic type matches the reference can be loaded. Dictionaries
/// of IDs compare through this (``NSManagedObjectID/isEqual(_:)``), and loading a snapshot reads
/// its to-one destinations through it.
@inline(__always)
func exactInstance<T: AnyObject>(_ value: Any, of type: T.Type) -> T? {
    guard ObjectIdentifier(Swift.type(of: value)) == ObjectIdentifier(T.self) else { return value as? T }
    return withUnsafeBytes(of: value) { $0.load(as: Unmanaged<T>.self) }.takeUnretainedValue()
}

extension SlotValue {
    /// The value as a managed object (a to-one destination in an object), nil for anything
    /// else: ``object(_:)`` without a runtime cast, another value through `as?` (a destination
    /// set through ``init(some:)`` is ``other(_:)``).
    @inline(__always)
    var destination: NSManagedObject? {
        switch self {
        case .object(let object): object
        case .other(let value): value as? NSManagedObject
        default: nil
        }
    }

    /// The ID of the to-one destination an object's slot holds: the ID it keeps, or its
    /// object's ID (see ``destination``); nil for anything else.
    @inline(__always)
    var destinationID: NSManagedObjectID? {
        if case .objectID(let id) = self { return id }
        return destination?.objectID
    }

    /// The value as an object ID (a to-one destination in a snapshot), nil for anything else.
    @inline(__always)
    var objectID: NSManagedObjectID? {
        switch self {
        case .objectID(let id): id
        case .other(let value): exactInstance(value, of: NSManagedObjectID.self)
        default: nil
        }
    }
}
