import CSwiftRuntime

/// A reference that, like `weak`, does not keep its object alive and reads as nil once the
/// object's deinitialization has begun, without giving the object a side table.
///
/// The first Swift `weak` reference to an object moves the object's reference counts into a
/// side table for the rest of its life, and from then on every retain and release of the object
/// takes the runtime's slow path (about 40 instructions more each). The context, the entities,
/// the model, the stores and the coordinator are retained and released dozens of times per
/// object inserted or fetched, so the library's back references to them (an object's context, a
/// property's entity, an entity's model…) are these instead.
///
/// It holds one *unowned* count of its object (as a Swift `unowned` reference does), which keeps
/// the object's memory, not the object, allocated after its deinitialization; reading it asks
/// the runtime's atomic `swift_tryRetain`, which refuses an object whose deinitialization has
/// begun, so a read never touches freed memory, from any thread. The memory goes when the last
/// such reference is dropped. Replacing a reference is not atomic: its owner guards it (the
/// context's queue for an object's context; the model's immutability once in use for the
/// model's references), as it guarded the `weak` variable this replaces.
///
/// Only for native Swift objects: on Linux, `NSObject` subclasses are native too (the context's
/// object registry relies on the same runtime functions).
package struct UnretainedReference<Object: AnyObject>: ~Copyable {
    private let pointer: UnsafeMutableRawPointer?

    /// A reference to `object` (none for nil).
    package init(_ object: Object?) {
        guard let object else {
            pointer = nil
            return
        }
        let raw = Unmanaged.passUnretained(object).toOpaque()
        swift_unownedRetain(raw)
        pointer = raw
    }

    deinit {
        if let pointer { swift_unownedRelease(pointer) }
    }

    /// The object, retained, or nil when there is none or its deinitialization has begun.
    @inline(__always)
    package var object: Object? {
        guard let pointer, let retained = swift_tryRetain(pointer) else { return nil }
        return Unmanaged<Object>.fromOpaque(retained).takeRetainedValue()
    }

    /// The object, not retained, or nil when there is none or its deinitialization has begun:
    /// ``object`` without the atomic retain and release.
    ///
    /// Only for a caller that knows something else keeps the object alive while it uses the
    /// result (through `_withUnsafeGuaranteedRef`): the test reads the object's reference counts
    /// once and cannot stop a deinitialization that another thread starts afterwards. An
    /// object's context qualifies on the context's queue (see
    /// `NSManagedObject.unretainedContext`).
    @inline(__always)
    package var unretainedObject: Unmanaged<Object>? {
        guard let pointer, !swift_isDeallocating(pointer) else { return nil }
        return Unmanaged<Object>.fromOpaque(pointer)
    }
}

// `@unchecked Sendable` where the object is: the pointer never changes, and reading it goes
// through the runtime's atomic `swift_tryRetain`.
extension UnretainedReference: @unchecked Sendable where Object: Sendable {}

/// An ``UnretainedReference`` in a class, for what can't hold a noncopyable value: an escaping
/// closure's capture (in place of `[weak x]`) or an array's element.
package final class UnretainedBox<Object: AnyObject>: @unchecked Sendable {
    // @unchecked Sendable: `reference` never changes, and reading it is atomic.
    private let reference: UnretainedReference<Object>

    package init(_ object: Object?) {
        reference = UnretainedReference(object)
    }

    /// The object, retained, or nil once its deinitialization has begun.
    package var object: Object? { reference.object }
}
