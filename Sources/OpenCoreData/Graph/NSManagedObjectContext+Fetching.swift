/// Fetching through the backing (the coordinator, or the parent context), with the context's pending changes merged in.
extension NSManagedObjectContext {
    /// What a fetch produced, before it is cast to the request's result type.
    enum FetchOutcome {
        case objects([NSManagedObject])
        case objectIDs([NSManagedObjectID])
        case dictionaries([[String: Any]])
        case count(Int)
    }

    /// Runs a fetch request and returns its results as `ResultType`: managed objects (of the
    /// entity's registered class), `NSManagedObjectID`s, dictionaries (`NSDictionary` or
    /// `[String: Any]`, whichever `ResultType` is) or, for `countResultType`, one `NSNumber`.
    ///
    /// With `includesPendingChanges` (the default), unsaved inserted objects that match are
    /// included, deleted ones left out and changed ones judged by their current values; the
    /// context then sorts, offsets and limits itself. Dictionary results come from the stores
    /// only, as in Core Data. Throws when the entity is unknown, the context has no coordinator,
    /// a store fails, or a result is not a `ResultType`.
    ///
    /// With `relationshipKeyPathsForPrefetching` (managed-object results only, as in Core Data),
    /// each relationship of the key paths is then loaded for all results with one store request
    /// per key path step, so walking it runs no further request. Differs from Apple: a fetch
    /// with a `fetchBatchSize` does not prefetch.
    ///
    /// With a `fetchBatchSize` (managed-object results only) the store returns the matching IDs,
    /// pending changes are merged as usual, and the array holds faults; firing one loads its
    /// whole batch (its `fetchBatchSize` neighbours in the array) with one store read.
    /// Differs from Apple, whose array is a lazy `NSArray` of IDs: Swift arrays can't be lazy on
    /// Linux, so the array holds light faults (an ID and a context each), and the objects of
    /// batches the walk has moved past (all but the current and the previous one) turn back into
    /// faults when they have no unsaved changes, which keeps memory bounded.
    public func fetch<ResultType>(_ request: NSFetchRequest<ResultType>) throws -> [ResultType] {
        checkConcurrency("fetch(_:) of \(request.entityName ?? "?")")
        switch try performFetch(request) {
        case .objects(let objects):
            if let keyPaths = request.relationshipKeyPathsForPrefetching, !keyPaths.isEmpty, request.fetchBatchSize == 0,
               let coordinator = persistentStoreCoordinator {
                let entity = try resolvedEntity(of: request, in: coordinator)
                // Every object of the entity: most destination rows are wanted (a hint for the store).
                let coversEntity = request.predicate == nil && request.fetchLimit == 0 && request.fetchOffset == 0
                    && (request.includesSubentities || entity.subentities.isEmpty)
                try prefetchRelationships(keyPaths, of: objects, entity: entity, objectsCoverEntity: coversEntity)
            }
            // Fetching `NSManagedObject`s, the array is the result (an array cast copies it even
            // to its own type: 8 MB for a million objects). Otherwise one array cast checks each
            // element's class; casting them one by one through `Any` costs the runtime's generic
            // cast (about 1,200 instructions an object).
            if ResultType.self == NSManagedObject.self, let results = objects as Any as? [ResultType] { return results }
            if let results = objects as? [ResultType] { return results }
            return try objects.map { try cast($0, to: ResultType.self, request) }
        case .objectIDs(let ids): return try ids.map { try cast($0, to: ResultType.self, request) }
        case .dictionaries(let rows):
            if let rows = rows as? [ResultType] { return rows }
            return try rows.map { try cast(NSDictionary(dictionary: $0), to: ResultType.self, request) }
        case .count(let count):
            if let number = NSNumber(value: count) as? ResultType { return [number] }
            return [try cast(count, to: ResultType.self, request)]
        }
    }

    /// The number of objects `request` would fetch (pending changes included as for `fetch`).
    public func count<ResultType>(for request: NSFetchRequest<ResultType>) throws -> Int {
        checkConcurrency("count(for:) of \(request.entityName ?? "?")")
        switch try performFetch(request, counting: true) {
        case .objects(let objects): return objects.count
        case .objectIDs(let ids): return ids.count
        case .dictionaries(let rows): return rows.count
        case .count(let count): return count
        }
    }

    private func cast<T>(_ value: Any, to type: T.Type, _ request: NSFetchRequest<T>) throws -> T {
        if let result = value as? T { return result }
        throw NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError, userInfo: [
            NSLocalizedDescriptionKey: "Fetch request for entity '\(request.entityName ?? "?")' produced a \(Swift.type(of: value)), which is not a \(T.self)",
        ])
    }

    /// Resolves the request's entity in the coordinator's model.
    func resolvedEntity<T>(of request: NSFetchRequest<T>, in coordinator: NSPersistentStoreCoordinator) throws -> NSEntityDescription {
        if let name = request.entity?.name ?? request.entityName,
           let entity = coordinator.managedObjectModel.entitiesByName[name] {
            return entity
        }
        throw NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError, userInfo: [
            NSLocalizedDescriptionKey: "Fetch request names entity '\(request.entityName ?? "nil")', which is not in the model",
        ])
    }

    func performFetch<T>(_ request: NSFetchRequest<T>, counting: Bool = false) throws -> FetchOutcome {
        guard let coordinator = persistentStoreCoordinator, let backing else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError, userInfo: [
                NSLocalizedDescriptionKey: "The context \(name ?? "") has no persistent store coordinator to fetch from.",
            ])
        }
        let entity = try resolvedEntity(of: request, in: coordinator)
        let storeRequest = NSFetchRequest<NSFetchRequestResult>()
        storeRequest.copySettings(from: request)
        storeRequest.entity = entity
        storeRequest.predicate = request.predicate.map(PredicateObjectMapping.forStore)
        if counting, storeRequest.resultType != .dictionaryResultType { storeRequest.resultType = .countResultType }
        // With fetchBatchSize the store returns IDs only; objects load a batch at a time.
        let batched = !counting && request.resultType == .managedObjectResultType && request.fetchBatchSize > 0
        if batched { storeRequest.resultType = .managedObjectIDResultType }

        let isDictionary = request.resultType == .dictionaryResultType
        if request.includesPendingChanges && !isDictionary { processPendingChanges() }
        let merges = request.includesPendingChanges && !isDictionary && hasPendingChanges(for: entity, request)
        guard merges else {
            // Consumed, so that the snapshots reach `register` as the only reference to them.
            let result = try backing.executeFetch(storeRequest)
            switch consume result {
            case .snapshots(let snapshots): return .objects(register(snapshots, request))
            case .objectIDs(let ids) where batched:
                let objects = batchedObjects(ids)
                rememberBatches(of: objects, batchSize: request.fetchBatchSize)
                return .objects(objects)
            case .objectIDs(let ids): return .objectIDs(ids)
            case .dictionaries(let rows): return .dictionaries(rows)
            case .count(let count): return .count(count)
            }
        }

        storeRequest.resultType = batched ? .managedObjectIDResultType : .managedObjectResultType
        storeRequest.fetchOffset = 0
        storeRequest.fetchLimit = 0
        var objects: [NSManagedObject]
        let result = try backing.executeFetch(storeRequest)
        switch consume result {
        case .snapshots(let snapshots): objects = register(snapshots, request)
        case .objectIDs(let ids) where batched:
            objects = batchedObjects(ids)
            // Judging and sorting in memory fires the faults: let them load by batch meanwhile.
            rememberBatches(of: objects, batchSize: request.fetchBatchSize)
        case .objectIDs(let ids): objects = ids.map { object(with: $0) }
        case .dictionaries, .count: objects = []
        }
        objects = try mergePendingChanges(into: objects, entity: entity, request)
        if let descriptors = request.sortDescriptors, !descriptors.isEmpty { objects = objects.sortedArray(using: descriptors) }
        if request.fetchOffset > 0 { objects = Array(objects.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { objects = Array(objects.prefix(request.fetchLimit)) }
        if counting || request.resultType == .countResultType { return .count(objects.count) }
        if request.resultType == .managedObjectIDResultType { return .objectIDs(objects.map(\.objectID)) }
        if batched { rememberBatches(of: objects, batchSize: request.fetchBatchSize) }
        return .objects(objects)
    }

    /// Whether an unsaved change concerns objects the request could return.
    private func hasPendingChanges<T>(for entity: NSEntityDescription, _ request: NSFetchRequest<T>) -> Bool {
        let lists = [insertedList, updatedList, deletedList]
        return lists.contains { list in list.contains { matchesEntity($0, entity, request) } }
    }

    private func matchesEntity<T>(_ object: NSManagedObject, _ entity: NSEntityDescription, _ request: NSFetchRequest<T>) -> Bool {
        request.includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity.name == entity.name
    }

    /// Store results minus deleted objects, with changed and inserted objects judged in memory.
    private func mergePendingChanges<T>(into stored: [NSManagedObject], entity: NSEntityDescription,
                                        _ request: NSFetchRequest<T>) throws -> [NSManagedObject] {
        let predicate = request.predicate.map { PredicateObjectMapping.forObjects($0, in: self) }
        func matches(_ object: NSManagedObject) throws -> Bool {
            guard let predicate else { return true }
            return try predicate.evaluateThrowing(with: object)
        }
        var result = ObjectList()
        for object in stored where !deletedList.contains(object) {
            if updatedList.contains(object), !(try matches(object)) { continue }
            result.insert(object)
        }
        for object in updatedList where !result.contains(object) && matchesEntity(object, entity, request) {
            if try matches(object) { result.insert(object) }
        }
        for object in insertedList where matchesEntity(object, entity, request) {
            if try matches(object) { result.insert(object) }
        }
        return result.objects
    }

    /// Registers fetched snapshots: known objects are reused (their unsaved changes kept), new
    /// ones are created as faults backed by the row cache, or loaded when the request does not
    /// return faults (`awakeFromFetch()` runs when values load).
    ///
    /// The registry is read once for all snapshots and the new faults registered together
    /// (two locks per fetch, not two per object).
    func register<T>(_ snapshots: consuming [ObjectSnapshot], _ request: NSFetchRequest<T>) -> [NSManagedObject] {
        let returnsFaults = request.returnsObjectsAsFaults, includesValues = request.includesPropertyValues
        let refreshes = request.shouldRefreshRefetchedObjects
        if returnsFaults && includesValues && !refreshes && snapshots.count > Self.registrationChunkSize {
            return registerFaultsByChunk(snapshots)
        }
        // With the rows, every new fault is loaded below or keeps its row to fire from: none is
        // a batch-faulting candidate (the batch would skip it), so none is recorded as one.
        let objects = objects(with: snapshots.map(\.objectID), recordingPendingFaults: !includesValues)
        // By position: iterating the snapshots would copy each one (retaining its references)
        // before it is copied again where it goes.
        let destinations = returnsFaults ? nil : LastDestination.forLoads(into: self)
        for position in objects.indices {
            let object = objects[position]
            if object.faultFlag {
                // Faults that keep their rows take them below.
                if !returnsFaults { loadAndAwake(object, from: snapshots[position], destinations: destinations) }
            } else if refreshes && !object.hasChanges {
                recordingSuspended += 1
                object.load(snapshots[position], in: self)
                recordingSuspended -= 1
                object.awakeFromSnapshotEvents(.refresh)
                eventRefreshed.insert(object)
            }
        }
        guard returnsFaults && includesValues else { return objects }
        // The faults' rows are moved out of the array, last first: copying one retains each of
        // its references, and destroying the array releases them again. Keeping a fault's row is
        // not observable, so the order does not matter.
        // The objects are read unretained: the array holds them.
        var rows = consume snapshots
        var position = objects.count
        while position > 0, var snapshot = rows.popLast().map(Optional.some) {
            position -= 1
            Unmanaged.passUnretained(objects[position])._withUnsafeGuaranteedRef { object in
                if object.faultFlag { object.keepFetchedSnapshot(swapping: &snapshot) }
            }
        }
        return objects
    }

    /// ``register(_:_:)`` of the common fetch (faults that keep their rows, registered objects
    /// not refreshed), a ``registrationChunkSize`` of rows at a time, from the last: each chunk's
    /// rows are looked up, made faults and moved into them while they are still in the
    /// processor's cache (``objects(with:recordingPendingFaults:)`` says why). The rows are
    /// moved out last first, as ``register(_:_:)`` moves them, so a row listed twice gives its
    /// fault the first one.
    private func registerFaultsByChunk(_ snapshots: consuming [ObjectSnapshot]) -> [NSManagedObject] {
        var rows = consume snapshots
        let count = rows.count
        // Grown once for all the chunks, as one registration would grow it.
        registry.reserveCapacity(count)
        return [NSManagedObject](count: count) { base in
            var end = count
            while end > 0 {
                let start = max(0, end - Self.registrationChunkSize)
                let objects = objects(with: rows[start..<end].map(\.objectID), recordingPendingFaults: false)
                var position = end
                while position > start, var snapshot = rows.popLast().map(Optional.some) {
                    position -= 1
                    let object = objects[position - start]
                    // Read unretained: `objects` holds it until it is stored below.
                    Unmanaged.passUnretained(object)._withUnsafeGuaranteedRef { object in
                        if object.faultFlag { object.keepFetchedSnapshot(swapping: &snapshot) }
                    }
                    (base + position).initialize(to: object)
                }
                end = start
            }
        }
    }

    // MARK: execute(_:)

    /// Runs a store request: an `NSFetchRequest` (its results in ``NSAsynchronousFetchResult/finalResult``)
    /// or an ``NSAsynchronousFetchRequest`` (run at once; its completion block is called before
    /// this returns). Other request types throw `NSPersistentStoreUnsupportedRequestTypeError`.
    ///
    /// Differs from Apple: asynchronous fetches complete synchronously.
    public func execute(_ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        checkConcurrency("execute(_:)")
        if let executable = request as? ContextExecutableRequest { return try executable.execute(in: self) }
        throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreUnsupportedRequestTypeError, userInfo: [
            NSLocalizedDescriptionKey: "The context can't execute a \(Swift.type(of: request))",
        ])
    }
}

/// A request ``NSManagedObjectContext/execute(_:)`` knows how to run.
protocol ContextExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult
}

extension NSFetchRequest: ContextExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        let result = NSAsynchronousFetchResult<ResultType>(fetchRequest: nil)
        result.finalResult = try context.fetch(self)
        return result
    }
}

/// The result of a store request.
open class NSPersistentStoreResult: NSObject, @unchecked Sendable {}

/// The result of an asynchronous (or executed) fetch.
open class NSAsynchronousFetchResult<ResultType>: NSPersistentStoreResult, @unchecked Sendable {
    /// The request that was run, when it was an ``NSAsynchronousFetchRequest``.
    public let fetchRequest: NSAsynchronousFetchRequest<ResultType>?
    /// The fetched results; `nil` when the fetch failed.
    open internal(set) var finalResult: [ResultType]?
    /// The error of a failed fetch.
    open internal(set) var operationError: Error?

    init(fetchRequest: NSAsynchronousFetchRequest<ResultType>?) {
        self.fetchRequest = fetchRequest
    }
}

/// A fetch whose results go to a completion block.
///
/// Differs from Apple: the fetch runs when executed and the block is called before
/// `execute(_:)` returns.
open class NSAsynchronousFetchRequest<ResultType>: NSPersistentStoreRequest, @unchecked Sendable {
    /// The fetch to run.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// Called with the result.
    public let completionBlock: ((NSAsynchronousFetchResult<ResultType>) -> Void)?
    /// A hint of the number of results; unused.
    open var estimatedResultCount: Int = 0

    public init(fetchRequest request: NSFetchRequest<ResultType>,
                completionBlock blk: ((NSAsynchronousFetchResult<ResultType>) -> Void)?) {
        fetchRequest = request
        completionBlock = blk
        super.init()
    }
}

extension NSAsynchronousFetchRequest: ContextExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        let result = NSAsynchronousFetchResult<ResultType>(fetchRequest: self)
        do {
            result.finalResult = try context.fetch(fetchRequest)
        } catch {
            result.operationError = error
        }
        completionBlock?(result)
        return result
    }
}

/// Object IDs are fetch results (`managedObjectIDResultType`), as in Core Data.
extension NSManagedObjectID: NSFetchRequestResult {}
