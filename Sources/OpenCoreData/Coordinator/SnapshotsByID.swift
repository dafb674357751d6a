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
    private typealias Bucket = PositionBucket<ObjectIDKey>

    /// The snapshots kept, nil where one was taken (``take(_:)``).
    private var snapshots: [ObjectSnapshot?] = []
    private var table = LinearProbingTable<Bucket>()

    init() {}

    init(minimumCapacity: Int) {
        snapshots.reserveCapacity(minimumCapacity)
        table.reserveCapacity(minimumCapacity)
    }

    /// The snapshot of `id`, if there is one (and it was not taken).
    subscript(id: NSManagedObjectID) -> ObjectSnapshot? {
        table.index(of: id.key).flatMap { snapshots[table[$0].position] }
    }

    /// The snapshot of `id`, moved out: what a caller that keeps the snapshot (a fault loading
    /// it) takes, without the retain of each of its references that a copy costs and the
    /// release of each when the copy left here goes. `id` has no snapshot here afterwards.
    mutating func take(_ id: NSManagedObjectID) -> ObjectSnapshot? {
        guard let index = table.index(of: id.key) else { return nil }
        return snapshots[table[index].position].take()
    }

    /// Keeps `snapshot` under its ID; returns false (and keeps the first) when one was there
    /// (a taken one counts as absent).
    @discardableResult
    mutating func insertIfAbsent(_ snapshot: ObjectSnapshot) -> Bool {
        let key = snapshot.objectID.key
        let (index, found) = table.insertionIndex(for: key)
        if found {
            let position = table[index].position
            guard case .none = snapshots[position] else { return false }
            snapshots[position] = snapshot
            return true
        }
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
    /// earlier one). Into an empty value the snapshots are moved, not copied snapshot by
    /// snapshot (a retain of each reference), unless `read` names an ID twice.
    mutating func update(contentsOf read: consuming [ObjectSnapshot]) {
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
        // Moved from the last: `popLast()` hands each snapshot over without copying it, into
        // room left uninitialized (`init(repeating: nil, count:)` went through the optional's
        // value witnesses, about 100 instructions a snapshot).
        var rest = consume read
        let count = rest.count
        snapshots = [ObjectSnapshot?](count: count) { base in
            var position = count
            while let snapshot = rest.popLast() {
                position -= 1
                (base + position).initialize(to: consume snapshot)
            }
        }
    }

    /// Whether no snapshot was kept (taken ones count as kept).
    var isEmpty: Bool { snapshots.isEmpty }

    /// The snapshots not taken, in the order they were first kept.
    func makeIterator() -> Iterator {
        Iterator(base: snapshots.makeIterator())
    }

    /// Iterates over the snapshots not taken.
    struct Iterator: IteratorProtocol {
        fileprivate var base: IndexingIterator<[ObjectSnapshot?]>

        mutating func next() -> ObjectSnapshot? {
            while let snapshot = base.next() {
                if let snapshot { return snapshot }
            }
            return nil
        }
    }
}
