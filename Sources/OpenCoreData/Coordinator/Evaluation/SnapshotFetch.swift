/// A fetch evaluated in memory over a store's candidate rows: the predicate, the sort
/// descriptors, the window and the result type, with the evaluator every store shares.
///
/// The atomic stores run every fetch through it; the PostgreSQL store (its own module) runs
/// the fetches its SQL does not express through it.
package enum SnapshotFetch {
    /// `request`'s result over `rows` (the candidates of `entity`, in primary-key order).
    /// `snapshot` and `toMany` resolve the objects that key paths through relationships reach.
    package static func run(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription, rows: [ObjectSnapshot],
                            snapshot: @escaping (NSManagedObjectID) -> ObjectSnapshot?,
                            toMany: @escaping (NSRelationshipDescription, NSManagedObjectID) -> [NSManagedObjectID] = { _, _ in [] })
        throws -> StoreFetchResult {
        let evaluation = FetchEvaluation(resolver: SnapshotResolver(snapshot: snapshot, toMany: toMany))
        let matches = try evaluation.matches(of: rows, predicate: request.predicate,
                                             sortDescriptors: FetchEvaluation.rowSortDescriptors(of: request, entity: entity))
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
    }
}
