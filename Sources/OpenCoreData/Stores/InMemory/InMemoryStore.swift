/// The in-memory store (`NSInMemoryStoreType`): an atomic store without a file.
///
/// Its rows live as long as the store is added to a coordinator. It is fully functional
/// (fetching, saving, optimistic locking, read-only) and the store of choice for tests.
/// Differs from Apple: ``metadataForPersistentStore(with:)`` throws, as there is no file to read.
open class InMemoryStore: AtomicStore, @unchecked Sendable {
    open override class var storeType: String { NSInMemoryStoreType }

    open override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        throw PersistentStoreErrors.make(NSPersistentStoreInvalidTypeError,
                                         "An in-memory store has no file; there is no metadata to read at \(url.path).", url: url)
    }
}
