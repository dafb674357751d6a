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

    /// The descriptors that order the rows of a fetch: all of them, except for dictionary
    /// results, where those from the first one naming a result key that is not an entity
    /// property (an expression description) on order the dictionaries instead.
    static func rowSortDescriptors(of request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription) -> [NSSortDescriptor] {
        let descriptors = request.sortDescriptors ?? []
        guard request.resultType == .dictionaryResultType else { return descriptors }
        let properties = entity.propertiesByName
        return Array(descriptors.prefix { descriptor in
            guard let key = descriptor.key else { return true }
            return properties[String(key.split(separator: ".").first ?? "")] != nil
        })
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
