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
        let key = ObjectIdentifier(id.entity)
        byEntity[key, default: []].append(id)
        if let count = byEntity[key]?.count, count > Self.capacity {
            byEntity[key]?.removeFirst(count - Self.capacity / 2)
        }
    }

    /// The IDs to load when `fired` fires: `fired`, then recorded IDs of its entity and store
    /// that `isUnloadedFault` accepts. Those and the IDs it rejects leave the list.
    mutating func batch(firing fired: NSManagedObjectID, limit: Int = BatchFaulting.defaultBatchSize,
                        isUnloadedFault: (NSManagedObjectID) -> Bool) -> [NSManagedObjectID] {
        let key = ObjectIdentifier(fired.entity)
        guard var list = byEntity[key], !list.isEmpty else { return [fired] }
        let batch = BatchFaulting.batch(firing: fired, candidates: list, limit: limit) { !isUnloadedFault($0) }
        let taken = Set(batch)
        list.removeAll { taken.contains($0) || !isUnloadedFault($0) }
        byEntity[key] = list.isEmpty ? nil : list
        return batch
    }

    mutating func removeAll() { byEntity.removeAll() }
}
