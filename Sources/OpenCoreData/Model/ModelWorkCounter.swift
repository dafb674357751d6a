/// Counts the expensive computations of model lookups (entity version hashes, the
/// entities-by-name index), so tests can check that each is done once, not once per lookup.
///
/// Counting is off unless a test binds a counter with `ModelWorkCounter.$current.withValue(_:)`;
/// then only the computations run by that task are counted.
final class ModelWorkCounter: Sendable {
    enum Work: Hashable, Sendable {
        /// One entity's version hash was computed (``VersionHasher``).
        case entityVersionHash
        /// A model's entities-by-name dictionary was built.
        case entitiesByNameIndex
    }

    @TaskLocal static var current: ModelWorkCounter?

    private let counts = Locked<[Work: Int]>([:])

    /// How many times `work` was done.
    func count(_ work: Work) -> Int { counts.withLock { $0[work] ?? 0 } }

    /// Records one `work` in the bound counter, if any.
    static func record(_ work: Work) {
        guard let counter = current else { return }
        counter.counts.withLock { $0[work, default: 0] += 1 }
    }
}
