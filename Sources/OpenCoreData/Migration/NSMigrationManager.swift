import Foundation

/// Migrates the data of a store written with one model into a store of another model, as a
/// mapping model describes.
///
/// ``migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)``
/// opens the source store read-only in ``sourceContext``, runs Apple's three stages over the
/// mapping's entity mappings in order (create the destination instances of every mapping; then
/// create their relationships; then validate), saves ``destinationContext`` and moves the
/// destination into place. Several mapping models for one pair of models are applied as
/// successive passes by calling the method once per mapping model with the same destination, as
/// Apple's multi-pass migration does: a pass adds to the store already at the destination.
///
/// Differs from Apple:
/// - The destination is written to a new file next to `dURL` and renamed over it only when the
///   whole migration succeeded; on any error (a policy that throws, a destination object that
///   fails validation, ``cancelMigrationWithError(_:)``) the new file is removed and the files at
///   both URLs are as they were. The source and destination URL may therefore be the same: the
///   store is then replaced by its migrated version (what automatic migration does).
/// - ``migrationProgress`` can't be observed with key-value observing (Linux has no Objective-C
///   runtime); ``progress``, a Foundation `Progress` made a child of the current progress when a
///   migration starts, reports the same fraction.
/// - `FUNCTION($entityPolicy, …)` calls reach Swift policies through ``PredicateFunctionTarget``
///   (see ``NSEntityMigrationPolicy``).
open class NSMigrationManager: NSObject, KeyValueCoding, PredicateFunctionTarget, @unchecked Sendable {
    // @unchecked Sendable: like Apple's, a manager is used from the one thread that runs its
    // migration; its contexts are confinement contexts of that thread.

    /// The model of the store migrated from.
    open private(set) var sourceModel: NSManagedObjectModel
    /// The model of the store migrated to.
    open private(set) var destinationModel: NSManagedObjectModel
    /// The mapping model of the current (or last) migration; empty before the first.
    open internal(set) var mappingModel: NSMappingModel = NSMappingModel()
    /// The context that reads the source store, with a coordinator of ``sourceModel``.
    open private(set) var sourceContext: NSManagedObjectContext
    /// The context that writes the destination store, with a coordinator of ``destinationModel``.
    open private(set) var destinationContext: NSManagedObjectContext
    /// The entity mapping being migrated; an empty mapping outside a migration.
    open internal(set) var currentEntityMapping: NSEntityMapping = NSEntityMapping()
    /// The fraction of the migration done, from 0 to 1.
    open internal(set) var migrationProgress: Float = 0
    /// The progress of the current (or last) migration, completed when it finishes. Not in
    /// Apple's API (see the type's discussion).
    public internal(set) var progress: Progress = Progress(totalUnitCount: 0)
    /// Information for the policies of a migration; the manager does not read it.
    open var userInfo: [AnyHashable: Any]?
    /// Whether a store type may migrate with its own manager (SQLite in place) when it can.
    /// Kept for Apple's API; a mapping-model migration always runs through this manager.
    open var usesStoreSpecificMigrationManager: Bool = true

    /// A progress the next migration's ``progress`` joins as a child (the CLI's progress bar).
    var parentProgress: Progress?

    /// Associations made by ``associate(sourceInstance:withDestinationInstance:for:)``, by mapping name.
    var associations: [String: Associations] = [:]
    /// The error given to ``cancelMigrationWithError(_:)`` during the current migration.
    var cancellation: Error?

    /// Creates a manager migrating from `sourceModel` to `destinationModel`.
    public init(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        self.sourceContext = Self.makeContext(sourceModel)
        self.destinationContext = Self.makeContext(destinationModel)
        super.init()
    }

    /// A confinement context over a new coordinator of `model`.
    static func makeContext(_ model: NSManagedObjectModel) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        context.undoManager = nil
        return context
    }

    /// Forgets the associations and makes new contexts, as before a first migration.
    open func reset() {
        associations = [:]
        cancellation = nil
        sourceContext = Self.makeContext(sourceModel)
        destinationContext = Self.makeContext(destinationModel)
        currentEntityMapping = NSEntityMapping()
        migrationProgress = 0
    }

    /// Stops the current migration: ``migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)``
    /// throws `error` at its next step, leaving both stores as they were.
    open func cancelMigrationWithError(_ error: Error) {
        cancellation = error
        progress.cancel()
    }

    // MARK: Migrating

    /// Migrates the store of `sStoreType` at `sourceURL`, written with ``sourceModel``, to a
    /// store of `dStoreType` at `dURL` with ``destinationModel``, as `mappings` describes.
    ///
    /// Throws `NSMigrationMissingMappingModelError` (134140) without a mapping model,
    /// `NSMigrationManagerSourceStoreError` (134150) when the source can't be opened with the
    /// source model, `NSMigrationManagerDestinationStoreError` (134160) when the destination can't
    /// be written, `NSEntityMigrationPolicyError` (134170) for a policy class that can't be found
    /// or a policy that throws, `NSMigrationError` (134110) for an undefined mapping, a value
    /// expression that fails or a migrated object that is not valid, and the error given to
    /// ``cancelMigrationWithError(_:)``. On any error both stores are as they were.
    open func migrateStore(from sourceURL: URL, sourceType sStoreType: String, options sOptions: [AnyHashable: Any]? = nil,
                           with mappings: NSMappingModel?, toDestinationURL dURL: URL, destinationType dStoreType: String,
                           destinationOptions dOptions: [AnyHashable: Any]? = nil) throws {
        try runMigration(from: sourceURL, sourceType: sStoreType, options: sOptions, mapping: mappings,
                         to: dURL, destinationType: dStoreType, options: dOptions)
    }

    // MARK: Entities

    /// The source model's entity `mEntity` maps from, or `nil`.
    open func sourceEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
    }

    /// The destination model's entity `mEntity` maps to, or `nil`.
    open func destinationEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
    }

    // MARK: Associations

    /// The source and destination instances one entity mapping associated, in creation order.
    struct Associations {
        var destinationsBySource: [ObjectIdentifier: [NSManagedObject]] = [:]
        var sourcesByDestination: [ObjectIdentifier: [NSManagedObject]] = [:]
        var sources: [NSManagedObject] = []
        var destinations: [NSManagedObject] = []
    }

    /// Records that `destinationInstance` was made from `sourceInstance` by `entityMapping`.
    open func associate(sourceInstance: NSManagedObject, withDestinationInstance destinationInstance: NSManagedObject,
                        for entityMapping: NSEntityMapping) {
        let name = entityMapping.name ?? ""
        var table = associations[name] ?? Associations()
        let source = ObjectIdentifier(sourceInstance), destination = ObjectIdentifier(destinationInstance)
        if table.destinationsBySource[source] == nil { table.sources.append(sourceInstance) }
        if table.sourcesByDestination[destination] == nil { table.destinations.append(destinationInstance) }
        if !(table.destinationsBySource[source] ?? []).contains(where: { $0 === destinationInstance }) {
            table.destinationsBySource[source, default: []].append(destinationInstance)
        }
        if !(table.sourcesByDestination[destination] ?? []).contains(where: { $0 === sourceInstance }) {
            table.sourcesByDestination[destination, default: []].append(sourceInstance)
        }
        associations[name] = table
    }

    /// The destination instances the mapping `mappingName` made from `sourceInstances`, in their
    /// order; every destination instance of the mapping when `sourceInstances` is `nil`.
    open func destinationInstances(forEntityMappingName mappingName: String, sourceInstances: [NSManagedObject]?) -> [NSManagedObject] {
        guard let table = associations[mappingName] else { return [] }
        guard let sourceInstances else { return table.destinations }
        return sourceInstances.flatMap { table.destinationsBySource[ObjectIdentifier($0)] ?? [] }
    }

    /// The source instances from which the mapping `mappingName` made `destinationInstances`;
    /// every source instance of the mapping when `destinationInstances` is `nil`.
    open func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [NSManagedObject]?) -> [NSManagedObject] {
        guard let table = associations[mappingName] else { return [] }
        guard let destinationInstances else { return table.sources }
        return destinationInstances.flatMap { table.sourcesByDestination[ObjectIdentifier($0)] ?? [] }
    }

    // MARK: Key-value coding ($manager.sourceContext …)

    /// The manager's properties by name, for `$manager.key` in value expressions.
    open func value(forKey key: String) -> Any? {
        try? valueThrowing(forKey: key)
    }

    open func valueThrowing(forKey key: String) throws -> Any? {
        switch key {
        case "sourceContext": return sourceContext
        case "destinationContext": return destinationContext
        case "sourceModel": return sourceModel
        case "destinationModel": return destinationModel
        case "mappingModel": return mappingModel
        case "currentEntityMapping": return currentEntityMapping
        case "migrationProgress": return migrationProgress
        case "userInfo": return userInfo
        case "usesStoreSpecificMigrationManager": return usesStoreSpecificMigrationManager
        default: throw KeyValueCodingError.unknownKey(key: key, owner: "type \(String(reflecting: Swift.type(of: self)))")
        }
    }
}
