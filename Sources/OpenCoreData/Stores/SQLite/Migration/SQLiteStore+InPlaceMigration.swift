import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Lightweight migration of a SQLite store in place, in SQL: the fast path of migration (DESIGN,
/// "Migration"); the general path is the migration manager's.
///
/// The whole migration is one `BEGIN IMMEDIATE` transaction on the store's file
/// (``SQLiteLightweightMigration``): a crash at any point leaves the old store, which SQLite's
/// journal restores. On an error the transaction rolls back and the store's file, `-wal` and
/// `-shm` are put back byte for byte from a copy taken before the file was opened (closing a
/// connection checkpoints the `-wal` into the file, which would change its bytes though not its
/// contents).
///
/// What it keeps, as Apple's lightweight migration does: the store's UUID (`Z_UUID`), every
/// row's primary key (so `uriRepresentation()` of a migrated object is unchanged, but for a
/// renamed entity's name), the metadata keys the app set. What it rewrites: the tables, `Z_ENT`
/// numbers (Apple's rule for the destination model, so entities added or removed renumber the
/// others), `Z_PRIMARYKEY` (each root's `Z_MAX` kept), the destination's indexes, and in
/// `Z_METADATA` the version hashes, version identifiers and, when the store had them, the
/// hashes digest and model checksum.
///
/// Differs from Apple: `Z_MODELCACHE` is emptied rather than rewritten (we don't write Apple's
/// archived model; the cache is optional), and Apple's triggers on migrated tables (derived
/// attributes, persistent history) are dropped with the tables. Persistent history is carried
/// over to the destination's entity numbers and columns, and the migration recorded as a
/// transaction (`SQLiteLightweightMigration+History.swift`); CloudKit tables (entities above
/// 15000) are left as they are.
extension SQLiteStore {
    /// Migrates the SQLite store at `url`, written with `sourceModel`, to `destinationModel`
    /// following `mapping`, in place; `.notApplicable` (store untouched) when the mapping is not
    /// lightweight-shaped for SQL (see ``SQLiteLightweightMappingView`` and
    /// ``SQLiteLightweightMigration/plan(catalog:configurationName:sourceModel:destinationModel:view:)``).
    /// Throws `NSMigrationError` (134110) naming what failed, the store untouched.
    ///
    /// `progress` counts one unit per step (creating the tables, each table's copy, validating,
    /// replacing, bookkeeping).
    static func migrateInPlace(at url: URL, options: [AnyHashable: Any]?, configurationName: String? = nil,
                               sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel,
                               mapping: NSMappingModel, progress: Progress?) throws -> SQLiteInPlaceMigrationResult {
        try migrateInPlace(at: url, options: options, configurationName: configurationName, sourceModel: sourceModel,
                           destinationModel: destinationModel, mapping: mapping, progress: progress, afterStep: nil)
    }

    /// ``migrateInPlace(at:options:configurationName:sourceModel:destinationModel:mapping:progress:)``
    /// calling `afterStep` with each step's name once it ran (inside the transaction): tests
    /// throw from it to fail a migration half-way.
    static func migrateInPlace(at url: URL, options: [AnyHashable: Any]?, configurationName: String?,
                               sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel,
                               mapping: NSMappingModel, progress: Progress?,
                               afterStep: ((String) throws -> Void)?) throws -> SQLiteInPlaceMigrationResult {
        let view: SQLiteLightweightMappingView
        switch SQLiteLightweightMappingView.make(mapping) {
        case .success(let made): view = made
        case .failure(let reason): return .notApplicable(reason)
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw PersistentStoreErrors.make(NSFileReadNoSuchFileError,
                                             "There is no SQLite store at \(url.path) to migrate.", url: url)
        }
        let backup = try FileBackup(of: url)
        defer { backup.discard() }
        var result = SQLiteInPlaceMigrationResult.migrated
        do {
            let queue = try openForMigration(url)
            do {
                try queue.writeWithoutTransaction { db in
                    // Renaming a table must not rewrite or check triggers and views of other
                    // tables (Apple's history triggers name the old tables).
                    try db.execute(sql: "PRAGMA legacy_alter_table = ON")
                    try db.inTransaction(.immediate) {
                        result = try migrate(db, configurationName: configurationName, sourceModel: sourceModel,
                                             destinationModel: destinationModel, view: view, recordsHistory: tracksHistory(options),
                                             progress: progress, afterStep: afterStep)
                        return result == .migrated ? .commit : .rollback
                    }
                }
                try queue.close()
            } catch {
                try? queue.close()
                throw error
            }
        } catch {
            try backup.restore()
            if let error = error as NSError?, error.domain == NSCocoaErrorDomain, error.code == NSMigrationError { throw error }
            throw PersistentStoreErrors.make(NSMigrationError,
                                             "The lightweight migration of the SQLite store at \(url.path) failed: \(error)",
                                             url: url, underlying: error)
        }
        if case .notApplicable = result { try backup.restore() }
        return result
    }

    /// The planned migration run on `db`, inside the caller's transaction.
    private static func migrate(_ db: Database, configurationName: String?, sourceModel: NSManagedObjectModel,
                                destinationModel: NSManagedObjectModel, view: SQLiteLightweightMappingView, recordsHistory: Bool,
                                progress: Progress?, afterStep: ((String) throws -> Void)?) throws -> SQLiteInPlaceMigrationResult {
        guard let metadata = try readMetadata(db) else {
            throw PersistentStoreErrors.make(NSFileReadCorruptFileError, "The file is not a Core Data SQLite store (it has no tables).")
        }
        let catalog = try SQLiteStoreCatalog.read(db)
        let plan: SQLiteLightweightMigration
        switch SQLiteLightweightMigration.plan(catalog: catalog, configurationName: configurationName, sourceModel: sourceModel,
                                                destinationModel: destinationModel, view: view) {
        case .success(let made): plan = made
        case .failure(let reason): return .notApplicable(reason)
        }
        let steps = plan.steps()
        progress?.totalUnitCount = Int64(steps.count + 2)
        for step in steps {
            try step.run(db)
            try afterStep?(step.name)
            progress?.completedUnitCount += 1
        }
        try plan.migrateHistory(db, recording: recordsHistory)
        try afterStep?("history")
        progress?.completedUnitCount += 1
        try db.execute(sql: "DELETE FROM \(SQLiteSchema.modelCacheTable)")
        try writeMetadata(migratedMetadata(metadata, destinationModel: destinationModel, configurationName: configurationName), to: db)
        try afterStep?("metadata")
        progress?.completedUnitCount += 1
        return .migrated
    }

    /// `metadata` with the destination model's version hashes and identifiers; the UUID and the
    /// app's keys kept; Apple's digest and checksum of the hashes recomputed when present.
    static func migratedMetadata(_ metadata: [String: Any], destinationModel: NSManagedObjectModel, configurationName: String?) -> [String: Any] {
        var result = metadata
        let model = modelMetadata(destinationModel, configurationName: configurationName)
        result.merge(model) { _, new in new }
        let hashes = model[NSStoreModelVersionHashesKey] as? [String: Data] ?? [:]
        if result["NSStoreModelVersionHashesDigest"] != nil {
            result["NSStoreModelVersionHashesDigest"] = VersionHasher.storeHashesDigest(entityVersionHashes: hashes).base64EncodedString()
        }
        if result[NSStoreModelVersionChecksumKey] != nil {
            result[NSStoreModelVersionChecksumKey] = VersionHasher.modelChecksum(entityVersionHashes: hashes).base64EncodedString()
        }
        return result
    }

    /// A connection to the store's file for the migration: Core Data's SQL functions (Apple's
    /// triggers may call them), the usual busy timeout, nothing else changed.
    private static func openForMigration(_ url: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = "OpenCoreData.SQLiteStore.migration"
        configuration.busyMode = .timeout(busyTimeout)
        configuration.prepareDatabase { db in SQLFunctions.register(on: db) }
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }
}

/// A copy of a SQLite store's file, `-wal` and `-shm`, taken before a migration opens it, put
/// back when the migration fails or does not apply.
private struct FileBackup {
    static let suffixes = ["", "-wal", "-shm"]
    let url: URL
    let directory: URL
    /// The suffixes whose files existed.
    let existing: [String]

    init(of url: URL) throws {
        let manager = FileManager.default
        self.url = url
        directory = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).migration-backup-\(UUID().uuidString)")
        try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        var existing: [String] = []
        do {
            for suffix in Self.suffixes where manager.fileExists(atPath: url.path + suffix) {
                try manager.copyItem(atPath: url.path + suffix, toPath: directory.appendingPathComponent("store" + suffix).path)
                existing.append(suffix)
            }
        } catch {
            try? manager.removeItem(at: directory)
            throw error
        }
        self.existing = existing
    }

    /// Puts every file back as it was: the `-wal` first (its pages are committed data the file
    /// may already hold), then the file, then the `-shm`; files that did not exist are removed.
    func restore() throws {
        let manager = FileManager.default
        for suffix in ["-wal", "", "-shm"] {
            let target = url.path + suffix
            if existing.contains(suffix) {
                let staged = directory.appendingPathComponent("staged" + suffix).path
                try? manager.removeItem(atPath: staged)
                try manager.copyItem(atPath: directory.appendingPathComponent("store" + suffix).path, toPath: staged)
                if rename(staged, target) != 0 {
                    throw PersistentStoreErrors.make(NSFileWriteUnknownError, "Can't put back \(target) after a failed migration (errno \(errno)).", url: url)
                }
            } else if manager.fileExists(atPath: target) {
                try manager.removeItem(atPath: target)
            }
        }
    }

    func discard() {
        try? FileManager.default.removeItem(at: directory)
    }
}
