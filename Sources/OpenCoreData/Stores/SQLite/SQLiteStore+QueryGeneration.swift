import Foundation
import GRDB

/// Query generations on the SQLite store: a pinned generation reads the database through a
/// connection of its own that holds a read transaction open on the WAL.
///
/// Apple pins a generation with SQLite's snapshot API (`sqlite3_snapshot_get`/`_open`). The
/// system SQLite on Linux (3.40.1 in Debian 12) is built without `SQLITE_ENABLE_SNAPSHOT`, so
/// the fallback is used: one read-only connection per live generation and store, in a
/// `BEGIN DEFERRED` transaction whose first read fixed the snapshot it sees until it ends.
/// While it is open, checkpoints can't move the WAL past it (the WAL grows); it ends when the
/// generation is freed (no context and no token refers to it any more) or the store is removed.
///
/// A store not in WAL journal mode can't pin a generation (a read transaction in rollback
/// mode would block every writer): as Apple documents, contexts then read it unpinned.
extension SQLiteStore {
    /// A reader for a new generation, or `nil` when the database is not in WAL mode.
    func openPinnedReader() throws -> SQLiteGenerationReader? {
        let database = try openDatabase()
        let mode = try database.inDatabase { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        guard mode?.lowercased() == "wal" else { return nil }
        let connection = try openReader(at: database.path)
        try connection.inDatabase { db in
            try db.execute(sql: "BEGIN DEFERRED TRANSACTION")
            // The transaction's first read takes its snapshot of the WAL.
            _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Z_METADATA")
        }
        let reader = SQLiteGenerationReader(store: self, connection: connection)
        lock.withLock {
            generationReaders.removeAll { $0.reader == nil }
            generationReaders.append(WeakGenerationReader(reader: reader))
        }
        return reader
    }

    /// Ends the read transactions of the generations still pinned on the store (it is being
    /// removed from its coordinator); their later reads of it throw.
    func closeGenerationReaders() {
        let readers = lock.withLock {
            defer { generationReaders = [] }
            return generationReaders.compactMap(\.reader)
        }
        for reader in readers { reader.close() }
    }
}

/// A generation's reader, not retained by the store.
struct WeakGenerationReader {
    weak var reader: SQLiteGenerationReader?
}

/// One query generation's view of one SQLite store: the store's read functions run on the
/// generation's connection and past the row cache (which holds the newest rows, and never
/// receives these older ones).
// @unchecked Sendable: `isClosed` is read and written only under `lock`; `store` and
// `connection` are Sendable and never change (GRDB's queue serializes the connection's use).
final class SQLiteGenerationReader: StoreReading, @unchecked Sendable {
    let store: SQLiteStore
    private let connection: DatabaseQueue
    private let lock = NSLock()
    private var isClosed = false

    init(store: SQLiteStore, connection: DatabaseQueue) {
        self.store = store
        self.connection = connection
    }

    /// Runs `body` on the connection, or throws when the store was removed.
    private func reading<T>(_ body: (DatabaseQueue) throws -> T) throws -> T {
        try lock.withLock {
            guard !isClosed else {
                throw PersistentStoreErrors.make(NSPersistentStoreOperationError,
                    "The \(PersistentStoreErrors.name(of: store)) was removed from its coordinator; the query generation can't read it any more.",
                    stores: [store])
            }
            return try body(connection)
        }
    }

    func executeFetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult {
        try reading { try store.runFetch(request, on: $0, reusing: nil) }
    }

    func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [ObjectSnapshot] {
        try reading { try store.readSnapshots(for: objectIDs, on: $0) }
    }

    func relatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID) throws -> [NSManagedObjectID] {
        try reading { try store.readRelatedObjectIDs(for: relationship, of: objectID, on: $0) }
    }

    func prefetch(_ relationship: NSRelationshipDescription, for sourceIDs: [NSManagedObjectID],
                  sourcesCoverEntity: Bool) throws -> RelationshipPrefetch {
        try reading { try store.readPrefetch(relationship, for: sourceIDs, sourcesCoverEntity: sourcesCoverEntity, on: $0) }
    }

    /// Ends the read transaction now (the store is being removed).
    func close() {
        lock.withLock {
            guard !isClosed else { return }
            isClosed = true
            try? connection.inDatabase { db in try db.execute(sql: "ROLLBACK") }
        }
    }

    deinit {
        if !isClosed { try? connection.inDatabase { db in try db.execute(sql: "ROLLBACK") } }
        try? connection.close()
    }
}
