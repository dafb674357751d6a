import Foundation
import GRDB

/// `Z_METADATA`: one row, `Z_VERSION` 1, the store UUID in `Z_UUID` and the rest of the
/// metadata as a binary property list in `Z_PLIST`.
extension SQLiteStore {
    /// The metadata of the open database, with `NSStoreUUID` from `Z_UUID`; `nil` when the file
    /// has no Core Data tables yet (a new, empty file).
    static func readMetadata(_ db: Database) throws -> [String: Any]? {
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        if tables.isEmpty { return nil }
        guard tables.contains(SQLiteSchema.metadataTable), tables.contains(SQLiteSchema.primaryKeyTable),
              let row = try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST, Z_VERSION FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") else {
            throw PersistentStoreErrors.make(NSFileReadCorruptFileError,
                                             "The database has no Core Data metadata (Z_METADATA, Z_PRIMARYKEY).")
        }
        // Checked by storage class: GRDB's typed subscripts trap on a value of another type.
        let version: Int64? = if case .int64(let number) = (row[2] as DatabaseValue).storage { number } else { nil }
        var metadata: [String: Any] = [:]
        switch (row[1] as DatabaseValue).storage {
        case .null:
            break
        case .blob(let plist):
            let decoded: Any
            do {
                decoded = try PropertyListInput.propertyList(from: plist)
            } catch {
                throw SQLiteRowErrors.unreadableMetadata(column: "Z_PLIST", version: version, "the blob is not a property list (\(error.localizedDescription))")
            }
            guard let dictionary = decoded as? [String: Any] else {
                throw SQLiteRowErrors.unreadableMetadata(column: "Z_PLIST", version: version, "the property list is not a dictionary")
            }
            metadata = dictionary
        default:
            throw SQLiteRowErrors.unreadableMetadata(column: "Z_PLIST", version: version,
                                                     "\(SQLiteValueMismatch.describe(row[1])) is not a property-list blob")
        }
        switch (row[0] as DatabaseValue).storage {
        case .null: break
        case .string(let uuid): metadata[NSStoreUUIDKey] = uuid
        default:
            throw SQLiteRowErrors.unreadableMetadata(column: "Z_UUID", version: version, "\(SQLiteValueMismatch.describe(row[0])) is not a store UUID")
        }
        return metadata
    }

    /// Replaces the `Z_METADATA` row with `metadata`.
    static func writeMetadata(_ metadata: [String: Any], to db: Database) throws {
        var plist = metadata
        let uuid = plist.removeValue(forKey: NSStoreUUIDKey) as? String ?? UUID().uuidString
        plist[NSStoreTypeKey] = NSSQLiteStoreType
        let data = try PropertyListSerialization.data(fromPropertyList: propertyListValue(plist) as Any, format: .binary, options: 0)
        try db.execute(sql: "DELETE FROM Z_METADATA")
        try db.execute(sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)", arguments: [uuid, data])
    }

    /// `value` made of property-list types only: sets become sorted arrays, numbers NSNumbers;
    /// values a property list can't hold are left out.
    package static func propertyListValue(_ value: Any) -> Any? {
        switch value {
        case let string as String: return string
        case let data as Data: return data
        case let date as Date: return date
        case let bool as Bool: return NSNumber(value: bool)
        case let number as NSNumber: return number
        case let int as Int: return NSNumber(value: int)
        case let int as Int64: return NSNumber(value: int)
        case let int as Int32: return NSNumber(value: int)
        case let int as Int16: return NSNumber(value: int)
        case let double as Double: return NSNumber(value: double)
        case let float as Float: return NSNumber(value: float)
        case let dictionary as [String: Any]:
            return Dictionary(uniqueKeysWithValues: dictionary.compactMap { key, value in propertyListValue(value).map { (key, $0) } }) as NSDictionary
        case let dictionary as [AnyHashable: Any]:
            return Dictionary(uniqueKeysWithValues: dictionary.compactMap { key, value in
                propertyListValue(value).map { ("\(key.base)", $0) }
            }) as NSDictionary
        case let array as [Any]: return array.compactMap(propertyListValue) as NSArray
        case let set as Set<AnyHashable>: return set.map { "\($0.base)" }.sorted() as NSArray
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        default: return nil
        }
    }
}
