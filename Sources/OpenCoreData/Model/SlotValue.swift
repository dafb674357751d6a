import Foundation

/// One slot's value in an object or a snapshot (``SlotValues``): the attribute types' common
/// Swift values inline, anything else in an existential.
///
/// An `Any?` slot costs the runtime's value witnesses on every copy and destroy, even for an
/// `Int64` held inline (an indirect call through the value's type metadata, about 70
/// instructions a copy); these cases copy as plain bits (or one retain, for a `String`). Values
/// keep their exact Swift type: an `Int64` stays ``int64(_:)``, an `Int` set on an attribute
/// that doesn't convert it stays `.other(Int)`, so ``any`` gives back what was stored.
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
    /// Any other value (a managed object, an ID, an ``ObjectList``, `Data`, `Decimal`, a
    /// transformed value, or a value of the wrong type kept until validation reports it).
    case other(Any)

    /// `value` in the case of its exact dynamic type (nil: ``none``).
    @inline(__always)
    init(_ value: Any?) {
        guard let value else {
            self = .none
            return
        }
        self.init(some: value)
    }

    /// `value` in the case of its exact dynamic type: its type's metadata is compared with the
    /// inline cases' (no runtime cast).
    init(some value: Any) {
        if let int = ValueComparison.exact(value, as: Int64.self) {
            self = .int64(int)
        } else if let string = ValueComparison.exact(value, as: String.self) {
            self = .string(string)
        } else if let double = ValueComparison.exact(value, as: Double.self) {
            self = .double(double)
        } else if let date = ValueComparison.exact(value, as: Date.self) {
            self = .date(date)
        } else if let bool = ValueComparison.exact(value, as: Bool.self) {
            self = .bool(bool)
        } else if let int = ValueComparison.exact(value, as: Int32.self) {
            self = .int32(int)
        } else if let int = ValueComparison.exact(value, as: Int16.self) {
            self = .int16(int)
        } else if let float = ValueComparison.exact(value, as: Float.self) {
            self = .float(float)
        } else {
            self = .other(value)
        }
    }

    /// The value as `Any?`, of the type it was stored with.
    @inline(__always)
    var any: Any? {
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
        case .other(let value): value
        }
    }

    /// Whether the slot holds no value.
    @inline(__always)
    var isNone: Bool {
        if case .none = self { return true }
        return false
    }

    /// The Swift type of an inline case's value (what ``SlotRule/exactType`` names); nil for
    /// ``none`` and ``other(_:)``.
    @inline(__always)
    var inlineType: ObjectIdentifier? {
        switch self {
        case .none, .other: nil
        case .int64: ObjectIdentifier(Int64.self)
        case .int32: ObjectIdentifier(Int32.self)
        case .int16: ObjectIdentifier(Int16.self)
        case .double: ObjectIdentifier(Double.self)
        case .float: ObjectIdentifier(Float.self)
        case .bool: ObjectIdentifier(Bool.self)
        case .date: ObjectIdentifier(Date.self)
        case .string: ObjectIdentifier(String.self)
        }
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
