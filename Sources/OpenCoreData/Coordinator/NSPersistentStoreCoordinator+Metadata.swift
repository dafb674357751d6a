/// Store metadata: `NSStoreType`, `NSStoreUUID`, `NSStoreModelVersionHashes`,
/// `NSStoreModelVersionIdentifiers` and the application's own keys.
extension NSPersistentStoreCoordinator {
    /// The metadata of `store`.
    public func metadata(for store: NSPersistentStore) -> [String: Any] {
        withLock { store.metadata ?? [:] }
    }

    /// Replaces the metadata of `store`; the store writes it with its next save.
    /// `NSStoreType` and `NSStoreUUID` always keep the store's own values.
    public func setMetadata(_ metadata: [String: Any]?, for store: NSPersistentStore) {
        withLock {
            var merged = metadata ?? [:]
            merged[NSStoreTypeKey] = store.type
            merged[NSStoreUUIDKey] = store.identifier
            store.metadata = merged
        }
    }

    /// The metadata of the store of `storeType` at `url`, read without adding the store.
    ///
    /// Throws `NSPersistentStoreInvalidTypeError` (134000) for an unregistered type, and the
    /// store type's own errors (a missing file is `NSFileReadNoSuchFileError`, 260).
    public class func metadataForPersistentStore(ofType storeType: String, at url: URL,
                                               options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        guard let storeClass = StoreTypeRegistry.shared.storeClass(for: storeType) else {
            throw PersistentStoreErrors.unknownStoreType(storeType, url: url)
        }
        return try storeClass.metadataForPersistentStore(with: url)
    }

    /// Replaces the metadata of the store of `storeType` at `url` without adding the store.
    public class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreOfType storeType: String,
                                at url: URL, options: [AnyHashable: Any]? = nil) throws {
        guard let storeClass = StoreTypeRegistry.shared.storeClass(for: storeType) else {
            throw PersistentStoreErrors.unknownStoreType(storeType, url: url)
        }
        try storeClass.setMetadata(metadata, forPersistentStoreAt: url)
    }
}
