import Foundation

/// Migration when a store is added with ``NSMigratePersistentStoresAutomaticallyOption``: the
/// coordinator calls ``migrateIfNeeded(storeAt:type:configuration:options:model:)`` before it
/// opens the store.
///
/// As Apple's, it migrates in one step from the version that wrote the store to the
/// coordinator's model (stepping through intermediate versions is the staged migration
/// manager's job, and `coredata store upgrade`'s):
/// - the source model is the version of the coordinator's versioned model (the `.xcdatamodeld`,
///   `.momd` or compiled folder it was loaded from) that matches the store's metadata; else the
///   model merged from the main bundle's models for that metadata
///   (`NSManagedObjectModel.mergedModel(from:forStoreMetadata:)`); else, for a SQLite store,
///   the model cached in the store (`Z_MODELCACHE`); else `NSMigrationMissingSourceModelError`
///   (134130);
/// - the mapping is a mapping model that fits the two models (searched in the main bundle, as
///   Apple does, and in the folder holding the versioned model); else, with
///   ``NSInferMappingModelAutomaticallyOption``, the inferred one; else
///   `NSMigrationMissingMappingModelError` (134140). When inference fails the error is 134140
///   ("Can't find or automatically infer mapping model for migration", as Apple reports it),
///   with the inference error (134190, naming the entity and property) as its underlying error.
///
/// Read-only stores, stores added with ``NSIgnorePersistentStoreVersioningOption`` or a staged
/// migration manager, stores that don't exist yet and in-memory stores are not migrated here.
/// A store that is not a file migrates when its class names a working location (the
/// PostgreSQL store: a new schema swapped in at the end).
///
/// Differs from Apple: the folder of the versioned model is searched for mapping models too
/// (Linux programs keep their models in plain folders, not in bundles).
enum AutomaticMigration {
    /// Migrates the store of `type` at `url` to `model` if the options ask for it and the store
    /// was written by another model; does nothing otherwise. All or nothing: on error the store
    /// is as it was.
    static func migrateIfNeeded(storeAt url: URL?, type: String, configuration: String?,
                                options: [AnyHashable: Any]?, model: NSManagedObjectModel) throws {
        guard let url, type != NSInMemoryStoreType,
              storeOptionBool(options, NSMigratePersistentStoresAutomaticallyOption) == true,
              storeOptionBool(options, NSReadOnlyPersistentStoreOption) != true,
              storeOptionBool(options, NSIgnorePersistentStoreVersioningOption) != true,
              options?[NSPersistentStoreStagedMigrationManagerOptionKey] == nil,
              let storeClass = StoreTypeRegistry.shared.storeClass(for: type),
              url.isFileURL ? FileManager.default.fileExists(atPath: url.path) : storeClass.migrationWorkingLocation(for: url) != nil
        else { return }
        // A store whose metadata can't be read, or that records no version hashes, is left to
        // the store to open (and report).
        guard let metadata = try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url, options: options),
              metadata[NSStoreModelVersionHashesKey] != nil,
              !model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) else { return }
        let source = try sourceModel(forStoreAt: url, type: type, metadata: metadata, configuration: configuration,
                                     destination: model)
        let passes = try mappingModels(from: source, to: model, storeURL: url,
                                       infer: storeOptionBool(options, NSInferMappingModelAutomaticallyOption) == true)
        try MigrationRunner.migrate(storeAt: url, type: type, options: options, from: source, to: model,
                                    passes: passes, configurationName: configuration)
    }

    /// The model that wrote the store with `metadata` (see the type's discussion), or
    /// `NSMigrationMissingSourceModelError` (134130).
    static func sourceModel(forStoreAt url: URL, type: String, metadata: [String: Any], configuration: String?,
                            destination: NSManagedObjectModel) throws -> NSManagedObjectModel {
        if let versioned = destination.versionedModelURL, let versions = try? ModelVersionList.read(at: versioned),
           let index = versions.index(matchingStoreMetadata: metadata, configuration: configuration) {
            return versions.versions[index].model
        }
        if let merged = NSManagedObjectModel.mergedModel(from: nil, forStoreMetadata: metadata) {
            return merged
        }
        if type == NSSQLiteStoreType, let cached = try SQLiteStore.cachedModel(at: url) {
            return cached
        }
        throw MigrationErrors.make(NSMigrationMissingSourceModelError,
            "Can't find the model for the source store at \(url.path): no version of the model (nor any model of the main bundle) matches its version hashes, and the store holds no copy of its model.",
            userInfo: ["reason": "Can't find model for source store", NSURLErrorKey: url,
                       "metadata": metadata])
    }

    /// The mapping models from `source` to `destination` (see the type's discussion): every one
    /// found that fits, applied as passes of one migration, else the inferred one; or
    /// `NSMigrationMissingMappingModelError` (134140).
    static func mappingModels(from source: NSManagedObjectModel, to destination: NSManagedObjectModel,
                              storeURL url: URL, infer: Bool) throws -> [NSMappingModel] {
        var folders = [Bundle.main.resourceURL ?? Bundle.main.bundleURL]
        if let versioned = destination.versionedModelURL { folders.insert(versioned.deletingLastPathComponent(), at: 0) }
        let found = NSMappingModel.fittingMappingModels(in: folders, forSourceModel: source, destinationModel: destination)
        if !found.isEmpty { return found.map(\.mappingModel) }
        let userInfo: [String: Any] = ["sourceModel": source, "destinationModel": destination, NSURLErrorKey: url]
        guard infer else {
            throw MigrationErrors.make(NSMigrationMissingMappingModelError,
                "Can't find a mapping model to migrate the store at \(url.path) to the current model, and NSInferMappingModelAutomaticallyOption is not set.",
                userInfo: userInfo.merging(["reason": "Can't find mapping model for migration"]) { $1 })
        }
        do {
            return [try MigrationRunner.inferredMapping(from: source, to: destination)]
        } catch {
            throw MigrationErrors.make(NSMigrationMissingMappingModelError,
                "Can't find or automatically infer a mapping model to migrate the store at \(url.path): \((error as NSError).localizedDescription)",
                userInfo: userInfo.merging(["reason": "Can't find or automatically infer mapping model for migration"]) { $1 },
                underlying: error)
        }
    }
}
