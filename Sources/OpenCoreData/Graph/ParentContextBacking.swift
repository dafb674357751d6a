/// A parent context as its child's backing: every call runs on the parent's queue
/// (`performAndWait` on the parent) and answers from the parent's current state, its unsaved
/// changes included.
final class ParentContextBacking: ContextBacking {
    /// The parent, retained by the child as in Apple.
    let parent: NSManagedObjectContext

    init(parent: NSManagedObjectContext) {
        self.parent = parent
    }

    func executeFetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult {
        try parent.performAndWait { try parent.fetchForChild(request) }
    }

    func snapshots(for objectIDs: [NSManagedObjectID], fresh: Bool,
                   maxAge: TimeInterval) throws -> SnapshotsByID {
        try parent.performAndWait { try parent.snapshotsForChild(objectIDs, fresh: fresh, maxAge: maxAge) }
    }

    func relatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID) throws -> [NSManagedObjectID] {
        try parent.performAndWait { try parent.relatedObjectIDsForChild(relationship, of: objectID) }
    }

    func permanentObjectIDs(for objects: [(entity: NSEntityDescription, store: NSPersistentStore?)],
                            replacing temporaryIDs: [NSManagedObjectID]) throws -> [NSManagedObjectID] {
        try parent.performAndWait {
            guard let backing = parent.backing else { throw NSManagedObjectContext.noBackingError("obtain permanent IDs") }
            let ids = try backing.permanentObjectIDs(for: objects, replacing: temporaryIDs)
            // The parent's objects of the same temporary IDs take the same permanent IDs.
            var objects: [NSManagedObject] = []
            var permanentIDs: [NSManagedObjectID] = []
            for (temporary, permanent) in zip(temporaryIDs, ids) {
                guard let object = parent.registry[temporary] else { continue }
                objects.append(object)
                permanentIDs.append(permanent)
            }
            parent.reassign(objects, to: permanentIDs)
            return ids
        }
    }

    func save(_ changes: StoreSaveChanges, read: [NSManagedObjectID: ObjectSnapshot]) throws {
        try parent.performAndWait { try parent.applyChildSave(changes, read: read) }
    }
}

/// The parent's side of the backing calls; these run on the parent's queue.
extension NSManagedObjectContext {
    static func noBackingError(_ operation: String) -> NSError {
        NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError, userInfo: [
            NSLocalizedDescriptionKey: "The parent context has no persistent store coordinator or parent to \(operation).",
        ])
    }

    /// A registered object's current state as a child reads it (its fault fired first). To-many
    /// relationships not loaded here are left out: the child asks for them when it needs them.
    func snapshotForChild(_ object: NSManagedObject) -> ObjectSnapshot {
        object.fireFaultIfNeeded()
        return object.persistentSnapshot()
    }

    /// The current snapshots of `ids`: registered, loaded objects from memory (deleted ones
    /// have none), the others from this context's own backing.
    func snapshotsForChild(_ ids: [NSManagedObjectID], fresh: Bool, maxAge: TimeInterval) throws -> SnapshotsByID {
        var result = SnapshotsByID()
        var missing: [NSManagedObjectID] = []
        // IDs the child names by a temporary ID this context replaced: asked for by the
        // permanent ID, answered under the child's.
        var childIDs: [NSManagedObjectID: NSManagedObjectID] = [:]
        for childID in ids {
            let id = localID(forChildID: childID)
            if id != childID { childIDs[id] = childID }
            if let object = registry[id] {
                // Registered objects answer from memory (a fault fires here first); one whose
                // row is gone (fired empty) has no snapshot, like a deleted one.
                guard !deletedList.contains(object), object.managedObjectContext === self else { continue }
                var snapshot = snapshotForChild(object)
                if id != childID { snapshot.objectID = childID }
                if insertedList.contains(object) || object.hasCommittedSnapshot { result.update(snapshot) }
            } else if !id.isTemporaryID {
                missing.append(id)
            }
        }
        if !missing.isEmpty, let backing {
            for var snapshot in try backing.snapshots(for: missing, fresh: fresh, maxAge: maxAge) {
                let id = snapshot.objectID
                if let childID = childIDs[id] { snapshot.objectID = childID }
                result.insertIfAbsent(snapshot)
            }
        }
        return result
    }

    /// The current destinations of a to-many relationship of `objectID`.
    func relatedObjectIDsForChild(_ relationship: NSRelationshipDescription, of childID: NSManagedObjectID) throws -> [NSManagedObjectID] {
        let objectID = localID(forChildID: childID)
        if let object = registry[objectID], !deletedList.contains(object) {
            object.fireFaultIfNeeded()
            return object.toManyList(relationship.name).objects.map(\.objectID)
        }
        if objectID.isTemporaryID { return [] }
        return try backing?.relatedObjectIDs(for: relationship, of: objectID) ?? []
    }

    /// A child's fetch: this context fetches with its own pending changes merged and answers
    /// with its objects' current snapshots (or their IDs, count or dictionaries).
    func fetchForChild(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult {
        guard let objectRequest = request.copy() as? NSFetchRequest<NSFetchRequestResult>, let entity = request.entity else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError, userInfo: [
                NSLocalizedDescriptionKey: "The fetch request of entity '\(request.entityName ?? "?")' could not be copied for the parent context.",
            ])
        }
        objectRequest.resultType = .managedObjectResultType
        objectRequest.includesPendingChanges = true
        objectRequest.fetchBatchSize = 0
        objectRequest.relationshipKeyPathsForPrefetching = nil
        func objects() throws -> [NSManagedObject] { try fetch(objectRequest).compactMap { $0 as? NSManagedObject } }
        switch request.resultType {
        case .countResultType:
            return .count(try count(for: objectRequest))
        case .managedObjectIDResultType:
            return .objectIDs(try objects().map(\.objectID))
        case .dictionaryResultType:
            // The dictionaries are built over this context's current state of every matching
            // object, as a store builds them over its rows.
            objectRequest.readEveryMatchingRow()
            let snapshots = try objects().map(snapshotForChild)
            let resolver = SnapshotResolver(
                snapshot: { [unowned self] id in (try? self.snapshotsForChild([id], fresh: false, maxAge: -1))?[id] },
                toMany: { [unowned self] relationship, id in (try? self.relatedObjectIDsForChild(relationship, of: id)) ?? [] })
            let rows = try FetchEvaluation.sort(snapshots.map(resolver.adapter(for:)),
                                                by: FetchEvaluation.rowSortDescriptors(of: request, entity: entity))
            return .dictionaries(try DictionaryFetch(request: request, entity: entity,
                                                     evaluation: FetchEvaluation(resolver: resolver)).run(on: rows))
        default:
            return .snapshots(try objects().map(snapshotForChild))
        }
    }
}
