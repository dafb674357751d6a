import Foundation

/// How reads of rows are grouped: batch faulting and `Z_PK IN (…)` chunks.
///
/// Firing one fault loads a batch: the fired object first, then other registered faults of the
/// same entity in the same store that the row cache does not hold, up to ``defaultBatchSize``
/// (the context picks them from its ``PendingFaults``).
/// The batch is read with `WHERE Z_PK IN (…)` statements of at most ``maximumParameters``
/// bound keys each (SQLite's historical limit on host parameters is 999).
enum BatchFaulting {
    /// How many faults one firing loads, as Apple's batch faulting does by default.
    static let defaultBatchSize = 100
    /// The most bound parameters one `IN (…)` list uses.
    static let maximumParameters = 500

    /// The objects to load when `fired` fires: `fired`, then `candidates` of the same entity
    /// and store that `isLoaded` rejects, in order, without duplicates, at most `limit` in all.
    static func batch<S: Sequence>(firing fired: NSManagedObjectID, candidates: S, limit: Int = defaultBatchSize,
                                   isLoaded: (NSManagedObjectID) -> Bool) -> [NSManagedObjectID]
    where S.Element == NSManagedObjectID {
        var batch = [fired]
        guard limit > 1 else { return batch }
        var seen: Set<ObjectIDKey> = [fired.key]
        for candidate in candidates {
            guard candidate.entity === fired.entity, candidate.persistentStore === fired.persistentStore,
                  !candidate.isTemporaryID, !isLoaded(candidate), seen.insert(candidate.key).inserted else { continue }
            batch.append(candidate)
            if batch.count >= limit { break }
        }
        return batch
    }

    /// `keys` in chunks of at most `size`, each one `IN (…)` statement.
    static func chunks<C: Collection>(_ keys: C, size: Int = maximumParameters) -> [C.SubSequence] {
        let size = max(size, 1)
        var chunks: [C.SubSequence] = []
        var start = keys.startIndex
        while start != keys.endIndex {
            let end = keys.index(start, offsetBy: size, limitedBy: keys.endIndex) ?? keys.endIndex
            chunks.append(keys[start..<end])
            start = end
        }
        return chunks
    }
}
