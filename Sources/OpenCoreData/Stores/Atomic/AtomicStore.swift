/// The base of the atomic stores: a store that holds every row in memory and implements the
/// whole store protocol over them.
///
/// - Fetches evaluate predicates, sort descriptors and expressions with the query layer's
///   evaluator, over a key-value adapter that resolves relationships to other rows of the store
///   (see `SnapshotKeyValueAdapter`).
/// - Saves check optimistic-locking versions, apply the changes to a copy of the rows, hand the
///   copy to ``writeRows(_:)`` and only then make it current: a failed write changes nothing.
///
/// Subclasses with a file (the XML and binary stores) override `storeType`, ``loadRows()``
/// and ``writeRows(_:)``, and may override ``loadStoredMetadata()`` (to read only the header)
/// and ``checkStoreUnchanged()`` (to detect another coordinator's save); they register their
/// type in `StoreTypeRegistry.builtIn`. The in-memory store overrides only `storeType`.
///
/// Differences from Apple: Apple's `NSAtomicStore` works with cache nodes and managed objects;
/// this one works with ``ObjectSnapshot``s, like every store here.
open class AtomicStore: NSPersistentStore, @unchecked Sendable {
    /// Serializes every access to ``contents``.
    let lock = NSRecursiveLock()

    /// The rows, metadata and key counters. Change them only under ``lock``.
    var contents = AtomicStoreContents()

    /// The model the rows belong to (the coordinator's).
    public let managedObjectModel: NSManagedObjectModel?

    /// Creates an empty store; the coordinator then calls ``loadMetadata()``.
    public required init(persistentStoreCoordinator coordinator: NSPersistentStoreCoordinator?,
                         configurationName: String?, at url: URL?, options: [AnyHashable: Any]?) {
        managedObjectModel = coordinator?.managedObjectModel
        super.init(persistentStoreCoordinator: coordinator, configurationName: configurationName, at: url, options: options)
    }

    // MARK: Subclass hooks

    /// Reads the store's rows and metadata from its file, or returns `nil` when there is no
    /// store yet (a new store is then created empty).
    ///
    /// Make IDs with ``AtomicStore/objectID(for:primaryKey:)``. If the metadata's `NSStoreUUID` differs from
    /// `identifier` when this returns, the store adopts the UUID and re-mints every ID.
    /// The in-memory store returns `nil`.
    open func loadRows() throws -> AtomicStoreContents? { nil }

    /// Writes the complete new contents of the store after a save was applied in memory (and
    /// after ``NSPersistentStoreCoordinator/setMetadata(_:for:)`` when the store is saved).
    ///
    /// Throwing leaves the store as it was before the save. File stores write atomically
    /// (temporary file, `fsync`, rename). The in-memory store writes nothing.
    open func writeRows(_ contents: AtomicStoreContents) throws {}

    /// Throws when the store's file changed since it was loaded or last written (another
    /// coordinator saved into it), so that this save does not overwrite that one. File stores
    /// throw `NSManagedObjectMergeError` (133020) naming the file; the default does nothing.
    /// Called by ``AtomicStore/checkSave(_:)`` and ``AtomicStore/save(_:)`` of a non-empty save, under the store's lock.
    open func checkStoreUnchanged() throws {}

    /// Reads the store's rows again when another coordinator saved into its file since this
    /// store read or wrote it, so that saves compare versions with the file's rows and reads see
    /// them; returns whether it did. Called under the store's lock by ``checkSave(_:)``,
    /// ``save(_:)`` and ``freshSnapshots(for:)``. The default (no file) does nothing.
    open func reloadIfChangedElsewhere() throws -> Bool { false }

    /// Reads only the metadata of the store's file; `nil` when there is no store. The default
    /// calls ``loadRows()``; file stores may read less.
    open func loadStoredMetadata() throws -> [String: Any]? {
        try loadRows()?.metadata
    }

    // MARK: Opening

    /// Reads the store (``loadRows()``), or creates its metadata when it is new, and checks that
    /// the store was made with the coordinator's model (`NSPersistentStoreIncompatibleVersionHashError`,
    /// 134100, unless `NSIgnorePersistentStoreVersioningOption` is set).
    open override func loadMetadata() throws {
        lock.lock()
        defer { lock.unlock() }
        guard var loaded = try loadRows() else {
            contents = AtomicStoreContents(metadata: freshMetadata())
            metadata = contents.metadata
            return
        }
        if let storedType = loaded.metadata[NSStoreTypeKey] as? String, storedType != type {
            throw PersistentStoreErrors.make(
                NSPersistentStoreInvalidTypeError,
                "The store at \(url?.path ?? "?") is a \(storedType) store, not a \(type) store.", stores: [self], url: url)
        }
        if let model = managedObjectModel, loaded.metadata[NSStoreModelVersionHashesKey] != nil,
           storeOptionBool(options, NSIgnorePersistentStoreVersioningOption) != true,
           !model.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: loaded.metadata) {
            throw PersistentStoreErrors.make(
                NSPersistentStoreIncompatibleVersionHashError,
                "The model used to open the \(PersistentStoreErrors.name(of: self)) is incompatible with the one used to create it.",
                stores: [self], url: url, userInfo: ["metadata": loaded.metadata])
        }
        if let uuid = loaded.metadata[NSStoreUUIDKey] as? String, uuid != identifier {
            let oldIdentifier = identifier
            identifier = uuid
            loaded = rebinding(loaded, from: oldIdentifier)
        }
        loaded.metadata[NSStoreTypeKey] = type
        loaded.metadata[NSStoreUUIDKey] = identifier
        loaded.raiseKeyCountersToRows()
        contents = loaded
        metadata = loaded.metadata
    }

    /// The metadata of a new store: type, UUID, the version hashes and identifiers of the model.
    func freshMetadata() -> [String: Any] {
        var result: [String: Any] = [NSStoreTypeKey: type, NSStoreUUIDKey: identifier ?? UUID().uuidString]
        if let model = managedObjectModel {
            let entities = model.entities(forConfigurationName: configurationName) ?? model.entities
            result[NSStoreModelVersionHashesKey] = Dictionary(
                entities.compactMap { entity in entity.name.map { ($0, entity.versionHash) } },
                uniquingKeysWith: { first, _ in first })
            result[NSStoreModelVersionIdentifiersKey] = model.versionIdentifiers.map { "\($0.base)" }.sorted()
            result[NSStoreModelVersionHashesVersionKey] = 3
        }
        return result
    }

    /// `contents` with the IDs minted for the store identifier `old` re-minted for this store.
    private func rebinding(_ loaded: AtomicStoreContents, from old: String?) -> AtomicStoreContents {
        var result = loaded
        let remap: (NSManagedObjectID) -> NSManagedObjectID = { id in
            guard id.storeIdentifier == old || id.storeIdentifier == self.identifier, let key = id.primaryKey else { return id }
            return NSManagedObjectID(entity: id.entity, store: self, primaryKey: key)
        }
        result.rows = loaded.rows.mapValues { $0.mapValues { $0.remappingIDs(remap) } }
        return result
    }

    open override var metadata: [String: Any]! {
        didSet {
            lock.lock()
            defer { lock.unlock() }
            var merged = metadata ?? [:]
            merged[NSStoreTypeKey] = type
            merged[NSStoreUUIDKey] = identifier
            contents.metadata = merged
        }
    }

    // MARK: Reading

    /// Makes the permanent ID of row `primaryKey` of `entity` in this store.
    public func objectID(for entity: NSEntityDescription, primaryKey: Int64) -> NSManagedObjectID {
        NSManagedObjectID(entity: entity, store: self, primaryKey: primaryKey)
    }

    /// The row `objectID` names, when it belongs to this store and exists. Call under ``lock``.
    func row(for objectID: NSManagedObjectID) -> ObjectSnapshot? {
        guard holds(objectID) else { return nil }
        return contents.row(for: objectID)
    }

    /// A copy of everything the store holds now. Not in Apple's API.
    public var currentContents: AtomicStoreContents {
        lock.lock()
        defer { lock.unlock() }
        return contents
    }

    open override func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [ObjectSnapshot] {
        lock.lock()
        defer { lock.unlock() }
        return objectIDs.compactMap(row(for:))
    }

    /// The rows as they are now, after reading the file again if another coordinator saved
    /// into it (``reloadIfChangedElsewhere()``).
    open override func freshSnapshots(for objectIDs: [NSManagedObjectID]) throws -> [ObjectSnapshot] {
        lock.lock()
        defer { lock.unlock() }
        _ = try reloadIfChangedElsewhere()
        return objectIDs.compactMap(row(for:))
    }

    open override func relatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID) throws -> [NSManagedObjectID] {
        lock.lock()
        defer { lock.unlock() }
        return row(for: objectID)?.toMany[relationship.name] ?? []
    }

    open override func allSnapshots(of entity: NSEntityDescription) throws -> [ObjectSnapshot] {
        lock.lock()
        defer { lock.unlock() }
        return (contents.rows[entity.name ?? ""] ?? [:]).sorted { $0.key < $1.key }.map(\.value)
    }

    /// Allocates keys from the entity tree's counter. Keys handed out are never reused, even
    /// when the objects are not saved (as `Z_MAX` behaves).
    open override func newObjectIDs(for entity: NSEntityDescription, count: Int) throws -> [NSManagedObjectID] {
        lock.lock()
        defer { lock.unlock() }
        let root = AtomicStoreContents.rootName(of: entity)
        let last = contents.lastPrimaryKeys[root] ?? 0
        contents.lastPrimaryKeys[root] = last + Int64(count)
        return (0..<Int64(count)).map { objectID(for: entity, primaryKey: last + 1 + $0) }
    }

    // MARK: Fetching and saving (AtomicStore+Fetch.swift, AtomicStore+Save.swift)

    /// Fetches from the rows: predicate, subentities, sort descriptors, offset and limit, and
    /// every result type (see `DictionaryFetch` for dictionaries).
    open override func executeFetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult {
        try fetchRows(request)
    }

    /// Checks read-only, IDs and optimistic-locking versions (`NSManagedObjectMergeError`, 133020).
    open override func checkSave(_ changes: StoreSaveChanges) throws {
        try checkRows(changes)
    }

    /// Applies the changes all or nothing, then ``AtomicStore/writeRows(_:)``; a failed write changes nothing.
    open override func save(_ changes: StoreSaveChanges) throws {
        try saveRows(changes)
    }

    // MARK: Metadata without a coordinator

    open override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        let store = self.init(persistentStoreCoordinator: nil, configurationName: nil, at: url,
                              options: [NSReadOnlyPersistentStoreOption: true])
        guard let metadata = try store.loadStoredMetadata() else {
            throw PersistentStoreErrors.make(NSFileReadNoSuchFileError,
                                             "There is no \(storeType) store at \(url.path).", url: url,
                                             userInfo: [NSFilePathErrorKey: url.path])
        }
        return metadata
    }
}
