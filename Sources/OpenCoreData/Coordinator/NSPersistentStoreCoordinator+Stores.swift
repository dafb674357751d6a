/// Adding, finding and removing stores.
extension NSPersistentStoreCoordinator {
    /// Adds a store of `storeType` for the entities of `configuration`, reading it from `storeURL`
    /// or creating it there.
    ///
    /// Throws Core Data's errors: `NSPersistentStoreInvalidTypeError` (134000) for an
    /// unregistered type; `NSPersistentStoreIncompatibleSchemaError` (134020) for a configuration
    /// the model does not have; `NSPersistentStoreOperationError` (134070) for a store that is
    /// already added (same URL or same UUID); and whatever the store throws when it opens.
    ///
    /// With ``NSMigratePersistentStoresAutomaticallyOption``, a store written by another version
    /// of the model is first migrated to this coordinator's model (see `AutomaticMigration`);
    /// without it (or for a read-only store) such a store fails with
    /// `NSPersistentStoreIncompatibleVersionHashError` (134100).
    /// In-memory stores have no file, so several may share a URL (such as `/dev/null`).
    @discardableResult
    public func addPersistentStore(ofType storeType: String, configurationName configuration: String?,
                                 at storeURL: URL?, options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        try addStore(ofType: storeType, configurationName: configuration, at: storeURL, options: options)
    }

    /// ``addPersistentStore(ofType:configurationName:at:options:)``; a new store gets `identifier`
    /// as its UUID when given (a migration's destination keeps its source's UUID).
    func addStore(ofType storeType: String, configurationName configuration: String?, at storeURL: URL?,
                  options: [AnyHashable: Any]?, identifier: String? = nil) throws -> NSPersistentStore {
        if let staged = options?[NSPersistentStoreStagedMigrationManagerOptionKey] as? NSStagedMigrationManager, let storeURL,
           StoreTypeRegistry.shared.storeClass(for: storeType) != nil {
            try staged.migrateStore(at: storeURL, type: storeType, options: options, destinationModel: managedObjectModel)
        }
        try AutomaticMigration.migrateIfNeeded(storeAt: storeURL, type: storeType, configuration: configuration,
                                               options: options, model: managedObjectModel)
        return try withLock {
            guard let storeClass = StoreTypeRegistry.shared.storeClass(for: storeType) else {
                throw PersistentStoreErrors.unknownStoreType(storeType, url: storeURL)
            }
            if let configuration, managedObjectModel.entities(forConfigurationName: configuration) == nil {
                throw PersistentStoreErrors.make(
                    NSPersistentStoreIncompatibleSchemaError,
                    "The model has no configuration named '\(configuration)'; its configurations are \(managedObjectModel.configurations.joined(separator: ", ")).",
                    url: storeURL, userInfo: ["configurationName": configuration])
            }
            if storeType != NSInMemoryStoreType, let storeURL,
               let existing = persistentStores.first(where: { $0.type != NSInMemoryStoreType && $0.url.map(Self.standardized) == Self.standardized(storeURL) }) {
                throw PersistentStoreErrors.make(NSPersistentStoreOperationError,
                                                 "The store at \(storeURL.path) is already added to this coordinator.",
                                                 stores: [existing], url: storeURL)
            }
            let store = storeClass.init(persistentStoreCoordinator: self, configurationName: configuration,
                                        at: storeURL, options: options)
            store.type = storeType
            if let identifier { store.identifier = identifier }
            try store.loadMetadata()
            try attach(store)
            return store
        }
    }

    /// Adds the store `storeDescription` describes and calls `block` with the description and the
    /// error, if any.
    ///
    /// Differs from Apple: the store is added inline, before this method returns, even when
    /// ``NSPersistentStoreDescription/shouldAddStoreAsynchronously`` is set (time is explicit).
    public func addPersistentStore(with storeDescription: NSPersistentStoreDescription,
                                 completionHandler block: (NSPersistentStoreDescription, Error?) -> Void) {
        do {
            var options: [AnyHashable: Any] = [:]
            for (key, value) in storeDescription.options { options[key] = value }
            try addPersistentStore(ofType: storeDescription.type, configurationName: storeDescription.configuration,
                                   at: storeDescription.url, options: options)
            block(storeDescription, nil)
        } catch {
            block(storeDescription, error)
        }
    }

    /// Removes `store` from the coordinator. Its object IDs stop resolving.
    ///
    /// Throws `NSPersistentStoreOperationError` (134070) when the store is not one of this
    /// coordinator's.
    public func remove(_ store: NSPersistentStore) throws {
        try withLock {
            guard persistentStores.contains(where: { $0 === store }) else {
                throw PersistentStoreErrors.make(NSPersistentStoreOperationError,
                                                 "The \(PersistentStoreErrors.name(of: store)) is not a store of this coordinator.",
                                                 stores: [store])
            }
            NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorWillRemoveStore, object: store)
            store.willRemove(from: self)
            persistentStores.removeAll { $0 === store }
            store.persistentStoreCoordinator = nil
            NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorStoresDidChange, object: self,
                                            userInfo: [NSRemovedPersistentStoresKey: [store]])
        }
    }

    /// The store at `url`, if one of this coordinator's stores is there.
    public func persistentStore(for url: URL) -> NSPersistentStore? {
        withLock {
            persistentStores.first { $0.url.map(Self.standardized) == Self.standardized(url) }
        }
    }

    /// Where `store` lives; `nil` for a store without a file.
    public func url(for store: NSPersistentStore) -> URL? {
        store.url
    }

    /// Moves `store` to `url` (the store's next save writes there). Returns whether it could.
    @discardableResult
    public func setURL(_ url: URL, for store: NSPersistentStore) -> Bool {
        withLock {
            guard persistentStores.contains(where: { $0 === store }) else { return false }
            if persistentStores.contains(where: { $0 !== store && $0.url.map(Self.standardized) == Self.standardized(url) }) {
                return false
            }
            store.url = url
            return true
        }
    }

    /// The ID a URI from ``NSManagedObjectID/uriRepresentation()`` stands for, when it names an
    /// entity of the model and a store of this coordinator (`x-coredata://<store UUID>/<Entity>/p<key>`).
    ///
    /// Temporary IDs' URIs (`x-coredata:///<Entity>/t…`) give `nil`: they are only meaningful to
    /// the context that made them. Whether the object still exists is not checked, as in Core Data.
    public func managedObjectID(forURIRepresentation url: URL) -> NSManagedObjectID? {
        // Host and path components are percent-decoded one by one (see
        // NSManagedObjectID.uriRepresentation()), so an encoded "/" stays inside its component.
        guard url.scheme == "x-coredata", let host = url.host(percentEncoded: false), !host.isEmpty else { return nil }
        let components = url.path(percentEncoded: true).split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
        guard components.count == 2, components[1].hasPrefix("p"),
              let key = Int64(components[1].dropFirst()), key > 0 else { return nil }
        return withLock {
            guard let store = persistentStores.first(where: { $0.identifier?.caseInsensitiveCompare(host) == .orderedSame }),
                  let entity = managedObjectModel.entitiesByName[components[0]],
                  self.store(store, holds: entity) else { return nil }
            return NSManagedObjectID(entity: entity, store: store, primaryKey: key)
        }
    }

    /// Deletes the store of `storeType` at `url`: removes it from this coordinator if it is one
    /// of its stores, then deletes its file and the SQLite companions (`-wal`, `-shm`, `-journal`)
    /// if they exist. An in-memory store has no file: nothing is deleted (its URL may be
    /// `/dev/null`).
    ///
    /// Throws `NSPersistentStoreInvalidTypeError` (134000) for an unregistered type and the file
    /// system's errors.
    public func destroyPersistentStore(at url: URL, ofType storeType: String, options: [AnyHashable: Any]? = nil) throws {
        guard StoreTypeRegistry.shared.storeClass(for: storeType) != nil else {
            throw PersistentStoreErrors.unknownStoreType(storeType, url: url)
        }
        try withLock {
            if let store = persistentStore(for: url) { try remove(store) }
            guard url.isFileURL, storeType != NSInMemoryStoreType, url.path != "/dev/null" else { return }
            let manager = FileManager.default
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let path = url.path + suffix
                if manager.fileExists(atPath: path) { try manager.removeItem(atPath: path) }
            }
        }
    }

    /// Replaces the store of `storeType` at `destinationURL` with a copy of the one at
    /// `sourceURL` (its file and SQLite companions). Neither may be added to this coordinator.
    /// A store type without files (in-memory) has nothing to copy.
    ///
    /// Throws `NSPersistentStoreInvalidTypeError` (134000) for an unregistered type,
    /// `NSPersistentStoreOperationError` (134070) when a store at either URL is in use here, and
    /// the file system's errors.
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
                                       withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
                                       ofType storeType: String) throws {
        guard StoreTypeRegistry.shared.storeClass(for: storeType) != nil else {
            throw PersistentStoreErrors.unknownStoreType(storeType, url: destinationURL)
        }
        try withLock {
            for url in [destinationURL, sourceURL] {
                if let store = persistentStore(for: url) {
                    throw PersistentStoreErrors.make(NSPersistentStoreOperationError,
                                                     "The \(PersistentStoreErrors.name(of: store)) is in use by this coordinator; remove it before replacing.",
                                                     stores: [store], url: url)
                }
            }
            guard storeType != NSInMemoryStoreType, sourceURL.isFileURL, destinationURL.isFileURL,
                  Self.standardized(sourceURL) != Self.standardized(destinationURL) else { return }
            let manager = FileManager.default
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let source = sourceURL.path + suffix, destination = destinationURL.path + suffix
                if manager.fileExists(atPath: destination) { try manager.removeItem(atPath: destination) }
                if manager.fileExists(atPath: source) { try manager.copyItem(atPath: source, toPath: destination) }
            }
        }
    }

    // MARK: Helpers

    /// Makes `store` one of the coordinator's, after checking its UUID is not taken, and posts
    /// the stores-did-change notification.
    func attach(_ store: NSPersistentStore) throws {
        if let existing = persistentStores.first(where: { $0.identifier == store.identifier }) {
            throw PersistentStoreErrors.make(NSPersistentStoreOperationError,
                                             "A store with UUID \(store.identifier ?? "?") is already added to this coordinator (\(PersistentStoreErrors.name(of: existing))).",
                                             stores: [existing, store], url: store.url)
        }
        store.persistentStoreCoordinator = self
        persistentStores.append(store)
        store.didAdd(to: self)
        NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorStoresDidChange, object: self,
                                        userInfo: [NSAddedPersistentStoresKey: [store]])
    }

    static func standardized(_ url: URL) -> URL {
        url.isFileURL ? url.standardizedFileURL.resolvingSymlinksInPath() : url
    }
}
