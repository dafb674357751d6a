/// `relationshipKeyPathsForPrefetching`: after a managed-object fetch, each relationship of the
/// key paths is loaded for all fetched objects with one store request (one statement in SQLite).
extension NSManagedObjectContext {
    /// Prefetches `keyPaths` (relationship names, dotted for several steps: `children.toys`)
    /// from `objects`, fetched for `entity`.
    ///
    /// Each step asks the stores for the destinations of every source at once
    /// (``NSPersistentStore/prefetch(_:for:sourcesCoverEntity:)``), registers the destinations loaded, and fills the
    /// sources' relationships, so that walking them and reading the destinations' attributes
    /// runs no further store request. Shared prefixes load once. Throws `NSCoreDataError` when a
    /// step is not a relationship. `objectsCoverEntity`: `objects` are every object of `entity`
    /// (a fetch without predicate, limit or offset), which the first step tells the stores.
    func prefetchRelationships(_ keyPaths: [String], of objects: [NSManagedObject], entity: NSEntityDescription,
                               objectsCoverEntity: Bool = false) throws {
        // A child context's backing is its parent, whose objects are in memory: nothing to prefetch.
        guard parentBacking == nil, let coordinator = persistentStoreCoordinator, !objects.isEmpty else { return }
        var reachedByPrefix: [String: (objects: [NSManagedObject], entity: NSEntityDescription?)] = [:]
        for keyPath in keyPaths {
            var sources = objects
            var sourceEntity: NSEntityDescription? = entity
            var prefix = ""
            for component in keyPath.split(separator: ".").map(String.init) {
                prefix = prefix.isEmpty ? component : prefix + "." + component
                if let reached = reachedByPrefix[prefix] {
                    (sources, sourceEntity) = reached
                    continue
                }
                guard let relationship = sourceEntity?.relationshipsByName[component] else {
                    throw NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError, userInfo: [
                        NSLocalizedDescriptionKey: "relationshipKeyPathsForPrefetching: '\(component)' of key path '\(keyPath)' is not a relationship of entity \(sourceEntity?.name ?? "?")",
                    ])
                }
                // Only the first step's sources are the fetched objects.
                let isFirstStep = prefix == component
                sources = try prefetch(relationship, from: sources, coveringEntity: objectsCoverEntity && isFirstStep,
                                       coordinator: coordinator)
                sourceEntity = relationship.destinationEntity
                reachedByPrefix[prefix] = (sources, sourceEntity)
            }
        }
    }

    /// One step: loads `relationship` for `sources`; returns the destinations reached.
    private func prefetch(_ relationship: NSRelationshipDescription, from sources: [NSManagedObject], coveringEntity: Bool,
                          coordinator: NSPersistentStoreCoordinator) throws -> [NSManagedObject] {
        let stored = sources.filter { !$0.objectID.isTemporaryID }
        guard !stored.isEmpty else { return [] }
        let ids = stored.map(\.objectID)
        var result = try generationBacking?.prefetch(relationship, for: ids, sourcesCoverEntity: coveringEntity)
            ?? coordinator.prefetch(relationship, for: ids, sourcesCoverEntity: coveringEntity)
        // Looked up and registered in one batch each (the registry grown once), as a fetch does.
        let reached = objects(with: result.snapshots.map(\.objectID), recordingPendingFaults: false)
        // Read before the snapshots are taken out (which drops them) and before any
        // `awakeFromFetch()` runs (which may unregister objects).
        let positions = result.destinationPositions
        let removals = registry.removalCount
        // Each snapshot is moved into its object, the last first (as a fetch's rows are: see
        // `registerFaultsByChunk`): iterating the list copied each one, a retain and a release
        // of each of its references, and reversing it first copied them too.
        var snapshots: [ObjectSnapshot] = []
        swap(&snapshots, &result.snapshots)
        var position = reached.count
        let destinations = LastDestination.forLoads(into: self)
        while position > 0, let snapshot = snapshots.popLast() {
            position -= 1
            let object = reached[position]
            guard object.faultFlag else { continue }
            // Removing from an empty dictionary still hashes the key.
            if !rowCache.isEmpty { rowCache[snapshot.objectID.key] = nil }
            loadAndAwake(object, from: snapshot, destinations: destinations)
        }
        // The sources hold their destinations (the context does not retain unchanged objects).
        for source in stored {
            source.fireFaultIfNeeded()
            guard relationship.isToMany, source.isToManyFault(relationship.name) else { continue }
            let ids = result.destinations[source.objectID] ?? []
            // Where the store gave the lists as positions too, each destination is the object
            // made for its snapshot, unless the context unregistered objects since (an
            // `awakeFromFetch()` that reset it, rolled it back or saved a deletion); else each
            // ID is looked up (and one not among the snapshots made).
            if let positions = positions?[source.objectID], positions.count == ids.count, registry.removalCount == removals {
                source.fillToMany(relationship, with: ObjectList(positions.lazy.map { reached[$0] }), ids: ids)
            } else {
                source.fillToMany(relationship, with: ids, in: self)
            }
        }
        return reached
    }
}
