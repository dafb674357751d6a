import ArgumentParser
import Foundation
import OpenCoreData
import OpenCoreDataPostgres

/// `coredata store`: read, convert and inspect persistent stores.
///
/// The forms are stable; scripts depend on them:
/// - `coredata store migrate SOURCE --model MODEL --from-type T --to DEST --to-type U` copies a
///   store into a new store of another type (``StoreMigrateCommand``);
/// - `coredata store upgrade STORE --model MODEL.xcdatamodeld [--to VERSION] [--mapping PATH]...
///   [--type T]` migrates a store in place through its model's versions (``StoreUpgradeCommand``);
/// - `coredata store dump STORE --model MODEL --type T` prints a store's objects as JSON
///   (``StoreDumpCommand``), opening it read-only;
/// - `coredata store import STORE --model MODEL --entity NAME --from FILE.jsonl [--type T]`
///   batch-inserts JSON-lines rows (``StoreImportCommand``);
/// - `coredata store history STORE --model MODEL [--after TOKEN]` prints a SQLite store's
///   persistent history as JSON (``StoreHistoryCommand``).
///
/// A hidden subcommand, `coredata store save-loop STORE --type T`, is the child process of the
/// crash-safety test (``StoreSaveLoopCommand``), and another, `coredata store increment STORE
/// --times N`, the child of the many-processes stress test (``StoreIncrementCommand``), and
/// `coredata store migrate-in-place STORE`, the child of the SQLite in-place migration kill test
/// (``StoreMigrateInPlaceCommand``); they are not stable forms.
///
/// Store types are spelled as in ``StoreCommand/storeTypes`` (`xml`, `binary`, `sqlite`,
/// `memory`, `postgresql`) or as the type strings themselves (`XML`, `Binary`, …). A store is
/// a file path, or for the PostgreSQL store a `postgres://user@host:port/database?schema=NAME`
/// URL (``StoreCommand/storeURL(_:)``).
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Convert persistent stores between types and print their contents.",
        discussion: CoreDataCommand.exitStatusHelp,
        subcommands: [StoreMigrateCommand.self, StoreUpgradeCommand.self, StoreDumpCommand.self, StoreInfoCommand.self, StoreImportCommand.self, StoreHistoryCommand.self, StoreSaveLoopCommand.self, StoreIncrementCommand.self, StoreMigrateInPlaceCommand.self]
    )

    /// The command-line spellings of the store types. A store type registered later (SQLite)
    /// works as soon as its class is registered; a spelling not listed here is taken as the
    /// type string itself, so registered custom types work too.
    static let storeTypes: [String: String] = [
        "xml": NSXMLStoreType,
        "binary": NSBinaryStoreType,
        "sqlite": NSSQLiteStoreType,
        "memory": NSInMemoryStoreType,
        "inmemory": NSInMemoryStoreType,
        "postgresql": NSPostgreSQLStoreType,
        "postgres": NSPostgreSQLStoreType,
    ]

    /// The store type string for a command-line spelling; the PostgreSQL store's class is
    /// registered when it is named.
    static func storeType(_ spelling: String) -> String {
        let type = storeTypes[spelling.lowercased()] ?? spelling
        if type == NSPostgreSQLStoreType { PostgresStore.registerStoreClass() }
        return type
    }

    /// The URL of a store argument: a `postgres://` or `postgresql://` URL as it is, anything
    /// else as a file path.
    static func storeURL(_ argument: String) -> URL {
        if let url = URL(string: argument), let scheme = url.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" {
            return url
        }
        return URL(fileURLWithPath: argument)
    }

    /// Whether a store exists at `url`: its file, or for a PostgreSQL URL its schema's metadata.
    static func storeExists(at url: URL) -> Bool {
        if url.isFileURL { return FileManager.default.fileExists(atPath: url.path) }
        return (try? PostgresStore.metadataForPersistentStore(with: url)) != nil
    }

    /// Loads the model at `path` (any form `NSManagedObjectModel.load(contentsOf:)` reads).
    static func loadModel(_ path: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: URL(fileURLWithPath: path))
    }
}

/// A Core Data error reported by a `store` command: its code and description (which names the file).
struct StoreCommandError: Error, CustomStringConvertible {
    var error: NSError

    init(_ error: Error) { self.error = error as NSError }

    var description: String {
        let message = error.userInfo[NSLocalizedDescriptionKey] as? String ?? "\(error)"
        return "\(message) (\(error.domain) error \(error.code))"
    }

    /// Runs `body`, reporting Cocoa-domain errors as ``StoreCommandError``.
    static func reporting<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw StoreCommandError(error)
        }
    }
}
