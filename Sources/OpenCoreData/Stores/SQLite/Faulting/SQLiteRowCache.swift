import Foundation

/// The row cache of an SQLite store: the last snapshot read of each row, keyed by object ID and
/// checked against the row's `Z_OPT`, so that re-fetching an unchanged row reuses the snapshot
/// instead of decoding its columns again, and firing a fault whose row was just fetched runs no
/// SQL at all.
///
/// The store owns one cache; every context of the store's coordinator goes through that store,
/// so the cache is shared by all of them (Apple's row cache is likewise per coordinator).
/// It is bounded: past ``capacity`` rows the oldest entries are evicted first, so fetching a
/// million rows keeps memory flat. (The rows of a `fetchBatchSize` walk's batches are not
/// added: their objects hold them until the walk turns them back into faults.) Thread-safe
/// (`@unchecked Sendable`: every property below `lock` is read and written under it).
///
/// The entries live in a ring in the order they were first cached: a new row takes the place
/// after the last one, evicting the row there once the ring is full. An index on a
/// ``LinearProbingTable`` maps each ID's ``ObjectIDKey`` to its place, eight bytes a key. So a
/// fetch writes its rows one after the other, and the table it probes stays small. (Kept in the
/// table itself, 80 bytes a bucket and 32,768 buckets under churn, each row a fetch cached
/// missed the processor's caches: storing it took a tenth of W3's time outside SQLite.)
///
/// Once ``keptUnheld`` newer rows were cached, a row is looked at once more: if no object holds
/// it any more (no context's object, registry entry or fault refers to its ID, nor another
/// cached row as a to-one destination), it is forgotten; otherwise it stays until the ring
/// comes round to it. Apple's row cache lets a row go with its last object; this one keeps the
/// last rows read a little longer, so that re-fetching them right after their objects went
/// reuses them. Freed then, a row's memory is still warm; freed when the ring came round to it,
/// a hundred fetches of a hundred rows later, it had gone cold (W3 spent about 3% of its time
/// on those misses).
///
/// Differs from an exact bound: a row forgotten before its turn (unheld, deleted, or rewritten
/// by a batch update) leaves its place empty until the ring comes round to it, so the cache may
/// hold fewer than ``capacity`` rows for a while.
final class SQLiteRowCache: @unchecked Sendable {
    /// The most rows kept.
    let capacity: Int
    /// How many newer rows a row no object holds stays cached for.
    let keptUnheld: Int

    /// A place of the ring: a cached snapshot, its key and when it was read (system uptime), for
    /// a context's `stalenessInterval`; empty when `key` is nil.
    private struct Entry {
        var key: ObjectIDKey?
        var snapshot: ObjectSnapshot?
        var readTime: TimeInterval = 0
    }

    /// Where the index keeps a key: the low 32 bits of its ``ObjectIDKey/probeBits`` and its
    /// place in the ring.
    private struct Place: ProbingBucket {
        var bits: UInt32 = 0
        var position: Int32 = 0
        init() {}
        init(bits: UInt32, position: Int) {
            self.bits = bits
            self.position = Int32(truncatingIfNeeded: position)
        }
        var hashBits: UInt64 { UInt64(bits) }
        /// Equal bits first: the ring's entry is read only for the key sought (or a rare
        /// collision of 32 bits).
        func holds(_ probe: Probe) -> Bool { bits == probe.bits && probe.ring[Int(position)].key == probe.key }
        static func hashBits(of probe: Probe) -> UInt64 { UInt64(probe.bits) }
    }

    /// A key looked up in the index, with the ring its places point into (valid for the call
    /// it is made for, under the lock).
    private struct Probe {
        let key: ObjectIDKey
        let bits: UInt32
        let ring: UnsafePointer<Entry>
        init(_ key: ObjectIDKey, in ring: UnsafePointer<Entry>) {
            self.key = key
            bits = UInt32(truncatingIfNeeded: key.probeBits)
            self.ring = ring
        }
    }

    /// Guards the ring, its index and the counts (`@exclusivity(unchecked)`: the lock already
    /// keeps accesses from overlapping).
    private let lock = NSLock()
    /// The entries in the order they were first cached, from `next` on once it is full:
    /// ``capacity`` places, the first `filled` of them initialized. (Places the ring has not
    /// reached are not touched, so a store that caches few rows uses little of them; an array
    /// would be retained around each probe of the index, which reads the ring.)
    private let ring: UnsafeMutablePointer<Entry>
    @exclusivity(unchecked) private var filled = 0
    /// The place the next new row takes once the ring is full: the oldest one.
    @exclusivity(unchecked) private var next = 0
    @exclusivity(unchecked) private var places = LinearProbingTable<Place>()
    private(set) var hits = 0
    private(set) var misses = 0
    /// How many times a save (or a removal) changed the cache: a fetch run outside the
    /// coordinator's lock caches its rows only if this did not move while it read them.
    private var writes = 0

    init(capacity: Int = 10_000, keptUnheld: Int = 128) {
        self.capacity = max(capacity, 1)
        self.keptUnheld = max(keptUnheld, 1)
        ring = .allocate(capacity: self.capacity)
    }

    deinit {
        ring.deinitialize(count: filled)
        ring.deallocate()
    }

    var count: Int { lock.withLock { places.count } }

    /// The ring place of `key`, or nil (under the lock).
    private func position(of key: ObjectIDKey) -> Int? {
        guard !places.isEmpty else { return nil }
        return places.index(of: Probe(key, in: ring)).map { Int(places[$0].position) }
    }

    /// The cached snapshot of `objectID` if it was read at `version`; counts a hit or a miss.
    func snapshot(for objectID: NSManagedObjectID, version: Int64) -> ObjectSnapshot? {
        lock.withLock {
            if let position = position(of: objectID.key), let snapshot = ring[position].snapshot, snapshot.version == version {
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
                if let place = self.position(of: id.key), ring[place].readTime >= oldest, let snapshot = ring[place].snapshot {
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
        lock.withLock { position(of: objectID.key) != nil }
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
                        removeLocked(snapshots[index].objectID.key)
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

    /// Keeps `snapshots`, rows just read under the coordinator's lock, under one lock (past
    /// ``capacity``, see ``insertReadLocked(_:now:addingNew:)``). Unless `addingNew`, only the
    /// rows the cache holds are replaced and the others left out: what the store does with the
    /// rows of a `fetchBatchSize` walk, which must still replace older ones a later lookup would
    /// otherwise answer with.
    func insert(contentsOf snapshots: [ObjectSnapshot], addingNew: Bool = true) {
        let now = ProcessInfo.processInfo.systemUptime
        lock.withLock {
            // A walk of rows nothing else read finds the cache empty: nothing to look up.
            if !addingNew && places.isEmpty { return }
            insertReadLocked(snapshots, now: now, addingNew: addingNew)
        }
    }

    /// The count of writes (saved rows and removals) so far, read before a fetch that runs
    /// outside the coordinator's lock starts reading.
    var writeCount: Int { lock.withLock { writes } }

    /// Keeps `snapshots`, rows a fetch read outside the coordinator's lock (past ``capacity``,
    /// see ``insertReadLocked(_:now:addingNew:)``), unless the cache was written since
    /// `writeCount` was `count`: a save that committed while the fetch read may have cached
    /// newer rows (or forgotten deleted ones) that these older ones must not replace. Returns
    /// whether they were kept.
    ///
    /// A save caches its rows after its commit, so rows read before that commit are either
    /// kept first and then replaced by the save, or not kept at all.
    @discardableResult
    func insert(contentsOf snapshots: [ObjectSnapshot], ifNoWritesSince count: Int) -> Bool {
        let now = ProcessInfo.processInfo.systemUptime
        return lock.withLock {
            guard writes == count else { return false }
            insertReadLocked(snapshots, now: now, addingNew: true)
            return true
        }
    }

    /// Keeps the rows one read returned, `snapshots`, in order (under the lock).
    ///
    /// Of more rows than ``capacity``, those before the last ``capacity`` only replace rows the
    /// cache holds. Added, they would be evicted by the later ones at once. Left out, an older
    /// snapshot of one of them could stay, when the later rows replace cached ones rather than
    /// evict them, and a fault would then fire from a row older than the one this read saw.
    /// (A save of more rows forgets the older snapshots of its first ones instead, in
    /// ``insertSaved(inserted:updated:)``: either keeps a fault from firing from an older row.)
    ///
    /// A row read at a lower `Z_OPT` than the one cached does not replace it: two fetches on two
    /// readers, with another process changing the row between their reads, may come back in
    /// either order (the ``writeCount`` check sees this store's saves only). `Z_OPT` only grows.
    private func insertReadLocked(_ snapshots: [ObjectSnapshot], now: TimeInterval, addingNew: Bool) {
        let replacingOnly = addingNew ? snapshots.count - capacity : snapshots.count
        // By index: iterating copies each snapshot (retaining its references) before it is
        // copied again into the ring; a row that only replaces is looked up before it is copied.
        for index in snapshots.indices {
            if index < replacingOnly {
                guard let position = position(of: snapshots[index].objectID.key) else { continue }
                insertLocked(snapshots[index], now: now, at: position, keepingNewer: true)
            } else {
                insertLocked(snapshots[index], now: now, keepingNewer: true)
            }
        }
    }

    /// Keeps `snapshot` (taken, not copied: a copy retains and later releases each of its
    /// references): in its place if the row is cached, else (unless not `addingNew`) in the
    /// next place of the ring, evicting the oldest row once the ring is full. `known` is the
    /// row's place when the caller looked it up already. With `keepingNewer`, a cached row of a
    /// higher version stays.
    private func insertLocked(_ snapshot: consuming ObjectSnapshot, now: TimeInterval, addingNew: Bool = true,
                              at known: Int? = nil, keepingNewer: Bool = false) {
        let key = snapshot.objectID.key
        let version = snapshot.version
        // Filled field by field and swapped in: making it with an initializer and passing it
        // on each copied the entry (a retain and a release of each reference it holds).
        var entry = Entry()
        entry.key = key
        entry.readTime = now
        entry.snapshot = consume snapshot
        if let position = known ?? position(of: key) {
            if keepingNewer, let cached = ring[position].snapshot?.version, cached > version { return }
            swap(&ring[position], &entry)
            return
        }
        guard addingNew else { return }
        let isFull = filled == capacity
        let position = isFull ? next : filled
        // The evicted row leaves the index first: its place in the table may be the one the
        // new key takes. So the new key is probed again below rather than placed where
        // `position(of:)` ended: removing the evicted key may empty a bucket on that probe's
        // path, and a key placed past an empty bucket could not be found.
        if isFull, let evicted = ring[position].key { removePlace(of: evicted) }
        let probe = Probe(key, in: ring)
        let (index, _) = places.insertionIndex(for: probe)
        places.occupy(index, with: Place(bits: probe.bits, position: position))
        if isFull {
            next = next + 1 == capacity ? 0 : next + 1
        } else {
            (ring + position).initialize(to: Entry())
            filled += 1
        }
        // The evicted entry (if any) comes back in `entry`, and is released with it.
        swap(&ring[position], &entry)
        // The row cached `keptUnheld` rows before this one (no division: this runs for every row).
        if keptUnheld < capacity {
            let older = position >= keptUnheld ? position &- keptUnheld : position &+ capacity &- keptUnheld
            if older < filled { forgetIfUnheld(older) }
        }
    }

    /// Forgets the row at ring place `position` (an initialized one) when no object holds it.
    @inline(__always)
    private func forgetIfUnheld(_ position: Int) {
        guard ring[position].snapshot?.holdsItsIDAlone() == true, let key = ring[position].key else { return }
        removeLocked(key)
    }

    /// Removes `key` from the index; returns its place in the ring, or nil.
    @discardableResult
    private func removePlace(of key: ObjectIDKey) -> Int? {
        guard let index = places.index(of: Probe(key, in: ring)) else { return nil }
        let position = Int(places[index].position)
        places.remove(at: index)
        return position
    }

    /// Forgets `key`: its place in the ring stays empty until the ring comes round to it.
    private func removeLocked(_ key: ObjectIDKey) {
        guard let position = removePlace(of: key) else { return }
        ring[position] = Entry()
    }

    /// Forgets `objectIDs` (deleted rows, or rows a save rewrote without a new snapshot).
    func remove<S: Sequence>(_ objectIDs: S) where S.Element == NSManagedObjectID {
        lock.withLock {
            writes &+= 1
            for objectID in objectIDs { removeLocked(objectID.key) }
        }
    }

    func removeAll() {
        lock.withLock {
            writes &+= 1
            places.removeAll()
            ring.deinitialize(count: filled)
            filled = 0
            next = 0
        }
    }
}
