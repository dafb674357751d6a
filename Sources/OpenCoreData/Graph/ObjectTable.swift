/// The table behind ``ObjectRegistry``: object IDs to unretained objects, on a
/// ``LinearProbingTable``.
///
/// IDs are found by their ``ObjectIDKey`` (equal keys, equal IDs), hashed by its folded bits
/// (``ObjectIDKey/runBits``): no `Hasher` and no dynamic dispatch. Eight consecutive primary
/// keys of an entity have consecutive home buckets, so registering, finding or forgetting a
/// batch of rows in key order reads a few cache lines instead of one per ID (a million
/// registered objects are far bigger than the caches). Each bucket is one word, the object
/// (unretained, as the registry holds it), whose ``NSManagedObject/objectID`` is the bucket's
/// key, plus the table's control byte, which spares a probe reading the objects it passes.
/// Holding the ID beside the object took a second word a bucket (16.8 MB of two million
/// buckets, walking a million faults) to save reading the object on a match, which its finder
/// reads next anyway. So an object's ID must not change while it is registered: the registry
/// moves it (``ObjectRegistry/reassign(_:to:)``), and every other change of an ID happens to
/// an object that is not (yet, or any more) registered.
///
/// A value type with no lock of its own: the registry guards it.
struct ObjectTable {
    private struct Bucket: ProbingBucket {
        var object: Unmanaged<NSManagedObject>?
        init() {}
        init(object: Unmanaged<NSManagedObject>) { self.object = object }
        /// The key of the object's ID, read without retaining the object or the ID. (The
        /// object's memory is valid: an entry never outlives its object, and a `deinit` on
        /// another thread waits on the registry's lock, held by whoever reads the table.)
        @inline(__always)
        private var key: ObjectIDKey? {
            object.map { object in object._withUnsafeGuaranteedRef { $0.objectID.key } }
        }
        @inline(__always)
        var hashBits: UInt64 { key?.runBits ?? 0 }
        @inline(__always)
        func holds(_ id: NSManagedObjectID) -> Bool {
            guard let object else { return false }
            return object._withUnsafeGuaranteedRef { object in object.objectID === id || object.objectID.key == id.key }
        }
        static func hashBits(of key: NSManagedObjectID) -> UInt64 { key.key.runBits }
        static var runBits: UInt64 { 3 }
    }

    private var table = LinearProbingTable<Bucket>()

    var count: Int { table.count }

    /// The object registered under `id`, unretained.
    subscript(id: NSManagedObjectID) -> Unmanaged<NSManagedObject>? {
        table.index(of: id).flatMap { table[$0].object }
    }

    /// Registers `object` under `id` (replacing what was there).
    mutating func set(_ object: Unmanaged<NSManagedObject>, for id: NSManagedObjectID) {
        update(id) { _ in object }
    }

    /// Runs `body` on the object registered under `id` (nil when none) and stores what it
    /// returns there: one probe for a read and a write. Returns the object stored.
    @discardableResult
    mutating func update(_ id: NSManagedObjectID,
                         _ body: (Unmanaged<NSManagedObject>?) -> Unmanaged<NSManagedObject>) -> Unmanaged<NSManagedObject> {
        let (index, found) = table.insertionIndex(for: id)
        let object = body(found ? table[index].object : nil)
        assert(object._withUnsafeGuaranteedRef { $0.objectID.key == id.key }, "an object is registered under its own ID, not \(id)")
        if found {
            table[index].object = object
        } else {
            table.occupy(index, with: Bucket(object: object))
        }
        return object
    }

    /// Makes room for `capacity` entries without growing on the way.
    mutating func reserveCapacity(_ capacity: Int) { table.reserveCapacity(capacity) }

    /// Unregisters `id` when `object` is registered under it; returns whether it was.
    mutating func remove(_ id: NSManagedObjectID, ifObject object: Unmanaged<NSManagedObject>) -> Bool {
        guard let index = table.index(of: id), table[index].object?.toOpaque() == object.toOpaque() else { return false }
        table.remove(at: index)
        return true
    }

    /// Every registered object, unretained.
    var objects: [Unmanaged<NSManagedObject>] {
        var result: [Unmanaged<NSManagedObject>] = []
        result.reserveCapacity(count)
        for bucket in table.buckets { if let object = bucket.object { result.append(object) } }
        return result
    }

    mutating func removeAll() { table.removeAll() }
}
