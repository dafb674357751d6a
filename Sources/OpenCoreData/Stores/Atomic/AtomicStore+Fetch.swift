/// Fetching from an atomic store's rows.
extension AtomicStore {
    /// ``executeFetch(_:)`` of the atomic stores.
    func fetchRows(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult {
        lock.lock()
        defer { lock.unlock() }
        let entity = try fetchEntity(of: request)
        do {
            let evaluation = FetchEvaluation(resolver: makeResolver())
            var descriptors = request.sortDescriptors ?? []
            if request.resultType == .dictionaryResultType {
                // Descriptors from the first one naming a result key (an aggregate) on order the
                // dictionaries, not the rows.
                let properties = entity.propertiesByName
                descriptors = Array(descriptors.prefix { descriptor in
                    guard let key = descriptor.key else { return true }
                    return properties[String(key.split(separator: ".").first ?? "")] != nil
                })
            }
            let matches = try evaluation.matches(of: candidateRows(of: entity, includingSubentities: request.includesSubentities),
                                                 predicate: request.predicate, sortDescriptors: descriptors)
            switch request.resultType {
            case .countResultType:
                return .count(FetchWindow(request).apply(to: matches).count)
            case .managedObjectIDResultType:
                return .objectIDs(FetchWindow(request).apply(to: matches).map(\.objectID))
            case .dictionaryResultType:
                return .dictionaries(try DictionaryFetch(request: request, entity: entity, evaluation: evaluation).run(on: matches))
            default:
                return .snapshots(FetchWindow(request).apply(to: matches).map(\.snapshot))
            }
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

    /// A resolver over the current rows. Call under ``lock``.
    func makeResolver() -> SnapshotResolver {
        SnapshotResolver(snapshot: { [unowned self] id in self.row(for: id) })
    }
}

/// Filters and sorts rows for one fetch, with object constants resolved through one resolver.
struct FetchEvaluation {
    let resolver: SnapshotResolver

    /// The rows matching the request's predicate, sorted by its sort descriptors (stable, so
    /// ties keep primary-key order). No offset or limit.
    func matches(of rows: [ObjectSnapshot], predicate: NSPredicate?, sortDescriptors: [NSSortDescriptor]) throws -> [SnapshotKeyValueAdapter] {
        var adapters = rows.map(resolver.adapter(for:))
        if let predicate {
            let resolved = StoreValueMapping.resolvingObjectConstants(in: predicate, with: resolver)
            adapters = try adapters.filter { try resolved.evaluateThrowing(with: $0) }
        }
        return try Self.sort(adapters, by: sortDescriptors)
    }

    /// `objects` sorted by `descriptors`, after checking that every key path can be read (a
    /// sort descriptor traps on a key it can't read; here the error is thrown).
    static func sort<T>(_ objects: [T], by descriptors: [NSSortDescriptor]) throws -> [T] {
        guard !descriptors.isEmpty, objects.count > 1 else { return objects }
        for descriptor in descriptors {
            guard let key = descriptor.key else { continue }
            for object in objects { _ = try KeyValueAccess.value(forKeyPath: key, of: object) }
        }
        return objects.sortedArray(using: descriptors)
    }
}

/// A request's `fetchOffset` and `fetchLimit`.
struct FetchWindow {
    var offset: Int
    var limit: Int

    init<R>(_ request: NSFetchRequest<R>) {
        offset = max(0, request.fetchOffset)
        limit = max(0, request.fetchLimit)
    }

    init(offset: Int, limit: Int) {
        self.offset = max(0, offset)
        self.limit = max(0, limit)
    }

    /// `items` without the first `offset` and cut to `limit` (0: no limit).
    func apply<T>(to items: [T]) -> [T] {
        let skipped = items.dropFirst(offset)
        return Array(limit > 0 ? skipped.prefix(limit) : skipped)
    }

    /// A count after the offset and limit.
    func apply(toCount count: Int) -> Int {
        let remaining = max(0, count - offset)
        return limit > 0 ? min(limit, remaining) : remaining
    }
}
