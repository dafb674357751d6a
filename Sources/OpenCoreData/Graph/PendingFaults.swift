/// The faults a context created and has not fired yet, by entity, for batch faulting.
///
/// When a fault whose snapshot is not cached fires, the context loads it together with up to
/// ``BatchFaulting/defaultBatchSize`` − 1 other registered faults of the same entity and store,
/// taken from here in creation order (the order a relationship or a fetch produced them), with
/// one store read. Each entity's list is bounded: the oldest entries go first.
struct PendingFaults {
    /// The most IDs kept per entity.
    static let capacity = 10 * BatchFaulting.defaultBatchSize

    private var byEntity: [ObjectIdentifier: [NSManagedObjectID]] = [:]

    /// Records a new fault.
    mutating func append(_ id: NSManagedObjectID) {
        append(contentsOf: CollectionOfOne(id))
    }

    /// Records new faults, in order: one lookup per run of IDs of the same entity (a fetch's
    /// results usually are one run).
    mutating func append<C: Collection>(contentsOf ids: C) where C.Element == NSManagedObjectID {
        var start = ids.startIndex
        while start != ids.endIndex {
            let entity = ids[start].entity
            let end = ids[start...].firstIndex { $0.entity !== entity } ?? ids.endIndex
            let key = ObjectIdentifier(entity)
            modifyInPlace(&byEntity[key, default: []]) { list in
                // Only the last `capacity` of a long run can stay.
                list.append(contentsOf: ids[start..<end].suffix(Self.capacity))
                if list.count > Self.capacity { list.removeFirst(list.count - Self.capacity / 2) }
            }
            start = end
        }
    }


    /// The IDs to load when `fired` fires: `fired`, then recorded IDs of its entity and store
    /// that `isUnloadedFault` accepts. Those and the IDs it rejects leave the list.
    mutating func batch(firing fired: NSManagedObjectID, limit: Int = BatchFaulting.defaultBatchSize,
                        isUnloadedFault: (NSManagedObjectID) -> Bool) -> [NSManagedObjectID] {
        let key = ObjectIdentifier(fired.entity)
        guard var list = byEntity[key], !list.isEmpty else { return [fired] }
        let batch = BatchFaulting.batch(firing: fired, candidates: list, limit: limit) { !isUnloadedFault($0) }
        let taken = Set(batch.lazy.map(\.key))
        list.removeAll { taken.contains($0.key) || !isUnloadedFault($0) }
        byEntity[key] = list.isEmpty ? nil : list
        return batch
    }

    mutating func removeAll() { byEntity.removeAll() }
}

/// Runs `body` on `value` in place: with a dictionary's `subscript(_:default:)`, one hash lookup
/// reads and writes an entry.
@inline(__always)
func modifyInPlace<T>(_ value: inout T, _ body: (inout T) -> Void) { body(&value) }
