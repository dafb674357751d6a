import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata store history STORE --model MODEL [--after TOKEN]`: prints a SQLite store's
/// persistent history as JSON, opening it read-only (with `NSPersistentHistoryTrackingKey`).
///
/// The shape is stable; scripts depend on it:
/// ```
/// {"token": "<token after the last transaction>", "transactions": [{"number": 3,
///   "timestamp": "2026-11-24T21:41:56.25Z", "author": "importer", "contextName": null,
///   "bundleID": "…", "processID": "…", "token": "<token>", "changes": [{"id": 7,
///   "type": "update", "object": "x-coredata://<UUID>/Item/p4", "updatedProperties": ["title"],
///   "tombstone": null}]}]}
/// ```
/// A token is the JSON of an `NSPersistentHistoryToken` (`{"transactionNumbers": {"<store
/// UUID>": N}}`), given back to `--after` to print only what came later.
struct StoreHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Print a SQLite store's persistent history as JSON.")

    @Argument(help: "The SQLite store file.")
    var store: String

    @Option(help: "The model of the store (.xcdatamodeld, .xcdatamodel, .momd, .mom or a compiled model folder).")
    var model: String

    @Option(help: "Print only the transactions after this token (the JSON a previous run printed).")
    var after: String?

    func run() throws {
        print(try StoreCommandError.reporting { try history() })
    }

    /// The JSON text of the history.
    func history() throws -> String {
        var token: NSPersistentHistoryToken?
        if let after {
            do {
                token = try JSONDecoder().decode(NSPersistentHistoryToken.self, from: Data(after.utf8))
            } catch {
                throw ValidationError("--after is not a history token (\(error)).")
            }
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try StoreCommand.loadModel(model))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: store),
                                           options: [NSReadOnlyPersistentStoreOption: true, NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let transactions = try context.performAndWait {
            (try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as? NSPersistentHistoryResult)?.result
                as? [NSPersistentHistoryTransaction] ?? []
        }
        let last = transactions.last?.token ?? token ?? coordinator.currentPersistentHistoryToken(fromStores: nil)
        return JSONValue.object([
            ("token", last.map { .string(Self.text($0)) } ?? .null),
            ("transactions", .array(transactions.map(Self.json))),
        ]).rendered
    }

    static func text(_ token: NSPersistentHistoryToken) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(token)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    private static func json(_ transaction: NSPersistentHistoryTransaction) -> JSONValue {
        func optional(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
        return .object([
            ("number", .number(String(transaction.transactionNumber))),
            ("timestamp", StoreDump.value(transaction.timestamp)),
            ("author", optional(transaction.author)),
            ("contextName", optional(transaction.contextName)),
            ("bundleID", .string(transaction.bundleID)),
            ("processID", .string(transaction.processID)),
            ("token", .string(text(transaction.token))),
            ("changes", .array((transaction.changes ?? []).map { change in
                .object([
                    ("id", .number(String(change.changeID))),
                    ("type", .string(["insert", "update", "delete"][change.changeType.rawValue])),
                    ("object", .string(change.changedObjectID.uriRepresentation().absoluteString)),
                    ("updatedProperties", change.updatedProperties.map { .array($0.map(\.name).sorted().map { .string($0) }) } ?? .null),
                    ("tombstone", change.tombstone.map { StoreDump.value($0) } ?? .null),
                ])
            })),
        ])
    }
}
