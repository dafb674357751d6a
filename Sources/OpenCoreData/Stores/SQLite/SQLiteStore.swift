import Foundation
import GRDB

/// The SQLite store (`NSSQLiteStoreType`): Core Data's on-disk schema (DESIGN decision 5) on
/// GRDB, loading rows on demand.
///
/// - Opening a file that does not exist creates it with the schema of the coordinator's model
///   (WAL journal, incremental auto-vacuum, then `NSSQLitePragmasOption`).
/// - Opening an existing file reads `Z_METADATA`, takes the store's own entity numbering and
///   join-table names from `Z_PRIMARYKEY` and `sqlite_master`, checks the model (see
///   `SQLiteStore/adoptStoredSchema(storedMetadata:database:)` for the rule) and reads
///   nothing else until asked.
/// - Every save is one transaction; updates and deletes are checked against `Z_OPT`.
/// - A context pinned to a query generation reads through a connection of the generation's
///   that holds a read transaction open on the WAL (`SQLiteStore+QueryGeneration.swift`).
/// - A read-only store never writes a byte of its files: a database in WAL mode is read through
///   a private copy (`SQLiteStore+ReadOnlyCopy.swift`).
///
/// Apple's stores open with what real iOS/macOS stores carry (see `SQLiteStore/adoptStoredSchema(storedMetadata:database:)`
/// and `SQLFunctions/registerAppleTriggerFunctions(on:)`): persistent-history and CloudKit
/// tables are left alone, Apple's triggers run, externally stored binary data is read
/// (`SQLiteValueCoding/ExternalData`).
///
/// As Apple's, a store with persistent-history rows opened for writing without
/// `NSPersistentHistoryTrackingKey` is forced read-only (`SQLiteStore+PersistentHistory.swift`).
///
/// Differences from Apple: binary data is always written in its column, never to a file; our
/// saves record no persistent history (`ATRANSACTION`/`ACHANGE` rows) and nothing for CloudKit
/// mirroring; no R-tree indexes; `Z_MODELCACHE` is created empty and never required.
open class SQLiteStore: NSPersistentStore, @unchecked Sendable {
    /// The model the store's schema comes from (the coordinator's).
    public let managedObjectModel: NSManagedObjectModel?

    /// The schema and row layouts the store reads and writes with.
    private struct Mapping {
        let schema: SQLiteSchema
        /// How rows of each root table are read, by table name.
        let layouts: [String: SQLiteRowLayout]
        /// Fetch statements compiled for this schema, by request shape.
        let statements = SQLStatementCache()

        init(schema: SQLiteSchema, model: NSManagedObjectModel?) {
            self.schema = schema
            layouts = Dictionary(schema.tables.map { table in
                (table.name, SQLiteRowLayout(table: table, schema: schema, model: model, dialect: SQLiteDialect()))
            }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The model's schema until ``loadMetadata()`` opens an existing store, then the store's
    /// own (``SQLiteSchema/reconciled(model:configurationName:catalog:)``). Guarded by `lock`.
    private var mapping: Mapping

    /// The schema mapping of the store's entities.
    var schema: SQLiteSchema { lock.withLock { mapping.schema } }

    /// How rows of each root table are read, by table name.
    var layouts: [String: SQLiteRowLayout] { lock.withLock { mapping.layouts } }

    /// The fetch statements compiled for the current schema (a new schema starts a new cache).
    var statementCache: SQLStatementCache { lock.withLock { mapping.statements } }

    /// The schema with the statements compiled for it, read together so that a statement is
    /// never cached for another schema than the one it was compiled with.
    var schemaAndStatements: (schema: SQLiteSchema, statements: SQLStatementCache) {
        lock.withLock { (mapping.schema, mapping.statements) }
    }

    /// The dialect SQL text is written in.
    let dialect = SQLiteDialect()

    /// The open database; `nil` before ``loadMetadata()``.
    private(set) var database: DatabaseQueue?

    /// The temporary directory of the private copy a read-only store reads (see
    /// `SQLiteStore+ReadOnlyCopy.swift`), removed with the store.
    private var privateCopyDirectory: URL?

    /// Serializes changes to the Swift-side state (metadata).
    let lock = NSRecursiveLock()

    /// The remote-change watcher, when the store posts remote changes. Guarded by `lock`.
    var remoteChangeWatcher: RemoteChangeWatcher?

    /// How many times ``metadata`` was set, and the count whose metadata is in the file (equal
    /// after opening or creating the store). Guarded by `lock`.
    private var metadataChanges = (current: 0, written: 0)

    /// The last snapshot read or saved of each row, shared by every context of the
    /// coordinator: fetches fill it, fault firing reads it before SQL, saves keep it current.
    let rowCache = SQLiteRowCache()

    /// The read-only connections fetches run on outside the coordinator's lock, started when
    /// the file is open in WAL mode (`SQLiteReaderPool.swift`).
    let readers = SQLiteReaderPool()

    /// Run by a fetch on ``readers`` between reading its rows and caching them: how a test holds
    /// one read back while a write and another read land. Nil (nothing run) outside tests.
    /// Guarded by `lock`.
    var rowsReadBeforeCaching: (@Sendable () -> Void)?

    /// The read connections of the query generations pinned on this store, not retained
    /// (`SQLiteStore+QueryGeneration.swift`). Guarded by `lock`.
    var generationReaders: [WeakGenerationReader] = []

    /// The store's SQL debug log (`OPENCOREDATA_SQL_DEBUG`, or the `SQLDebugLog.levelOption`
    /// store option), traced on every connection the store opens.
    public let sqlLog: SQLDebugLog

    open override class var storeType: String { NSSQLiteStoreType }

    public required init(persistentStoreCoordinator coordinator: NSPersistentStoreCoordinator?,
                         configurationName: String?, at url: URL?, options: [AnyHashable: Any]?) {
        let model = coordinator?.managedObjectModel
        let schema = model.map { SQLiteSchema(model: $0, configurationName: configurationName) } ?? SQLiteSchema(entities: [])
        managedObjectModel = model
        mapping = Mapping(schema: schema, model: model)
        sqlLog = SQLDebugLog(options: options)
        super.init(persistentStoreCoordinator: coordinator, configurationName: configurationName, at: url, options: options)
    }

    /// Reads and writes with `schema` from now on (an existing store's own, when it opens).
    func install(schema: SQLiteSchema) {
        let new = Mapping(schema: schema, model: managedObjectModel)
        lock.withLock { mapping = new }
    }

    /// The open database, or an error naming the store when it is not open.
    func openDatabase() throws -> DatabaseQueue {
        if let database { return database }
        throw PersistentStoreErrors.make(NSPersistentStoreOperationError, "The \(PersistentStoreErrors.name(of: self)) is not open.", stores: [self], url: url)
    }

    // MARK: Opening

    open override func loadMetadata() throws {
        guard let url else {
            throw PersistentStoreErrors.make(NSPersistentStoreInvalidTypeError, "A SQLite store needs a file URL.", stores: [self])
        }
        let exists = FileManager.default.fileExists(atPath: url.path)
        if !exists && isReadOnly {
            throw PersistentStoreErrors.make(NSFileReadNoSuchFileError, "There is no SQLite store at \(url.path) to open read-only.",
                                             stores: [self], url: url, userInfo: [NSFilePathErrorKey: url.path])
        }
        if !exists {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        var openURL = url
        if isReadOnly && Self.readingWritesFiles(url) {
            let copy = try Self.privateCopy(of: url)
            privateCopyDirectory = copy.directory
            openURL = copy.database
        }
        do {
            try open(at: openURL, url: url)
        } catch {
            // A refused opening leaves nothing behind: no open connection, no private copy.
            try? database?.close()
            database = nil
            if let privateCopyDirectory { try? FileManager.default.removeItem(at: privateCopyDirectory) }
            privateCopyDirectory = nil
            throw error
        }
    }

    /// Opens the database at `openURL` (the store's file, or its private copy) and reads or
    /// creates the store in it.
    private func open(at openURL: URL, url: URL) throws {
        let queue = try openQueue(at: openURL)
        let stored: [String: Any]?
        do {
            stored = try queue.read { db in try Self.readMetadata(db) }
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw corrupt(error)
        }
        if let stored {
            if let storedType = stored[NSStoreTypeKey] as? String, storedType != type {
                throw PersistentStoreErrors.make(NSPersistentStoreInvalidTypeError,
                    "The store at \(url.path) is a \(storedType) store, not a \(type) store.", stores: [self], url: url)
            }
            try queue.read { db in try adoptStoredSchema(storedMetadata: stored, database: db) }
            if try queue.read({ db in try mustForceReadOnlyForHistory(db) }) { isReadOnly = true }
            if recordsPersistentHistory && !isReadOnly { try queue.write { db in try createHistoryTables(db) } }
            identifier = stored[NSStoreUUIDKey] as? String ?? identifier
            database = queue
            lock.withLock { super.metadata = stored }
        } else {
            if isReadOnly {
                throw corrupt(nil)
            }
            let fresh = freshMetadata()
            try queue.write { db in
                try createSchema(db)
                if recordsPersistentHistory { try createHistoryTables(db) }
                try Self.writeMetadata(fresh, to: db)
            }
            database = queue
            lock.withLock { super.metadata = fresh }
        }
        try applyPragmaOptions(queue)
        try startReaders(on: queue)
    }

    /// How many connections a store opens at most, writer included, without
    /// `NSPersistentStoreConnectionPoolMaxSizeKey`.
    static let defaultConnectionPoolSize = 4

    /// Starts the reader pool when `queue`, the store's own connection, is in WAL mode and
    /// `NSPersistentStoreConnectionPoolMaxSizeKey` (connections, writer included) leaves room
    /// for readers. In another journal mode a reader would block the writer's commits, so
    /// every fetch runs on the store's own connection under the coordinator's lock.
    private func startReaders(on queue: DatabaseQueue) throws {
        let size = (options?[NSPersistentStoreConnectionPoolMaxSizeKey] as? NSNumber)?.intValue
            ?? (options?[NSPersistentStoreConnectionPoolMaxSizeKey] as? Int) ?? Self.defaultConnectionPoolSize
        guard size > 1 else { return }
        let mode = try queue.inDatabase { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        guard mode?.lowercased() == "wal" else { return }
        // Unowned: the pool is the store's, and only the store's fetches open readers. The path
        // is read now: `database` changes under the coordinator's lock, which readers don't take.
        let path = queue.path
        readers.start(capacity: size - 1) { [unowned self] in try self.openReader(at: path) }
    }

    /// A read-only connection to the database at `path`, the store's open file (for the reader
    /// pool and query generations), with the store's SQL functions and the pragmas of `NSSQLitePragmasOption`
    /// that apply to reading, traced into ``sqlLog`` from then on.
    func openReader(at path: String) throws -> DatabaseQueue {
        let reader = try openQueue(at: URL(fileURLWithPath: path), readingOnly: true)
        try applyPragmaOptions(reader, readingOnly: true)
        reader.inDatabase { db in sqlLog.install(on: db) }
        return reader
    }

    /// Opens the file with the pragmas Core Data sets; `readingOnly` opens a read-only
    /// connection that sets none (see ``openReader(at:)``).
    func openQueue(at url: URL, readingOnly: Bool = false) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = isReadOnly || readingOnly
        configuration.label = readingOnly ? "OpenCoreData.SQLiteStore.reader" : "OpenCoreData.SQLiteStore"
        configuration.busyMode = .timeout(Self.busyTimeout)
        // A generation's reader keeps its read transaction open between accesses.
        configuration.allowsUnsafeTransactions = readingOnly
        // A reader traces from when it is ready (``openReader(at:)``): not GRDB's check that the
        // file is a database, which would count as a fetch's statement.
        if !readingOnly { sqlLog.install(in: &configuration) }
        let wantsWAL = (pragmaOptions["journal_mode"].map { $0.uppercased() == "WAL" }) ?? true
        let readOnly = isReadOnly || readingOnly
        configuration.prepareDatabase { db in
            SQLFunctions.register(on: db)
            guard !readOnly else { return }
            // auto_vacuum only takes effect before the first table is created.
            try db.execute(sql: "PRAGMA auto_vacuum = 2")
            if wantsWAL { try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA recursive_triggers = ON")
        }
        do {
            return try DatabaseQueue(path: url.path, configuration: configuration)
        } catch {
            throw corrupt(error)
        }
    }

    /// How long a statement waits for another connection's lock (another coordinator or
    /// process on the same file) before `SQLITE_BUSY` becomes an error: 30 seconds.
    ///
    /// Writes run in `BEGIN IMMEDIATE` transactions (GRDB's default for writes), so two
    /// writers queue up on the write lock at the start of their transactions instead of
    /// deadlocking on a lock upgrade; readers in WAL mode never wait for writers.
    public static let busyTimeout: TimeInterval = 30

    /// `NSSQLitePragmasOption` as pragma name → value text.
    var pragmaOptions: [String: String] {
        guard let pragmas = options?[NSSQLitePragmasOption] as? [AnyHashable: Any] else { return [:] }
        var result: [String: String] = [:]
        for (key, value) in pragmas {
            guard let name = key as? String else { continue }
            result[name.lowercased()] = "\(value)"
        }
        return result
    }

    /// Runs each pragma of `NSSQLitePragmasOption` (on a reader, those it can run). Pragma
    /// values can't be bound parameters, so names and values are checked to be plain words or
    /// numbers before they are written.
    private func applyPragmaOptions(_ queue: DatabaseQueue, readingOnly: Bool = false) throws {
        for (name, value) in pragmaOptions.sorted(by: { $0.key < $1.key }) {
            let plain = { (text: String) in !text.isEmpty && text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" || $0 == ".") } }
            guard plain(name), plain(value) else {
                throw PersistentStoreErrors.make(NSPersistentStoreInvalidTypeError,
                    "NSSQLitePragmasOption: '\(name)' = '\(value)' is not a pragma name and plain value.", stores: [self], url: url)
            }
            if (isReadOnly || readingOnly) && (name == "journal_mode" || name == "auto_vacuum") { continue }
            let apply = { try queue.writeWithoutTransaction { db in _ = try Row.fetchAll(db, sql: "PRAGMA \(name) = \(value)") } }
            // A reader skips a pragma that writes the file (`user_version`): the store's own
            // connection, which checked every pragma when the store opened, wrote it.
            if readingOnly { try? apply() } else { try apply() }
        }
    }

    /// Creates the tables, indexes and `Z_PRIMARYKEY` rows of ``schema``.
    func createSchema(_ db: Database) throws {
        for statement in schema.createStatements(dialect: dialect) {
            try db.execute(sql: statement)
        }
        for row in schema.primaryKeyRows {
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                           arguments: [row.entity, row.name, row.superEntity])
        }
    }

    /// The metadata of a new store (as Apple writes it, plus the user keys set later).
    func freshMetadata() -> [String: Any] {
        var result: [String: Any] = [
            NSStoreTypeKey: type, NSStoreUUIDKey: identifier ?? UUID().uuidString,
            NSStoreModelVersionHashesVersionKey: 3, NSPersistenceFrameworkVersionKey: 1,
            "_NSAutoVacuumLevel": "2",
        ]
        // Apple's Core Data rebuilds history tables of stores it reads as older than this.
        if recordsPersistentHistory { result["NSPersistenceMaximumFrameworkVersion"] = 1344 }
        if let model = managedObjectModel {
            result.merge(Self.modelMetadata(model, configurationName: configurationName)) { _, new in new }
        }
        return result
    }

    /// The metadata keys that say which model wrote a store: `NSStoreModelVersionHashes` of the
    /// configuration's entities and `NSStoreModelVersionIdentifiers`.
    package static func modelMetadata(_ model: NSManagedObjectModel, configurationName: String?) -> [String: Any] {
        let entities = model.entities(forConfigurationName: configurationName) ?? model.entities
        return [
            NSStoreModelVersionHashesKey: Dictionary(entities.compactMap { entity in entity.name.map { ($0, entity.versionHash) } },
                                                     uniquingKeysWith: { first, _ in first }),
            NSStoreModelVersionIdentifiersKey: model.versionIdentifiers.map { "\($0.base)" }.sorted(),
            NSStoreModelVersionHashesVersionKey: 3,
        ]
    }

    /// NSFileReadCorruptFileError (259) naming the file.
    func corrupt(_ underlying: Error?) -> NSError {
        PersistentStoreErrors.make(NSFileReadCorruptFileError,
            "The file at \(url?.path ?? "?") is not a Core Data SQLite store\(underlying.map { ": \($0)" } ?? "").",
            stores: [self], url: url, underlying: underlying,
            userInfo: url.map { [NSFilePathErrorKey: $0.path] } ?? [:])
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

    /// Writes ``metadata`` into `Z_METADATA` inside a save's transaction when it changed since
    /// it was last read or written (serializing the property list costs more than the rest of a
    /// small save). Returns the change count written, for ``metadataWritten(_:)`` once the
    /// transaction commits; nil when nothing was written.
    ///
    /// Apple documents that metadata set on a store is written by the next save; a save with
    /// unchanged metadata leaves the row alone.
    func writeCurrentMetadata(_ db: Database) throws -> Int? {
        let (current, changes) = lock.withLock { (metadata, metadataChanges) }
        guard changes.current != changes.written else { return nil }
        try Self.writeMetadata(current ?? [:], to: db)
        return changes.current
    }

    /// Records that the metadata at change count `count` is in the file.
    func metadataWritten(_ count: Int) {
        lock.withLock { metadataChanges.written = max(metadataChanges.written, count) }
    }

    open override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        if let metadata = try readingFile(at: url, { try readMetadata($0) }) { return metadata }
        throw PersistentStoreErrors.make(NSFileReadCorruptFileError, "The file at \(url.path) is not a Core Data SQLite store.",
                                         url: url, userInfo: [NSFilePathErrorKey: url.path])
    }

    open override class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        try queue.write { db in
            guard let old = try readMetadata(db) else {
                throw PersistentStoreErrors.make(NSFileReadCorruptFileError, "The file at \(url.path) is not a Core Data SQLite store.",
                                                 url: url, userInfo: [NSFilePathErrorKey: url.path])
            }
            var merged = metadata ?? [:]
            merged[NSStoreTypeKey] = NSSQLiteStoreType
            merged[NSStoreUUIDKey] = old[NSStoreUUIDKey]
            try writeMetadata(merged, to: db)
        }
    }

    // MARK: The store protocol (SQLiteStore+Read.swift, SQLiteStore+Save.swift)

    /// Rows by primary key: from the row cache, else read in batches of `Z_PK IN (…)` (and
    /// cached); IDs that no longer exist are left out.
    open override func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [ObjectSnapshot] {
        try snapshots(for: objectIDs, maxAge: -1, caching: true)
    }

    /// Rows from the row cache only when they were read less than `interval` seconds ago
    /// (negative: whenever read; 0: never, see ``freshSnapshots(for:)``), else read from the
    /// file (and cached).
    open override func snapshots(for objectIDs: [NSManagedObjectID], cachedWithin interval: TimeInterval) throws -> [ObjectSnapshot] {
        if interval == 0 { return try freshSnapshots(for: objectIDs) }
        return try snapshots(for: objectIDs, maxAge: interval, caching: true)
    }

    /// Rows read from the file, past the row cache (which they refresh).
    open override func freshSnapshots(for objectIDs: [NSManagedObjectID]) throws -> [ObjectSnapshot] {
        try snapshots(for: objectIDs, maxAge: 0, caching: true)
    }

    /// The rows of a batch of a `fetchBatchSize` result, read as the other reads by ID read them,
    /// but not added to the row cache (the rows it holds are replaced). A subclass reads
    /// them as every store outside the library does, through the methods it may override.
    override func walkSnapshots(for objectIDs: [NSManagedObjectID], maxAge: TimeInterval) throws -> [ObjectSnapshot] {
        guard Swift.type(of: self) == SQLiteStore.self else { return try super.walkSnapshots(for: objectIDs, maxAge: maxAge) }
        return try snapshots(for: objectIDs, maxAge: maxAge, caching: false)
    }

    /// Rows from the row cache when they were read less than `maxAge` seconds ago (negative:
    /// whenever read; 0: never), else read from the file. The rows read replace those the cache
    /// holds, and when `caching`, the others join it. A read past the cache (`maxAge` 0) also
    /// forgets the rows asked for that are gone from the file.
    private func snapshots(for objectIDs: [NSManagedObjectID], maxAge: TimeInterval, caching: Bool) throws -> [ObjectSnapshot] {
        let (found, missing): ([ObjectSnapshot], [NSManagedObjectID])
            = maxAge == 0 ? ([], objectIDs) : rowCache.lookUp(objectIDs, maxAge: maxAge)
        guard !missing.isEmpty else { return found }
        let read = try readSnapshots(for: missing)
        if maxAge == 0 && caching {
            rowCache.remove(objectIDs)
        } else if maxAge == 0 && read.count < objectIDs.count {
            let kept = Set(read.lazy.map(\.objectID.key))
            rowCache.remove(objectIDs.filter { !kept.contains($0.key) })
        }
        rowCache.insert(contentsOf: read, addingNew: caching)
        return found.isEmpty ? read : found + read
    }

    /// A to-many relationship's destinations, through the inverse key or the join table.
    open override func relatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID) throws -> [NSManagedObjectID] {
        try readRelatedObjectIDs(for: relationship, of: objectID)
    }

    /// Runs a fetch request on the store's own connection (see `runFetch(_:on:reusing:)`).
    /// The snapshots fetched go into the row cache (past its capacity, the earlier ones only
    /// replace rows it holds: see `SQLiteRowCache`).
    open override func executeFetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult {
        let result = try runFetch(request, on: openDatabase(), reusing: rowCache)
        if case .snapshots(let snapshots) = result { rowCache.insert(contentsOf: snapshots) }
        return result
    }

    /// In WAL mode, fetches run on the reader pool (`SQLiteReaderPool.swift`).
    override var fetchesOutsideCoordinatorLock: Bool { readers.isOpen }

    /// Runs a fetch request on a reader of the pool, outside the coordinator's lock; `nil` when
    /// the pool has no reader to give (the coordinator then runs ``executeFetch(_:)``). The
    /// snapshots go into the row cache unless a save wrote it while they were read.
    override func executeFetchOutsideCoordinatorLock(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult? {
        let writes = rowCache.writeCount
        guard let result = try readers.withReader({ try runFetch(request, on: $0, reusing: rowCache) }) else { return nil }
        lock.withLock { rowsReadBeforeCaching }?()
        if case .snapshots(let snapshots) = result {
            rowCache.insert(contentsOf: snapshots, ifNoWritesSince: writes)
        }
        return result
    }

    /// One statement per relationship (see `SQLiteStore+Prefetch.swift`).
    open override func prefetch(_ relationship: NSRelationshipDescription, for sourceIDs: [NSManagedObjectID],
                                sourcesCoverEntity: Bool = false) throws -> RelationshipPrefetch {
        try readPrefetch(relationship, for: sourceIDs, sourcesCoverEntity: sourcesCoverEntity)
    }

    /// Keys from the root entity's `Z_MAX`.
    open override func newObjectIDs(for entity: NSEntityDescription, count: Int) throws -> [NSManagedObjectID] {
        try allocateObjectIDs(for: entity, count: count)
    }

    /// Whether the store was opened with `NSPersistentHistoryTrackingKey` (`true`, or Apple's
    /// dictionary of sub-options, which are not read).
    open override var recordsPersistentHistory: Bool {
        Self.tracksHistory(options)
    }

    /// Whether `options` turn persistent history on.
    static func tracksHistory(_ options: [AnyHashable: Any]?) -> Bool {
        guard let value = options?[NSPersistentHistoryTrackingKey] else { return false }
        return storeOptionBool(options, NSPersistentHistoryTrackingKey) ?? !(value is NSNull)
    }

    open override func historyTransactions(from first: Int64?, after date: Date?, withChanges: Bool) throws -> [NSPersistentHistoryTransaction] {
        try readHistory(from: first, after: date, withChanges: withChanges)
    }

    open override func deleteHistory(through last: Int64?, before date: Date?) throws -> Int {
        try removeHistory(through: last, before: date)
    }

    open override func lastHistoryTransactionNumber() throws -> Int64 {
        try newestHistoryTransactionNumber()
    }

    /// One prepared `INSERT` run per row in one transaction, for entities without uniqueness
    /// constraints (those upsert through the default, which looks the stored rows up first) in a
    /// store without history (whose saves record it).
    open override func executeBatchInsert(_ rows: [[String: Any]], of entity: NSEntityDescription, returningIDs: Bool) throws -> StoreBatchOutcome {
        guard UniquenessConstraint.all(of: entity).isEmpty, !recordsPersistentHistory else {
            return try super.executeBatchInsert(rows, of: entity, returningIDs: returningIDs)
        }
        return try insertRows(rows, of: entity, returningIDs: returningIDs)
    }

    /// One `UPDATE … RETURNING` statement when SQLite computes every value as the evaluator
    /// would (`SQLiteStore+BatchUpdate.swift`); otherwise through snapshots, as the default.
    open override func executeBatchUpdate(_ update: StoreBatchUpdate, returningIDs: Bool) throws -> StoreBatchOutcome {
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        if let outcome = try updateRows(update, returningIDs: returningIDs) { return outcome }
        return try super.executeBatchUpdate(update, returningIDs: returningIDs)
    }

    /// Set by set in SQL, with the batch delete rules as statements (`SQLiteStore+BatchDelete.swift`).
    open override func executeBatchDelete(_ objectIDs: [NSManagedObjectID], returningIDs: Bool) throws -> StoreBatchOutcome {
        if isReadOnly { throw PersistentStoreErrors.readOnly(self) }
        return try deleteRows(objectIDs, returningIDs: returningIDs)
    }

    /// Read-only, IDs and `Z_OPT` conflicts (`NSManagedObjectMergeError`, 133020).
    open override func checkSave(_ changes: StoreSaveChanges) throws {
        do {
            try checkChanges(changes)
        } catch {
            // The rows that conflicted are read again by the next fault or refresh.
            rowCache.remove((changes.updated + changes.deleted).map(\.objectID))
            throw error
        }
    }

    /// One transaction: deletes, inserts, updates (`WHERE Z_PK = ? AND Z_OPT = ?`), to-many
    /// rows, `Z_MAX` and metadata.
    /// The row cache then holds the saved snapshots (without to-many relationships, which the
    /// rows don't carry) at their new versions, and forgets deleted rows.
    open override func save(_ changes: StoreSaveChanges) throws {
        do {
            try saveChanges(changes)
        } catch {
            rowCache.remove((changes.updated + changes.deleted).map(\.objectID))
            throw error
        }
        rowCache.remove(changes.deleted.map(\.objectID))
        rowCache.insertSaved(inserted: changes.inserted, updated: changes.updated)
    }

    /// A read connection pinned on the WAL (`SQLiteStore+QueryGeneration.swift`).
    override func openGenerationReader() throws -> (any StoreReading)? {
        try openPinnedReader()
    }

    /// Starts the remote-change watcher when the store was added with
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey` (`SQLiteStore+RemoteChange.swift`).
    open override func didAdd(to coordinator: NSPersistentStoreCoordinator) {
        guard storeOptionBool(options, NSPersistentStoreRemoteChangeNotificationPostOptionKey) == true else { return }
        let watcher = RemoteChangeWatcher(store: self, coordinator: coordinator)
        lock.withLock { remoteChangeWatcher = watcher }
        watcher.start()
    }

    open override func willRemove(from coordinator: NSPersistentStoreCoordinator?) {
        lock.withLock { remoteChangeWatcher }?.stop()
        closeGenerationReaders()
        readers.close()
        rowCache.removeAll()
        statementCache.removeAll()
        try? database?.close()
        database = nil
        if let privateCopyDirectory { try? FileManager.default.removeItem(at: privateCopyDirectory) }
        privateCopyDirectory = nil
    }

    deinit {
        if let privateCopyDirectory { try? FileManager.default.removeItem(at: privateCopyDirectory) }
    }
}
