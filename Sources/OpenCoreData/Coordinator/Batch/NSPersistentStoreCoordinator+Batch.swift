import Foundation

/// Running batch requests: the coordinator resolves the request against its model, picks the
/// stores, and has each run its part (``NSPersistentStore/executeBatchInsert(_:of:returningIDs:)``
/// and the others) under the coordinator's lock, so that no save of this coordinator
/// interleaves with a batch.
extension NSPersistentStoreCoordinator {
    /// Runs a store request for `context`, as Apple's `execute(_:with:)`: fetch requests fetch
    /// through the context, batch requests run on the stores. Returns the request's result
    /// (an ``NSPersistentStoreResult``).
    public func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext) throws -> Any {
        switch request {
        case let insert as NSBatchInsertRequest: return try execute(insert)
        case let update as NSBatchUpdateRequest: return try execute(update)
        case let delete as NSBatchDeleteRequest: return try execute(delete)
        case let history as NSPersistentHistoryChangeRequest: return try execute(history)
        default: return try context.execute(request)
        }
    }

    /// Runs a batch insert on the first store (of the request's `affectedStores`, if any) that
    /// holds the entity.
    func execute(_ request: NSBatchInsertRequest) throws -> NSBatchInsertResult {
        let entity = try batchEntity(named: request.entity?.name ?? request.entityName)
        let rows = try Self.rows(of: request, entity: entity)
        let derives = derivations(reading: entity)
        let result: NSBatchInsertResult = try withLock {
            guard let store = persistentStores.first(where: { store in
                (request.affectedStores.map { $0.contains { $0 === store } } ?? true) && self.store(store, holds: entity)
            }) else { throw PersistentStoreErrors.noStore(for: entity, operation: "batch insert") }
            if store.isReadOnly { throw PersistentStoreErrors.readOnly(store) }
            let outcome = try rows.isEmpty ? StoreBatchOutcome(count: 0, objectIDs: [])
                : store.executeBatchInsert(rows, of: entity, returningIDs: request.resultType == .objectIDs || derives)
            return NSBatchInsertResult(resultType: request.resultType, outcome: outcome)
        }
        if derives, let ids = result.writtenIDs {
            try recomputeDerivedAttributes(after: ids, of: entity)
        }
        return result
    }

    /// Runs a batch update on every store that holds the entity (or a subentity).
    func execute(_ request: NSBatchUpdateRequest) throws -> NSBatchUpdateResult {
        let entity = try batchEntity(named: request.entity?.name ?? request.entityName)
        var values: [(attribute: NSAttributeDescription, expression: NSExpression)] = []
        for (key, value) in request.propertiesToUpdate ?? [:] {
            let name = (key.base as? NSPropertyDescription)?.name ?? (key.base as? String) ?? "\(key.base)"
            guard let attribute = entity.attributesByName[name], !attribute.isTransient else {
                let what = entity.relationshipsByName[name] != nil ? "a relationship, which batch updates can't set"
                    : "not a stored attribute of \(entity.name ?? "?")"
                throw PersistentStoreErrors.make(NSCoreDataError,
                    "propertiesToUpdate names '\(name)', \(what).", userInfo: [NSValidationKeyErrorKey: name])
            }
            let expression = value as? NSExpression ?? NSExpression(forConstantValue: ValueComparison.isNSNull(value) ? nil : value)
            values.append((attribute, expression))
        }
        let update = StoreBatchUpdate(entity: entity, predicate: request.predicate,
                                      includesSubentities: request.includesSubentities, values: values.sorted { $0.attribute.name < $1.attribute.name })
        let derives = derivations(reading: entity)
        let wantsIDs = request.resultType == .updatedObjectIDsResultType || derives
        let (result, written): (NSBatchUpdateResult, [NSManagedObjectID]) = try withLock {
            var ids: [NSManagedObjectID] = []
            var count = 0
            for store in try batchStores(for: update.fetchRequest(resultType: .managedObjectIDResultType), entity: entity) {
                let outcome = try store.executeBatchUpdate(update, returningIDs: wantsIDs)
                count += outcome.count
                ids += outcome.objectIDs ?? []
            }
            return (NSBatchUpdateResult(resultType: request.resultType, outcome: StoreBatchOutcome(count: count, objectIDs: wantsIDs ? ids : nil)), ids)
        }
        if derives { try recomputeDerivedAttributes(after: written, of: entity) }
        return result
    }

    /// Runs a batch delete: the objects the request names (or its fetch matches) are deleted
    /// from their stores, each store in one transaction.
    func execute(_ request: NSBatchDeleteRequest) throws -> NSBatchDeleteResult {
        let (result, rewritten): (NSBatchDeleteResult, [NSManagedObjectID]) = try withLock {
            var byStore: [(store: NSPersistentStore, ids: [NSManagedObjectID])] = []
            func add(_ id: NSManagedObjectID, to store: NSPersistentStore) {
                if let index = byStore.firstIndex(where: { $0.store === store }) { byStore[index].ids.append(id) }
                else { byStore.append((store, [id])) }
            }
            if let ids = request.objectIDs {
                guard let entity = ids.first?.entity else { return (NSBatchDeleteResult(resultType: request.resultType, outcome: StoreBatchOutcome(count: 0, objectIDs: [])), []) }
                if let stranger = ids.first(where: { $0.entity.name != entity.name }) {
                    throw PersistentStoreErrors.make(NSCoreDataError,
                        "A batch delete's object IDs must all be of one entity: \(stranger) is not a \(entity.name ?? "?").")
                }
                for id in ids where !id.isTemporaryID {
                    guard let store = store(of: id) else { continue }
                    add(id, to: store)
                }
            } else {
                let fetch = request.fetchRequest
                let entity = try fetchEntity(of: fetch)
                guard let query = fetch.copy() as? NSFetchRequest<NSFetchRequestResult> else { return (NSBatchDeleteResult(resultType: request.resultType, outcome: StoreBatchOutcome(count: 0, objectIDs: [])), []) }
                query.resultType = .managedObjectIDResultType
                for store in try batchStores(for: query, entity: entity) {
                    guard case .objectIDs(let ids) = try store.executeFetch(query) else { continue }
                    for id in ids { add(id, to: store) }
                }
            }
            var deleted: [NSManagedObjectID] = []
            var rewritten: [NSManagedObjectID] = []
            for (store, ids) in byStore {
                if store.isReadOnly { throw PersistentStoreErrors.readOnly(store) }
                let outcome = try store.executeBatchDelete(ids, returningIDs: true)
                deleted += outcome.objectIDs ?? []
                rewritten += outcome.updatedObjectIDs
            }
            return (NSBatchDeleteResult(resultType: request.resultType, outcome: StoreBatchOutcome(count: deleted.count, objectIDs: deleted)), rewritten)
        }
        // The nullify rule rewrote these objects' relationships: their derivations (a `@count`
        // of the deleted objects) change with them.
        if managedObjectModel.hasDerivedAttributes {
            try recomputeDerivedAttributes(after: [], of: nil, rewritten: rewritten.filter { !$0.entity.derivedAttributes.isEmpty })
        }
        return result
    }

    // MARK: Derived attributes after a batch

    /// Whether derived attributes read objects of `entity`: its own, or another entity's
    /// through a relationship to it.
    private func derivations(reading entity: NSEntityDescription) -> Bool {
        guard managedObjectModel.hasDerivedAttributes else { return false }
        return !entity.derivedAttributes.isEmpty || !derivedDependents(of: entity).isEmpty
    }

    /// The relationships through which other entities' derivations read objects of `entity`.
    private func derivedDependents(of entity: NSEntityDescription) -> [NSRelationshipDescription] {
        managedObjectModel.entities.flatMap { other in
            other.relationshipsByName.values.filter { relationship in
                guard let destination = relationship.destinationEntity, entity.isKindOf(entity: destination) else { return false }
                return other.derivationsRead(through: relationship.name)
            }
        }
    }

    /// Recomputes, in a context of its own and one save, the derived attributes of the objects
    /// a batch wrote and of the objects whose derivations read them (what Apple's SQLite
    /// triggers do after a batch), and of the `rewritten` objects. Runs outside the
    /// coordinator's lock.
    private func recomputeDerivedAttributes(after ids: [NSManagedObjectID], of entity: NSEntityDescription?,
                                            rewritten: [NSManagedObjectID] = []) throws {
        guard !ids.isEmpty || !rewritten.isEmpty else { return }
        let dependents = entity.map(derivedDependents) ?? []
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = self
        context.undoManager = nil
        try context.performAndWait {
            var targets = rewritten.map { context.object(with: $0) }
            if let entity, !entity.derivedAttributes.isEmpty || !entity.allSubentities.allSatisfy(\.derivedAttributes.isEmpty) {
                targets += ids.map { context.object(with: $0) }
            }
            for relationship in dependents {
                guard let source = relationship.entity else { continue }
                let request = NSFetchRequest<NSManagedObject>()
                request.entity = source
                request.predicate = NSPredicate(format: relationship.isToMany ? "ANY %K IN %@" : "%K IN %@", relationship.name, ids)
                targets += try context.fetch(request)
            }
            try context.computeDerivedAttributes(of: targets)
            if context.hasChanges { try context.save() }
        }
    }

    // MARK: Helpers

    /// The entity named `name` in the coordinator's model; `NSCoreDataError` (134060) if none.
    private func batchEntity(named name: String) throws -> NSEntityDescription {
        guard let entity = managedObjectModel.entitiesByName[name] else {
            throw PersistentStoreErrors.make(NSCoreDataError, "The batch request's entity '\(name)' is not in the coordinator's model.")
        }
        return entity
    }

    /// The writable stores a batch over `request` goes to.
    private func batchStores(for request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription) throws -> [NSPersistentStore] {
        if persistentStores.isEmpty { throw PersistentStoreErrors.noStore(for: entity, operation: "batch request") }
        let stores = affectedStores(for: request, entity: entity)
        if let readOnly = stores.first(where: \.isReadOnly) { throw PersistentStoreErrors.readOnly(readOnly) }
        return stores
    }

    /// The rows of a batch insert as given: its objects, or what its handlers produce (the
    /// store converts them, ``BatchInsertColumns``).
    static func rows(of request: NSBatchInsertRequest, entity: NSEntityDescription) throws -> [[String: Any]] {
        if let objects = request.objectsToInsert, request.dictionaryHandler == nil, request.managedObjectHandler == nil {
            return objects
        }
        var rows: [[String: Any]] = []
        if let handler = request.dictionaryHandler {
            while true {
                let dictionary = NSMutableDictionary()
                if handler(dictionary) { break }
                var row: [String: Any] = [:]
                for (key, value) in dictionary { row["\(key)"] = value }
                rows.append(row)
            }
        } else if let handler = request.managedObjectHandler {
            let attributes = entity.attributesByName.values.filter { !$0.isTransient }
            while true {
                let object = NSManagedObject(entity: entity, insertInto: nil)
                if handler(object) { break }
                var row: [String: Any] = [:]
                for attribute in attributes { if let value = object.value(forKey: attribute.name) { row[attribute.name] = value } }
                rows.append(row)
            }
        }
        return rows
    }
}

extension NSBatchInsertRequest: ContextExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        try context.batchCoordinator().execute(self)
    }
}

extension NSBatchUpdateRequest: ContextExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        try context.batchCoordinator().execute(self)
    }
}

extension NSBatchDeleteRequest: ContextExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        try context.batchCoordinator().execute(self)
    }
}

extension NSManagedObjectContext {
    /// The coordinator a batch request from this context runs on (a child's root's).
    func batchCoordinator() throws -> NSPersistentStoreCoordinator {
        guard let coordinator = persistentStoreCoordinator else {
            throw PersistentStoreErrors.make(NSCoreDataError, "The context \(name ?? "") has no persistent store coordinator to run a batch request on.")
        }
        return coordinator
    }
}
