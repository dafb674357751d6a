import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a migration writes its destination: a new file next to the destination URL, renamed
/// over it when the migration succeeded, removed when it failed.
///
/// - A store already at the destination (another pass of a multi-pass migration) is copied to
///   the new file first, so the pass adds to it; unless the destination is the source itself,
///   which is then replaced by its migrated version.
/// - SQLite files are checkpointed before the rename (`wal_checkpoint(TRUNCATE)`: the old file's
///   `-wal` is then empty and the new file has none), so the database file alone is the store
///   and the one `rename` switches from the old store to the new one. An externally stored data
///   folder (`.<name>_SUPPORT`) follows the new file after the rename.
/// - Stores without a file (in-memory, `/dev/null`) write nothing.
/// - A store type that lives elsewhere (a server) and names a working location
///   (`NSPersistentStore.migrationWorkingLocation(for:)`) is written there and swapped in by
///   its class (`replaceStore(at:withMigratedStoreAt:)`); from the start
///   (`beginMigration(at:into:)`) to the swap or discard, the class makes other writers wait.
struct MigrationDestination {
    let url: URL
    let storeType: String
    /// The file the destination store is written to.
    let workingURL: URL
    /// Whether the store type keeps a file.
    let hasFile: Bool
    /// Whether the working file started as a copy of the store already at ``url``.
    let addsToExistingStore: Bool
    /// The class that swaps a store that is not a file into place, when there is one.
    let replacingClass: NSPersistentStore.Type?

    /// Whether ``commit()`` puts a migrated store in place (a file or a store class's swap).
    var replacesOnCommit: Bool { hasFile || replacingClass != nil }

    static let companions = ["-wal", "-shm", "-journal"]

    init(url: URL, storeType: String, sourceURL: URL) throws {
        self.url = url
        self.storeType = storeType
        hasFile = storeType != NSInMemoryStoreType && url.isFileURL && url.path != "/dev/null"
        guard hasFile else {
            let storeClass = url.isFileURL ? nil : StoreTypeRegistry.shared.storeClass(for: storeType)
            if let storeClass, let working = storeClass.migrationWorkingLocation(for: url) {
                guard NSPersistentStoreCoordinator.standardized(url) == NSPersistentStoreCoordinator.standardized(sourceURL) else {
                    throw MigrationErrors.make(NSMigrationManagerDestinationStoreError,
                        "A \(storeType) store migrates in place only: the destination must be the source (\(sourceURL)).",
                        userInfo: [NSURLErrorKey: url])
                }
                try storeClass.beginMigration(at: url, into: working)
                workingURL = working
                replacingClass = storeClass
            } else {
                workingURL = url
                replacingClass = nil
            }
            addsToExistingStore = false
            return
        }
        replacingClass = nil
        // The working name keeps the extension, so its externally stored data folder
        // (`.<name without extension>_SUPPORT`) is its own and can follow it on commit.
        let stem = url.deletingPathExtension().lastPathComponent, suffix = url.pathExtension.isEmpty ? "" : "." + url.pathExtension
        workingURL = url.deletingLastPathComponent().appendingPathComponent(".\(stem).migrating-\(UUID().uuidString)\(suffix)")
        let manager = FileManager.default
        let isSource = NSPersistentStoreCoordinator.standardized(url) == NSPersistentStoreCoordinator.standardized(sourceURL)
        addsToExistingStore = !isSource && manager.fileExists(atPath: url.path)
        if addsToExistingStore {
            do {
                for suffix in [""] + Self.companions where manager.fileExists(atPath: url.path + suffix) {
                    try manager.copyItem(atPath: url.path + suffix, toPath: workingURL.path + suffix)
                }
            } catch {
                discard()
                throw MigrationErrors.make(NSMigrationManagerDestinationStoreError,
                                           "Can't copy the store at \(url.path) to add to it: \(error.localizedDescription)",
                                           userInfo: [NSURLErrorKey: url], underlying: error)
            }
        }
    }

    /// Moves the working file over ``url``. Call after the destination store was removed from
    /// its coordinator (its file closed).
    func commit() throws {
        if let replacingClass {
            do {
                try replacingClass.replaceStore(at: url, withMigratedStoreAt: workingURL)
            } catch {
                discard()
                throw MigrationErrors.make(NSMigrationManagerDestinationStoreError,
                                           "Can't put the migrated store in place at \(url): \((error as NSError).localizedDescription)",
                                           userInfo: [NSURLErrorKey: url], underlying: error)
            }
            return
        }
        guard hasFile else { return }
        let manager = FileManager.default
        do {
            if storeType == NSSQLiteStoreType {
                try Self.checkpoint(workingURL)
                if manager.fileExists(atPath: url.path + "-wal") { try Self.checkpoint(url) }
            }
            guard rename(workingURL.path, url.path) == 0 else {
                throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno),
                              userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
        } catch {
            discard()
            throw MigrationErrors.make(NSMigrationManagerDestinationStoreError,
                                       "Can't move the migrated store into place at \(url.path): \(error.localizedDescription)",
                                       userInfo: [NSURLErrorKey: url], underlying: error)
        }
        for suffix in Self.companions {
            try? manager.removeItem(atPath: workingURL.path + suffix)
            try? manager.removeItem(atPath: url.path + suffix)
        }
        let newSupport = Self.supportDirectory(of: workingURL), oldSupport = Self.supportDirectory(of: url)
        if manager.fileExists(atPath: newSupport.path) {
            try? manager.removeItem(at: oldSupport)
            try? manager.moveItem(at: newSupport, to: oldSupport)
        }
    }

    /// Removes the working file and its companions.
    func discard() {
        replacingClass?.discardMigratedStore(at: workingURL)
        guard hasFile else { return }
        let manager = FileManager.default
        for suffix in [""] + Self.companions { try? manager.removeItem(atPath: workingURL.path + suffix) }
        try? manager.removeItem(at: Self.supportDirectory(of: workingURL))
    }

    /// The folder of a SQLite store's externally stored data: `.<file name without its
    /// extension>_SUPPORT` next to it, as `SQLiteStore.externalDataDirectory` names it.
    static func supportDirectory(of url: URL) -> URL {
        url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent)_SUPPORT", isDirectory: true)
    }

    /// Moves every page of the SQLite file's `-wal` into the file and empties the `-wal`.
    static func checkpoint(_ url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path + "-wal") else { return }
        let queue = try DatabaseQueue(path: url.path)
        try queue.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        try queue.close()
    }
}
