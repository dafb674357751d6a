import Foundation
@_spi(StoreMigration) import OpenCoreData
import PostgresNIO

/// The PostgreSQL store's type, as `addPersistentStore(ofType:…)` takes it.
public let NSPostgreSQLStoreType = "PostgreSQL"

/// A persistent store in a PostgreSQL schema, for many coordinators, processes and hosts at once.
///
/// Add it like any store, after registering its class once per process:
///
/// ```swift
/// PostgresStore.registerStoreClass()
/// guard let url = URL(string: "postgres://app@db.example/shop?schema=catalog") else { return }
/// try coordinator.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: url)
/// ```
///
/// The URL's forms are ``PostgresStoreLocation``'s. Opening connects once (a wrong host, user
/// or database fails at once with `NSPersistentStoreOpenError`, 134080), creates what is missing
/// of the schema (``PostgresSchemaDefinition``) and reads or writes `Z_METADATA`. A schema made
/// with another model fails with `NSPersistentStoreIncompatibleVersionHashError` (134100),
/// unless `NSIgnorePersistentStoreVersioningOption` is set.
///
/// - **Keys** come from `Z_PRIMARYKEY` in ranges (``PostgresPrimaryKeyTable``), so processes
///   inserting at once never collide.
/// - **Saves** are one transaction, with optimistic locking on `Z_OPT` as in the SQLite store:
///   an update or delete of a row changed since it was read fails the save with
///   `NSManagedObjectMergeError` (133020) listing every conflict, and writes nothing, so merge
///   policies behave as on SQLite. A deadlock or serialization failure is retried up to
///   ``retryLimit`` times, then reported as `NSPersistentStoreSaveError` (134030).
/// - **Fetches** of objects, IDs and counts run in SQL through the one SQL compiler; what needs
///   a function only SQLite has, and dictionary requests, read the entity's rows and evaluate
///   them with the evaluator every store shares, so results equal the other stores'.
/// - **Batch updates and deletes** run in SQL with the SQLite store's statements, in one
///   transaction that raises `Z_OPT`, records history and notifies other coordinators.
///
/// Threading: Core Data's calls are synchronous; each one is bridged to postgres-nio's async
/// pool by ``PostgresConnectionBridge`` (see there), never blocking an event-loop thread.
///
/// Differs from Apple: Apple's Core Data has no PostgreSQL store.
// @unchecked Sendable: `metadataChanges`, `remoteChangeReceiver` and the metadata are guarded by `lock`; `opened` is set once in `loadMetadata()`,
// before the coordinator hands the store to any other thread, and never changed after.
open class PostgresStore: NSPersistentStore, @unchecked Sendable {
    open override class var storeType: String { NSPostgreSQLStoreType }

    /// Registers the class for ``NSPostgreSQLStoreType`` (safe to call more than once).
    public static func registerStoreClass() {
        NSPersistentStoreCoordinator.registerStoreClass(PostgresStore.self, type: NSPostgreSQLStoreType)
    }

    /// How many times a save that hit a deadlock or serialization failure is tried again.
    public static let retryLimit = 5

    /// What an open store works with: where it is, its pool, its tables and the model.
    struct Opened: @unchecked Sendable {
        let location: PostgresStoreLocation
        let bridge: PostgresConnectionBridge
        /// The OID of the store's schema when it opened (nil when read-only): a save checks it
        /// (a migration by another coordinator swaps in a schema with another OID).
        let schemaOID: Int64?
        let schema: SQLiteSchema
        let model: NSManagedObjectModel
        let reading: PostgresRowReading
        let primaryKeys: PostgresPrimaryKeyTable
    }

    @exclusivity(unchecked) private var opened: Opened?
    private let lock = NSLock()
    /// How many times ``metadata`` was set, and the count whose metadata is in the database.
    private var metadataChanges = (current: 0, written: 0)
    let logger = Logger(label: "OpenCoreData.PostgreSQL")
    /// Names this store instance's saves on the change channel, so that it skips its own notices.
    let instanceToken = UUID().uuidString
    /// Reads started ahead of the faults that will ask for them (``readAhead(_:)``).
    let readAheads = PostgresReadAhead()
    /// The receiver of other coordinators' saves, when remote-change notifications were asked for.
    private var remoteChangeReceiver: PostgresRemoteChangeReceiver?

    /// The open store's parts; throws `NSPersistentStoreOperationError` (134070) when it is not open.
    func open() throws -> Opened {
        if let opened { return opened }
        throw PersistentStoreErrors.make(NSPersistentStoreOperationError, "The \(PersistentStoreErrors.name(of: self)) is not open.",
                                         stores: [self], url: url)
    }

    // MARK: Opening

    open override func loadMetadata() throws {
        guard let url else {
            throw PersistentStoreErrors.make(NSPersistentStoreInvalidTypeError,
                "A PostgreSQL store needs a postgres:// URL.", stores: [self])
        }
        guard let model = persistentStoreCoordinator?.managedObjectModel else {
            throw PersistentStoreErrors.make(NSPersistentStoreOpenError, "A PostgreSQL store is opened by a coordinator with a model.", stores: [self])
        }
        let location = try PostgresStoreLocation(url: url)
        let bridge = PostgresConnectionBridge(location: location, logger: logger)
        do {
            try bridge.checkServer()
            let definition = PostgresSchemaDefinition(model: model, configurationName: configurationName, schema: location.schema)
            let history = recordsPersistentHistory ? Self.historyStatements(schema: location.schema) : []
            let (stored, schemaOID) = try Self.prepareSchema(definition, extra: history, bridge: bridge, readOnly: isReadOnly, logger: logger)
            if let stored {
                if let storedType = stored[NSStoreTypeKey] as? String, storedType != type {
                    throw PersistentStoreErrors.make(NSPersistentStoreInvalidTypeError,
                        "The schema \(location.schema) holds a \(storedType) store, not a \(type) store.", stores: [self], url: url)
                }
                if stored[NSStoreModelVersionHashesKey] != nil, storeOptionIsTrue(NSIgnorePersistentStoreVersioningOption) == false,
                   !model.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: stored) {
                    throw PersistentStoreErrors.make(NSPersistentStoreIncompatibleVersionHashError,
                        "The model used to open the \(PersistentStoreErrors.name(of: self)) is incompatible with the one used to create it.",
                        stores: [self], url: url, userInfo: ["metadata": stored])
                }
                identifier = stored[NSStoreUUIDKey] as? String ?? identifier
            }
            let metadata = stored ?? freshMetadata(model)
            if stored == nil {
                let fresh = SendableMetadata(metadata)
                try bridge.wait { [logger] client in
                    try await client.withConnection { connection in
                        try await Self.writeMetadata(fresh.value, schema: location.schema, on: connection, logger: logger)
                    }
                }
            }
            lock.withLock { super.metadata = metadata }
            opened = Opened(location: location, bridge: bridge, schemaOID: schemaOID, schema: definition.layout, model: model,
                            reading: PostgresRowReading(schema: definition.layout, model: model, qualifiedSchema: location.schema),
                            primaryKeys: PostgresPrimaryKeyTable(schema: location.schema))
        } catch {
            bridge.close()
            throw Self.openFailure(error, store: self)
        }
    }

    /// Creates what is missing of the store's tables and registers its entities, under an
    /// advisory lock so that processes opening one new store at once do not race (`extra`
    /// statements, the history tables, run after the store's own); returns the
    /// stored metadata, nil for a new store.
    static func prepareSchema(_ definition: PostgresSchemaDefinition, extra: [String] = [], bridge: PostgresConnectionBridge, readOnly: Bool,
                              logger: Logger) throws -> (metadata: [String: Any]?, schemaOID: Int64?) {
        let schema = definition.schema
        let statements = definition.statements + extra
        let entities = definition.primaryKeyRows
        let prepared = try bridge.wait { client in
            try await client.withConnection { connection in
                try await transaction(on: connection, logger: logger) { connection in
                    // A read-only store creates nothing: it doesn't wait for a migration's lock.
                    if readOnly {
                        let stored = try await readMetadata(schema: schema, on: connection, logger: logger)
                        return (stored.map(SendableMetadata.init), Int64?.none)
                    }
                    let key = advisoryLockKey(schema: schema)
                    try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(key)))", logger: logger)
                    let stored = try await readMetadata(schema: schema, on: connection, logger: logger)
                    for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                    try await PostgresPrimaryKeyTable(schema: schema).register(entities, on: connection, logger: logger)
                    return (stored.map(SendableMetadata.init), try await schemaOID(schema, on: connection, logger: logger))
                }
            }
        }
        return (prepared.0?.value, prepared.1)
    }

    /// The OID of the schema named `schema`: it changes when a migration swaps a new schema
    /// in under the name.
    static func schemaOID(_ schema: String, on connection: PostgresConnection, logger: Logger) async throws -> Int64? {
        let rows = try await connection.query("SELECT oid::int8 FROM pg_namespace WHERE nspname = \(schema)", logger: logger)
        for try await row in rows { return try row.decode(Int64.self) }
        return nil
    }

    /// The metadata of a new store.
    private func freshMetadata(_ model: NSManagedObjectModel) -> [String: Any] {
        var result: [String: Any] = [NSStoreTypeKey: type, NSStoreUUIDKey: identifier ?? UUID().uuidString,
                                     NSStoreModelVersionHashesVersionKey: 3, NSPersistenceFrameworkVersionKey: 1]
        result.merge(SQLiteStore.modelMetadata(model, configurationName: configurationName)) { _, new in new }
        return result
    }

    func storeOptionIsTrue(_ key: String) -> Bool {
        switch options?[key] {
        case let bool as Bool: return bool
        case let number as NSNumber: return number.boolValue
        default: return false
        }
    }

    /// `error` as opening reports it: Core Data's errors as they are, anything else as
    /// `NSPersistentStoreOpenError` (134080) with the server's reason.
    static func openFailure(_ error: Error, store: PostgresStore) -> Error {
        if (error as NSError).domain == NSCocoaErrorDomain { return error }
        return PersistentStoreErrors.make(NSPersistentStoreOpenError,
            "The \(PersistentStoreErrors.name(of: store)) could not be opened: \(PostgresErrors.describe(error)).",
            stores: [store], url: store.url, underlying: error)
    }

    // MARK: The store protocol (PostgresStore+Read.swift, +Prefetch.swift, +Save.swift, +BatchUpdate.swift, +BatchDelete.swift)

    /// Answered from a read started by ``readAhead(_:)`` when there is one for exactly these IDs.
    open override func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [ObjectSnapshot] {
        try objects(objectIDs, readAheadWithin: -1)
    }

    /// Always from the server.
    open override func freshSnapshots(for objectIDs: [NSManagedObjectID]) throws -> [ObjectSnapshot] {
        try objects(objectIDs, readAheadWithin: nil)
    }

    /// From a read started by ``readAhead(_:)`` no more than `interval` seconds ago, when there
    /// is one for exactly these IDs (a negative interval accepts any), else from the server.
    open override func snapshots(for objectIDs: [NSManagedObjectID], cachedWithin interval: TimeInterval) throws -> [ObjectSnapshot] {
        try objects(objectIDs, readAheadWithin: interval == 0 ? nil : interval)
    }

    /// Starts reading the rows of `objectIDs` in the background, for the next read of exactly
    /// these IDs (``snapshots(for:)`` or ``snapshots(for:cachedWithin:)``, see
    /// ``PostgresReadAhead``).
    open override func readAhead(_ objectIDs: ArraySlice<NSManagedObjectID>) {
        startReadingAhead(Array(objectIDs))
    }

    open override func relatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID) throws -> [NSManagedObjectID] {
        try destinations(of: relationship, from: objectID)
    }

    open override func executeFetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult {
        try fetch(request)
    }

    /// One statement per relationship (`PostgresStore+Prefetch.swift`).
    open override func prefetch(_ relationship: NSRelationshipDescription, for sourceIDs: [NSManagedObjectID],
                                sourcesCoverEntity: Bool = false) throws -> RelationshipPrefetch {
        try prefetchRows(relationship, for: sourceIDs)
    }

    open override func newObjectIDs(for entity: NSEntityDescription, count: Int) throws -> [NSManagedObjectID] {
        try allocateObjectIDs(for: entity, count: count)
    }

    open override func checkSave(_ changes: StoreSaveChanges) throws {
        try checkChanges(changes)
    }

    open override func save(_ changes: StoreSaveChanges) throws {
        try saveChanges(changes)
    }

    /// One `UPDATE … RETURNING` statement when PostgreSQL computes every value as the
    /// evaluator would (`PostgresStore+BatchUpdate.swift`); otherwise through snapshots, as
    /// the default.
    open override func executeBatchUpdate(_ update: StoreBatchUpdate, returningIDs: Bool) throws -> StoreBatchOutcome {
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        if let outcome = try updateRows(update, returningIDs: returningIDs) { return outcome }
        return try super.executeBatchUpdate(update, returningIDs: returningIDs)
    }

    /// Set by set in SQL, with the batch delete rules as statements (`PostgresStore+BatchDelete.swift`).
    open override func executeBatchDelete(_ objectIDs: [NSManagedObjectID], returningIDs: Bool) throws -> StoreBatchOutcome {
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        return try deleteRows(objectIDs, returningIDs: returningIDs)
    }

    // MARK: Persistent history (PostgresStore+History.swift)

    /// Whether the store was opened with `NSPersistentHistoryTrackingKey`.
    open override var recordsPersistentHistory: Bool { storeOptionIsTrue(NSPersistentHistoryTrackingKey) }

    open override func historyTransactions(from first: Int64?, after date: Date?, withChanges: Bool) throws -> [NSPersistentHistoryTransaction] {
        try readHistory(from: first, after: date, withChanges: withChanges)
    }

    open override func deleteHistory(through last: Int64?, before date: Date?) throws -> Int {
        try removeHistory(through: last, before: date)
    }

    open override func lastHistoryTransactionNumber() throws -> Int64 {
        try newestHistoryTransactionNumber()
    }

    // MARK: Migration in place (PostgresStore+Migration.swift)

    open override class func migrationWorkingLocation(for url: URL) -> URL? {
        workingLocation(for: url)
    }

    open override class func beginMigration(at url: URL, into workingURL: URL) throws {
        try lockForMigration(at: url, into: workingURL)
    }

    open override class func replaceStore(at url: URL, withMigratedStoreAt workingURL: URL) throws {
        try swapInMigratedSchema(at: url, from: workingURL)
    }

    open override class func discardMigratedStore(at workingURL: URL) {
        dropMigratedSchema(at: workingURL)
    }

    // MARK: Lifecycle

    /// Starts listening for other coordinators' saves when the store was added with
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey` (`PostgresStore+RemoteChange.swift`).
    /// A failure to listen is logged: the store works, without remote-change notifications.
    open override func didAdd(to coordinator: NSPersistentStoreCoordinator) {
        do {
            try startReceivingRemoteChanges(from: coordinator)
        } catch {
            logger.error("The PostgreSQL store can't listen for other coordinators' saves: \(PostgresErrors.describe(error))")
        }
    }

    func setRemoteChangeReceiver(_ receiver: PostgresRemoteChangeReceiver) {
        lock.withLock { remoteChangeReceiver = receiver }
    }

    open override func willRemove(from coordinator: NSPersistentStoreCoordinator?) {
        lock.withLock { remoteChangeReceiver }?.stop()
        opened?.bridge.close()
    }

    deinit {
        remoteChangeReceiver?.stop()
        opened?.bridge.close()
    }

    // MARK: Metadata

    open override var metadata: [String: Any]! {
        get { lock.withLock { super.metadata } }
        set {
            var merged = newValue ?? [:]
            merged[NSStoreTypeKey] = type
            merged[NSStoreUUIDKey] = identifier
            lock.withLock {
                super.metadata = merged
                metadataChanges.current += 1
            }
        }
    }

    /// The metadata to write with a save (it changed since it was read or written), and its
    /// change count for ``metadataWritten(_:)``; nil when unchanged.
    func pendingMetadata() -> (SendableMetadata, Int)? {
        lock.withLock {
            metadataChanges.current == metadataChanges.written ? nil : (SendableMetadata(super.metadata ?? [:]), metadataChanges.current)
        }
    }

    func metadataWritten(_ count: Int) {
        lock.withLock { metadataChanges.written = max(metadataChanges.written, count) }
    }

    open override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        let stored = try withServer(at: url) { connection, location, logger in
            try await readMetadata(schema: location.schema, on: connection, logger: logger).map(SendableMetadata.init)
        }
        guard let stored else {
            throw PersistentStoreErrors.make(NSFileReadNoSuchFileError, "There is no Core Data store in PostgreSQL schema \((try? PostgresStoreLocation(url: url))?.schema ?? "?").",
                                             url: url)
        }
        return stored.value
    }

    open override class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        var merged = try metadataForPersistentStore(with: url)
        for (key, value) in metadata ?? [:] { merged[key] = value }
        let sendable = SendableMetadata(merged)
        try withServer(at: url) { connection, location, logger in
            try await writeMetadata(sendable.value, schema: location.schema, on: connection, logger: logger)
        }
    }

    /// The `Z_PRIMARYKEY` rows of the store at `url` (`coredata store info`).
    public static func entityTable(at url: URL) throws -> [SQLiteStoreEntityRow] {
        try withServer(at: url) { connection, location, logger in
            try await PostgresPrimaryKeyTable(schema: location.schema).rows(on: connection, logger: logger)
        }
    }

    /// Runs `body` with one connection to the server at `url`, outside any coordinator: a
    /// pool opened for the call and closed after it.
    static func withServer<T: Sendable>(at url: URL,
                                        _ body: @escaping @Sendable (PostgresConnection, PostgresStoreLocation, Logger) async throws -> T) throws -> T {
        let location = try PostgresStoreLocation(url: url)
        let bridge = PostgresConnectionBridge(location: location)
        defer { bridge.close() }
        try bridge.checkServer()
        let logger = Logger(label: "OpenCoreData.PostgreSQL")
        return try bridge.wait { client in
            try await client.withConnection { connection in try await body(connection, location, logger) }
        }
    }
}

/// Metadata carried across the bridge: property-list values only, which are immutable.
// @unchecked Sendable: the dictionary holds property-list values (strings, numbers, data,
// dates, arrays and dictionaries of them), which no one mutates once read.
struct SendableMetadata: @unchecked Sendable {
    let value: [String: Any]
    init(_ value: [String: Any]) { self.value = value }
}
