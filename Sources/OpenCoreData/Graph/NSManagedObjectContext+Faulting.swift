import Foundation
import Logging

/// Firing faults: the states loaded faults take, loading a snapshot into a fault, and reading
/// a fault's row (or its batch) through the backing. Batches of a fetch with `fetchBatchSize`
/// are in `+Batching`.
extension NSManagedObjectContext {
    /// How many ``spareStates`` a context keeps: two batches of a walk with `fetchBatchSize`
    /// 512.
    static let spareStateLimit = 1_024

    /// Keeps the state of an object turned back into a fault, which nothing holds any more, for
    /// a fault loaded next; its values and snapshots go now (with the rows they hold).
    func recycle(_ state: ManagedObjectState) {
        guard spareStates.count < Self.spareStateLimit else { return }
        state.dropContents()
        spareStates.append(state)
    }

    /// The state of a fault loaded from `snapshot` with `values`, holding `destination` (see
    /// ``ManagedObjectState/heldDestination``): a kept one (``recycle(_:)``) when there is one,
    /// else a new one.
    func state(loading snapshot: consuming ObjectSnapshot, values: SlotValues, holding destination: NSManagedObject?) -> ManagedObjectState {
        guard let spare = spareStates.popLast() else { return ManagedObjectState(loading: snapshot, values: values, holding: destination) }
        spare.reuse(loading: snapshot, values: values, holding: destination)
        return spare
    }

    /// Loads a fault's snapshot and calls `awakeFromFetch()` (whose changes are not recorded).
    /// `destinations`: the to-one destinations a run of loads resolved last.
    func loadAndAwake(_ object: NSManagedObject, from snapshot: consuming ObjectSnapshot, destinations: LastDestination? = nil) {
        recordingSuspended += 1
        defer { recordingSuspended -= 1 }
        // A first load sets transient defaults: a fault holding nothing takes them as its state
        // is made; one holding only the snapshot a fetch left gets them first.
        let holdsNothing = object.state == nil
        if !holdsNothing, !object.hasCommittedSnapshot, object.hasNoStoredValues { object.applyTransientDefaultValues() }
        object.load(consume snapshot, in: self, defaultingTransients: holdsNothing, destinations: destinations)
        object.awakeFromFetch()
    }

    /// Fires a fault: the row cache first, then the coordinator, which reads a batch: the
    /// fault and up to ``BatchFaulting/defaultBatchSize`` − 1 other unfired faults of its entity
    /// and store (``PendingFaults``), in one read. The others' snapshots wait in the row cache.
    func fulfillFault(_ object: NSManagedObject) {
        let id = object.objectID
        // Taken, not copied: loading drops the fetched snapshot anyway.
        var snapshot = object.takeFetchedSnapshot()
        if snapshot == nil, !rowCache.isEmpty { snapshot = rowCache.removeValue(forKey: id.key) }
        if !refreshedFaults.isEmpty, refreshedFaults.remove(id.key) != nil, let backing {
            snapshot = reportingStoreError(firing: id) { try backing.snapshots(for: [id], fresh: true, maxAge: -1) }?[id]
        }
        if snapshot == nil, !batchGroups.isEmpty, fulfillFaultFromBatch(object) { return }
        if snapshot == nil, let backing {
            // Before the batch's faults are looked up: one freed from now on clears its row.
            registry.keepFreedIDs()
            let batch = pendingFaults.batch(firing: id) { candidate in
                guard rowCache[candidate.key] == nil, let fault = registry[candidate] else { return false }
                return fault.faultFlag && fault.fetchedSnapshot == nil
            }
            var loaded = reportingStoreError(firing: id) { try backing.snapshots(for: batch, fresh: false, maxAge: stalenessInterval) } ?? SnapshotsByID()
            // Taken, not copied: each is kept once, by the fault or the context's cache.
            snapshot = loaded.take(id)
            for other in batch.dropFirst() {
                if let found = loaded.take(other) { rowCache[other.key] = found }
            }
        }
        // Moved out, not bound by `guard let`: binding copied it (a retain of each of its
        // references) and destroying the variable released them again.
        guard let loaded = snapshot.take() else {
            precondition(shouldDeleteInaccessibleFaults, "CoreData could not fulfill a fault for '\(id)'")
            object.faultFlag = false
            return
        }
        loadAndAwake(object, from: loaded)
    }

    /// The destinations of a to-many relationship a snapshot did not carry; with `unpinned`,
    /// the newest ones even when the context is pinned to a query generation (for saving).
    func relatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID,
                          unpinned: Bool = false) -> [NSManagedObjectID] {
        let source = unpinned ? parentBacking ?? coordinatorStorage : backing
        return reportingStoreError(firing: objectID, property: relationship.name) {
            try source?.relatedObjectIDs(for: relationship, of: objectID)
        } ?? []
    }

    /// Runs a store read for a fault (or a fetched property), which can't throw: an error (a
    /// row the store can't read, say) is logged as a warning naming the object, and `nil`
    /// returned. A fault then behaves as an inaccessible one (``shouldDeleteInaccessibleFaults``),
    /// as Apple's does; a relationship or fetched property reads as empty.
    func reportingStoreError<T>(firing objectID: NSManagedObjectID, property: String? = nil, _ body: () throws -> T?) -> T? {
        do {
            return try body()
        } catch {
            let what = property.map { "property '\($0)' of " } ?? ""
            Logger(label: "OpenCoreData.NSManagedObjectContext").warning(
                "CoreData could not fulfill a fault for \(what)'\(objectID.uriRepresentation().absoluteString)': \(error.localizedDescription)")
            return nil
        }
    }
}
