import Foundation

/// Opening, saving, closing and reverting a ``ManagedDocument``.
extension ManagedDocument {
    /// Opens the document at ``fileURL``: reads a package's `DocumentMetadata.plist` (the store
    /// type and options), adds the store, reads its metadata and a package's additional content.
    ///
    /// Throws `NSFileReadNoSuchFileError` (260) when nothing is at ``fileURL``,
    /// `NSFileReadCorruptFileError` (259) for an unreadable `DocumentMetadata.plist`, and the
    /// store's errors (an unreadable store, a model that does not match).
    public func open() throws {
        guard documentState.contains(.closed) else { return }
        guard FileManager.default.fileExists(atPath: fileURL.path) else {
            throw Self.error(NSFileReadNoSuchFileError, "There is no document at \(fileURL.path).", url: fileURL)
        }
        if isPackage { try readDocumentMetadata(in: fileURL) }
        do {
            try addStore(at: storeURL(in: fileURL), type: fileType)
            if let store { metadata = coordinator.metadata(for: store) }
            if isPackage {
                let additional = fileURL.appendingPathComponent("AdditionalContent")
                if FileManager.default.fileExists(atPath: additional.path) { try readAdditionalContent(from: additional) }
            }
        } catch {
            removeStores()
            throw error
        }
        fileModificationDate = modificationDate()
        documentState = .normal
    }

    /// Opens the document; `completionHandler` hears whether it opened.
    public func open(completionHandler: ((Bool) -> Void)?) {
        completionHandler?(report { try open() })
    }

    /// Saves the document to `url`, as a store of `storeType` (nil: the current type).
    ///
    /// - `.forCreating` at a new URL with a closed document creates it there (the package, its
    ///   store and `DocumentMetadata.plist`) with what the context holds, and opens it.
    /// - `.forCreating` at a new URL with an open document is "save as": unsaved changes are
    ///   saved, then the store is moved to the new document (and type); the document now lives
    ///   there, the old one stays as it was saved, and the contexts are reset.
    /// - `.forOverwriting` at ``fileURL`` saves the changes.
    ///
    /// Throws `NSFileWriteFileExistsError` (516) when creating over an existing file, and the
    /// store's errors (validation, conflicts), after which nothing was written and the document
    /// keeps its changes.
    public func save(to url: URL, ofType storeType: String? = nil, for operation: SaveOperation) throws {
        do {
            switch operation {
            case .forCreating:
                guard !FileManager.default.fileExists(atPath: url.path) else {
                    throw Self.error(NSFileWriteFileExistsError, "A file already exists at \(url.path).", url: url)
                }
                if documentState.contains(.closed) {
                    try create(at: url, type: storeType ?? fileType)
                } else {
                    try saveAs(url, type: storeType ?? fileType)
                }
            case .forOverwriting:
                if documentState.contains(.closed) {
                    guard !FileManager.default.fileExists(atPath: url.path) else {
                        throw Self.error(NSFileWriteFileExistsError, "Open the document at \(url.path) before overwriting it.", url: url)
                    }
                    try create(at: url, type: storeType ?? fileType)
                } else if url.standardizedFileURL != fileURL.standardizedFileURL || (storeType.map { $0 != fileType } ?? false) {
                    try saveAs(url, type: storeType ?? fileType)
                } else {
                    try saveChanges()
                }
            }
            documentState.remove(.savingError)
        } catch {
            documentState.insert(.savingError)
            throw error
        }
    }

    /// Saves the document to `url`; `completionHandler` hears whether it was saved.
    public func save(to url: URL, for operation: SaveOperation, completionHandler: ((Bool) -> Void)?) {
        completionHandler?(report { try save(to: url, for: operation) })
    }

    /// Closes the document, saving unsaved changes first; the store leaves the coordinator and
    /// the contexts forget their objects. A failed save leaves the document open and throws.
    public func close() throws {
        guard !documentState.contains(.closed) else { return }
        if hasUnsavedChanges { try saveChanges() }
        removeStores()
        resetContexts()
        undoManager?.removeAllActions()
        documentState = .closed
    }

    /// Closes the document; `completionHandler` hears whether it closed.
    public func close(completionHandler: ((Bool) -> Void)?) {
        completionHandler?(report { try close() })
    }

    /// Discards unsaved changes and reads the document again from `url` (usually ``fileURL``).
    public func revert(toContentsOf url: URL) throws {
        documentState.insert(.editingDisabled)
        defer { documentState.remove(.editingDisabled) }
        managedObjectContext.rollback()
        parentContext.performAndWait { parentContext.rollback() }
        removeStores()
        resetContexts()
        undoManager?.removeAllActions()
        fileURL = url
        documentState = .closed
        try open()
    }

    /// Reverts the document; `completionHandler` hears whether it was read again.
    public func revert(toContentsOf url: URL, completionHandler: ((Bool) -> Void)?) {
        completionHandler?(report { try revert(toContentsOf: url) })
    }

    // MARK: Steps

    /// Runs `body`, giving its error to ``handleError(_:userInteractionPermitted:)``.
    private func report(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return true
        } catch {
            handleError(error, userInteractionPermitted: false)
            return false
        }
    }

    /// Writes the context's changes through its parent to the store, with ``metadata``.
    ///
    /// The additional content is written first. When the store refuses the save, the changes
    /// stay in the parent context (``hasUnsavedChanges`` stays true) and the next save sends
    /// them again.
    ///
    /// New objects get permanent IDs first (as `UIManagedDocument` does): an object saved
    /// through the parent under a temporary ID would otherwise be unknown to the parent at the
    /// next save, once the parent's copy has its permanent ID.
    func saveChanges() throws {
        try writeAdditionalContent()
        let inserted = Array(managedObjectContext.insertedObjects)
        if !inserted.isEmpty { try managedObjectContext.obtainPermanentIDs(for: inserted) }
        try managedObjectContext.save()
        try parentContext.performAndWait {
            if let store { coordinator.setMetadata(metadata.merging(coordinator.metadata(for: store)) { mine, _ in mine }, for: store) }
            try parentContext.save()
        }
        if let store { metadata = coordinator.metadata(for: store) }
        fileModificationDate = modificationDate()
    }

    /// A new document at `url`: the package and store made, the context's objects saved into
    /// it. On error nothing is left at `url`.
    private func create(at url: URL, type: String) throws {
        let (oldURL, oldType) = (fileURL, fileType)
        do {
            if isPackage {
                try FileManager.default.createDirectory(at: storeURL(in: url).deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            fileURL = url
            fileType = type
            try addStore(at: storeURL(in: url), type: type)
            if isPackage { try writeDocumentMetadata(in: url) }
            documentState = .normal
            try saveChanges()
        } catch {
            removeStores()
            documentState = .closed
            (fileURL, fileType) = (oldURL, oldType)
            try? FileManager.default.removeItem(at: url)
            throw error
        }
    }

    /// Adds the store through ``configurePersistentStoreCoordinator(for:ofType:modelConfiguration:storeOptions:)``
    /// (which a subclass may override) and finds it among the coordinator's stores.
    private func addStore(at url: URL, type: String) throws {
        try configurePersistentStoreCoordinator(for: url, ofType: type, modelConfiguration: modelConfiguration,
                                                storeOptions: persistentStoreOptions)
        store = coordinator.persistentStores.first { $0.url?.standardizedFileURL == url.standardizedFileURL }
            ?? coordinator.persistentStores.first
    }

    /// Takes every store off the coordinator.
    private func removeStores() {
        for store in coordinator.persistentStores { try? coordinator.remove(store) }
        store = nil
    }

    /// Save-as: the changes saved here, then the store moved to a new document at `url`, which
    /// must not exist yet (a store there is never merged into, nor deleted).
    private func saveAs(_ url: URL, type: String) throws {
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw Self.error(NSFileWriteFileExistsError, "A file already exists at \(url.path).", url: url)
        }
        if hasUnsavedChanges { try saveChanges() }
        guard let store else { return }
        do {
            if isPackage {
                try FileManager.default.createDirectory(at: storeURL(in: url).deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            self.store = try coordinator.migratePersistentStore(store, to: storeURL(in: url), options: persistentStoreOptions, type: type)
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw error
        }
        fileURL = url
        fileType = type
        if isPackage { try writeDocumentMetadata(in: url) }
        resetContexts()
        undoManager?.removeAllActions()
        try writeAdditionalContent()
        fileModificationDate = modificationDate()
    }

    private func resetContexts() {
        managedObjectContext.reset()
        parentContext.performAndWait { parentContext.reset() }
    }

    private func modificationDate() -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: storeURL(in: fileURL).path))?[.modificationDate] as? Date
    }

    // MARK: DocumentMetadata.plist and additional content

    private static let storeTypeKey = "NSPersistentStoreType"
    private static let storeNameKey = "NSPersistentStoreName"
    private static let configurationKey = "NSPersistentStoreConfiguration"

    private func writeDocumentMetadata(in url: URL) throws {
        var plist: [String: Any] = [Self.storeTypeKey: fileType, Self.storeNameKey: Self.persistentStoreName]
        plist[Self.configurationKey] = modelConfiguration
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        try data.write(to: url.appendingPathComponent("DocumentMetadata.plist"), options: .atomic)
    }

    private func readDocumentMetadata(in url: URL) throws {
        let plistURL = url.appendingPathComponent("DocumentMetadata.plist")
        guard let data = try? Data(contentsOf: plistURL) else { return }
        let plist: [String: Any]
        do {
            guard let read = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
                throw Self.error(NSFileReadCorruptFileError, "DocumentMetadata.plist is not a dictionary.", url: plistURL)
            }
            plist = read
        } catch let error as NSError where error.code == NSFileReadCorruptFileError {
            throw error
        } catch {
            throw Self.error(NSFileReadCorruptFileError, "DocumentMetadata.plist can't be read: \(error)", url: plistURL, underlying: error)
        }
        if let type = plist[Self.storeTypeKey] as? String { fileType = type }
        if let configuration = plist[Self.configurationKey] as? String { modelConfiguration = configuration }
    }

    private func writeAdditionalContent() throws {
        guard isPackage else { return }
        let url = fileURL.appendingPathComponent("AdditionalContent")
        guard let content = try additionalContent(for: url) else { return }
        guard let data = content as? Data else {
            throw Self.error(NSFileWriteUnknownError, "Additional content must be Data, not \(type(of: content)).", url: url)
        }
        try data.write(to: url, options: .atomic)
    }
}
