import Foundation

/// The option of ``NSPersistentStoreCoordinator/addPersistentStore(ofType:configurationName:at:options:)``
/// holding an ``NSStagedMigrationManager`` that migrates the store, stage by stage, before it is added.
public let NSPersistentStoreStagedMigrationManagerOptionKey = "NSPersistentStoreStagedMigrationManagerOptionKey"

/// One stage of a staged migration. Use a subclass: ``NSLightweightMigrationStage`` or
/// ``NSCustomMigrationStage``.
open class NSMigrationStage: NSObject, @unchecked Sendable {
    // @unchecked Sendable: configured before the migration and read by the thread that runs it.

    /// What the stage is for, for logs and debugging.
    open var label: String?

    override init() {
        super.init()
    }

    open override var description: String {
        "<\(Swift.type(of: self)): \(label ?? "unlabeled")>"
    }
}

/// A series of model versions, given by their version checksums, each of which a store can
/// migrate to the next by lightweight (inferred) migration.
///
/// Differs from Apple, which finds the models of the checksums in the app's bundle: here a
/// checksum is resolved among the models the other stages reference and the coordinator's
/// model; a checksum none of them has stops the migration with `NSMigrationError` (134110).
open class NSLightweightMigrationStage: NSMigrationStage, @unchecked Sendable {
    /// The version checksums of the models, in migration order.
    open private(set) var versionChecksums: [String]

    /// A stage migrating through the models with `checksums`, in order.
    public init(_ checksums: [String]) {
        versionChecksums = checksums
        super.init()
    }
}

/// A migration between two model versions with handlers that run before and after it.
///
/// The store migrates from ``currentModel`` to ``nextModel`` by lightweight (inferred)
/// migration; ``willMigrateHandler`` sees the store with the current model and
/// ``didMigrateHandler`` with the next one, both through the manager's
/// ``NSStagedMigrationManager/container``.
open class NSCustomMigrationStage: NSMigrationStage, @unchecked Sendable {
    /// The model the stage migrates from.
    open private(set) var currentModel: NSManagedObjectModelReference
    /// The model the stage migrates to.
    open private(set) var nextModel: NSManagedObjectModelReference
    /// Runs before the stage migrates, with the store opened with ``currentModel``.
    open var willMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?
    /// Runs after the stage migrated, with the store opened with ``nextModel``.
    open var didMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?

    /// A stage migrating from `currentModel` to `nextModel`.
    public init(migratingFrom currentModel: NSManagedObjectModelReference, to nextModel: NSManagedObjectModelReference) {
        self.currentModel = currentModel
        self.nextModel = nextModel
        super.init()
    }
}

/// A model version of a staged migration: a model (or where to find it) and its version checksum.
///
/// The model is loaded when the migration needs it. Differs from Apple where the model can't
/// be found or its checksum is not the one given: the migration throws `NSMigrationError`
/// (134110) naming the checksum, and ``resolvedModel`` traps as Apple raises.
open class NSManagedObjectModelReference: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the cached model is set once, by the thread that runs the migration.

    /// The version checksum given (see ``NSManagedObjectModel/versionChecksum``).
    open private(set) var versionChecksum: String

    private enum Source {
        case model(NSManagedObjectModel)
        case file(URL)
        case named(String, Bundle?)
        case hashes([String: Data], Bundle?)
    }

    private let source: Source
    private var cached: NSManagedObjectModel?

    /// A reference to `model`.
    public init(model: NSManagedObjectModel, versionChecksum: String) {
        source = .model(model)
        self.versionChecksum = versionChecksum
        super.init()
    }

    /// A reference to the model at `fileURL` (`.mom`, `.momd`, `.xcdatamodel`, `.xcdatamodeld`).
    public init(fileURL: URL, versionChecksum: String) {
        source = .file(fileURL)
        self.versionChecksum = versionChecksum
        super.init()
    }

    /// A reference to the model named `modelName` (`.momd` or `.mom`) in `bundle` (the main bundle when nil).
    public init(name modelName: String, in bundle: Bundle?, versionChecksum: String) {
        source = .named(modelName, bundle)
        self.versionChecksum = versionChecksum
        super.init()
    }

    /// A reference to the model of `bundle` whose entities have the version hashes `versionHash`.
    public init(entityVersionHashes versionHash: [AnyHashable: Any], in bundle: Bundle?, versionChecksum: String) {
        var hashes: [String: Data] = [:]
        for (key, value) in versionHash {
            if let key = key as? String, let value = value as? Data { hashes[key] = value }
        }
        source = .hashes(hashes, bundle)
        self.versionChecksum = versionChecksum
        super.init()
    }

    /// The model. Traps when it can't be loaded, as Apple raises; the staged migration
    /// resolves references with a thrown error instead.
    open var resolvedModel: NSManagedObjectModel {
        do { return try resolve() } catch { preconditionFailure("NSManagedObjectModelReference: \(error)") }
    }

    /// The model, loaded once; throws `NSMigrationError` (134110) when it can't be found or
    /// its checksum is not ``versionChecksum``.
    func resolve() throws -> NSManagedObjectModel {
        if let cached { return cached }
        let model: NSManagedObjectModel
        switch source {
        case .model(let given):
            model = given
        case .file(let url):
            model = try NSManagedObjectModel.load(contentsOf: url)
        case .named(let name, let bundle):
            let bundle = bundle ?? .main
            guard let url = bundle.url(forResource: name, withExtension: "momd") ?? bundle.url(forResource: name, withExtension: "mom") else {
                throw notFound("no model named '\(name)' in bundle \(bundle.bundlePath)")
            }
            model = try NSManagedObjectModel.load(contentsOf: url)
        case .hashes(let hashes, let bundle):
            let bundle = bundle ?? .main
            let candidates: [URL] = ((bundle.urls(forResourcesWithExtension: "momd", subdirectory: nil) ?? [])
                + (bundle.urls(forResourcesWithExtension: "mom", subdirectory: nil) ?? [])).map { $0 as URL }
            guard let found = candidates.lazy.compactMap({ try? NSManagedObjectModel.load(contentsOf: $0) })
                .first(where: { $0.entityVersionHashesByName == hashes }) else {
                throw notFound("no model in bundle \(bundle.bundlePath) has the given entity version hashes")
            }
            model = found
        }
        guard model.versionChecksum == versionChecksum else {
            throw MigrationErrors.make(NSMigrationError,
                                       "The model referenced with version checksum \(versionChecksum) has checksum \(model.versionChecksum).",
                                       userInfo: ["versionChecksum": versionChecksum])
        }
        cached = model
        return model
    }

    private func notFound(_ reason: String) -> NSError {
        MigrationErrors.make(NSMigrationError, "Can't find the model with version checksum \(versionChecksum): \(reason).",
                             userInfo: ["versionChecksum": versionChecksum])
    }
}
