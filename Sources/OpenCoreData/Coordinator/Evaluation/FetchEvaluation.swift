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

    /// `objects` sorted by `descriptors` as `sortedArray(using:)` sorts them (stable, nil
    /// first, each descriptor's comparison and direction), reading each key path once per
    /// object. A key path that can't be read throws instead of trapping.
    static func sort<T>(_ objects: [T], by descriptors: [NSSortDescriptor]) throws -> [T] {
        guard !descriptors.isEmpty, objects.count > 1 else { return objects }
        let keys: [[Any?]] = try objects.map { object in
            try descriptors.map { descriptor in
                try descriptor.key.map { try KeyValueAccess.value(forKeyPath: $0, of: object) } ?? object
            }
        }
        let comparators = descriptors.map(\.comparator)
        let order = objects.indices.sorted { i, j in
            for (index, descriptor) in descriptors.enumerated() {
                let result = compare(keys[i][index], keys[j][index], with: comparators[index])
                if result == .orderedSame { continue }
                return (result == .orderedAscending) == descriptor.ascending
            }
            return i < j
        }
        return order.map { objects[$0] }
    }

    /// Nil (and `NSNull`) before every value, as `NSSortDescriptor` orders; values by `comparator`.
    private static func compare(_ a: Any?, _ b: Any?, with comparator: Comparator) -> ComparisonResult {
        switch (SortComparison.nonNull(a), SortComparison.nonNull(b)) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        case let (x?, y?): return comparator(x, y)
        }
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
