import CSwiftRuntime

/// The objects a context has registered, one per ID, held without retaining them.
///
/// Core Data keeps unchanged registered objects weakly; so does this registry. An object that
/// is freed unregisters itself (``NSManagedObject``'s `deinit` calls
/// ``NSManagedObjectContext/unregisterFreedObject(_:)``), so an entry never outlives its object.
/// Objects with unsaved changes stay alive because the context's inserted, updated and deleted
/// lists retain them.
///
/// Everything else in a context is touched only on the context's queue, but `deinit` runs on
/// whichever thread drops the last reference. So the registry has its own small lock: a freed
/// object leaves it at once, from any thread, and the IDs of freed objects (once the context
/// has cached something under IDs: ``keepFreedIDs()``) wait in ``takeFreedIDs()`` until the
/// context, on its queue, drops what it cached for them.
///
/// Entries hold their objects unretained. A lookup takes its reference with the runtime's atomic
/// `swift_tryRetain` while holding the lock: an object whose last reference was just dropped on
/// another thread is already deinitializing and waits on this lock to unregister, so its memory
/// is still valid, but it must not be retained again (that would resurrect a dying object and
/// trap); `swift_tryRetain` refuses it and the object reads as unregistered. Swift `weak`
/// entries would do the same at the cost of a side table per object (7–20 % on the benchmarks
/// and 90 MB when walking a million faults).
///
/// Entries are keyed by their objects' IDs, hashed and compared through their ``ObjectIDKey``
/// (no dynamic dispatch, no `Hasher`: see ``ObjectTable``): 9 bytes a bucket, where keying by
/// the ``ObjectIDKey`` itself (three words then) made the registry the largest structure of a
/// walk through a million faults. A fetch looks up and registers its objects with
/// ``objects(for:)`` and ``register(_:)``, one lock for all of them.
final class ObjectRegistry {
    /// Guards ``entries``, ``freedIDs`` and ``keepsFreedIDs`` (which are
    /// `@exclusivity(unchecked)`: the lock already keeps accesses from overlapping).
    private let lock = NSLock()
    @exclusivity(unchecked) private var entries = ObjectTable()
    /// IDs of objects freed since the context last looked (see ``takeFreedIDs()``).
    @exclusivity(unchecked) private var freedIDs: [NSManagedObjectID] = []
    /// Whether ``freedIDs`` is kept: from the context's first batch read of faults or refresh
    /// mark (``keepFreedIDs()``), which may leave something under an ID that the ID's object
    /// being freed must clear. Until then there is nothing to clear, and listing each freed
    /// object's ID (a retain, an append, a release later) cost about 150 instructions an
    /// object.
    @exclusivity(unchecked) private var keepsFreedIDs = false
    /// How many times an entry was removed other than by its object being freed (see
    /// ``removalCount``).
    @exclusivity(unchecked) private var removals = 0

    /// The registered object with `id`; setting registers an object under it.
    subscript(id: NSManagedObjectID) -> NSManagedObject? {
        get { lock.withLock { entries[id].flatMap(Self.retainedIfAlive) } }
        set {
            lock.withLock {
                if let newValue {
                    entries.set(Unmanaged.passUnretained(newValue), for: id)
                } else if let old = entries[id] {
                    _ = entries.remove(id, ifObject: old)
                    removals &+= 1
                }
            }
        }
    }

    /// The registered objects of `ids`, in order, `nil` where none is, under one lock.
    func objects<IDs: Collection<NSManagedObjectID>>(for ids: IDs) -> [NSManagedObject?] {
        lock.withLock { ids.map { entries[$0].flatMap(Self.retainedIfAlive) } }
    }

    /// Registers the new objects of `objects` (where `isNew` is true) under their IDs, under one
    /// lock. Where a live object is registered under the ID already (one that came earlier in
    /// `objects`, say), it stays registered and takes the new object's place in `objects`, and
    /// `isNew` turns false there.
    ///
    /// In place: a fetch of a million objects keeps no other array of them alongside. Only the
    /// positions in `range` are looked at (all of them by default).
    func register(_ objects: inout [NSManagedObject], isNew: inout [Bool], in range: Range<Int>? = nil) {
        // A new object that loses its place is released after the lock: if that is its last
        // reference, its `deinit` unregisters it, which takes the lock.
        var displaced: [NSManagedObject] = []
        lock.withLock {
            // Grown once for the whole batch: no rehash per doubling, and no old table kept
            // alongside a new one at each step (the peak of a large fetch).
            // (At least as many as the batch: a refetch of registered objects needs no more.)
            let range = range ?? objects.indices
            entries.reserveCapacity(max(entries.count, range.count))
            for index in range where isNew[index] {
                // Read unretained: `objects` holds it (and `displaced` does before `objects`
                // lets it go). Retaining it cost an atomic retain and release per object.
                let fresh = Unmanaged.passUnretained(objects[index])
                _ = fresh._withUnsafeGuaranteedRef { object in
                    // One probe: a new ID gets `fresh`, a live object already there stays.
                    entries.update(object.objectID) { entry in
                        guard let entry, entry.toOpaque() != fresh.toOpaque() else { return fresh }
                        guard let existing = Self.retainedIfAlive(entry) else { return fresh }
                        displaced.append(object)
                        objects[index] = existing
                        isNew[index] = false
                        return entry
                    }
                }
            }
        }
        displaced.removeAll()
    }

    /// Makes room for `count` objects in all, so that registering them in parts grows the
    /// table once.
    func reserveCapacity(_ count: Int) {
        lock.withLock { entries.reserveCapacity(max(entries.count, count)) }
    }

    /// Every registered object.
    var values: [NSManagedObject] { lock.withLock { entries.objects.compactMap(Self.retainedIfAlive) } }

    /// A strong reference to `entry`'s object, or `nil` when the object is deinitializing.
    /// Call with the lock held (which keeps a deinitializing object's memory valid).
    private static func retainedIfAlive(_ entry: Unmanaged<NSManagedObject>) -> NSManagedObject? {
        guard let retained = swift_tryRetain(entry.toOpaque()) else { return nil }
        return Unmanaged<NSManagedObject>.fromOpaque(retained).takeRetainedValue()
    }

    var count: Int { lock.withLock { entries.count } }

    /// Unregisters `object` if it is the one registered under `id` (one lock for the check and
    /// the removal).
    func remove(_ object: NSManagedObject, id: NSManagedObjectID) {
        lock.withLock { if removeLocked(object, id: id) { removals &+= 1 } }
    }

    /// Removes the entry of `id` if it is `object`; returns whether it did. Call with the lock held.
    private func removeLocked(_ object: NSManagedObject, id: NSManagedObjectID) -> Bool {
        entries.remove(id, ifObject: Unmanaged.passUnretained(object))
    }

    /// How many times an object was unregistered while alive (removed, reassigned, or all of
    /// them by `removeAll()`): what a run of loads compares to tell whether the objects it made
    /// are all still registered (an `awakeFromFetch()` may reset the context, roll it back or
    /// save a deletion). Objects being freed don't count: whoever holds them keeps them alive.
    var removalCount: Int { lock.withLock { removals } }

    /// Moves each of `objects` from the entry of its ID to the entry of the ID at its index in
    /// `ids`, which becomes its ``NSManagedObject/objectID``, under one lock. An old entry that
    /// holds another object stays.
    func reassign(_ objects: [NSManagedObject], to ids: [NSManagedObjectID]) {
        lock.withLock {
            for (object, id) in zip(objects, ids) {
                if removeLocked(object, id: object.objectID) { removals &+= 1 }
                object.objectID = id
                entries.set(Unmanaged.passUnretained(object), for: id)
            }
        }
    }

    /// Unregisters a freed `object` if it is the one registered under `id`, without retaining
    /// it, and remembers `id` for ``takeFreedIDs()`` (once ``keepFreedIDs()`` was called).
    /// Safe on any thread.
    func removeFreed(_ object: NSManagedObject, id: NSManagedObjectID) {
        lock.withLock {
            if removeLocked(object, id: id), keepsFreedIDs { freedIDs.append(id) }
        }
    }

    /// Lists the IDs of objects freed from now on, for ``takeFreedIDs()``: the context calls it
    /// before it keeps a snapshot or a refresh mark under an ID (its `rowCache` and
    /// `refreshedFaults`), which the ID's object being freed must clear.
    func keepFreedIDs() {
        lock.withLock { keepsFreedIDs = true }
    }

    /// The IDs of `ids` no object is registered under, under one lock. (An object being freed
    /// still counts until it unregisters; its ID then comes back from ``takeFreedIDs()``, once
    /// ``keepFreedIDs()`` was called.)
    func unregistered(_ ids: [NSManagedObjectID]) -> [NSManagedObjectID] {
        lock.withLock { ids.filter { entries[$0] == nil } }
    }

    /// The IDs of the objects freed since the last call. The list starts again with the room
    /// the last one needed: one allocation, where growing it back from empty reallocated it
    /// about seven times for a hundred objects freed (a fetch's results dropped).
    func takeFreedIDs() -> [NSManagedObjectID] {
        lock.withLock {
            guard !freedIDs.isEmpty else { return [] }
            var taken: [NSManagedObjectID] = []
            taken.reserveCapacity(freedIDs.count)
            swap(&taken, &freedIDs)
            return taken
        }
    }

    func removeAll() {
        lock.withLock {
            removals &+= 1
            entries.removeAll()
            freedIDs.removeAll()
        }
    }
}
