import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `coredata store upgrade`: migrates a store in place through the versions of a versioned
/// model, one step per version pair (``MigrationStepPlan``), all or nothing. Not in Apple's API.
///
/// How it works, in order:
/// 1. reads every version of the model (``ModelVersionList``) and every given mapping model,
///    and refuses a mapping whose `entityMigrationPolicyClassName` names a class this process
///    can't load (`NSEntityMigrationPolicyError`, 134170, naming the class) — before touching
///    the store;
/// 2. copies the store, its `-wal`, `-shm` and externally stored data folder
///    (`.<name>_SUPPORT`) into a new hidden folder next to it, and finds the version that
///    wrote it (`NSMigrationMissingSourceModelError`, 134130, when none did);
/// 3. runs every step on the copy through `MigrationRunner` (SQLite in place when the step's
///    mapping is lightweight-shaped, else the migration manager);
/// 4. only when every step succeeded, moves the copy over the store: SQLite files are
///    checkpointed first (`wal_checkpoint(TRUNCATE)`, the copy's and then the original's), so
///    the one `rename` switches from the old database file to the new one and no `-wal` of the
///    old store, which would be applied to the new file, is left; the old `-wal`/`-shm` are then
///    removed and the copy's data folder takes the old one's place. Checkpointing rather than
///    sqlite3's backup API into the original: the backup API writes through the original's
///    `-wal` and fails on a page-size difference, and it would leave the old file's free pages.
///
/// On any failure before step 4 the store, its `-wal` and `-shm` are byte-identical and the
/// folder is removed.
@_spi(CLI) public enum StoreUpgrade {
    /// One step of an upgrade, as the summary reports it.
    public struct Step: Sendable, Equatable {
        /// The version migrated from and to.
        public let from: String, to: String
        /// The mapping model's path, or `nil` for an inferred mapping.
        public let mappingPath: String?
    }

    /// What an upgrade did.
    public struct Summary: Sendable {
        /// The version that wrote the store, and the version it now has.
        public let source: String, destination: String
        /// The steps taken; empty when the store already had the destination version.
        public let steps: [Step]
        /// The number of objects of each entity (not counting subentities) after the upgrade.
        public let objectCounts: [String: Int]
    }

    /// Upgrades the store of `type` at `url` to version `versionName` (the current version when
    /// `nil`) of the versioned model at `modelURL`, using the mapping models at `mappingURLs`
    /// where they fit a step. `progress` gets one unit per step.
    public static func upgrade(storeAt url: URL, type: String, modelAt modelURL: URL, to versionName: String?,
                               mappings mappingURLs: [URL], progress: Progress? = nil) throws -> Summary {
        let versions = try ModelVersionList.read(at: modelURL)
        let destinationName = versionName ?? versions.currentName
        guard let end = versions.index(named: destinationName) else {
            throw MigrationErrors.make(NSMigrationError,
                "The model at \(modelURL.path) has no version named '\(destinationName)'; its versions are \(versions.versions.map(\.name).joined(separator: ", ")).",
                userInfo: [NSURLErrorKey: modelURL])
        }
        let mappings = try mappingURLs.map { mappingURL in
            (model: try NSMappingModel.load(contentsOf: mappingURL), url: mappingURL)
        }
        for mapping in mappings { try checkPolicies(of: mapping.model, at: mapping.url) }

        let work: WorkingCopy
        let metadata: [String: Any]
        if let storeClass = WorkingCopy.serverStoreClass(type: type, url: url) {
            // A server store's copy is made with the model that wrote it, so that model is found first.
            metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)
            guard let start = versions.index(matchingStoreMetadata: metadata) else {
                throw MigrationErrors.make(NSMigrationMissingSourceModelError,
                    "No version of the model at \(modelURL.path) (\(versions.versions.map(\.name).joined(separator: ", "))) wrote the store at \(url).",
                    userInfo: [NSURLErrorKey: url])
            }
            work = try WorkingCopy(serverStoreAt: url, type: type, storeClass: storeClass, model: versions.versions[start].model,
                                   metadata: metadata)
        } else {
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw PersistentStoreErrors.make(NSFileReadNoSuchFileError, "There is no store at \(url.path).", url: url)
            }
            work = try WorkingCopy(of: url)
            metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: work.storeURL)
        }
        defer { work.remove() }
        guard let start = versions.index(matchingStoreMetadata: metadata) else {
            // As Apple's lightweight migration does, a store written by no known version migrates
            // from the model it caches (`Z_MODELCACHE`), in one step.
            if type == NSSQLiteStoreType, let cached = try SQLiteStore.cachedModel(at: work.storeURL) {
                return try upgrade(work: work, fromCachedModel: cached, to: versions.versions[end], mappings: mappings,
                                   type: type, progress: progress)
            }
            throw MigrationErrors.make(NSMigrationMissingSourceModelError,
                "No version of the model at \(modelURL.path) (\(versions.versions.map(\.name).joined(separator: ", "))) wrote the store at \(url.path), and the store caches no model.",
                userInfo: [NSURLErrorKey: url])
        }
        let source = versions.versions[start]
        if type == NSSQLiteStoreType { try readExternalData(ofStoreAt: work.storeURL, model: source.model) }
        guard start <= end else {
            throw MigrationErrors.make(NSMigrationError,
                "The store at \(url.path) has version '\(source.name)', which comes after '\(destinationName)'; upgrade does not downgrade.",
                userInfo: [NSURLErrorKey: url])
        }
        let plan = MigrationStepPlan(versions: versions, from: start, to: end, mappings: mappings)
        progress?.totalUnitCount = Int64(max(plan.steps.count, 1))
        var steps: [Step] = []
        for step in plan.steps {
            let from = versions.versions[step.from], to = versions.versions[step.to]
            try MigrationRunner.migrate(storeAt: work.storeURL, type: type, options: nil, from: from.model, to: to.model,
                                        passes: step.mappings.map(\.model), progress: progress.map { child(of: $0) })
            let paths = step.mappings.map(\.url.path)
            steps.append(Step(from: from.name, to: to.name, mappingPath: paths.isEmpty ? nil : paths.joined(separator: " + ")))
        }
        let counts = try objectCounts(ofStoreAt: work.storeURL, type: type, model: versions.versions[end].model)
        if !steps.isEmpty { try work.replaceOriginal(type: type) }
        progress?.completedUnitCount = progress?.totalUnitCount ?? 0
        return Summary(source: source.name, destination: destinationName, steps: steps, objectCounts: counts)
    }

    /// The name the summary gives a source model read from the store's `Z_MODELCACHE`.
    public static let cachedModelName = "Z_MODELCACHE"

    /// Upgrades the working copy in one step from the model the store caches to `destination`,
    /// with the given mapping models that fit that pair (as passes), else an inferred mapping.
    private static func upgrade(work: WorkingCopy, fromCachedModel cached: NSManagedObjectModel, to destination: ModelVersionList.Version,
                                mappings: [(model: NSMappingModel, url: URL)], type: String, progress: Progress?) throws -> Summary {
        try readExternalData(ofStoreAt: work.storeURL, model: cached)
        let fitting = mappings.filter { $0.model.fits(sourceModel: cached, destinationModel: destination.model) }
        progress?.totalUnitCount = 1
        try MigrationRunner.migrate(storeAt: work.storeURL, type: type, options: nil, from: cached, to: destination.model,
                                    passes: fitting.map(\.model), progress: progress.map { child(of: $0) })
        let paths = fitting.map(\.url.path)
        let counts = try objectCounts(ofStoreAt: work.storeURL, type: type, model: destination.model)
        try work.replaceOriginal(type: type)
        progress?.completedUnitCount = 1
        return Summary(source: cachedModelName, destination: destination.name,
                       steps: [Step(from: cachedModelName, to: destination.name, mappingPath: paths.isEmpty ? nil : paths.joined(separator: " + "))],
                       objectCounts: counts)
    }

    /// Throws `NSEntityMigrationPolicyError` (134170) naming the first policy class of `mapping`
    /// that can't be loaded (the lookup the migration manager uses).
    static func checkPolicies(of mapping: NSMappingModel, at url: URL) throws {
        for entityMapping in mapping.entityMappings ?? [] {
            guard let name = entityMapping.entityMigrationPolicyClassName, !name.isEmpty, name != "NSEntityMigrationPolicy",
                  MigrationPolicyClasses.lookUp(name) == nil else { continue }
            throw MigrationErrors.make(NSEntityMigrationPolicyError,
                "The mapping model at \(url.path) needs the entity migration policy class '\(name)' (entity mapping '\(entityMapping.name ?? "?")'), which can't be loaded here; nothing was migrated.",
                userInfo: ["entityMigrationPolicyClassName": name, "entityMapping": entityMapping.name ?? "", NSURLErrorKey: url])
        }
    }

    /// A child of `parent` taking its next unit.
    private static func child(of parent: Progress) -> Progress {
        let child = Progress(totalUnitCount: 1, parent: parent, pendingUnitCount: 1)
        return child
    }

    /// Reads every externally stored binary value of the SQLite store at `url` once, so that each
    /// file the store names but that is missing is reported on standard error before the upgrade
    /// (such values read as nil; an in-place migration copies the reference without reading it).
    static func readExternalData(ofStoreAt url: URL, model: NSManagedObjectModel) throws {
        let external = model.entities.compactMap { entity -> (String, [String])? in
            let names = entity.attributesByName.values.filter { $0.storesBinaryDataExternally && !$0.isTransient }.map(\.name)
            return names.isEmpty ? nil : entity.name.map { ($0, names.sorted()) }
        }
        guard !external.isEmpty else { return }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                       options: [NSReadOnlyPersistentStoreOption: true])
        defer { try? coordinator.remove(store) }
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for (entity, attributes) in external {
            let request = NSFetchRequest<NSDictionary>(entityName: entity)
            request.resultType = .dictionaryResultType
            request.includesSubentities = false
            request.propertiesToFetch = attributes
            _ = try context.fetch(request)
        }
    }

    /// The number of objects of each entity of `model` in the store (read-only).
    static func objectCounts(ofStoreAt url: URL, type: String, model: NSManagedObjectModel) throws -> [String: Int] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url,
                                                       options: [NSReadOnlyPersistentStoreOption: true])
        defer { try? coordinator.remove(store) }
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var counts: [String: Int] = [:]
        for entity in model.entities {
            guard let name = entity.name else { continue }
            let request = NSFetchRequest<NSManagedObject>(entityName: name)
            request.includesSubentities = false
            counts[name] = try context.count(for: request)
        }
        return counts
    }

    /// The copy an upgrade works on: for a file store, a hidden folder next to the store
    /// holding the store under its own name, its companions and its data folder; for a store on
    /// a server (its class names a working location, as the PostgreSQL store's does), a new
    /// store at that location holding a copy of every object, swapped in by the store's class.
    struct WorkingCopy {
        let original: URL
        /// Where the copy is.
        let storeURL: URL
        /// The folder holding a file store's copy; nil for a server store.
        let folder: URL?
        /// The class that swaps a server store's copy in; nil for a file store.
        let replacingClass: NSPersistentStore.Type?

        /// The class of a `type` store at `url` that lives on a server and migrates through a
        /// working location; nil for file stores.
        static func serverStoreClass(type: String, url: URL) -> NSPersistentStore.Type? {
            guard !url.isFileURL, let storeClass = StoreTypeRegistry.shared.storeClass(for: type),
                  storeClass.migrationWorkingLocation(for: url) != nil else { return nil }
            return storeClass
        }

        init(of url: URL) throws {
            original = url
            replacingClass = nil
            let folder = url.deletingLastPathComponent()
                .appendingPathComponent(".\(url.lastPathComponent).upgrade-\(UUID().uuidString)", isDirectory: true)
            self.folder = folder
            storeURL = folder.appendingPathComponent(url.lastPathComponent)
            let manager = FileManager.default
            do {
                try manager.createDirectory(at: folder, withIntermediateDirectories: false)
                for suffix in [""] + MigrationDestination.companions where manager.fileExists(atPath: url.path + suffix) {
                    try manager.copyItem(atPath: url.path + suffix, toPath: folder.appendingPathComponent(url.lastPathComponent).path + suffix)
                }
                let support = MigrationDestination.supportDirectory(of: url)
                if manager.fileExists(atPath: support.path) {
                    try manager.copyItem(at: support, to: folder.appendingPathComponent(support.lastPathComponent, isDirectory: true))
                }
            } catch {
                try? manager.removeItem(at: folder)
                throw MigrationErrors.make(NSMigrationError, "Can't copy the store at \(url.path) to upgrade it: \(error.localizedDescription)",
                                           userInfo: [NSURLErrorKey: url], underlying: error)
            }
        }

        /// Copies the server store at `url` (written with `model`, its metadata `metadata`) to
        /// its class's working location: every object, and the metadata (the store's UUID too).
        init(serverStoreAt url: URL, type: String, storeClass: NSPersistentStore.Type, model: NSManagedObjectModel,
             metadata: [String: Any]) throws {
            guard let working = storeClass.migrationWorkingLocation(for: url) else {
                throw MigrationErrors.make(NSMigrationError, "The \(type) store at \(url) can't be copied to upgrade it.", userInfo: [NSURLErrorKey: url])
            }
            original = url
            storeURL = working
            folder = nil
            replacingClass = storeClass
            do {
                let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
                let store = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url,
                                                               options: [NSReadOnlyPersistentStoreOption: true])
                // Other writers wait from here to the swap (or the copy's removal).
                try storeClass.beginMigration(at: url, into: working)
                let copy = try coordinator.migratePersistentStore(store, to: working, options: nil, type: type)
                try coordinator.remove(copy)
                try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: type, at: working)
            } catch {
                storeClass.discardMigratedStore(at: working)
                throw MigrationErrors.make(NSMigrationError, "Can't copy the store at \(url) to upgrade it: \((error as NSError).localizedDescription)",
                                           userInfo: [NSURLErrorKey: url], underlying: error)
            }
        }

        /// Moves the upgraded copy over the original (see the type's discussion).
        func replaceOriginal(type: String) throws {
            if let replacingClass {
                do {
                    try replacingClass.replaceStore(at: original, withMigratedStoreAt: storeURL)
                } catch {
                    throw MigrationErrors.make(NSMigrationError, "Can't put the upgraded store in place at \(original): \((error as NSError).localizedDescription)",
                                               userInfo: [NSURLErrorKey: original], underlying: error)
                }
                return
            }
            let manager = FileManager.default
            do {
                if type == NSSQLiteStoreType {
                    try MigrationDestination.checkpoint(storeURL)
                    try MigrationDestination.checkpoint(original)
                }
                for suffix in MigrationDestination.companions where manager.fileExists(atPath: storeURL.path + suffix) {
                    try manager.removeItem(atPath: storeURL.path + suffix)
                }
                if rename(storeURL.path, original.path) != 0 {
                    throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno),
                                  userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
                }
            } catch {
                throw MigrationErrors.make(NSMigrationError,
                    "Can't move the upgraded store into place at \(original.path): \(error.localizedDescription)",
                    userInfo: [NSURLErrorKey: original], underlying: error)
            }
            for suffix in MigrationDestination.companions { try? manager.removeItem(atPath: original.path + suffix) }
            let newSupport = MigrationDestination.supportDirectory(of: storeURL), oldSupport = MigrationDestination.supportDirectory(of: original)
            if manager.fileExists(atPath: newSupport.path) {
                try? manager.removeItem(at: oldSupport)
                try? manager.moveItem(at: newSupport, to: oldSupport)
            }
        }

        /// Removes the copy (nothing is left of a copy swapped in).
        func remove() {
            if let folder { try? FileManager.default.removeItem(at: folder) }
            if let replacingClass { replacingClass.discardMigratedStore(at: storeURL) }
        }
    }
}
