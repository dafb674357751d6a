/// Snapshots looked up by object ID, each under its own ``ObjectSnapshot/objectID``: what a
/// context's backing answers when faults fire.
///
/// The snapshots stay in one array, as the store read them; a ``LinearProbingTable`` of the
/// IDs' ``ObjectIDKey``s gives each one's position, so a lookup multiplies one word and compares
/// three, and the table's buckets hold no references to retain or release. (A dictionary keyed
/// by `NSManagedObjectID` went through `NSObject`'s `hash` and a dynamic cast in `isEqual(_:)`
/// for every probe, about 1,300 instructions a lookup in a batch of faults; one keyed by
/// `ObjectIDKey` still ran a seeded SipHash and copied each snapshot in and out of its buckets,
/// about 650 instructions an object when walking a million rows in batches.)
struct SnapshotsByID: Sequence {
    /// An ID's key and the position of its snapshot in ``snapshots``.
    private struct Bucket: ProbingBucket {
        var key: ObjectIDKey?
        var position = 0
        init() {}
        init(_ key: ObjectIDKey, position: Int) {
            self.key = key
            self.position = position
        }
        var hashBits: UInt64 { key?.probeBits ?? 0 }
        func holds(_ key: ObjectIDKey) -> Bool { self.key == key }
        static func hashBits(of key: ObjectIDKey) -> UInt64 { key.probeBits }
    }

    private var snapshots: [ObjectSnapshot] = []
    private var table = LinearProbingTable<Bucket>()

    init() {}

    init(minimumCapacity: Int) {
        snapshots.reserveCapacity(minimumCapacity)
        table.reserveCapacity(minimumCapacity)
    }

    /// The snapshot of `id`, if there is one.
    subscript(id: NSManagedObjectID) -> ObjectSnapshot? {
        table.index(of: id.key).map { snapshots[table[$0].position] }
    }

    /// Keeps `snapshot` under its ID; returns false (and keeps the first) when one was there.
    @discardableResult
    mutating func insertIfAbsent(_ snapshot: ObjectSnapshot) -> Bool {
        let key = snapshot.objectID.key
        let (index, found) = table.insertionIndex(for: key)
        guard !found else { return false }
        table.occupy(index, with: Bucket(key, position: snapshots.count))
        snapshots.append(snapshot)
        return true
    }

    /// Keeps `snapshot` under its ID, replacing one that was there.
    mutating func update(_ snapshot: ObjectSnapshot) {
        let key = snapshot.objectID.key
        let (index, found) = table.insertionIndex(for: key)
        if found {
            snapshots[table[index].position] = snapshot
        } else {
            table.occupy(index, with: Bucket(key, position: snapshots.count))
            snapshots.append(snapshot)
        }
    }

    /// ``update(_:)`` with each of `read`, in order (a later snapshot of an ID replaces an
    /// earlier one). Into an empty value the array is taken as it is, not copied snapshot by
    /// snapshot, unless it names an ID twice.
    mutating func update(contentsOf read: [ObjectSnapshot]) {
        guard snapshots.isEmpty else {
            for snapshot in read { update(snapshot) }
            return
        }
        table.reserveCapacity(read.count)
        // By position: iterating the snapshots would copy each (retaining its references).
        for position in read.indices {
            let key = read[position].objectID.key
            let (index, found) = table.insertionIndex(for: key)
            guard !found else {
                // An ID twice: start again, one snapshot at a time.
                table = LinearProbingTable()
                table.reserveCapacity(read.count)
                for snapshot in read { update(snapshot) }
                return
            }
            table.occupy(index, with: Bucket(key, position: position))
        }
        snapshots = read
    }

    var isEmpty: Bool { snapshots.isEmpty }

    /// The snapshots, in the order they were first kept.
    func makeIterator() -> IndexingIterator<[ObjectSnapshot]> {
        snapshots.makeIterator()
    }
}
