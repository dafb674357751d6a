/// The table behind ``ObjectRegistry``: object IDs to unretained objects, by open addressing.
///
/// IDs are found by their ``ObjectIDKey`` (equal keys, equal IDs), hashed by multiplying its
/// folded bits (``ObjectIDKey/mixedBits``) with a constant and keeping the high bits: no
/// `Hasher` (a seeded SipHash, about a hundred instructions a call) and no dynamic dispatch.
/// Linear probing, at most three quarters full; removal shifts the following entries back, so
/// there are no tombstones. Each bucket is two words: the ID (retained) and the object
/// (unretained, as the registry holds it).
///
/// A value type with no lock of its own: the registry guards it.
struct ObjectTable {
    private struct Bucket {
        var id: NSManagedObjectID?
        var object: Unmanaged<NSManagedObject>?
    }

    private var buckets: ContiguousArray<Bucket>
    /// `64 - log2(buckets.count)`: the shift that keeps a hash's high bits.
    private var shift: UInt64
    private(set) var count = 0

    init() {
        buckets = ContiguousArray(repeating: Bucket(), count: 16)
        shift = 60
    }

    var isEmpty: Bool { count == 0 }

    /// The home bucket of `id`.
    @inline(__always)
    private func home(of id: NSManagedObjectID) -> Int {
        Int(truncatingIfNeeded: (id.key.mixedBits &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The bucket holding `id`, or the empty bucket where it would go.
    @inline(__always)
    private func probe(_ id: NSManagedObjectID) -> (index: Int, found: Bool) {
        let mask = buckets.count - 1
        var index = home(of: id)
        let key = id.key
        return buckets.withUnsafeBufferPointer { buckets in
            while true {
                guard let stored = buckets[index].id else { return (index, false) }
                if stored === id || stored.key == key { return (index, true) }
                index = (index + 1) & mask
            }
        }
    }

    /// The object registered under `id`, unretained.
    subscript(id: NSManagedObjectID) -> Unmanaged<NSManagedObject>? {
        let (index, found) = probe(id)
        return found ? buckets[index].object : nil
    }

    /// Registers `object` under `id` (replacing what was there).
    mutating func set(_ object: Unmanaged<NSManagedObject>, for id: NSManagedObjectID) {
        _ = update(id) { _ in object }
    }

    /// Runs `body` on the object registered under `id` (nil when none) and stores what it
    /// returns there: one probe for a read and a write. Returns the object stored.
    @discardableResult
    mutating func update(_ id: NSManagedObjectID,
                         _ body: (Unmanaged<NSManagedObject>?) -> Unmanaged<NSManagedObject>) -> Unmanaged<NSManagedObject> {
        var (index, found) = probe(id)
        if !found && (count + 1) * 4 > buckets.count * 3 {
            grow(to: buckets.count * 2)
            index = probe(id).index
        }
        let object = body(found ? buckets[index].object : nil)
        if found {
            buckets[index].object = object
        } else {
            buckets[index] = Bucket(id: id, object: object)
            count += 1
        }
        return object
    }

    /// Makes room for `capacity` entries without growing on the way.
    mutating func reserveCapacity(_ capacity: Int) {
        var size = buckets.count
        while capacity * 4 > size * 3 { size *= 2 }
        if size > buckets.count { grow(to: size) }
    }

    /// Unregisters `id` when `object` is registered under it; returns whether it was.
    mutating func remove(_ id: NSManagedObjectID, ifObject object: Unmanaged<NSManagedObject>) -> Bool {
        let (index, found) = probe(id)
        guard found, buckets[index].object?.toOpaque() == object.toOpaque() else { return false }
        removeBucket(at: index)
        return true
    }

    /// Every registered object, unretained.
    var objects: [Unmanaged<NSManagedObject>] {
        var result: [Unmanaged<NSManagedObject>] = []
        result.reserveCapacity(count)
        for bucket in buckets { if let object = bucket.object { result.append(object) } }
        return result
    }

    mutating func removeAll() {
        self = ObjectTable()
    }

    /// Empties bucket `index` and moves back the entries after it that probed past it.
    private mutating func removeBucket(at index: Int) {
        let mask = buckets.count - 1
        var hole = index
        var next = (index + 1) & mask
        while let id = buckets[next].id {
            let home = home(of: id)
            // The entry at `next` may fill the hole when its home is not cyclically within
            // (hole, next].
            let distanceToNext = (next - home) & mask
            let distanceToHole = (hole - home) & mask
            if distanceToHole < distanceToNext {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = Bucket()
        count -= 1
    }

    private mutating func grow(to size: Int) {
        let old = buckets
        buckets = ContiguousArray(repeating: Bucket(), count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
        let mask = size - 1
        for bucket in old {
            guard let id = bucket.id else { continue }
            var index = home(of: id)
            while buckets[index].id != nil { index = (index + 1) & mask }
            buckets[index] = bucket
        }
    }
}
