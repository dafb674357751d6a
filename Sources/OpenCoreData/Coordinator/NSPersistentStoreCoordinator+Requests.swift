/// The context's interface to the stores. Internal: the context is the only caller, and it
/// speaks snapshots and IDs (DESIGN decision 2).
extension NSPersistentStoreCoordinator {
    /// Runs a fetch on the stores the request affects and merges their results.
    ///
    /// The affected stores are the request's `affectedStores` (or all stores) that hold the
    /// entity or, with `includesSubentities`, one of its subentities. One store answers alone.
    /// With several, each is asked without offset and with `offset + limit` as its limit; the
    /// results are concatenated, re-sorted with the sort descriptors (relationships in key paths
    /// resolved through the stores), and cut to offset and limit again; counts are summed.
    /// Dictionary results are built by the coordinator over the stores' matching rows, so
    /// aggregates and groups span the stores.
    /// A coordinator without any store throws `NSCoreDataError` (134060).
    func executeFetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult {
        try executeFetch(request, at: nil)
    }

    /// ``executeFetch(_:)`` at a pinned context's query generation (`nil`: the newest data).
    ///
    /// A fetch of the newest data from one store that reads on connections of its own (SQLite
    /// in WAL mode, see `SQLiteReaderPool`) runs without the coordinator's lock: it neither
    /// waits for another context's save nor holds one up, as fetches on Apple's connection pool
    /// don't. Every other fetch runs under the lock.
    func executeFetch(_ request: NSFetchRequest<NSFetchRequestResult>, at generation: QueryGeneration?) throws -> StoreFetchResult {
        if generation == nil, let store = storeFetchingOutsideLock(request),
           let result = try store.executeFetchOutsideCoordinatorLock(request) {
            return result
        }
        return try withLock {
            let entity = try fetchEntity(of: request)
            if persistentStores.isEmpty { throw PersistentStoreErrors.noStore(for: entity, operation: "fetch") }
            let stores = affectedStores(for: request, entity: entity)
            guard stores.count > 1 else {
                guard let store = stores.first else { return Self.emptyResult(for: request.resultType) }
                return try (generation?.reader(of: store) ?? store).executeFetch(request)
            }
            return try mergedFetch(request, entity: entity, stores: stores, at: generation)
        }
    }

    /// The one store `request` affects when that store fetches outside the coordinator's lock
    /// (chosen without the lock: the store list has a lock of its own); else `nil`, and errors
    /// are left to the fetch under the lock.
    private func storeFetchingOutsideLock(_ request: NSFetchRequest<NSFetchRequestResult>) -> NSPersistentStore? {
        // Coordinators without such a store choose their stores once, under the lock.
        guard persistentStores.contains(where: \.fetchesOutsideCoordinatorLock),
              let entity = try? fetchEntity(of: request) else { return nil }
        let stores = affectedStores(for: request, entity: entity)
        guard stores.count == 1, let store = stores.first, store.fetchesOutsideCoordinatorLock else { return nil }
        return store
    }

    /// The current snapshots of the given objects, from their stores (past their caches when
    /// `fresh`, else from cached data no older than `maxAge` seconds, any age when negative).
    /// Temporary IDs and IDs of stores that are gone, or of objects no longer in their store,
    /// have no entry.
    func snapshots(for objectIDs: [NSManagedObjectID], fresh: Bool = false,
                   maxAge: TimeInterval = -1) throws -> SnapshotsByID {
        try snapshots(for: objectIDs, fresh: fresh, maxAge: maxAge, at: nil)
    }

    /// ``snapshots(for:fresh:maxAge:)`` at a pinned context's query generation (`nil`: the
    /// newest data). A pinned store's rows are read from the generation, where nothing is stale.
    /// A batch of a `fetchBatchSize` result is `walking`: its stores read it with
    /// ``NSPersistentStore/walkSnapshots(for:maxAge:)``.
    func snapshots(for objectIDs: [NSManagedObjectID], fresh: Bool, maxAge: TimeInterval,
                   at generation: QueryGeneration?, walking: Bool = false) throws -> SnapshotsByID {
        try withLock {
            var result = SnapshotsByID(minimumCapacity: objectIDs.count)
            for (store, ids) in storesHolding(objectIDs) {
                let read: [ObjectSnapshot]
                if let pinned = generation?.reader(of: store) {
                    read = try pinned.snapshots(for: ids)
                } else if fresh {
                    read = try store.freshSnapshots(for: ids)
                } else if walking {
                    read = try store.walkSnapshots(for: ids, maxAge: maxAge)
                } else {
                    read = try store.snapshots(for: ids, maxAge: maxAge)
                }
                result.update(contentsOf: read)
            }
            return result
        }
    }

    /// Tells the store of `objectIDs` that their snapshots will be asked for next
    /// (``NSPersistentStore/readAhead(_:)``): the store of the first, which ignores the hint
    /// unless they are all its own. Called for every batch of a walk, so it looks up one store.
    func readAhead(_ objectIDs: ArraySlice<NSManagedObjectID>) {
        withLock {
            guard let first = objectIDs.first, !first.isTemporaryID, let store = store(of: first) else { return }
            store.readAhead(objectIDs)
        }
    }

    /// `objectIDs` by the store holding them, in order within each store; temporary IDs and IDs
    /// of stores that are gone are left out. Called with the lock held.
    ///
    /// IDs come in runs of one store (a batch, a result), so an ID with the same origin as the
    /// one before (the same store) is not looked up again, and the groups are a short list, not
    /// a dictionary.
    private func storesHolding(_ objectIDs: [NSManagedObjectID]) -> [(store: NSPersistentStore, ids: [NSManagedObjectID])] {
        // All of one store (a batch of faults, say): the array as it is, not rebuilt ID by ID.
        if let first = objectIDs.first, !first.isTemporaryID, objectIDs.allSatisfy({ $0.origin === first.origin }) {
            return store(of: first).map { [($0, objectIDs)] } ?? []
        }
        var groups: [(store: NSPersistentStore, ids: [NSManagedObjectID])] = []
        var last: (origin: ObjectIDOrigin, group: Int)?
        for id in objectIDs where !id.isTemporaryID {
            if let last, id.origin === last.origin {
                groups[last.group].ids.append(id)
                continue
            }
            guard let store = store(of: id) else { continue }
            let group = groups.firstIndex { $0.store === store } ?? groups.count
            if group == groups.count { groups.append((store, [])) }
            groups[group].ids.append(id)
            last = (id.origin, group)
        }
        return groups
    }

    /// Prefetches `relationship` for the given sources from their stores (one request per
    /// store); temporary IDs and IDs of stores that are gone are skipped. At `generation` when
    /// the context is pinned. `sourcesCoverEntity`: see ``NSPersistentStore/prefetch(_:for:sourcesCoverEntity:)``.
    func prefetch(_ relationship: NSRelationshipDescription, for sourceIDs: [NSManagedObjectID],
                  sourcesCoverEntity: Bool = false, at generation: QueryGeneration? = nil) throws -> RelationshipPrefetch {
        try withLock {
            var result = RelationshipPrefetch()
            for (store, ids) in storesHolding(sourceIDs) {
                let reader: any StoreReading = generation?.reader(of: store) ?? store
                try result.append(reader.prefetch(relationship, for: ids, sourcesCoverEntity: sourcesCoverEntity))
            }
            return result
        }
    }

    /// The destinations of a to-many relationship of one object, from its store. A temporary ID
    /// has none; an ID whose store is gone throws `NSManagedObjectReferentialIntegrityError` (133000).
    func relatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID) throws -> [NSManagedObjectID] {
        try relatedObjectIDs(for: relationship, of: objectID, at: nil)
    }

    /// ``relatedObjectIDs(for:of:)`` at a pinned context's query generation (`nil`: the newest data).
    func relatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID,
                          at generation: QueryGeneration?) throws -> [NSManagedObjectID] {
        try withLock {
            if objectID.isTemporaryID { return [] }
            guard let store = store(of: objectID) else {
                throw PersistentStoreErrors.make(NSManagedObjectReferentialIntegrityError,
                                                 "The store of object \(objectID) is no longer in the coordinator.",
                                                 userInfo: [NSAffectedObjectsErrorKey: [objectID]])
            }
            return try (generation?.reader(of: store) ?? store).relatedObjectIDs(for: relationship, of: objectID)
        }
    }

    /// Permanent IDs for new objects: one per entry, in order, each allocated by `store` when
    /// given (``NSManagedObjectContext/assign(_:to:)``) or else by the first store whose
    /// configuration holds the entity. Throws `NSCoreDataError` (134060) when no store holds an
    /// entity, and `NSPersistentStoreOperationError` when a given store is not the coordinator's.
    func permanentObjectIDs(for objects: [(entity: NSEntityDescription, store: NSPersistentStore?)]) throws -> [NSManagedObjectID] {
        try withLock {
            var groups: [(store: NSPersistentStore, entity: NSEntityDescription, indices: [Int])] = []
            let stores = persistentStores
            // The store and group of the previous object's entity: a save's inserted objects
            // come in runs of one entity, and finding a store reads each store's configuration.
            var last: (entity: NSEntityDescription, store: NSPersistentStore, group: Int)?
            for (index, object) in objects.enumerated() {
                if object.store == nil, let last, last.entity === object.entity {
                    groups[last.group].indices.append(index)
                    continue
                }
                let store: NSPersistentStore
                if let given = object.store {
                    guard stores.contains(where: { $0 === given }) else {
                        throw PersistentStoreErrors.make(NSPersistentStoreOperationError,
                                                         "The \(PersistentStoreErrors.name(of: given)) an object was assigned to is not a store of this coordinator.",
                                                         stores: [given])
                    }
                    store = given
                } else {
                    guard let first = stores.first(where: { self.store($0, holds: object.entity) }) else {
                        throw PersistentStoreErrors.noStore(for: object.entity, operation: "save")
                    }
                    store = first
                }
                let group: Int
                if let found = groups.firstIndex(where: { $0.store === store && $0.entity.name == object.entity.name }) {
                    group = found
                    groups[group].indices.append(index)
                } else {
                    group = groups.count
                    groups.append((store, object.entity, [index]))
                }
                if object.store == nil { last = (object.entity, store, group) }
            }
            // One group holds every object, in order: its IDs are the answer.
            if groups.count == 1 { return try groups[0].store.newObjectIDs(for: groups[0].entity, count: objects.count) }
            var result = [NSManagedObjectID?](repeating: nil, count: objects.count)
            for group in groups {
                let ids = try group.store.newObjectIDs(for: group.entity, count: group.indices.count)
                for (index, id) in zip(group.indices, ids) { result[index] = id }
            }
            return result.compactMap { $0 }
        }
    }

    /// Saves changes that may span stores: checks every store first, then saves each, so that
    /// a refused save writes nothing.
    ///
    /// Changes are split by the store of each object's ID. An object with a temporary ID, or of
    /// a store that is not the coordinator's, fails the save (`NSPersistentStoreSaveError`,
    /// 134030); so does a relationship to an object of another store
    /// (`NSManagedObjectExternalRelationshipError`, 133010). If a store fails to write after
    /// another one saved, the error is `NSPersistentStoreIncompleteSaveError` (134040).
    ///
    /// Changes that all belong to one store go to it whole, without the check: each store's own
    /// ``NSPersistentStore/save(_:)`` checks the same things and writes all or nothing.
    func save(_ changes: StoreSaveChanges) throws {
        try withLock {
            if changes.isEmpty { return }
            var stores: [NSPersistentStore] = []
            var storeIndex: [ObjectIdentifier: Int] = [:]
            // The index in `stores` of each snapshot's store, inserted, updated, then deleted.
            var routes: [Int] = []
            routes.reserveCapacity(changes.inserted.count + changes.updated.count + changes.deleted.count)
            // The store of the previous snapshot's ID origin: IDs of one origin name one store
            // (an origin is immutable, and the stores don't change under the lock), and a save's
            // IDs come in runs of one store, so most are not looked up (a lock and a list).
            var last: (origin: ObjectIDOrigin, store: NSPersistentStore)?
            for snapshots in [changes.inserted, changes.updated, changes.deleted] {
                // By index: iterating would copy each snapshot (a retain and a release per reference).
                for index in snapshots.indices {
                    let store: NSPersistentStore
                    if let last, snapshots[index].objectID.origin === last.origin {
                        store = last.store
                    } else {
                        store = try saveStore(of: snapshots[index].objectID)
                        last = (snapshots[index].objectID.origin, store)
                    }
                    try checkSameStore(snapshots, at: index, store: store)
                    if let only = stores.first, only === store, stores.count == 1 {
                        routes.append(0)
                        continue
                    }
                    let index = storeIndex[ObjectIdentifier(store)] ?? {
                        stores.append(store)
                        storeIndex[ObjectIdentifier(store)] = stores.count - 1
                        return stores.count - 1
                    }()
                    routes.append(index)
                }
            }
            if stores.count == 1 {
                try stores[0].save(changes)
                return
            }
            var blank = StoreSaveChanges()
            blank.transactionAuthor = changes.transactionAuthor
            blank.contextName = changes.contextName
            var parts = Array(repeating: blank, count: stores.count)
            var next = routes.makeIterator()
            func route(_ snapshot: ObjectSnapshot, _ add: (inout StoreSaveChanges) -> Void) {
                guard let index = next.next() else { return }
                add(&parts[index])
                if let keys = changes.changedKeys[snapshot.objectID] { parts[index].changedKeys[snapshot.objectID] = keys }
            }
            for snapshot in changes.inserted { route(snapshot) { $0.inserted.append(snapshot) } }
            for snapshot in changes.updated { route(snapshot) { $0.updated.append(snapshot) } }
            for snapshot in changes.deleted { route(snapshot) { $0.deleted.append(snapshot) } }
            let ordered = persistentStores.compactMap { store in storeIndex[ObjectIdentifier(store)].map { (store, parts[$0]) } }
            for (store, part) in ordered { try store.checkSave(part) }
            try checkTransformableValues(changes)
            var saved: [NSPersistentStore] = []
            for (store, part) in ordered {
                do {
                    try store.save(part)
                    saved.append(store)
                } catch {
                    guard !saved.isEmpty else { throw error }
                    throw PersistentStoreErrors.make(
                        NSPersistentStoreIncompleteSaveError,
                        "The save was written to \(saved.map(PersistentStoreErrors.name(of:)).joined(separator: ", ")) but failed in the \(PersistentStoreErrors.name(of: store)).",
                        stores: saved + [store], underlying: error)
                }
            }
        }
    }

    // MARK: Helpers

    /// Turns every Transformable value of `changes` into data once, so that a value no
    /// transformer can store fails a save that spans several stores before any of them writes
    /// (each store's own save is all-or-nothing, so a one-store save needs no such pass).
    private func checkTransformableValues(_ changes: StoreSaveChanges) throws {
        for snapshot in changes.inserted + changes.updated {
            try TransformableValueCoding.forEachValue(in: snapshot) { attribute, value in
                do {
                    _ = try TransformableValueCoding.storedData(value, attribute: TransformableValueCoding.label(attribute),
                                                                transformerName: attribute.valueTransformerName)
                } catch let error as TransformableValueError {
                    throw PersistentStoreErrors.make(NSPersistentStoreSaveError, error.description, stores: [try saveStore(of: snapshot.objectID)])
                }
            }
        }
    }

    /// The request's entity as the coordinator's model has it.
    func fetchEntity(of request: NSFetchRequest<NSFetchRequestResult>) throws -> NSEntityDescription {
        let name = request.entity?.name ?? request.entityName
        if let name, let entity = managedObjectModel.entitiesByName[name] { return entity }
        throw PersistentStoreErrors.make(NSCoreDataError, "The fetch request's entity '\(name ?? "nil")' is not in the coordinator's model.")
    }

    /// The stores a fetch of `entity` goes to, in the coordinator's order.
    func affectedStores(for request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription) -> [NSPersistentStore] {
        let entities = request.includesSubentities ? [entity] + entity.allSubentities : [entity]
        return persistentStores.filter { store in
            if let only = request.affectedStores, !only.contains(where: { $0 === store }) { return false }
            return entities.contains { self.store(store, holds: $0) }
        }
    }

    static func emptyResult(for resultType: NSFetchRequestResultType) -> StoreFetchResult {
        switch resultType {
        case .countResultType: return .count(0)
        case .managedObjectIDResultType: return .objectIDs([])
        case .dictionaryResultType: return .dictionaries([])
        default: return .snapshots([])
        }
    }

    /// A fetch over several stores, merged.
    private func mergedFetch(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription,
                             stores: [NSPersistentStore], at generation: QueryGeneration?) throws -> StoreFetchResult {
        let reader = { (store: NSPersistentStore) -> any StoreReading in generation?.reader(of: store) ?? store }
        let window = FetchWindow(request)
        guard let perStore = request.copy() as? NSFetchRequest<NSFetchRequestResult> else {
            throw PersistentStoreErrors.make(NSCoreDataError, "The fetch request could not be copied.")
        }
        perStore.fetchOffset = 0
        perStore.fetchLimit = window.limit > 0 && request.resultType != .countResultType ? window.offset + window.limit : 0
        let descriptors = request.sortDescriptors ?? []
        let resolver = SnapshotResolver(
            snapshot: { [unowned self] id in (try? self.store(of: id).map(reader)?.snapshots(for: [id]))?.first },
            toMany: { [unowned self] relationship, id in (try? self.store(of: id).map(reader)?.relatedObjectIDs(for: relationship, of: id)) ?? [] })
        if request.resultType == .dictionaryResultType {
            return try mergedDictionaryFetch(request, entity: entity, stores: stores, reader: reader, resolver: resolver)
        }
        let results = try stores.map { try reader($0).executeFetch(perStore) }
        switch request.resultType {
        case .countResultType:
            let total = results.reduce(0) { sum, result in
                if case .count(let count) = result { return sum + count }
                return sum
            }
            return .count(window.apply(toCount: total))
        case .managedObjectIDResultType:
            let ids = results.flatMap { result -> [NSManagedObjectID] in
                if case .objectIDs(let ids) = result { return ids }
                return []
            }
            guard !descriptors.isEmpty else { return .objectIDs(window.apply(to: ids)) }
            let adapters = ids.map { resolver.reference(for: $0) }
            return .objectIDs(window.apply(to: try FetchEvaluation.sort(adapters, by: descriptors)).map(\.objectID))
        default:
            let snapshots = results.flatMap { result -> [ObjectSnapshot] in
                if case .snapshots(let snapshots) = result { return snapshots }
                return []
            }
            guard !descriptors.isEmpty else { return .snapshots(window.apply(to: snapshots)) }
            let adapters = snapshots.map(resolver.adapter(for:))
            return .snapshots(window.apply(to: try FetchEvaluation.sort(adapters, by: descriptors)).map(\.snapshot))
        }
    }

    /// A dictionary fetch over several stores: each store gives its matching rows, and the
    /// coordinator builds the dictionaries over all of them, so aggregates, groups, having and
    /// distinct span the stores.
    private func mergedDictionaryFetch(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription,
                                       stores: [NSPersistentStore], reader: (NSPersistentStore) -> any StoreReading,
                                       resolver: SnapshotResolver) throws -> StoreFetchResult {
        guard let rowsRequest = request.copy() as? NSFetchRequest<NSFetchRequestResult> else {
            throw PersistentStoreErrors.make(NSCoreDataError, "The fetch request could not be copied.")
        }
        rowsRequest.resultType = .managedObjectResultType
        rowsRequest.readEveryMatchingRow()
        let snapshots = try stores.flatMap { store -> [ObjectSnapshot] in
            if case .snapshots(let snapshots) = try reader(store).executeFetch(rowsRequest) { return snapshots }
            return []
        }
        do {
            let rows = try FetchEvaluation.sort(snapshots.map(resolver.adapter(for:)),
                                                by: FetchEvaluation.rowSortDescriptors(of: request, entity: entity))
            return .dictionaries(try DictionaryFetch(request: request, entity: entity,
                                                     evaluation: FetchEvaluation(resolver: resolver)).run(on: rows))
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw PersistentStoreErrors.make(NSCoreDataError,
                                             "Fetching dictionaries of entity '\(entity.name ?? "?")' from \(stores.count) stores failed: \(error)",
                                             stores: stores, underlying: error)
        }
    }

    /// The coordinator's store for an object being saved.
    private func saveStore(of objectID: NSManagedObjectID) throws -> NSPersistentStore {
        if objectID.isTemporaryID {
            throw PersistentStoreErrors.make(NSPersistentStoreSaveError,
                                             "Object \(objectID) has a temporary ID; it needs a permanent ID before it is saved.",
                                             userInfo: [NSAffectedObjectsErrorKey: [objectID]])
        }
        guard let store = store(of: objectID) else {
            throw PersistentStoreErrors.make(NSPersistentStoreSaveError,
                                             "The store of object \(objectID) is not a store of this coordinator.",
                                             userInfo: [NSAffectedObjectsErrorKey: [objectID]])
        }
        return store
    }

    /// Throws `NSManagedObjectExternalRelationshipError` when a relationship of the snapshot at
    /// `index` of `snapshots` points to an object of another store. The snapshot is read in place
    /// (passing it would copy it), and only when its entity has relationships; its destinations
    /// are checked where they are (gathering them in an array cost about 2,000 instructions a
    /// saved row).
    private func checkSameStore(_ snapshots: [ObjectSnapshot], at index: Int, store: NSPersistentStore) throws {
        guard !snapshots[index].layout.relationshipSlots.isEmpty else { return }
        let snapshot = snapshots[index]
        let identifier = store.identifier
        func check(_ id: NSManagedObjectID, key: @autoclosure () -> String) throws {
            guard !id.isTemporaryID, id.storeIdentifier != identifier else { return }
            let key = key()
            throw PersistentStoreErrors.make(
                NSManagedObjectExternalRelationshipError,
                "Relationship '\(key)' of object \(snapshot.objectID) points to \(id) in another store; relationships can't cross stores.",
                stores: [store], userInfo: [NSAffectedObjectsErrorKey: [snapshot.objectID], NSValidationKeyErrorKey: key])
        }
        let layout = snapshot.layout
        for slot in layout.relationshipSlots where layout.kinds[slot] == .toOne {
            if let id = snapshot.slots[slot].objectID { try check(id, key: layout.properties[slot].name) }
        }
        for (key, ids) in snapshot.toMany {
            for id in ids { try check(id, key: key) }
        }
    }
}
