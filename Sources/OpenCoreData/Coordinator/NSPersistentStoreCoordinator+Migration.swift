/// Moving a store to another location and type ("save as").
extension NSPersistentStoreCoordinator {
    /// Copies every object of `store` into a new store of `storeType` at `url`, removes `store`
    /// from the coordinator, adds the new store and returns it.
    ///
    /// Objects get new IDs in the new store; to-one values, to-many destinations and object-ID
    /// attribute values that name objects of the old store are remapped. The application's
    /// metadata keys are carried over; the new store has its own UUID. On error the coordinator
    /// keeps the old store and does not get the new one.
    ///
    /// Throws `NSPersistentStoreInvalidTypeError` (134000) for an unregistered type,
    /// `NSPersistentStoreOperationError` (134070) when `store` is not the coordinator's or
    /// `url` is its own location, and the new store's errors.
    @discardableResult
    public func migratePersistentStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil,
                                     type storeType: String) throws -> NSPersistentStore {
        try withLock {
            guard persistentStores.contains(where: { $0 === store }) else {
                throw PersistentStoreErrors.make(NSPersistentStoreOperationError,
                                                 "The \(PersistentStoreErrors.name(of: store)) is not a store of this coordinator.",
                                                 stores: [store], url: url)
            }
            if let old = store.url, Self.standardized(old) == Self.standardized(url) {
                throw PersistentStoreErrors.make(NSPersistentStoreOperationError,
                                                 "Can't migrate the \(PersistentStoreErrors.name(of: store)) onto itself.",
                                                 stores: [store], url: url)
            }
            guard let storeClass = StoreTypeRegistry.shared.storeClass(for: storeType) else {
                throw PersistentStoreErrors.unknownStoreType(storeType, url: url)
            }
            let destination = storeClass.init(persistentStoreCoordinator: self, configurationName: store.configurationName,
                                              at: url, options: options)
            destination.type = storeType
            try destination.loadMetadata()
            try copyObjects(from: store, to: destination)
            try remove(store)
            do {
                try attach(destination)
            } catch {
                try? attach(store)
                throw error
            }
            return destination
        }
    }

    /// The older spelling of `migratePersistentStore(_:to:options:type:)`.
    @discardableResult
    public func migratePersistentStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil,
                                       withType storeType: String) throws -> NSPersistentStore {
        try migratePersistentStore(store, to: url, options: options, type: storeType)
    }

    /// Inserts every object of `source` into `destination` with remapped IDs, and carries the
    /// application's metadata keys over.
    private func copyObjects(from source: NSPersistentStore, to destination: NSPersistentStore) throws {
        let entities = managedObjectModel.entities(forConfigurationName: source.configurationName) ?? []
        var rows: [ObjectSnapshot] = []
        var newIDs: [NSManagedObjectID: NSManagedObjectID] = [:]
        for entity in entities {
            let snapshots = try source.allSnapshots(of: entity)
            guard !snapshots.isEmpty else { continue }
            let ids = try destination.newObjectIDs(for: entity, count: snapshots.count)
            for (snapshot, id) in zip(snapshots, ids) { newIDs[snapshot.objectID] = id }
            rows += snapshots
        }
        let inserted = rows.map { row in
            var copy = row.remappingIDs { newIDs[$0] ?? $0 }
            copy.version = 0
            return copy
        }
        let reserved: Set<String> = [NSStoreTypeKey, NSStoreUUIDKey, NSStoreModelVersionHashesKey,
                                     NSStoreModelVersionIdentifiersKey, NSStoreModelVersionHashesVersionKey]
        var metadata = destination.metadata ?? [:]
        for (key, value) in source.metadata ?? [:] where !reserved.contains(key) { metadata[key] = value }
        destination.metadata = metadata
        let changes = StoreSaveChanges(inserted: inserted)
        try destination.checkSave(changes)
        try destination.save(changes)
    }
}
