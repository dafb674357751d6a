/// Snapshots in and out of managed objects, and faults.
///
/// A fault is an object whose snapshot is not loaded. Reading or writing a persistent property
/// fires it: the context loads the snapshot from its row cache or the coordinator.
extension NSManagedObject {
    /// Loads the persistent values when the object is a fault.
    func fireFaultIfNeeded() {
        guard faultFlag, let context = managedObjectContext else { return }
        context.fulfillFault(self)
    }

    /// Replaces the persistent values with `snapshot`'s (transient values stay). To-one and
    /// to-many destinations become the context's registered objects (faults when new).
    /// A to-many relationship missing from the snapshot's `toMany` stays a relationship fault:
    /// it is read from the store (one query) the first time it is read or changed
    /// (``toManyList(_:)``).
    ///
    /// The snapshot's values become the storage as they are (shared until the first change), so
    /// loading an object of attributes costs no per-attribute work.
    func load(_ snapshot: ObjectSnapshot, in context: NSManagedObjectContext) {
        var values = snapshot.values
        for property in entity.properties {
            if property.isTransient {
                if let value = storage[property.name] { values[property.name] = value }
                continue
            }
            guard let relationship = property as? NSRelationshipDescription else { continue }
            if relationship.isToMany {
                values[relationship.name] = snapshot.toMany[relationship.name].map { ids in
                    ObjectList(ids.map { context.object(with: $0) })
                }
            } else if let id = snapshot.values[relationship.name] as? NSManagedObjectID {
                values[relationship.name] = context.object(with: id)
            }
        }
        storage = values
        fetchedSnapshot = nil
        committedSnapshot = snapshot
        faultFlag = false
        fetchedPropertyResults = [:]
    }

    /// Drops the persistent values and becomes a fault (hooks around). A fault left with no
    /// transient values drops its whole state, so it is as small as a fresh fault.
    func turnIntoFault(keepingTransients: Bool = true) {
        willTurnIntoFault()
        if let state {
            if keepingTransients, entity.properties.contains(where: \.isTransient) {
                for property in entity.properties where !property.isTransient { state.storage[property.name] = nil }
            } else {
                state.storage = [:]
            }
            state.fetchedPropertyResults = [:]
            state.eventChanges = [:]
            state.fetchedSnapshot = nil
            state.isFault = true
            if state.storage.isEmpty && !state.didAwakeFromInsert { self.state = nil }
        }
        didTurnIntoFault()
    }

    /// The object's persistent state as a store sees it: attributes by name, to-one
    /// destinations as IDs in `values`, to-many destinations as IDs in `toMany`, and the version
    /// last read.
    ///
    /// Attribute values are taken as stored: every setter keeps values converted by
    /// ``PropertyValueCoercion/stored(_:for:)`` (and validation passed before a save), so the
    /// storage is shared with the snapshot and only relationships and transient keys are
    /// rewritten.
    func persistentSnapshot() -> ObjectSnapshot {
        var snapshot = ObjectSnapshot(objectID: objectID, values: storage, version: committedSnapshot?.version ?? 0)
        for property in entity.properties {
            switch property {
            case let relationship as NSRelationshipDescription where !relationship.isTransient:
                if relationship.isToMany {
                    snapshot.values.removeValue(forKey: relationship.name)
                    // A relationship fault is unchanged: the store keeps what it has.
                    guard !isToManyFault(relationship.name) else { continue }
                    snapshot.toMany[relationship.name] = toManyList(relationship.name).objects.map(\.objectID)
                } else if let destination = storage[relationship.name] as? NSManagedObject {
                    snapshot.values[relationship.name] = destination.objectID
                }
            case is NSAttributeDescription where !property.isTransient:
                continue
            default:
                if storage[property.name] != nil { snapshot.values.removeValue(forKey: property.name) }
            }
        }
        return snapshot
    }

    // MARK: Fetched properties

    /// The results of a fetched property, fetched on first read with `$FETCH_SOURCE` bound to the
    /// object and `$FETCHED_PROPERTY` to the description. Empty without a context or request,
    /// and when the fetch fails (the error is logged; Apple's would raise).
    func fetchedPropertyValue(_ property: NSFetchedPropertyDescription) -> [Any] {
        if let cached = fetchedPropertyResults[property.name] { return cached }
        guard let context = managedObjectContext, let template = property.fetchRequest,
              let request = template.copy() as? NSFetchRequest<NSFetchRequestResult> else { return [] }
        request.predicate = template.predicate?.withSubstitutionVariables([
            "FETCH_SOURCE": self, "FETCHED_PROPERTY": property,
        ])
        if request.entity == nil, let name = request.entityName {
            request.entity = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[name]
        }
        // A fetch that fails (a store row it can't read, say) is logged, not cached: the
        // property reads as empty until a fetch succeeds.
        guard let results = context.reportingStoreError(firing: objectID, property: property.name, {
            try context.fetch(request).map { $0 as Any }
        }) else { return [] }
        fetchedPropertyResults[property.name] = results
        return results
    }
}
