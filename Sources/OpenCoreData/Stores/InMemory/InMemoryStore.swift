/// The in-memory store (`NSInMemoryStoreType`): an atomic store without a file.
///
/// Its rows live as long as the store is added to a coordinator. It is fully functional
/// (fetching, saving, optimistic locking, read-only) and the store of choice for tests.
/// Transformable values go through their value transformer at each save
/// (`TransformableValueCoding`) and the store keeps what turning the `Data` back gives, so a
/// value reads back as from a file store, and a transformer that is not registered or a value it
/// can't transform fails the save, as in every store.
///
/// Differs from Apple: ``metadataForPersistentStore(with:)`` throws, as there is no file to read.
open class InMemoryStore: AtomicStore, @unchecked Sendable {
    open override class var storeType: String { NSInMemoryStoreType }

    open override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        throw PersistentStoreErrors.make(NSPersistentStoreInvalidTypeError,
                                         "An in-memory store has no file; there is no metadata to read at \(url.path).", url: url)
    }

    open override func save(_ changes: StoreSaveChanges) throws {
        var changes = changes
        changes.inserted = try changes.inserted.map(transformingValues)
        changes.updated = try changes.updated.map(transformingValues)
        try super.save(changes)
    }

    /// `snapshot` with each transformable value turned into `Data` and back.
    private func transformingValues(_ snapshot: ObjectSnapshot) throws -> ObjectSnapshot {
        var transformed = snapshot
        try TransformableValueCoding.forEachValue(in: snapshot) { attribute, value in
            let label = TransformableValueCoding.label(attribute)
            do {
                let data = try TransformableValueCoding.storedData(value, attribute: label, transformerName: attribute.valueTransformerName)
                transformed[attribute.name] = TransformableValueCoding.loadedValue(data, attribute: label,
                                                                                          transformerName: attribute.valueTransformerName)
            } catch let error as TransformableValueError {
                throw PersistentStoreErrors.make(NSPersistentStoreSaveError, error.description, stores: [self])
            }
        }
        return transformed
    }
}
