/// The table behind ``ObjectRegistry``: object IDs to unretained objects, on a
/// ``LinearProbingTable``.
///
/// IDs are found by their ``ObjectIDKey`` (equal keys, equal IDs), hashed by its folded bits
/// (``ObjectIDKey/runBits``): no `Hasher` and no dynamic dispatch. Eight consecutive primary
/// keys of an entity have consecutive home buckets, so registering, finding or forgetting a
/// batch of rows in key order reads a few cache lines instead of one per ID (a million
/// registered objects are far bigger than the caches). Each bucket is two words:
/// the ID (retained) and the object (unretained, as the registry holds it), plus the table's
/// control byte, which spares a probe reading the IDs it passes.
///
/// A value type with no lock of its own: the registry guards it.
struct ObjectTable {
    private struct Bucket: ProbingBucket {
        var id: NSManagedObjectID?
        var object: Unmanaged<NSManagedObject>?
        init() {}
        init(id: NSManagedObjectID, object: Unmanaged<NSManagedObject>) {
            self.id = id
            self.object = object
        }
        var hashBits: UInt64 { id?.key.runBits ?? 0 }
        func holds(_ key: NSManagedObjectID) -> Bool {
            guard let id else { return false }
            return id === key || id.key == key.key
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
        if found {
            table[index].object = object
        } else {
            table.occupy(index, with: Bucket(id: id, object: object))
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
