import Foundation
@testable import OpenCoreData

/// A file store made only of the atomic-store hooks, to prove the base fits the file stores:
/// it keeps the rows in a property list (attributes of the company model's types, relationships
/// as `[entity, key]` pairs) and writes the whole file atomically at each save.
final class PlistTestStore: AtomicStore, @unchecked Sendable {
    override class var storeType: String { "PlistTest" }

    /// Registers the type once; the conformance tests then run against it.
    static let registered: String = {
        NSPersistentStoreCoordinator.registerStoreClass(PlistTestStore.self, type: PlistTestStore.storeType)
        return PlistTestStore.storeType
    }()

    override func loadRows() throws -> AtomicStoreContents? {
        guard let url, FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let file = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any],
              let metadata = file["metadata"] as? [String: Any] else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSFileReadCorruptFileError, userInfo: [NSFilePathErrorKey: url.path])
        }
        var contents = AtomicStoreContents(metadata: metadata)
        guard let model = managedObjectModel else { return contents }
        for (root, last) in file["keys"] as? [String: Any] ?? [:] { contents.lastPrimaryKeys[root] = (last as? NSNumber)?.int64Value }
        func id(_ reference: Any?) -> NSManagedObjectID? {
            guard let pair = reference as? [Any], pair.count == 2, let name = pair[0] as? String,
                  let entity = model.entitiesByName[name], let key = (pair[1] as? NSNumber)?.int64Value else { return nil }
            return objectID(for: entity, primaryKey: key)
        }
        for case let row as [String: Any] in file["rows"] as? [Any] ?? [] {
            guard let objectID = id(row["id"]), let key = objectID.primaryKey else { continue }
            var snapshot = ObjectSnapshot(objectID: objectID, version: (row["version"] as? NSNumber)?.int64Value ?? 1)
            for (name, value) in row["values"] as? [String: Any] ?? [:] {
                if let relationship = objectID.entity.relationshipsByName[name] {
                    if relationship.isToMany {
                        snapshot.toMany[name] = (value as? [Any] ?? []).compactMap(id)
                    } else {
                        snapshot.values[name] = id(value)
                    }
                } else if let attribute = objectID.entity.attributesByName[name] {
                    snapshot.values[name] = Self.decode(value, attribute.attributeType)
                }
            }
            contents.rows[objectID.entity.name ?? "", default: [:]][key] = snapshot
        }
        return contents
    }

    override func writeRows(_ contents: AtomicStoreContents) throws {
        guard let url else { return }
        func reference(_ id: NSManagedObjectID) -> [Any] { [id.entity.name ?? "", NSNumber(value: id.primaryKey ?? 0)] }
        var rows: [Any] = []
        for (_, entityRows) in contents.rows.sorted(by: { $0.key < $1.key }) {
            for (_, snapshot) in entityRows.sorted(by: { $0.key < $1.key }) {
                var values: [String: Any] = [:]
                for (name, value) in snapshot.values {
                    values[name] = (value as? NSManagedObjectID).map(reference) ?? Self.encode(value)
                }
                for (name, ids) in snapshot.toMany { values[name] = ids.map(reference) }
                rows.append(["id": reference(snapshot.objectID), "version": NSNumber(value: snapshot.version), "values": values])
            }
        }
        let file: [String: Any] = ["metadata": contents.metadata, "rows": rows,
                                   "keys": contents.lastPrimaryKeys.mapValues { NSNumber(value: $0) }]
        let data = try PropertyListSerialization.data(fromPropertyList: file, format: .binary, options: 0)
        try data.write(to: url, options: .atomic)
    }

    private static func encode(_ value: Any) -> Any {
        switch value {
        case let number as Int64: return NSNumber(value: number)
        case let number as Int16: return NSNumber(value: number)
        case let number as Double: return NSNumber(value: number)
        default: return value
        }
    }

    private static func decode(_ value: Any, _ type: NSAttributeType) -> Any {
        guard let number = value as? NSNumber else { return value }
        switch type {
        case .integer16AttributeType: return number.int16Value
        case .integer64AttributeType: return number.int64Value
        case .doubleAttributeType: return number.doubleValue
        default: return value
        }
    }
}
