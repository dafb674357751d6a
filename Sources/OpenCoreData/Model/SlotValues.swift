/// The values of an object or a snapshot, indexed by its entity's ``EntityLayout`` slots: one
/// copy-on-write buffer, shared by the row cache, a fault and its object until one of them
/// writes.
///
/// A `ManagedBuffer` of its own (``SlotStorage``) rather than `ContiguousArray<SlotValue>`, whose
/// allocation and destruction go through the standard library's generic entry points:
/// - Making a row's buffer took about 130 instructions besides the allocation: reserving room
///   consumed the empty array's singleton, asked `malloc_usable_size` for the capacity, and
///   appended slot by slot. This buffer is allocated at its size and its slots initialized in
///   place.
/// - Freeing one destroyed each slot through the enum's value witness (`swift_arrayDestroy`,
///   about 20 instructions a slot); this destroys them in code specialized for ``SlotValue``
///   (see `SlotStorage.deinit`).
/// - Copying a shared buffer before a write copied each slot through the runtime too (about 50
///   instructions a slot); this copies them in specialized code.
/// Rows are made and freed by the hundred thousand in a fetch, so these add up (a tenth of a
/// prefetch's instructions outside SQLite).
struct SlotValues: RandomAccessCollection, MutableCollection {
    typealias Index = Int
    typealias Indices = Range<Int>
    typealias Element = SlotValue

    private var storage: SlotStorage

    /// `count` slots holding `value`.
    @inline(__always)
    init(repeating value: SlotValue, count: Int) {
        storage = SlotStorage.make(count: count) { slots in slots.initialize(repeating: value, count: count) }
    }

    /// The slots `elements` lists, in order.
    init<Elements: Sequence<SlotValue>>(_ elements: Elements) {
        let all = ContiguousArray(elements)
        storage = SlotStorage.make(count: all.count) { slots in
            _ = UnsafeMutableBufferPointer(start: slots, count: all.count).initialize(from: all)
        }
    }

    /// `count` slots, which `body` initializes, every one of them, from the pointer to the first.
    @inline(__always)
    init(count: Int, initializingWith body: (UnsafeMutablePointer<SlotValue>) -> Void) {
        storage = SlotStorage.make(count: count, initializingWith: body)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }
    /// The number of slots (fixed when the buffer is made).
    var count: Int {
        @inline(__always) get { storage.count }
    }
    var isEmpty: Bool { count == 0 }
    var indices: Range<Int> { 0..<count }

    @inline(__always)
    func index(after position: Int) -> Int { position + 1 }

    @inline(__always)
    func index(before position: Int) -> Int { position - 1 }

    /// The value in slot `position`; traps when the buffer has no such slot, as an array does.
    subscript(position: Int) -> SlotValue {
        @inline(__always)
        get {
            precondition(UInt(bitPattern: position) < UInt(bitPattern: count), "slot \(position) out of range")
            return withExtendedLifetime(storage) { storage.slots[position] }
        }
        @inline(__always)
        _modify {
            precondition(UInt(bitPattern: position) < UInt(bitPattern: count), "slot \(position) out of range")
            makeUnique()
            // The storage stays where it is while `self` holds it, as an array's buffer does.
            let slots = storage.slots
            yield &slots[position]
        }
    }

    /// Calls `body` with the slots.
    @inline(__always)
    func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<SlotValue>) throws -> Result) rethrows -> Result {
        try withExtendedLifetime(storage) { try body(UnsafeBufferPointer(start: storage.slots, count: storage.count)) }
    }

    /// Calls `body` with the slots, in a buffer of their own (copied first if it was shared).
    @inline(__always)
    mutating func withUnsafeMutableBufferPointer<Result>(_ body: (inout UnsafeMutableBufferPointer<SlotValue>) throws -> Result) rethrows -> Result {
        makeUnique()
        let slots = storage.slots, count = storage.count
        var buffer = UnsafeMutableBufferPointer(start: slots, count: count)
        defer {
            // As `Array` does: `body` may write through the buffer, not replace it.
            precondition(buffer.baseAddress == slots && buffer.count == count, "withUnsafeMutableBufferPointer: the buffer was replaced")
        }
        return try withExtendedLifetime(storage) { try body(&buffer) }
    }

    /// The same values in a buffer of their own.
    func copy() -> SlotValues {
        SlotValues(storage: storage.copy())
    }

    private init(storage: SlotStorage) {
        self.storage = storage
    }

    /// Whether `self` and `other` share one buffer (neither wrote since one was copied from the other).
    func sharesBuffer(with other: SlotValues) -> Bool {
        storage === other.storage
    }

    /// Makes the buffer this value's own before a write.
    @inline(__always)
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }
}

/// The buffer of ``SlotValues``: the number of slots, then the slots.
///
/// Read through `ManagedBufferPointer`: `ManagedBuffer`'s own `header` is a class's stored
/// property, each read of it a dynamic exclusivity check (`swift_beginAccess`), and its
/// closure-taking accessors nest deeply enough that callers' closures were left out of line.
final class SlotStorage: ManagedBuffer<Int, SlotValue> {
    /// A buffer of `count` slots, which `body` initializes, every one of them.
    @inline(__always)
    static func make(count: Int, initializingWith body: (UnsafeMutablePointer<SlotValue>) -> Void) -> SlotStorage {
        // The count is set once `body` has initialized the slots: `deinit` destroys that many.
        let storage = unsafeDowncast(create(minimumCapacity: count) { _ in 0 }, to: SlotStorage.self)
        body(storage.slots)
        ManagedBufferPointer<Int, SlotValue>(unsafeBufferObject: storage).withUnsafeMutablePointerToHeader { $0.pointee = count }
        return storage
    }

    /// The number of slots.
    var count: Int {
        @inline(__always) get { ManagedBufferPointer<Int, SlotValue>(unsafeBufferObject: self).header }
    }

    /// The first slot (valid while the buffer lives).
    var slots: UnsafeMutablePointer<SlotValue> {
        @inline(__always) get { ManagedBufferPointer<Int, SlotValue>(unsafeBufferObject: self).withUnsafeMutablePointerToElements { $0 } }
    }

    /// A buffer of its own holding the same values.
    func copy() -> SlotStorage {
        let count = self.count, slots = self.slots
        return Self.make(count: count) { copy in copy.initialize(from: slots, count: count) }
    }

    deinit {
        // Slot by slot, each moved out and dropped: destroyed by the enum's own code, compiled
        // here, which releases the reference cases and does nothing for the scalar ones.
        // `deinitialize(count:)` called the runtime's `swift_arrayDestroy`, which calls the
        // enum's value witness for every slot (about 260 instructions for a row of 13 slots).
        let slots = self.slots
        for index in 0..<count { _ = (slots + index).move() }
    }
}
