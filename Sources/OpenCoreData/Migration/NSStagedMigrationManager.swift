import Foundation

/// Migrates a store through a series of model versions, stage by stage, when it is added with
/// ``NSPersistentStoreStagedMigrationManagerOptionKey``.
///
/// The stages' models form one chain of versions, in the order of the stages (a lightweight
/// stage contributes its checksums, a custom stage its current and next model). The store's
/// version is found in the chain by its version checksum (`NSStoreModelVersionChecksumKey` in
/// its metadata, else computed from its entity version hashes) and the store migrates one step
/// at a time to the chain's last version; a custom stage's handlers run around its step, with
/// ``container`` holding the store. A store whose version is not in the chain is left alone
/// (the coordinator then opens it with its model, or reports it incompatible).
///
/// Differs from Apple: models of lightweight checksums are found among the models the custom
/// stages reference and the coordinator's model (see ``NSLightweightMigrationStage``).
open class NSStagedMigrationManager: NSObject, @unchecked Sendable {
    // @unchecked Sendable: used by the thread that adds the store; `container` is set only
    // while a handler runs on that thread.

    /// The stages, in the order they run.
    open private(set) var stages: [NSMigrationStage]

    /// The container holding the migrating store while a custom stage's handler runs; `nil` otherwise.
    open internal(set) var container: NSPersistentContainer?

    /// A manager running `stages` in order.
    public init(_ stages: [NSMigrationStage]) {
        self.stages = stages
        super.init()
    }

    /// One step of the chain: from one model to the next, with the custom stage it belongs to.
    struct Step {
        let from: String
        let to: String
        let stage: NSCustomMigrationStage?
    }

    /// The chain's steps, and the models by checksum (from the custom stages and `model`).
    func plan(destinationModel model: NSManagedObjectModel) throws -> (steps: [Step], models: [String: NSManagedObjectModel]) {
        var models: [String: NSManagedObjectModel] = [model.versionChecksum: model]
        var chain: [(checksum: String, stage: NSCustomMigrationStage?)] = []
        func append(_ checksum: String, _ stage: NSCustomMigrationStage?) {
            if chain.last?.checksum != checksum { chain.append((checksum, stage)) }
        }
        for stage in stages {
            if let custom = stage as? NSCustomMigrationStage {
                let current = try custom.currentModel.resolve(), next = try custom.nextModel.resolve()
                models[custom.currentModel.versionChecksum] = current
                models[custom.nextModel.versionChecksum] = next
                append(custom.currentModel.versionChecksum, nil)
                append(custom.nextModel.versionChecksum, custom)
            } else if let lightweight = stage as? NSLightweightMigrationStage {
                for checksum in lightweight.versionChecksums { append(checksum, nil) }
            }
        }
        let steps = zip(chain, chain.dropFirst()).map { Step(from: $0.checksum, to: $1.checksum, stage: $1.stage) }
        return (steps, models)
    }

    /// Migrates the store of `type` at `url` through the stages; called by the coordinator
    /// before it adds the store with `model`.
    func migrateStore(at url: URL, type: String, options: [AnyHashable: Any]?, destinationModel model: NSManagedObjectModel) throws {
        guard type != NSInMemoryStoreType, FileManager.default.fileExists(atPath: url.path) else { return }
        var options = options ?? [:]
        options.removeValue(forKey: NSPersistentStoreStagedMigrationManagerOptionKey)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url, options: options)
        let (steps, models) = try plan(destinationModel: model)
        guard let start = steps.firstIndex(where: { $0.from == Self.checksum(of: metadata) }) else { return }
        for step in steps[start...] {
            guard let source = models[step.from], let destination = models[step.to] else {
                let missing = models[step.from] == nil ? step.from : step.to
                throw MigrationErrors.make(NSMigrationError,
                    "The staged migration of the store at \(url.path) needs the model with version checksum \(missing), which no custom stage references and which is not the coordinator's model.",
                    userInfo: ["versionChecksum": missing, NSURLErrorKey: url])
            }
            if let stage = step.stage, let handler = stage.willMigrateHandler {
                try withContainer(model: source, url: url, type: type, options: options) { try handler(self, stage) }
            }
            try MigrationRunner.migrate(storeAt: url, type: type, options: options, from: source, to: destination, mapping: nil)
            if let stage = step.stage, let handler = stage.didMigrateHandler {
                try withContainer(model: destination, url: url, type: type, options: options) { try handler(self, stage) }
            }
        }
    }

    /// Runs `body` with ``container`` holding the store opened with `model`.
    private func withContainer(model: NSManagedObjectModel, url: URL, type: String, options: [AnyHashable: Any],
                               _ body: () throws -> Void) throws {
        let container = NSPersistentContainer(name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.type = type
        description.shouldMigrateStoreAutomatically = false
        description.shouldInferMappingModelAutomatically = false
        for (key, value) in options {
            if let key = key as? String { description.setOption(value as? NSObject, forKey: key) }
        }
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        self.container = container
        defer {
            self.container = nil
            let coordinator = container.persistentStoreCoordinator
            for store in coordinator.persistentStores { try? coordinator.remove(store) }
        }
        try body()
    }

    /// The version checksum of the model that wrote a store with `metadata`.
    static func checksum(of metadata: [String: Any]) -> String? {
        if let checksum = metadata[NSStoreModelVersionChecksumKey] as? String { return checksum }
        guard let hashes = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return nil }
        var data: [String: Data] = [:]
        for (name, value) in hashes {
            guard let hash = value as? Data else { return nil }
            data[name] = hash
        }
        return VersionHasher.modelChecksum(entityVersionHashes: data).base64EncodedString()
    }
}

/// The one entry point of every migration of a store file to another model version: automatic
/// migration, staged migration and the CLI call it.
enum MigrationRunner {
    /// Migrates the store of `type` at `url`, written with `source`, in place to `destination`,
    /// with `mapping`, or an inferred mapping model when `mapping` is nil. The store keeps its
    /// UUID. All or nothing: on error the store is as it was.
    ///
    /// A SQLite store whose mapping has the lightweight shape (``LightweightPlan``) migrates in
    /// place in SQL (`SQLiteStore.migrateInPlace`), keeping every row's primary key; any other
    /// store or mapping, or a mapping the SQL path declines, goes through ``NSMigrationManager``.
    /// `progress`, when given, gets the migration's progress as a child.
    static func migrate(storeAt url: URL, type: String, options: [AnyHashable: Any]?,
                        from source: NSManagedObjectModel, to destination: NSManagedObjectModel,
                        mapping: NSMappingModel?, configurationName: String? = nil, progress: Progress? = nil) throws {
        let mapping = try mapping ?? inferredMapping(from: source, to: destination)
        if type == NSSQLiteStoreType, LightweightPlan(mapping) != nil {
            let child = progress.map { Progress(totalUnitCount: 1, parent: $0, pendingUnitCount: $0.totalUnitCount - $0.completedUnitCount) }
            switch try SQLiteStore.migrateInPlace(at: url, options: options, configurationName: configurationName,
                                                  sourceModel: source, destinationModel: destination,
                                                  mapping: mapping, progress: child) {
            case .migrated:
                if let child { child.completedUnitCount = child.totalUnitCount }
                return
            case .notApplicable: break
            }
        }
        let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
        manager.parentProgress = progress
        try manager.migrateStore(from: url, sourceType: type, options: options, with: mapping,
                                 toDestinationURL: url, destinationType: type, destinationOptions: options)
    }

    /// Migrates the store as ``migrate(storeAt:type:options:from:to:mapping:configurationName:progress:)``
    /// does, with several mapping models applied as passes of one migration (Apple's multi-pass
    /// migration): each pass adds the instances of its entity mappings to one new store, which
    /// replaces the old store only when every pass has succeeded. No passes means an inferred
    /// mapping; one pass is an ordinary migration.
    static func migrate(storeAt url: URL, type: String, options: [AnyHashable: Any]?,
                        from source: NSManagedObjectModel, to destination: NSManagedObjectModel,
                        passes: [NSMappingModel], configurationName: String? = nil, progress: Progress? = nil) throws {
        guard passes.count > 1 else {
            return try migrate(storeAt: url, type: type, options: options, from: source, to: destination,
                               mapping: passes.first, configurationName: configurationName, progress: progress)
        }
        let target = try MigrationDestination(url: url, storeType: type, sourceURL: url)
        do {
            for pass in passes {
                let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
                try manager.migrateStore(from: url, sourceType: type, options: options, with: pass,
                                         toDestinationURL: target.workingURL, destinationType: type, destinationOptions: options)
            }
            try target.commit()
        } catch {
            target.discard()
            throw error
        }
        progress.map { $0.completedUnitCount = $0.totalUnitCount }
    }

    /// The mapping model Core Data infers from `source` to `destination`.
    static func inferredMapping(from source: NSManagedObjectModel, to destination: NSManagedObjectModel) throws -> NSMappingModel {
        try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
    }
}
