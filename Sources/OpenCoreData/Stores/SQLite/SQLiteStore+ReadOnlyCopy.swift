import Foundation
import GRDB

/// Opening a store read-only without writing a byte of its files.
///
/// SQLite writes next to a database in WAL mode even on a read-only connection: it creates the
/// `-wal` and `-shm` files when they are missing and rebuilds or updates the `-shm` index. Stores
/// copied off a device (Apple's stores are in WAL mode) must stay exactly as they were, so a
/// read-only SQLite store whose database is in WAL mode, or has a `-wal` or `-shm` file, is
/// read through a private copy of the database and those files, in a new temporary directory
/// removed when the store is removed from its coordinator, or at once when the opening fails
/// (a refused store leaves no copy behind). The copy includes the `-wal`, so
/// changes not yet checkpointed are read. Externally stored binary data is still read from
/// the original store's folder (``SQLiteStore/externalDataDirectory`` follows ``url``).
///
/// Differs from Apple, whose read-only stores open the files in place. Costs one copy of the
/// database per read-only opening of a WAL-mode store; a store in rollback-journal mode without
/// those files opens in place (a read-only connection writes nothing to it).
extension SQLiteStore {
    /// Whether a read-only connection to `url` would write files: the database is in WAL mode
    /// (file format bytes 18 and 19 are 2) or a `-wal` or `-shm` file is next to it.
    static func readingWritesFiles(_ url: URL) -> Bool {
        let manager = FileManager.default
        if manager.fileExists(atPath: url.path + "-wal") || manager.fileExists(atPath: url.path + "-shm") { return true }
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return false }
        return header[header.startIndex + 18] == 2 || header[header.startIndex + 19] == 2
    }

    /// A copy of the database at `url` with its `-wal` and `-shm`, in a new temporary directory
    /// (the caller removes `directory`).
    static func privateCopy(of url: URL) throws -> (directory: URL, database: URL) {
        let manager = FileManager.default
        let directory = manager.temporaryDirectory.appendingPathComponent("OpenCoreData-readonly-\(UUID().uuidString)", isDirectory: true)
        try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        let copy = directory.appendingPathComponent(url.lastPathComponent)
        do {
            for suffix in ["", "-wal", "-shm"] where manager.fileExists(atPath: url.path + suffix) {
                try manager.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
            }
        } catch {
            try? manager.removeItem(at: directory)
            throw error
        }
        return (directory, copy)
    }

    /// Runs `body` on a read-only connection to the store file at `url`, without writing to any
    /// of its files. A missing file is `NSFileReadNoSuchFileError` (260); a file SQLite can't read
    /// (or `body` failing on it) is `NSFileReadCorruptFileError` (259), both naming the file.
    static func readingFile<T>(at url: URL, _ body: (Database) throws -> T) throws -> T {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw PersistentStoreErrors.make(NSFileReadNoSuchFileError, "There is no SQLite store at \(url.path).", url: url,
                                             userInfo: [NSFilePathErrorKey: url.path])
        }
        var configuration = Configuration()
        configuration.readonly = true
        do {
            return try withReadablePath(of: url) { path in
                let queue = try DatabaseQueue(path: path, configuration: configuration)
                defer { try? queue.close() }
                return try queue.read(body)
            }
        } catch {
            throw PersistentStoreErrors.make(NSFileReadCorruptFileError, "The file at \(url.path) is not a Core Data SQLite store: \(error).",
                                             url: url, underlying: error, userInfo: [NSFilePathErrorKey: url.path])
        }
    }

    /// Runs `body` with the path to read `url` from without writing to it: `url` itself, or a
    /// private copy removed afterwards.
    static func withReadablePath<T>(of url: URL, _ body: (String) throws -> T) throws -> T {
        guard readingWritesFiles(url) else { return try body(url.path) }
        let copy = try privateCopy(of: url)
        defer { try? FileManager.default.removeItem(at: copy.directory) }
        return try body(copy.database.path)
    }
}
