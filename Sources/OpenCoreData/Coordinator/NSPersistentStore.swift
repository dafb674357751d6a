/// A persistent store, and the one store protocol every store type implements.
///
/// Subclasses (the in-memory, XML, binary and SQLite stores, and later PostgreSQL) override the
/// methods under "The store protocol". The coordinator is their only caller, and they speak in
/// ``ObjectSnapshot``s and ``NSManagedObjectID``s: a store never sees a managed object or a context
/// (DESIGN decisions 2 and 3). The base class's protocol methods throw
/// `NSPersistentStoreUnsupportedRequestTypeError`.
///
/// Differences from Apple: Apple's subclassing points are `NSAtomicStore` and
/// `NSIncrementalStore`, whose APIs hand managed objects to the store. Ours is snapshot-based.
open class NSPersistentStore: NSObject, @unchecked Sendable {
    /// The configuration name Core Data uses when a store is added without one.
    public static let defaultConfigurationName = "PF_DEFAULT_CONFIGURATION_NAME"

    /// The store's unique identifier, saved in its metadata (`NSStoreUUIDKey`).
    @exclusivity(unchecked) open var identifier: String!

    /// The store type, e.g. `"SQLite"`, `"XML"`, `"Binary"`, `"InMemory"`.
    open var type: String

    /// Where the store lives; `nil` for a store without a file.
    open var url: URL?

    /// The options the store was added with.
    open private(set) var options: [AnyHashable: Any]?

    /// The model configuration whose entities the store holds.
    open private(set) var configurationName: String

    /// The store's metadata (`NSStoreType`, `NSStoreUUID`, `NSStoreModelVersionHashes`, …).
    open var metadata: [String: Any]!

    /// Whether the store refuses saves.
    open var isReadOnly: Bool

    /// The coordinator the store was added to (not retained: nil once it is freed).
    open internal(set) var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
        get { coordinatorReference.object }
        set { coordinatorReference = UnretainedReference(newValue) }
    }

    private var coordinatorReference = UnretainedReference<NSPersistentStoreCoordinator>(nil)

    /// The origin the store's object IDs share, renewed when ``identifier`` changes.
    private var idOrigin: ObjectIDOrigin?
    private let idOriginLock = NSLock()

    /// The origin shared by the object IDs the store makes now.
    func objectIDOrigin() -> ObjectIDOrigin {
        idOriginLock.withLock {
            let current = identifier
            if let idOrigin, idOrigin.storeIdentifier == current { return idOrigin }
            let fresh = ObjectIDOrigin(store: self)
            idOrigin = fresh
            return fresh
        }
    }

    /// Whether `id` names a row of this store: a permanent ID made through `origin` (the
    /// store's ``objectIDOrigin()``, read once by a caller testing many IDs: identity decides,
    /// no string is compared), or one carrying the store's identifier (made by another store
    /// object with the same identifier, or before `origin` was renewed).
    func holds(_ id: NSManagedObjectID, origin: ObjectIDOrigin? = nil) -> Bool {
        guard !id.isTemporaryID else { return false }
        if let origin, id.origin === origin { return true }
        return id.storeIdentifier == identifier
    }

    /// Creates the descriptive part of a store.
    public init(type: String, configurationName: String?, at url: URL?, options: [AnyHashable: Any]?) {
        self.identifier = UUID().uuidString
        self.type = type
        self.url = url
        self.options = options
        self.configurationName = configurationName ?? NSPersistentStore.defaultConfigurationName
        self.metadata = [:]
        self.isReadOnly = storeOptionBool(options, NSReadOnlyPersistentStoreOption) ?? false
        super.init()
    }

    /// Creates a store for `coordinator`, as the coordinator does when a store of a registered
    /// type is added. The store's type is the class's ``storeType``.
    ///
    /// Subclasses override it (and call `super`); the coordinator then calls ``loadMetadata()``.
    /// Differs from Apple: `url` is optional, for stores without a file.
    public required init(persistentStoreCoordinator coordinator: NSPersistentStoreCoordinator?,
                         configurationName: String?, at url: URL?, options: [AnyHashable: Any]?) {
        self.identifier = UUID().uuidString
        self.type = Self.storeType
        self.url = url
        self.options = options
        self.configurationName = configurationName ?? NSPersistentStore.defaultConfigurationName
        self.metadata = [:]
        self.isReadOnly = storeOptionBool(options, NSReadOnlyPersistentStoreOption) ?? false
        self.coordinatorReference = UnretainedReference(coordinator)
        super.init()
    }

    /// The store type instances of this class have (`"InMemory"`, `"XML"`, …). Not in Apple's
    /// API, where `type` is overridden instead.
    open class var storeType: String { "" }

    /// The metadata of the store at `url`, read without adding it to a coordinator.
    ///
    /// The base class throws `NSPersistentStoreUnsupportedRequestTypeError`; store types with
    /// files override it.
    open class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreUnsupportedRequestTypeError, userInfo: [
            NSLocalizedDescriptionKey: "The \(storeType) store type can't read metadata from \(url.path).",
            NSURLErrorKey: url,
        ])
    }

    /// Replaces the metadata of the store at `url` without adding it to a coordinator.
    ///
    /// The base class throws `NSPersistentStoreUnsupportedRequestTypeError`.
    open class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreUnsupportedRequestTypeError, userInfo: [
            NSLocalizedDescriptionKey: "The \(storeType) store type can't write metadata to \(url.path).",
            NSURLErrorKey: url,
        ])
    }

    open override var description: String {
        "<\(Swift.type(of: self)): \(type) \(url?.path ?? "(no URL)") configuration \(configurationName)>"
    }

    // MARK: The store protocol

    /// Opens the store: reads (or, for a new store, creates) its file and metadata. Called once,
    /// by the coordinator, when the store is added.
    open func loadMetadata() throws {}

    /// Every object of `entity` (exactly that entity, not its subentities) as full snapshots,
    /// with every to-many relationship filled. Used by `migratePersistentStore`; the default
    /// runs a fetch and completes missing to-many relationships with ``relatedObjectIDs(for:of:)``.
    open func allSnapshots(of entity: NSEntityDescription) throws -> [ObjectSnapshot] {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = entity
        request.includesSubentities = false
        request.resultType = .managedObjectResultType
        guard case .snapshots(var snapshots) = try executeFetch(request) else { return [] }
        let toMany = entity.relationshipsByName.values.filter(\.isToMany)
        for index in snapshots.indices {
            for relationship in toMany where snapshots[index].toMany[relationship.name] == nil {
                snapshots[index].toMany[relationship.name] = try relatedObjectIDs(for: relationship, of: snapshots[index].objectID)
            }
        }
        return snapshots
    }

    /// Called after the store was added to `coordinator`.
    open func didAdd(to coordinator: NSPersistentStoreCoordinator) {}

    // MARK: Migrating stores that are not files

    /// Where a migration in place writes the migrated version of the store at `url` before it
    /// replaces the store (``replaceStore(at:withMigratedStoreAt:)``); nil, the default, for
    /// stores kept in files, which a migration writes next to the file and renames over it.
    ///
    /// Differs from Apple: an OpenCoreData hook (SPI) for stores that live in a server, such
    /// as the PostgreSQL store.
    @_spi(StoreMigration) open class func migrationWorkingLocation(for url: URL) -> URL? { nil }

    /// Called when a migration of the store at `url` into `workingURL` begins, after the
    /// migration opened the store to read it: until ``replaceStore(at:withMigratedStoreAt:)``
    /// or ``discardMigratedStore(at:)``, other writers of the store must wait, so that no save
    /// lands in the store being replaced. The default does nothing (a file store's writers
    /// are in this process, behind its coordinator).
    @_spi(StoreMigration) open class func beginMigration(at url: URL, into workingURL: URL) throws {}

    /// Replaces the store at `url` with the migrated store at `workingURL` (from
    /// ``migrationWorkingLocation(for:)``), all or nothing; `workingURL` is gone afterwards.
    @_spi(StoreMigration) open class func replaceStore(at url: URL, withMigratedStoreAt workingURL: URL) throws {}

    /// Removes the store a failed migration left at `workingURL`.
    @_spi(StoreMigration) open class func discardMigratedStore(at workingURL: URL) {}

    /// Called before the store is removed from `coordinator`.
    open func willRemove(from coordinator: NSPersistentStoreCoordinator?) {}

    /// Runs a fetch request against the store's own objects.
    ///
    /// The request's entity is resolved; `includesSubentities`, predicate, sort descriptors,
    /// offset and limit, and the result type (with `propertiesToFetch`, distinct, group-by and
    /// having for dictionaries) are the store's to honour. Pending changes are not the store's
    /// concern: the context merges them.
    open func executeFetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult {
        throw unsupported("fetching")
    }

    /// The current snapshots of the given objects of this store; IDs that no longer exist are
    /// left out (the context reports them as `NSManagedObjectReferentialIntegrityError`).
    open func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [ObjectSnapshot] {
        throw unsupported("reading objects")
    }

    /// The current snapshots of the given objects read from the store itself, past any cache
    /// the store keeps (``NSManagedObjectContext/refresh(_:mergeChanges:)`` uses it). The default
    /// is ``snapshots(for:)``.
    open func freshSnapshots(for objectIDs: [NSManagedObjectID]) throws -> [ObjectSnapshot] {
        try snapshots(for: objectIDs)
    }

    /// The current snapshots of the given objects, using data the store cached only when it was
    /// read less than `interval` seconds ago: a negative interval accepts any cached data, 0 none
    /// (a context's ``NSManagedObjectContext/stalenessInterval``). The default reads
    /// ``freshSnapshots(for:)`` for 0 and ``snapshots(for:)`` otherwise; stores with a cache of
    /// their own (SQLite) honour positive intervals.
    open func snapshots(for objectIDs: [NSManagedObjectID], cachedWithin interval: TimeInterval) throws -> [ObjectSnapshot] {
        try interval == 0 ? freshSnapshots(for: objectIDs) : snapshots(for: objectIDs)
    }

    /// ``snapshots(for:)`` when `maxAge` is negative (any cached data), else
    /// ``snapshots(for:cachedWithin:)``: how the coordinator asks for a context's faults.
    func snapshots(for objectIDs: [NSManagedObjectID], maxAge: TimeInterval) throws -> [ObjectSnapshot] {
        try maxAge < 0 ? snapshots(for: objectIDs) : snapshots(for: objectIDs, cachedWithin: maxAge)
    }

    /// The snapshots of a batch of a `fetchBatchSize` result, read as
    /// ``snapshots(for:maxAge:)`` reads them (the default). A store with a row cache may leave
    /// the rows out of it: each object of the batch holds its row until the walk turns it back
    /// into a fault, and a walk over more rows than the cache keeps would evict every row it
    /// holds for other reads. The SQLite store does; internal, so stores outside the library,
    /// and subclasses of the SQLite store, read batches as before.
    func walkSnapshots(for objectIDs: [NSManagedObjectID], maxAge: TimeInterval) throws -> [ObjectSnapshot] {
        try snapshots(for: objectIDs, maxAge: maxAge)
    }

    /// A hint that the snapshots of exactly `objectIDs` (the next batch of a `fetchBatchSize`
    /// walk) will soon be asked for: a store may start reading them in the background and answer
    /// that call (``snapshots(for:)`` or ``snapshots(for:cachedWithin:)``) from the read. IDs not
    /// all of this store may be ignored. The default does nothing; the PostgreSQL store reads
    /// ahead.
    ///
    /// A slice of the walk's IDs, not an array of their own: building one per batch read ahead
    /// (a retain and a release per ID) cost a store that ignores the hint 1.4% of a walk.
    ///
    /// Differs from Apple: not part of Core Data's store API.
    open func readAhead(_ objectIDs: ArraySlice<NSManagedObjectID>) {}

    /// The destinations of a to-many relationship of one object, in order when ordered.
    open func relatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID) throws -> [NSManagedObjectID] {
        throw unsupported("reading relationships")
    }

    /// The destinations of `relationship` for many of the store's objects at once, with the
    /// destinations' snapshots, for `relationshipKeyPathsForPrefetching`. The default works
    /// through ``snapshots(for:)`` and ``relatedObjectIDs(for:of:)``; the SQLite store answers
    /// with one statement.
    ///
    /// `sourcesCoverEntity` says the sources are every object of the entity they were fetched
    /// as (without predicate, limit or offset), so that most rows of the destination are
    /// likely wanted: the SQLite store then reads its table in one pass rather than looking each
    /// source up. A hint: the result is the same either way.
    open func prefetch(_ relationship: NSRelationshipDescription, for sourceIDs: [NSManagedObjectID],
                       sourcesCoverEntity: Bool = false) throws -> RelationshipPrefetch {
        var result = RelationshipPrefetch()
        for source in try snapshots(for: sourceIDs) {
            if relationship.isToMany {
                result.destinations[source.objectID] = try source.toMany[relationship.name]
                    ?? relatedObjectIDs(for: relationship, of: source.objectID)
            } else if let destination = source[relationship.name] as? NSManagedObjectID {
                result.destinations[source.objectID] = [destination]
            }
        }
        var seen: Set<NSManagedObjectID> = []
        let destinations = result.destinations.values.joined().filter { seen.insert($0).inserted }
        result.snapshots = try snapshots(for: destinations)
        return result
    }

    /// Allocates `count` permanent IDs for new objects of `entity`.
    open func newObjectIDs(for entity: NSEntityDescription, count: Int) throws -> [NSManagedObjectID] {
        throw unsupported("creating objects")
    }

    /// Checks that ``save(_:)`` would succeed (read-only, optimistic-locking conflicts) without
    /// writing anything. The coordinator calls it on every store of a save that spans several
    /// stores before saving any; a save to one store relies on ``save(_:)`` checking the same.
    open func checkSave(_ changes: StoreSaveChanges) throws {
        throw unsupported("saving")
    }

    /// Writes a save's changes atomically: all of them or, on error, none.
    open func save(_ changes: StoreSaveChanges) throws {
        throw unsupported("saving")
    }

    /// Writes new objects of `entity` from `rows` (attribute values by name, as the request gave
    /// them: stores check and convert them with `BatchInsertColumns`, failing the whole batch on
    /// a bad row) in one transaction; a row whose values of a uniqueness constraint match a
    /// stored row, or an earlier row, updates it instead.
    ///
    /// The default works through the store protocol (a constraint fetch, ``newObjectIDs(for:count:)``
    /// and one ``save(_:)``), so atomic stores change in memory and write their file once; the
    /// SQLite store overrides it with one prepared statement.
    open func executeBatchInsert(_ rows: [[String: Any]], of entity: NSEntityDescription, returningIDs: Bool) throws -> StoreBatchOutcome {
        try batchInsertThroughSave(rows, of: entity, returningIDs: returningIDs)
    }

    /// Sets attributes on the objects an update matches, in one transaction, raising each
    /// object's version. The default fetches the objects' snapshots and saves them changed.
    open func executeBatchUpdate(_ update: StoreBatchUpdate, returningIDs: Bool) throws -> StoreBatchOutcome {
        try batchUpdateThroughSave(update, returningIDs: returningIDs)
    }

    /// Deletes the objects with `objectIDs` (all of this store) and applies the batch delete
    /// rules (``NSBatchDeleteRequest``) in one transaction; the outcome counts (and names)
    /// every deleted object, cascades included. The default plans the deletion over snapshots
    /// and saves it.
    open func executeBatchDelete(_ objectIDs: [NSManagedObjectID], returningIDs: Bool) throws -> StoreBatchOutcome {
        try batchDeleteThroughSave(objectIDs, returningIDs: returningIDs)
    }

    /// Whether the store records persistent history (it was opened with
    /// `NSPersistentHistoryTrackingKey`). The SQLite store does (as in Apple) and the PostgreSQL store.
    open var recordsPersistentHistory: Bool { false }

    /// The store's history transactions numbered `first` or above and written after `date`
    /// (either may be nil), oldest first, with their changes when `withChanges`.
    open func historyTransactions(from first: Int64?, after date: Date?, withChanges: Bool) throws -> [NSPersistentHistoryTransaction] {
        throw unsupported("persistent history")
    }

    /// Deletes the history transactions numbered `last` or below and written before `date`
    /// (either may be nil; both nil deletes all), with their changes; returns how many.
    open func deleteHistory(through last: Int64?, before date: Date?) throws -> Int {
        throw unsupported("persistent history")
    }

    /// The number of the store's newest history transaction (0 before the first).
    open func lastHistoryTransactionNumber() throws -> Int64 {
        throw unsupported("persistent history")
    }

    /// Whether the coordinator runs this store's fetches without its lock, through
    /// ``executeFetchOutsideCoordinatorLock(_:)``: the SQLite store in WAL mode, which reads on
    /// connections of its own. Others are called under the lock.
    var fetchesOutsideCoordinatorLock: Bool { false }

    /// Runs a fetch request on the store outside the coordinator's lock, or returns `nil` when
    /// it can't now (the coordinator then takes its lock and calls ``executeFetch(_:)``).
    func executeFetchOutsideCoordinatorLock(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult? { nil }

    /// A reader of the store's data as it is now and will stay for a query generation, or `nil`
    /// when the store can't pin one: contexts then read it unpinned, as Apple documents for
    /// stores that are not SQLite in WAL mode (`QueryGeneration.swift`). Only the SQLite store
    /// pins (`SQLiteStore+QueryGeneration.swift`).
    func openGenerationReader() throws -> (any StoreReading)? { nil }

    private func unsupported(_ what: String) -> NSError {
        NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreUnsupportedRequestTypeError, userInfo: [
            NSLocalizedDescriptionKey: "The \(type) store \(url?.path ?? "") does not support \(what).",
            NSAffectedStoresErrorKey: [self],
        ])
    }
}

/// The store option that opens a store read-only (a `Bool`).
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"
