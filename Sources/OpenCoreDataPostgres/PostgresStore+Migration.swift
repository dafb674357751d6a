import Foundation
@_spi(StoreMigration) import OpenCoreData
import PostgresNIO

/// Migration in place: a migration writes the migrated store into a new schema beside the
/// store's, then swaps the two in one transaction (PostgreSQL's DDL is transactional), so the
/// store is either the old one or the migrated one, never half of each.
///
/// Automatic migration (`NSMigratePersistentStoresAutomaticallyOption`, with an inferred or
/// found mapping model) and the migration manager with the same source and destination URL
/// work this way. The store keeps its UUID. Differs from the SQLite store: the objects are
/// copied through the migration manager (new rows with new keys), not altered in SQL; and a
/// migration must not run while another process writes to the store (their saves to the old
/// schema after the copy began would be lost with it; the swap itself waits for the store's
/// advisory lock).
extension PostgresStore {
    /// `url` with the schema `<schema>_m<8 hex digits>` (cut to PostgreSQL's 63 characters).
    static func workingLocation(for url: URL) -> URL? {
        guard let location = try? PostgresStoreLocation(url: url),
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        let suffix = "_m" + UUID().uuidString.prefix(8).lowercased()
        let working = String(location.schema.prefix(63 - suffix.count)) + suffix
        var items = (components.queryItems ?? []).filter { $0.name != "schema" }
        items.append(URLQueryItem(name: "schema", value: working))
        components.queryItems = items
        return components.url
    }

    /// Renames the store's schema away, the working schema to the store's, and drops the old
    /// one, in one transaction under the store's advisory lock.
    static func swapInMigratedSchema(at url: URL, from workingURL: URL) throws {
        let schema = try PostgresStoreLocation(url: url).schema
        let working = try PostgresStoreLocation(url: workingURL).schema
        let suffix = "_r" + UUID().uuidString.prefix(8).lowercased()
        let retired = String(schema.prefix(63 - suffix.count)) + suffix
        try withServer(at: url) { connection, _, logger in
            try await transaction(on: connection, logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\("OpenCoreData." + schema)))", logger: logger)
                for statement in ["ALTER SCHEMA \(PostgresSQL.quote(schema)) RENAME TO \(PostgresSQL.quote(retired))",
                                  "ALTER SCHEMA \(PostgresSQL.quote(working)) RENAME TO \(PostgresSQL.quote(schema))",
                                  "DROP SCHEMA \(PostgresSQL.quote(retired)) CASCADE"] {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
        }
    }

    /// Drops the working schema.
    static func dropMigratedSchema(at workingURL: URL) {
        guard let working = try? PostgresStoreLocation(url: workingURL).schema else { return }
        _ = try? withServer(at: workingURL) { connection, _, logger in
            try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(PostgresSQL.quote(working)) CASCADE"), logger: logger)
        }
    }
}
