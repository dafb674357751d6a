import Foundation

/// Following the context's changes: the new arrangement from the old one and the changed
/// objects, and the report to the delegate.
extension FetchedResultsState {
    /// Handles one `NSManagedObjectContextObjectsDidChange` of the context: objects inserted,
    /// updated or refreshed are (re)evaluated against the entity and predicate, deleted ones
    /// leave, the result is sorted and sectioned again, and the delegate hears the changes.
    func contextObjectsDidChange(_ userInfo: [AnyHashable: Any]) {
        guard let delegate, let view, let old = sections else { return }
        let request = describe()
        guard request.resultType == .managedObjectResultType else { return }
        func objects(_ key: String) -> Set<NSManagedObject> { userInfo[key] as? Set<NSManagedObject> ?? [] }
        let inserted = objects(NSInsertedObjectsKey)
        let deleted = Set(objects(NSDeletedObjectsKey).map(ObjectIdentifier.init))
        let changedObjects = objects(NSUpdatedObjectsKey).union(objects(NSRefreshedObjectsKey))
        let changed = Set(changedObjects.map(ObjectIdentifier.init))
        guard !inserted.isEmpty || !deleted.isEmpty || !changed.isEmpty else { return }

        let entity = request.entity ?? request.entityName.flatMap { context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[$0] }
        func belongs(_ object: NSManagedObject) -> Bool {
            guard !object.isDeleted, !deleted.contains(ObjectIdentifier(object)), object.managedObjectContext === context,
                  let entity else { return false }
            let entityMatches = request.includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity.isSameEntity(as: entity)
            guard entityMatches else { return false }
            guard let predicate = request.predicate else { return true }
            return (try? predicate.evaluateThrowing(with: object)) ?? false
        }

        let previous = old.flatMap(\.members)
        let present = Set(previous.map(ObjectIdentifier.init))
        let kept = previous.filter { object in
            let key = ObjectIdentifier(object)
            if deleted.contains(key) { return false }
            guard changed.contains(key), let managed = object as? NSManagedObject else { return true }
            return belongs(managed)
        }
        // Newcomers in a stable order (the sets are unordered): as their IDs were made.
        let arriving = inserted.union(changedObjects)
            .filter { !present.contains(ObjectIdentifier($0)) && belongs($0) }
            .sorted { $0.objectID.key.precedes($1.objectID.key) }
        let ordered = NSSortDescriptor.stableSort(kept + arriving, by: request.sortDescriptors)
        let arranged: [FetchedResultsSection]
        do {
            arranged = try arrange(ordered, strict: false)
        } catch {
            // A section key path that can't be read was reported by performFetch(); an object
            // that appeared since without it leaves the arrangement as it was.
            return
        }
        let changes = FetchedResultsChanges(from: old, to: arranged, changed: changed)
        guard !changes.isEmpty else { return }
        let oldIDs = objectIDs
        install(arranged)
        report(changes, oldIDs: oldIDs, to: delegate, view: view)
        writeCache()
    }

    /// Tells the delegate: the difference alone when it implements the difference callback
    /// (controllers without sections), else will-change, section changes, object changes
    /// (deletions, insertions, moves, updates) and did-change.
    private func report(_ changes: FetchedResultsChanges, oldIDs: [ObjectIdentifier: NSManagedObjectID],
                        to delegate: any NSFetchedResultsControllerDelegate, view: NSFetchedResultsController<NSFetchRequestResult>) {
        if sectionNameKeyPath == nil {
            differenceUnhandled = false
            delegate.controller(view, didChangeContentWith: changes.difference(oldIDs: oldIDs))
            guard differenceUnhandled else { return }
        }
        delegate.controllerWillChangeContent(view)
        for change in changes.sections {
            delegate.controller(view, didChange: change.section, atSectionIndex: change.index, for: change.type)
        }
        for change in changes.objects {
            delegate.controller(view, didChange: change.object, at: change.oldPath, for: change.type, newIndexPath: change.newPath)
        }
        delegate.controllerDidChangeContent(view)
    }
}
