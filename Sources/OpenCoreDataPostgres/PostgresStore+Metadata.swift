import Foundation
import OpenCoreData
import PostgresNIO

/// `Z_METADATA` in the store's schema: one row, `Z_VERSION` 1, the store UUID in `Z_UUID` and
/// the rest of the metadata as a binary property list in `Z_PLIST`, as the SQLite store keeps it.
extension PostgresStore {
    /// The stored metadata, with `NSStoreUUID` from `Z_UUID`; nil when the schema has no
    /// `Z_METADATA` table or no row (a new store).
    static func readMetadata(schema: String, on connection: PostgresConnection, logger: Logger) async throws -> [String: Any]? {
        let exists = try await connection.query("SELECT to_regclass(\(PostgresSQL.qualified(schema, "Z_METADATA"))) IS NOT NULL", logger: logger)
        var found = false
        for try await row in exists { found = try row.decode(Bool.self) }
        guard found else { return nil }
        let rows = try await connection.query(PostgresQuery(unsafeSQL:
            "SELECT \"Z_UUID\", \"Z_PLIST\" FROM \(PostgresSQL.qualified(schema, "Z_METADATA")) ORDER BY \"Z_VERSION\" LIMIT 1"), logger: logger)
        for try await row in rows {
            let (uuid, plist) = try row.decode((String?, Data?).self)
            var metadata: [String: Any] = [:]
            if let plist {
                let decoded: Any
                do {
                    decoded = try PropertyListInput.propertyList(from: plist)
                } catch {
                    throw unreadableMetadata(schema, "Z_PLIST is not a property list (\(error.localizedDescription))")
                }
                guard let dictionary = decoded as? [String: Any] else { throw unreadableMetadata(schema, "Z_PLIST is not a dictionary") }
                metadata = dictionary
            }
            if let uuid { metadata[NSStoreUUIDKey] = uuid }
            return metadata
        }
        return nil
    }

    /// Replaces the `Z_METADATA` row with `metadata`.
    static func writeMetadata(_ metadata: [String: Any], schema: String, on connection: PostgresConnection, logger: Logger) async throws {
        var plist = metadata
        let uuid = plist.removeValue(forKey: NSStoreUUIDKey) as? String ?? UUID().uuidString
        plist[NSStoreTypeKey] = NSPostgreSQLStoreType
        let data = try PropertyListSerialization.data(fromPropertyList: SQLiteStore.propertyListValue(plist) as Any, format: .binary, options: 0)
        let table = PostgresSQL.qualified(schema, "Z_METADATA")
        try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(table)"), logger: logger)
        var bindings = PostgresBindings()
        bindings.append(uuid)
        try bindings.append(data)
        try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO \(table) (\"Z_VERSION\", \"Z_UUID\", \"Z_PLIST\") VALUES (1, $1, $2)",
                                                 binds: bindings), logger: logger)
    }

    private static func unreadableMetadata(_ schema: String, _ problem: String) -> NSError {
        PersistentStoreErrors.make(NSFileReadCorruptFileError, "The Core Data metadata in PostgreSQL schema \(schema) can't be read: \(problem).")
    }
}
