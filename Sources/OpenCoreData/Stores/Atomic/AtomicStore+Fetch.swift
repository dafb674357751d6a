/// Fetching from an atomic store's rows.
extension AtomicStore {
    /// ``executeFetch(_:)`` of the atomic stores.
    func fetchRows(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult {
        lock.lock()
        defer { lock.unlock() }
        let entity = try fetchEntity(of: request)
        if request.resultType == .countResultType && request.predicate == nil {
            let entities = request.includesSubentities ? [entity] + entity.allSubentities : [entity]
            return .count(FetchWindow(request).apply(toCount: entities.reduce(0) { $0 + (contents.rows[$1.name ?? ""]?.count ?? 0) }))
        }
        do {
            return try SnapshotFetch.run(request, entity: entity,
                                         rows: candidateRows(of: entity, includingSubentities: request.includesSubentities),
                                         snapshot: { [unowned self] id in self.row(for: id) })
        } catch {
            throw PersistentStoreErrors.fetchFailed(error, entity: entity, store: self)
        }
    }

    /// The request's entity, as the store's model has it.
    func fetchEntity(of request: NSFetchRequest<NSFetchRequestResult>) throws -> NSEntityDescription {
        let name = request.entity?.name ?? request.entityName
        if let name, let entity = managedObjectModel?.entitiesByName[name] ?? request.entity { return entity }
        throw PersistentStoreErrors.make(NSCoreDataError,
                                         "The fetch request names no entity known to the \(PersistentStoreErrors.name(of: self)): '\(name ?? "nil")'.",
                                         stores: [self])
    }

    /// The rows of `entity` (and its subentities when asked), ordered by primary key then entity
    /// name: the order of a fetch without sort descriptors. Call under ``lock``.
    func candidateRows(of entity: NSEntityDescription, includingSubentities: Bool) -> [ObjectSnapshot] {
        let entities = includingSubentities ? [entity] + entity.allSubentities : [entity]
        var result: [ObjectSnapshot] = []
        for candidate in entities {
            if let rows = contents.rows[candidate.name ?? ""] { result.append(contentsOf: rows.values) }
        }
        result.sort {
            let (a, b) = ($0.objectID.primaryKey ?? 0, $1.objectID.primaryKey ?? 0)
            return a != b ? a < b : ($0.objectID.entity.name ?? "") < ($1.objectID.entity.name ?? "")
        }
        return result
    }

}
