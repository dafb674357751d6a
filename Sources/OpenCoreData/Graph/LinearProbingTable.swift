/// What a ``LinearProbingTable`` keeps in a bucket: a key (and whatever goes with it), or
/// nothing.
protocol ProbingBucket {
    associatedtype Key
    /// An empty bucket.
    init()
    /// The hash bits of the bucket's key (called on occupied buckets only).
    var hashBits: UInt64 { get }
    /// Whether the bucket holds `key` (called on occupied buckets only).
    func holds(_ key: Key) -> Bool
    /// The hash bits of `key`, as ``hashBits`` gives them for its bucket.
    static func hashBits(of key: Key) -> UInt64
    /// How many low hash bits place a key next to its neighbours instead of being hashed: keys
    /// equal but for those bits share a home run of consecutive buckets, in the order of those
    /// bits. 0 (the default) hashes every bit.
    static var runBits: UInt64 { get }
}

extension ProbingBucket {
    static var runBits: UInt64 { 0 }
}

/// An open-addressing hash table: the one behind the registry (``ObjectTable``) and the
/// context's object lists (``IdentitySet``, ``IdentityPositions``).
///
/// Keys hash to bits the buckets provide (an ID's folded key, an object's address), multiplied
/// by a constant and kept by their high bits (but for a bucket type's run bits, see
/// ``ProbingBucket/runBits``), so no `Hasher` (a seeded SipHash, about a hundred
/// instructions a call) runs. Linear probing, at most three quarters full (keys and removed
/// buckets together). No storage is allocated until the first insertion (an empty to-many list
/// costs nothing).
///
/// Beside the buckets, one control byte a bucket: 0 for an empty bucket, 1 for a removed one
/// (a tombstone), else seven other bits of the key's hash with the high bit set. A probe walks
/// the control bytes, 64 to a cache line, and looks at a bucket only when its byte matches, so
/// it passes other keys without reading them (comparing a registry's ID reads the ID object, a
/// cache miss for each bucket passed).
///
/// Removal leaves a tombstone, which probes pass and insertions reuse, unless the bucket ends
/// its run (the buckets after it, past tombstones, are empty): then it and the tombstones
/// around it become empty. Shifting the following buckets back instead (no tombstones) read
/// every bucket to the end of the run, each key's hash bits from its ID object: with runs of
/// consecutive keys (``ProbingBucket/runBits``) freeing objects in key order cost 700–1,400
/// instructions a removal. A table whose keys and tombstones reach three quarters of its
/// buckets is rebuilt without the tombstones (at twice the size when more than half are keys).
struct LinearProbingTable<Bucket: ProbingBucket> {
    private(set) var buckets = ContiguousArray<Bucket>()
    /// One byte a bucket: 0 when empty, ``removed`` for a tombstone, else ``tag(spread:)`` of its
    /// key's hash.
    private var control = ContiguousArray<UInt8>()
    /// `64 - log2(buckets.count)`: the shift that keeps a hash's high bits.
    private var shift: UInt64 = 64
    private(set) var count = 0
    /// Buckets whose key was removed and that probes must pass (control byte ``removed``).
    private(set) var tombstones = 0

    /// The control byte of a removed bucket (a tombstone); occupied buckets' bytes have the
    /// high bit set, empty ones are 0.
    private static var removed: UInt8 { 1 }

    var isEmpty: Bool { count == 0 }

    /// `bits` spread over the word: the home bucket is its high bits, the tag bits 24–30.
    @inline(__always)
    private static func spread(_ bits: UInt64) -> UInt64 { bits &* 0x9E37_79B9_7F4A_7C15 }

    /// The home bucket of hash bits: the high bits of the spread bits above ``ProbingBucket/runBits``,
    /// plus the run bits. Keys that differ only in their run bits (a registry's consecutive
    /// primary keys) have consecutive homes, so a walk over them reads consecutive memory.
    @inline(__always)
    private func home(_ bits: UInt64) -> Int {
        Self.home(bits, shift: shift, size: buckets.count)
    }

    /// ``home(_:)`` in a table of `size` buckets whose shift is `shift`.
    @inline(__always)
    private static func home(_ bits: UInt64, shift: UInt64, size: Int) -> Int {
        let run = Bucket.runBits
        let start = Int(truncatingIfNeeded: spread(bits >> run) >> shift)
        return (start &+ Int(truncatingIfNeeded: bits & ((1 << run) &- 1))) & (size &- 1)
    }

    /// The control byte of an occupied bucket whose spread hash bits are `bits` (independent of
    /// the home bucket for tables under 2³² buckets).
    @inline(__always)
    private static func tag(spread bits: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: bits >> 24) | 0x80 }

    /// The bucket holding `key`, or nil.
    @inline(__always)
    func index(of key: Bucket.Key) -> Int? {
        guard count > 0 else { return nil }
        let (index, found) = probe(key)
        return found ? index : nil
    }

    /// How far the occupied bucket at `index` is from its key's home bucket: the buckets a
    /// lookup of that key passes (for tests of how keys spread).
    func distanceFromHome(_ index: Int) -> Int {
        (index &- home(buckets[index].hashBits)) & (buckets.count &- 1)
    }

    /// The bucket holding `key`, or the bucket where it would go: the first tombstone the probe
    /// passed, else the empty bucket that ended it (buckets not empty).
    @inline(__always)
    private func probe(_ key: Bucket.Key) -> (index: Int, found: Bool) {
        let mask = buckets.count - 1
        let bits = Bucket.hashBits(of: key)
        let tag = Self.tag(spread: Self.spread(bits))
        var index = home(bits)
        var reusable = -1
        return control.withUnsafeBufferPointer { control in
            buckets.withUnsafeBufferPointer { buckets in
                while true {
                    let byte = control[index]
                    if byte == 0 { return (reusable >= 0 ? reusable : index, false) }
                    if byte == tag, buckets[index].holds(key) { return (index, true) }
                    if byte == Self.removed, reusable < 0 { reusable = index }
                    index = (index + 1) & mask
                }
            }
        }
    }

    /// The bucket holding `key` (found), or the free one where it goes, with room made for
    /// one more key: fill it with ``occupy(_:with:)``.
    mutating func insertionIndex(for key: Bucket.Key) -> (index: Int, found: Bool) {
        if buckets.isEmpty { grow(to: 8) }
        let result = probe(key)
        guard !result.found, control[result.index] == 0, (count + tombstones + 1) * 4 > buckets.count * 3 else { return result }
        grow(to: (count + 1) * 2 > buckets.count ? buckets.count * 2 : buckets.count)
        return probe(key)
    }

    /// Fills the free bucket at `index` (from ``insertionIndex(for:)``).
    mutating func occupy(_ index: Int, with bucket: consuming Bucket) {
        var moved = bucket
        occupy(index, swapping: &moved)
    }

    /// Fills the free bucket at `index` with `bucket`, which gets the empty one: nothing is
    /// copied (passing a bucket the caller just made can copy it, a retain and a release of
    /// each reference it holds).
    mutating func occupy(_ index: Int, swapping bucket: inout Bucket) {
        if control[index] == Self.removed { tombstones -= 1 }
        control[index] = Self.tag(spread: Self.spread(bucket.hashBits))
        swap(&buckets[index], &bucket)
        count += 1
    }

    /// Exchanges the bucket at `index` with `bucket`, which must hold the same key.
    mutating func exchange(_ index: Int, with bucket: inout Bucket) {
        swap(&buckets[index], &bucket)
    }

    /// The bucket at `index`. Setting it must keep its key (``occupy(_:with:)`` puts a key in).
    subscript(index: Int) -> Bucket {
        get { buckets[index] }
        set { buckets[index] = newValue }
    }

    /// Makes room for `capacity` keys without growing on the way.
    mutating func reserveCapacity(_ capacity: Int) {
        var size = Swift.max(buckets.count, 8)
        while capacity * 4 > size * 3 { size *= 2 }
        if size > buckets.count { grow(to: size) }
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    mutating func remove(_ key: Bucket.Key) -> Bool {
        guard let index = index(of: key) else { return false }
        remove(at: index)
        return true
    }

    /// Empties the bucket at `index`: a tombstone, or an empty bucket when no key lies after it
    /// in its run (then the tombstones before it are emptied too). Looks at most 64 tombstones
    /// ahead, so a removal costs a bounded number of control bytes and reads no key.
    mutating func remove(at index: Int) {
        let mask = buckets.count - 1
        buckets[index] = Bucket()
        count -= 1
        control.withUnsafeMutableBufferPointer { control in
            var end = (index + 1) & mask
            var passed = 0
            while control[end] == Self.removed, passed < 64 {
                end = (end + 1) & mask
                passed += 1
            }
            guard control[end] == 0 else {
                control[index] = Self.removed
                tombstones += 1
                return
            }
            // Nothing after `index` up to `end` is a key: empty it all, and the tombstones before.
            var bucket = index
            while bucket != end {
                control[bucket] = 0
                bucket = (bucket + 1) & mask
            }
            tombstones -= passed
            bucket = (index - 1) & mask
            while control[bucket] == Self.removed {
                control[bucket] = 0
                tombstones -= 1
                bucket = (bucket - 1) & mask
            }
        }
    }

    mutating func removeAll() {
        self = LinearProbingTable()
    }

    /// Rehashes every key into `size` buckets (dropping tombstones). The keys are moved, not
    /// copied, and the new buckets made empty one by one: `ContiguousArray(repeating:count:)`
    /// copies its value into each element through the value witnesses, and copying a bucket
    /// retains what it holds.
    ///
    /// A table with no buckets yet is given its first ones without touching its empty arrays:
    /// a mutable access to an empty array reads the storage every empty array shares, which
    /// ThreadSanitizer reports as a race with the standard library's writes to it (see
    /// `Array.init(count:initializingFrom:)`).
    private mutating func grow(to size: Int) {
        shift = UInt64(64 - size.trailingZeroBitCount)
        guard !buckets.isEmpty else {
            buckets = Self.emptyBuckets(size)
            control = ContiguousArray(repeating: 0, count: size)
            tombstones = 0
            return
        }
        var old = ContiguousArray<Bucket>()
        swap(&old, &buckets)
        let oldControl = control
        var newBuckets = Self.emptyBuckets(size)
        var newControl = ContiguousArray<UInt8>(repeating: 0, count: size)
        tombstones = 0
        let mask = size - 1, shift = self.shift
        old.withUnsafeMutableBufferPointer { old in
            newBuckets.withUnsafeMutableBufferPointer { buckets in
                newControl.withUnsafeMutableBufferPointer { control in
                    for position in old.indices where oldControl[position] & 0x80 != 0 {
                        var index = Self.home(old[position].hashBits, shift: shift, size: size)
                        while control[index] != 0 { index = (index + 1) & mask }
                        // Swap the key in: its old place gets the new place's empty bucket.
                        swap(&buckets[index], &old[position])
                        control[index] = oldControl[position]
                    }
                }
            }
        }
        buckets = newBuckets
        control = newControl
    }

    /// `count` empty buckets, each initialized in place (`count` is at least 8, so the shared
    /// empty storage is never written).
    private static func emptyBuckets(_ count: Int) -> ContiguousArray<Bucket> {
        ContiguousArray(unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count { buffer.initializeElement(at: index, to: Bucket()) }
            initialized = count
        }
    }
}

/// A set of objects by identity, on a ``LinearProbingTable``: what `Set<ObjectIdentifier>`
/// does, hashing the address without `Hasher`.
struct IdentitySet: Equatable {
    private struct Bucket: ProbingBucket {
        var member: ObjectIdentifier?
        init() {}
        init(_ member: ObjectIdentifier) { self.member = member }
        var hashBits: UInt64 { member.map(Self.hashBits(of:)) ?? 0 }
        func holds(_ key: ObjectIdentifier) -> Bool { member == key }
        static func hashBits(of key: ObjectIdentifier) -> UInt64 { UInt64(UInt(bitPattern: key)) }
    }

    private var table = LinearProbingTable<Bucket>()

    var count: Int { table.count }

    func contains(_ member: ObjectIdentifier) -> Bool { table.index(of: member) != nil }

    /// Adds `member`; returns whether it was new.
    @discardableResult
    mutating func insert(_ member: ObjectIdentifier) -> Bool {
        let (index, found) = table.insertionIndex(for: member)
        if !found { table.occupy(index, with: Bucket(member)) }
        return !found
    }

    /// Removes `member`; returns whether it was there.
    @discardableResult
    mutating func remove(_ member: ObjectIdentifier) -> Bool {
        table.remove(member)
    }

    mutating func removeAll() { table.removeAll() }

    /// Makes room for `capacity` members without growing on the way.
    mutating func reserveCapacity(_ capacity: Int) { table.reserveCapacity(capacity) }

    static func == (a: IdentitySet, b: IdentitySet) -> Bool {
        a.count == b.count && a.table.buckets.allSatisfy { bucket in bucket.member.map(b.contains) ?? true }
    }
}

/// Objects by identity, each with its position in an ``ObjectList``, on a
/// ``LinearProbingTable``: what `[ObjectIdentifier: Int]` does, hashing the address without
/// `Hasher`.
struct IdentityPositions {
    private typealias Bucket = PositionBucket<ObjectIdentifier>

    private var table = LinearProbingTable<Bucket>()

    var count: Int { table.count }

    /// The position of `member`, or nil when it is not one.
    func position(of member: ObjectIdentifier) -> Int? {
        table.index(of: member).map { table[$0].position }
    }

    /// Adds `member` at `position`; returns whether it was new (a member keeps its position).
    @discardableResult
    mutating func insert(_ member: ObjectIdentifier, position: Int) -> Bool {
        let (index, found) = table.insertionIndex(for: member)
        if !found { table.occupy(index, with: Bucket(member, position: position)) }
        return !found
    }

    /// Moves `member`, which must be one, to `position`.
    mutating func move(_ member: ObjectIdentifier, to position: Int) {
        if let index = table.index(of: member) { table[index].position = position }
    }

    /// Removes `member`; returns the position it had, or nil when it was not one.
    @discardableResult
    mutating func remove(_ member: ObjectIdentifier) -> Int? {
        guard let index = table.index(of: member) else { return nil }
        let position = table[index].position
        table.remove(at: index)
        return position
    }

    mutating func removeAll() { table.removeAll() }

    /// Makes room for `capacity` members without growing on the way.
    mutating func reserveCapacity(_ capacity: Int) { table.reserveCapacity(capacity) }
}

/// A key of a ``PositionBucket``: its hash bits, as ``ProbingBucket/hashBits(of:)`` gives them.
protocol PositionKey: Equatable {
    var positionHashBits: UInt64 { get }
}

extension ObjectIdentifier: PositionKey {
    /// The address.
    var positionHashBits: UInt64 { UInt64(UInt(bitPattern: self)) }
}

/// A bucket of a key and a position in an array beside the table: what ``IdentityPositions``
/// (an object's place in an ``ObjectList``) and ``SnapshotsByID`` (a snapshot's place in its
/// array) keep.
struct PositionBucket<Key: PositionKey>: ProbingBucket {
    var key: Key?
    var position = 0
    init() {}
    init(_ key: Key, position: Int) {
        self.key = key
        self.position = position
    }
    var hashBits: UInt64 { key?.positionHashBits ?? 0 }
    func holds(_ key: Key) -> Bool { self.key == key }
    static func hashBits(of key: Key) -> UInt64 { key.positionHashBits }
}
