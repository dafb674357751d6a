/// Gathers the rows an SQL store reads to prefetch one relationship, each with its source's
/// key, into a ``RelationshipPrefetch``: the destinations' snapshots (each once), each
/// source's destination IDs and, for a to-many relationship, their positions in the snapshots
/// (``RelationshipPrefetch/destinationPositions``). Shared by the SQLite and PostgreSQL stores.
///
/// Rows come in runs of one source (a statement ordered by source gives one run per source; the
/// SQLite store's one-pass read several): the source is looked up when its run starts and the
/// run is filed when it ends, not twice a row.
package struct RelationshipPrefetchBuilder {
    /// A source's destinations, as IDs and as positions in `snapshots`.
    private struct Destinations {
        var ids: [NSManagedObjectID] = []
        var positions: [Int] = []
    }

    /// The sources, by primary key.
    private let sources: [Int64: NSManagedObjectID]
    private let isToMany: Bool
    /// Whether a destination may come more than once: through a to-one relationship or a join
    /// table it may; through a key in the destination row each destination has one source.
    private let mayRepeat: Bool
    private var snapshots: [ObjectSnapshot] = []
    /// Destinations gathered by the source's key (an integer hashes cheaply; an ID hashes and
    /// compares through `NSObject`), then filed under the sources' IDs.
    private var destinations: [Int64: Destinations] = [:]
    /// Where each destination that may come again was first added.
    private var firstPositions: [ObjectIDKey: Int] = [:]
    /// The current run: its source's key, whether that is a source's, and its destinations.
    private var runKey: Int64?
    private var runIsWanted = false
    private var run = Destinations()
    /// How many destinations the last run filed had: the next run's lists start with that
    /// capacity (see ``fileRun()``).
    private var lastRunCount = 0

    /// A builder for `relationship`'s destinations of `sources` (by primary key); `mayRepeat`:
    /// the store's statement may return a destination more than once.
    package init(_ relationship: NSRelationshipDescription, sources: [Int64: NSManagedObjectID], mayRepeat: Bool) {
        self.sources = sources
        isToMany = relationship.isToMany
        self.mayRepeat = mayRepeat
        // A source without destinations has an empty list (to-many) or no entry (to-one).
        if isToMany { for key in sources.keys { destinations[key] = Destinations() } }
    }

    /// Whether the row at hand, of the source whose primary key is `sourceKey`, is wanted: a
    /// row of no source is skipped before it is decoded (the SQLite store's one-pass read
    /// returns such rows), so that it can't fail the prefetch either.
    package mutating func wantsRow(ofSource sourceKey: Int64) -> Bool {
        if runKey != sourceKey {
            fileRun()
            runKey = sourceKey
            runIsWanted = sources[sourceKey] != nil
        }
        return runIsWanted
    }

    /// Adds `snapshot`, a destination of the source of the last ``wantsRow(ofSource:)`` (which
    /// said yes).
    package mutating func add(_ snapshot: consuming ObjectSnapshot) {
        if run.ids.isEmpty, lastRunCount > 0 {
            run.ids.reserveCapacity(lastRunCount)
            if isToMany { run.positions.reserveCapacity(lastRunCount) }
        }
        run.ids.append(snapshot.objectID)
        var position = snapshots.count
        if mayRepeat {
            position = firstPositions[snapshot.objectID.key, default: position]
            if position < snapshots.count {
                if isToMany { run.positions.append(position) }
                return
            }
            firstPositions[snapshot.objectID.key] = position
        }
        if isToMany { run.positions.append(position) }
        snapshots.append(snapshot)
    }

    /// The prefetch gathered.
    package consuming func finish() -> RelationshipPrefetch {
        fileRun()
        var result = RelationshipPrefetch()
        result.destinations.reserveCapacity(destinations.count)
        var positions: [NSManagedObjectID: [Int]] = [:]
        if isToMany { positions.reserveCapacity(destinations.count) }
        for (key, found) in destinations {
            guard let sourceID = sources[key] else { continue }
            result.destinations[sourceID] = found.ids
            if isToMany { positions[sourceID] = found.positions }
        }
        result.snapshots = snapshots
        // Last: changing the lists or the snapshots drops the positions.
        if isToMany { result.destinationPositions = positions }
        return result
    }

    /// Files the current run under its source: a source's first run becomes its lists (moved
    /// in, where appending to the empty lists copied each ID), a later one is appended. The
    /// next run's lists start, at its first destination, with the capacity of this one's:
    /// sources of one fetch tend to have as many destinations (grown from empty, a run of 100
    /// reallocated each list 8 times). A run smaller than the one before keeps the spare
    /// capacity until the lists are turned into relationships.
    private mutating func fileRun() {
        guard let key = runKey else { return }
        runKey = nil
        guard runIsWanted else { return }
        var ended = Destinations()
        swap(&ended, &run)
        lastRunCount = ended.ids.count
        if let index = destinations.index(forKey: key), !destinations.values[index].ids.isEmpty {
            destinations.values[index].ids.append(contentsOf: ended.ids)
            destinations.values[index].positions.append(contentsOf: ended.positions)
        } else {
            destinations[key] = ended
        }
    }
}
