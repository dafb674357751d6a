/// Snapshots looked up by object ID, each under its own ``ObjectSnapshot/objectID``: what a
/// context's backing answers when faults fire.
///
/// Keyed by the IDs' ``ObjectIDKey``s, so a lookup hashes one word and compares three, where a
/// dictionary keyed by `NSManagedObjectID` goes through `NSObject`'s `hash` and a dynamic cast
/// in `isEqual(_:)` for every probe (about 1,300 instructions a lookup in a batch of faults).
struct SnapshotsByID: Sequence {
    private var byKey: [ObjectIDKey: ObjectSnapshot] = [:]

    init() {}

    init(minimumCapacity: Int) {
        byKey = Dictionary(minimumCapacity: minimumCapacity)
    }

    /// The snapshot of `id`, if there is one.
    subscript(id: NSManagedObjectID) -> ObjectSnapshot? {
        byKey[id.key]
    }

    /// Keeps `snapshot` under its ID; returns false (and keeps the first) when one was there.
    @discardableResult
    mutating func insertIfAbsent(_ snapshot: ObjectSnapshot) -> Bool {
        let key = snapshot.objectID.key
        guard byKey[key] == nil else { return false }
        byKey[key] = snapshot
        return true
    }

    /// Keeps `snapshot` under its ID, replacing one that was there.
    mutating func update(_ snapshot: ObjectSnapshot) {
        byKey[snapshot.objectID.key] = snapshot
    }

    var isEmpty: Bool { byKey.isEmpty }

    func makeIterator() -> Dictionary<ObjectIDKey, ObjectSnapshot>.Values.Iterator {
        byKey.values.makeIterator()
    }
}
