/// Builders for the `NSError`s the coordinator and the stores throw: Core Data's codes in
/// `NSCocoaErrorDomain`, Core Data's userInfo keys, and a description naming the store, the
/// entity or the object concerned.
package enum PersistentStoreErrors {
    /// An error of `code` with `description`, the affected stores and any extra userInfo.
    package static func make(_ code: Int, _ description: String, stores: [NSPersistentStore] = [],
                     url: URL? = nil, underlying: Error? = nil, userInfo extra: [String: Any] = [:]) -> NSError {
        var userInfo: [String: Any] = extra
        userInfo[NSLocalizedDescriptionKey] = description
        if !stores.isEmpty { userInfo[NSAffectedStoresErrorKey] = stores }
        if let url { userInfo[NSURLErrorKey] = url }
        if let underlying { userInfo[NSUnderlyingErrorKey] = underlying }
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: userInfo)
    }

    /// How a store is named in messages: its type and its file, or its identifier.
    package static func name(of store: NSPersistentStore) -> String {
        if let url = store.url { return "\(store.type) store at \(url.path)" }
        return "\(store.type) store \(store.identifier ?? "")"
    }

    /// `NSPersistentStoreInvalidTypeError` (134000) for a type no store class is registered for.
    static func unknownStoreType(_ type: String, url: URL?) -> NSError {
        make(NSPersistentStoreInvalidTypeError,
             "Unknown store type '\(type)'; registered types are \(StoreTypeRegistry.shared.all.keys.sorted().joined(separator: ", ")).",
             url: url, userInfo: [NSStoreTypeKey: type])
    }

    /// `NSManagedObjectMergeError` (133020) for a save whose updated or deleted objects changed
    /// in `store` since they were read, with the conflicts under `NSPersistentStoreSaveConflictsErrorKey`.
    package static func mergeConflicts(_ conflicts: [NSMergeConflict], store: NSPersistentStore) -> NSError {
        make(NSManagedObjectMergeError,
             "Could not merge changes: \(conflicts.count) object(s) changed in the \(name(of: store)) since they were read (\(conflicts.map { $0.sourceObjectID.description }.joined(separator: ", "))).",
             stores: [store], url: store.url,
             userInfo: [NSPersistentStoreSaveConflictsErrorKey: conflicts, NSAffectedObjectsErrorKey: conflicts.map(\.sourceObjectID)])
    }

    /// `NSPersistentStoreSaveError` (134030) for a save into a read-only store.
    package static func readOnly(_ store: NSPersistentStore) -> NSError {
        make(NSPersistentStoreSaveError, "The \(name(of: store)) is read-only and can't save changes.", stores: [store])
    }

    /// `NSCoreDataError` (134060) when no store of the coordinator can hold `entity`.
    static func noStore(for entity: NSEntityDescription?, operation: String) -> NSError {
        make(NSCoreDataError,
             "No persistent store of the coordinator holds entity '\(entity?.name ?? "?")'; it can't \(operation).")
    }

    /// Wraps an error thrown while evaluating a predicate, sort or expression of a fetch.
    package static func fetchFailed(_ error: Error, entity: NSEntityDescription, store: NSPersistentStore) -> NSError {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain, nsError.userInfo[NSLocalizedDescriptionKey] != nil { return nsError }
        return make(NSCoreDataError,
                    "Fetching entity '\(entity.name ?? "?")' from the \(name(of: store)) failed: \(error)",
                    stores: [store], underlying: error)
    }
}
