import Foundation

/// The row cache of an SQLite store: the last snapshot read of each row, keyed by object ID and
/// checked against the row's `Z_OPT`, so that re-fetching an unchanged row reuses the snapshot
/// instead of decoding its columns again, and firing a fault whose row was just fetched runs no
/// SQL at all.
///
/// The store owns one cache; every context of the store's coordinator goes through that store,
/// so the cache is shared by all of them (Apple's row cache is likewise per coordinator).
/// It is bounded: past ``capacity`` rows the oldest entries are evicted first, so walking a
/// million rows in batches keeps memory flat. Thread-safe (`@unchecked Sendable`: every
/// property below `lock` is read and written under it).
///
/// Entries are keyed by the IDs' ``ObjectIDKey``s on a ``LinearProbingTable``, as the registry
/// keeps its objects: no `Hasher` (a `Dictionary` hashed each key with SipHash, and walking a
/// million rows spent a seventh of its instructions finding, adding and evicting cache entries).
/// Keys are hashed whole, not kept in runs as the registry keeps them: rows cached in key order
/// would make long runs of occupied buckets that every insertion probes past.
final class SQLiteRowCache: @unchecked Sendable {
    /// The most rows kept.
    let capacity: Int

    /// A cached snapshot, its key and when it was read (system uptime), for a context's
    /// `stalenessInterval`.
    private struct Entry: ProbingBucket {
        var key: ObjectIDKey?
        var snapshot: ObjectSnapshot?
        var readTime: TimeInterval = 0
        init() {}
        var hashBits: UInt64 { key?.mixedBits ?? 0 }
        func holds(_ key: ObjectIDKey) -> Bool { self.key == key }
        static func hashBits(of key: ObjectIDKey) -> UInt64 { key.mixedBits }
    }

    /// Guards the entries and their order (`@exclusivity(unchecked)`: the lock already keeps
    /// accesses from overlapping).
    private let lock = NSLock()
    @exclusivity(unchecked) private var entries = LinearProbingTable<Entry>()
    /// Insertion order, oldest first from `head`; keys may be stale (removed or re-inserted).
    @exclusivity(unchecked) private var order: [ObjectIDKey] = []
    @exclusivity(unchecked) private var head = 0
    private(set) var hits = 0
    private(set) var misses = 0
    /// How many times a save (or a removal) changed the cache: a fetch run outside the
    /// coordinator's lock caches its rows only if this did not move while it read them.
    private var writes = 0

    init(capacity: Int = 10_000) {
        self.capacity = max(capacity, 1)
    }

    var count: Int { lock.withLock { entries.count } }

    /// The cached snapshot of `objectID` if it was read at `version`; counts a hit or a miss.
    func snapshot(for objectID: NSManagedObjectID, version: Int64) -> ObjectSnapshot? {
        lock.withLock {
            if let index = entries.index(of: objectID.key), let snapshot = entries[index].snapshot, snapshot.version == version {
                hits += 1
                return snapshot
            }
            misses += 1
            return nil
        }
    }

    /// The cached snapshots of `objectIDs` whatever their version, and the IDs the cache does not
    /// hold, under one lock (counts a hit or a miss each). The store fires faults from it: saves
    /// keep cached rows current.
    /// With a non-negative `maxAge`, entries read more than `maxAge` seconds ago count as missing.
    func lookUp(_ objectIDs: [NSManagedObjectID], maxAge: TimeInterval = -1) -> (found: [ObjectSnapshot], missing: [NSManagedObjectID]) {
        lock.withLock {
            var found: [ObjectSnapshot] = []
            // The IDs missing are listed from the first ID found on: until then, they are the
            // first IDs asked for (all of them when none is cached, as in a walk of new rows).
            var missing: [NSManagedObjectID]?
            let oldest = maxAge < 0 ? -Double.infinity : ProcessInfo.processInfo.systemUptime - maxAge
            for position in objectIDs.indices {
                let id = objectIDs[position]
                if let index = entries.index(of: id.key), entries[index].readTime >= oldest, let snapshot = entries[index].snapshot {
                    if missing == nil { missing = Array(objectIDs[..<position]) }
                    found.append(snapshot)
                } else {
                    missing?.append(id)
                }
            }
            let allMissing = missing ?? objectIDs
            hits += found.count
            misses += allMissing.count
            return (found, allMissing)
        }
    }

    /// Whether `objectID` has a cached snapshot (counts nothing).
    func contains(_ objectID: NSManagedObjectID) -> Bool {
        lock.withLock { entries.index(of: objectID.key) != nil }
    }

    /// Keeps the rows a save wrote, under one lock and as one write (see ``writeCount``):
    /// `inserted` at version 1 and `updated` at their next version, without their to-many
    /// relationships (rows don't carry them).
    ///
    /// When they are more rows than ``capacity``, the first ones are only forgotten (an older
    /// snapshot of one of them must not stay): kept, they would be evicted by the later ones
    /// of the same save at once.
    func insertSaved(inserted: [ObjectSnapshot], updated: [ObjectSnapshot]) {
        let now = ProcessInfo.processInfo.systemUptime
        lock.withLock {
            writes &+= 1
            var forgotten = inserted.count + updated.count - capacity
            for (snapshots, isInsert) in [(inserted, true), (updated, false)] {
                // By index: iterating copies each snapshot, retaining (and later releasing) each
                // of its references once more.
                for index in snapshots.indices {
                    if forgotten > 0 {
                        forgotten -= 1
                        entries.remove(snapshots[index].objectID.key)
                        continue
                    }
                    var cached = snapshots[index]
                    cached.removeToMany()
                    cached.version = isInsert ? 1 : cached.version + 1
                    insertLocked(cached, now: now)
                }
            }
        }
    }

    /// Keeps every snapshot of `snapshots`, rows just read under the coordinator's lock, under
    /// one lock.
    func insert<S: Sequence>(contentsOf snapshots: S) where S.Element == ObjectSnapshot {
        let now = ProcessInfo.processInfo.systemUptime
        lock.withLock { for snapshot in snapshots { insertLocked(snapshot, now: now) } }
    }

    /// The count of writes (saved rows and removals) so far, read before a fetch that runs
    /// outside the coordinator's lock starts reading.
    var writeCount: Int { lock.withLock { writes } }

    /// Keeps every snapshot of `snapshots`, rows a fetch read outside the coordinator's lock,
    /// unless the cache was written since `writeCount` was `count`: a save that committed while
    /// the fetch read may have cached newer rows (or forgotten deleted ones) that these older
    /// ones must not replace. Returns whether they were kept.
    ///
    /// A save caches its rows after its commit, so rows read before that commit are either
    /// kept first and then replaced by the save, or not kept at all.
    @discardableResult
    func insert<S: Sequence>(contentsOf snapshots: S, ifNoWritesSince count: Int) -> Bool where S.Element == ObjectSnapshot {
        let now = ProcessInfo.processInfo.systemUptime
        return lock.withLock {
            guard writes == count else { return false }
            for snapshot in snapshots { insertLocked(snapshot, now: now) }
            return true
        }
    }

    /// Keeps `snapshot` (taken, not copied: a copy retains and later releases each of its
    /// references).
    private func insertLocked(_ snapshot: consuming ObjectSnapshot, now: TimeInterval = ProcessInfo.processInfo.systemUptime) {
        let key = snapshot.objectID.key
        let (index, found) = entries.insertionIndex(for: key)
        // Filled field by field and swapped in: making it with an initializer and passing it
        // on each copied the entry (a retain and a release of each reference it holds).
        var entry = Entry()
        entry.key = key
        entry.readTime = now
        entry.snapshot = consume snapshot
        if found {
            entries.exchange(index, with: &entry)
        } else {
            entries.occupy(index, swapping: &entry)
            order.append(key)
        }
        while entries.count > capacity, head < order.count {
            let oldest = order[head]
            head += 1
            entries.remove(oldest)
        }
        compactOrderIfNeeded()
    }

    /// Forgets `objectIDs` (deleted rows, or rows a save rewrote without a new snapshot).
    func remove<S: Sequence>(_ objectIDs: S) where S.Element == NSManagedObjectID {
        lock.withLock {
            writes &+= 1
            for objectID in objectIDs { entries.remove(objectID.key) }
        }
    }

    func removeAll() {
        lock.withLock {
            writes &+= 1
            entries.removeAll()
            order.removeAll()
            head = 0
        }
    }

    /// Drops the evicted prefix of the order list once it is longer than the cache. (Keys that
    /// `remove(_:)` dropped stay in the list until their turn comes; evicting them is a no-op.)
    private func compactOrderIfNeeded() {
        guard head > capacity else { return }
        order.removeFirst(head)
        head = 0
    }
}
