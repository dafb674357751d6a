/// Fetches with `fetchBatchSize`: the store returns IDs only, the result array holds faults, and
/// firing one loads its whole batch with one store read.
///
/// The context remembers each batched result (``FetchBatchGroup``): the IDs of its objects in
/// result order. When a fault of a group fires, the batch it belongs to (the `fetchBatchSize`
/// neighbours in result order) is loaded at once. The group keeps the last two batches it
/// loaded; the objects of an older batch that have no unsaved changes turn back into faults, so
/// walking a million results keeps about two batches of values in memory. While a result is
/// walked in order, the store is told which batches come next (``ContextBacking/readAhead(_:)``):
/// the PostgreSQL store reads it in the background meanwhile.
extension NSManagedObjectContext {
    /// How many batched results the context remembers; older ones fault like any other object.
    static let rememberedBatchGroups = 4

    /// How many batches after the one loaded a walk asks its store to read ahead: two, so that
    /// one can be read while the other is decoded.
    static let batchesReadAhead = 2

    /// Registers the IDs of a batched fetch as faults (known objects are reused) and remembers
    /// them as a group.
    func batchedObjects(_ ids: [NSManagedObjectID]) -> [NSManagedObject] {
        objects(with: ids, recordingPendingFaults: false)
    }

    /// Remembers `objects`, the result of a fetch with `fetchBatchSize`, for batch loading.
    func rememberBatches(of objects: [NSManagedObject], batchSize: Int) {
        guard objects.contains(where: \.faultFlag) else { return }
        // A group whose objects were freed (its result array is gone) only holds IDs. Its
        // objects are registered under the very ID instances it holds while they live.
        batchGroups.removeAll { group in group.sampleIDs.allSatisfy { registry[$0]?.objectID !== $0 } }
        batchGroups.append(FetchBatchGroup(ids: objects.map(\.objectID), batchSize: batchSize))
        if batchGroups.count > Self.rememberedBatchGroups { batchGroups.removeFirst(batchGroups.count - Self.rememberedBatchGroups) }
    }

    /// Loads the batch of a remembered group that holds `object`, with one store read; returns
    /// whether `object` was in a group (and is now loaded).
    func fulfillFaultFromBatch(_ object: NSManagedObject) -> Bool {
        let id = object.objectID
        guard let backing,
              let (group, batch) = batchGroups.lazy.compactMap({ group in group.batch(of: id).map { (group, $0) } }).first
        else { return false }
        let ids = group.ids(ofBatch: batch)
        let walking = group.follows(batch)
        var faults: [NSManagedObject] = []
        faults.reserveCapacity(ids.count)
        for case let object? in registry.objects(for: ids) where object.faultFlag { faults.append(object) }
        var loaded = reportingStoreError(firing: id) {
            try backing.walkSnapshots(for: faults.map(\.objectID), maxAge: stalenessInterval)
        } ?? SnapshotsByID()
        // A walk in result order: the store may read the next batches while this one is used
        // (their faults are registered under the very IDs the group holds).
        if walking {
            for next in batch + 1 ..< min(batch + 1 + Self.batchesReadAhead, group.batchCount) {
                backing.readAhead(group.ids(ofBatch: next))
            }
        }
        // The context's own cache is mostly empty: not probed twice per object then.
        let cacheHoldsRows = !rowCache.isEmpty
        for fault in faults {
            // An `awakeFromFetch()` earlier in the loop may have fired a fault of this batch,
            // which loaded the rest of it: those are not loaded (nor awoken) twice.
            guard fault.faultFlag else { continue }
            let id = fault.objectID
            // Taken, not copied: the fault keeps it.
            if let snapshot = loaded.take(id) ?? fault.fetchedSnapshot ?? (cacheHoldsRows ? rowCache.removeValue(forKey: id.key) : nil) {
                if cacheHoldsRows { rowCache[id.key] = nil }
                loadAndAwake(fault, from: snapshot)
            }
        }
        for passed in group.didLoad(batch) { refaultUnchanged(group.ids(ofBatch: passed)) }
        return !object.faultFlag
    }

    /// Turns the loaded objects of `ids` that have no unsaved changes back into faults.
    private func refaultUnchanged(_ ids: ArraySlice<NSManagedObjectID>) {
        // Looked up under one lock of the registry, not one per ID.
        for case let object? in registry.objects(for: ids) {
            guard !object.faultFlag, !insertedList.contains(object),
                  !updatedList.contains(object), !deletedList.contains(object) else { continue }
            object.turnIntoFault()
        }
    }
}

/// The IDs of one fetch with `fetchBatchSize`, in result order, and the batches loaded last.
final class FetchBatchGroup {
    let ids: [NSManagedObjectID]
    let batchSize: Int
    /// The entities of the IDs, to rule out other faults without a scan.
    private let entities: Set<ObjectIdentifier>
    /// The batches loaded, most recent last (at most two).
    private(set) var loaded: [Int] = []

    init(ids: [NSManagedObjectID], batchSize: Int) {
        self.ids = ids
        self.batchSize = max(batchSize, 1)
        // Not `Set(ids.lazy.map(…))`: that reserves a bucket per ID (21 MB for a million IDs of
        // one entity). Results come in runs of one entity: each run is hashed once.
        var entities: Set<ObjectIdentifier> = []
        var last: NSEntityDescription?
        for id in ids where id.entity !== last {
            last = id.entity
            entities.insert(ObjectIdentifier(id.entity))
        }
        self.entities = entities
    }

    var batchCount: Int { (ids.count + batchSize - 1) / batchSize }

    /// The first, middle and last IDs: when none of their objects is registered any more, the
    /// result array the group describes has most likely been freed.
    var sampleIDs: [NSManagedObjectID] {
        guard let first = ids.first, let last = ids.last else { return [] }
        return [first, ids[ids.count / 2], last]
    }

    func ids(ofBatch batch: Int) -> ArraySlice<NSManagedObjectID> {
        ids[batch * batchSize ..< min((batch + 1) * batchSize, ids.count)]
    }

    /// The batch holding `id` (the same ID instance): the batches next to the last one loaded
    /// are looked at first, as a walk goes, then all.
    func batch(of id: NSManagedObjectID) -> Int? {
        guard entities.contains(ObjectIdentifier(id.entity)) else { return nil }
        let last = loaded.last ?? -1
        for batch in [last + 1, last, last - 1] where batch >= 0 && batch < batchCount {
            if ids(ofBatch: batch).contains(where: { $0 === id }) { return batch }
        }
        return ids.firstIndex { $0 === id }.map { $0 / batchSize }
    }

    /// Whether `batch` is the one after the batch loaded last (or the first, when none was):
    /// the result is being walked in order.
    func follows(_ batch: Int) -> Bool {
        batch == (loaded.last ?? -1) + 1
    }

    /// Records that `batch` was loaded; returns the batches to turn back into faults.
    func didLoad(_ batch: Int) -> [Int] {
        loaded.removeAll { $0 == batch }
        loaded.append(batch)
        guard loaded.count > 2 else { return [] }
        let passed = Array(loaded.dropLast(2))
        loaded.removeFirst(passed.count)
        return passed
    }
}
