import ArgumentParser
import Foundation
import OpenCoreData
import OpenCoreDataPostgres

/// `coredata store info STORE [--type sqlite|postgresql]`: a SQLite or PostgreSQL store's
/// metadata and entity table as JSON, read through a read-only connection (SQLite) or one
/// connection that changes nothing (PostgreSQL).
///
/// ```json
/// {"storeType": "SQLite", "uuid": "…", "versionHashesVersion": 3,
///  "versionHashes": {"Car": "<base64>", …}, "modelVersionIdentifiers": ["1"],
///  "frameworkVersion": 1044, "otherMetadata": {…},
///  "entities": [{"entity": 1, "name": "Car", "super": 0, "max": 125}, …]}
/// ```
struct StoreInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print a SQLite or PostgreSQL store's metadata (type, UUID, version hashes, model identifiers) and its Z_PRIMARYKEY entity table as JSON."
    )

    @Argument(help: "The SQLite store file (or a postgres:// URL).")
    var store: String

    @Option(name: .customLong("type"), help: "The store's type: sqlite or postgresql.")
    var storeType: String = "sqlite"

    func run() throws {
        let url = StoreCommand.storeURL(store)
        let type = StoreCommand.storeType(storeType)
        let report = try StoreCommandError.reporting { try Self.report(for: url, type: type) }
        let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    /// The JSON object `info` prints for the store at `url`.
    static func report(for url: URL, type: String = NSSQLiteStoreType) throws -> [String: Any] {
        var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url, options: nil)
        var report: [String: Any] = [:]
        report["storeType"] = metadata.removeValue(forKey: NSStoreTypeKey) as? String ?? NSNull()
        report["uuid"] = metadata.removeValue(forKey: NSStoreUUIDKey) as? String ?? NSNull()
        let hashes = metadata.removeValue(forKey: NSStoreModelVersionHashesKey) as? [String: Any] ?? [:]
        report["versionHashes"] = hashes.compactMapValues { ($0 as? Data)?.base64EncodedString() }
        report["versionHashesVersion"] = jsonValue(metadata.removeValue(forKey: NSStoreModelVersionHashesVersionKey))
        report["modelVersionIdentifiers"] = jsonValue(metadata.removeValue(forKey: NSStoreModelVersionIdentifiersKey) ?? [Any]())
        report["frameworkVersion"] = jsonValue(metadata.removeValue(forKey: NSPersistenceFrameworkVersionKey))
        report["otherMetadata"] = metadata.mapValues(jsonValue)
        let table = type == NSPostgreSQLStoreType ? try PostgresStore.entityTable(at: url) : try SQLiteStore.entityTable(at: url)
        report["entities"] = table.map { row in
            ["entity": row.entityNumber, "name": row.name, "super": row.superEntityNumber, "max": row.maxPrimaryKey] as [String: Any]
        }
        return report
    }

    /// A metadata value as JSON: data as base64, collections element by element, anything
    /// else JSON lacks as its description.
    static func jsonValue(_ value: Any?) -> Any {
        switch value {
        case nil: return NSNull()
        case let string as String: return string
        case let bool as Bool: return bool
        case let int as Int: return int
        case let int as Int64: return int
        case let double as Double: return double
        case let number as NSNumber: return number
        case let data as Data: return data.base64EncodedString()
        case let date as Date: return date.timeIntervalSinceReferenceDate
        case let array as [Any]: return array.map(jsonValue)
        case let set as Set<AnyHashable>: return set.map { "\($0.base)" }.sorted()
        case let dictionary as [String: Any]: return dictionary.mapValues(jsonValue)
        default: return "\(value!)"
        }
    }
}
