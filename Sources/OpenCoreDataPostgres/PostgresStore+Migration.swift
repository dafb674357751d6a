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
/// copied through the migration manager (new rows with new keys), not altered in SQL.
///
/// Other processes may keep the store open while it migrates: from the start of the copy to
/// the swap, the migration holds the store's advisory lock (on a connection of its own), and
/// every save takes the same lock shared, so saves wait for the migration; a save that then
/// finds the schema swapped (another schema's OID under the store's name) fails with
/// `NSPersistentStoreIncompatibleSchemaError` (134020) and writes nothing, instead of
/// writing rows of the old model into the migrated store or into the retired one.
extension PostgresStore {
    /// The key of the store's advisory lock, for `hashtext`: the same for creating the schema,
    /// saving (shared) and migrating (exclusive).
    static func advisoryLockKey(schema: String) -> String { "OpenCoreData." + schema }

    /// The migrations this process runs, by working URL: each holds its store's advisory lock
    /// on a connection of its own until its swap or discard.
    private static let migrationLocks = LockedValue<[URL: MigrationLock]>([:])

    /// A migration's hold on its store's advisory lock.
    private final class MigrationLock: Sendable {
        let bridge: PostgresConnectionBridge
        let connection: PostgresConnection
        init(bridge: PostgresConnectionBridge, connection: PostgresConnection) {
            self.bridge = bridge
            self.connection = connection
        }

        /// Runs `body` on the lock's connection, then unlocks and closes it, whatever `body` does.
        func finish<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T) throws -> T {
            defer { bridge.close() }
            let logger = Logger(label: "OpenCoreData.PostgreSQL")
            return try bridge.wait { [connection] _ in
                do {
                    let value = try await body(connection, logger)
                    try? await connection.close()
                    return value
                } catch {
                    try? await connection.close()
                    throw error
                }
            }
        }
    }

    /// Takes the store's advisory lock on a connection of its own, waiting for saves under way
    /// to finish; held until ``swapInMigratedSchema(at:from:)`` or ``dropMigratedSchema(at:)``
    /// for `workingURL` (closing the connection releases it even if neither runs).
    static func lockForMigration(at url: URL, into workingURL: URL) throws {
        let location = try PostgresStoreLocation(url: url)
        let bridge = PostgresConnectionBridge(location: location)
        let logger = Logger(label: "OpenCoreData.PostgreSQL")
        do {
            let configuration = try location.connectionConfiguration()
            let connection = try bridge.wait { _ in
                let connection = try await PostgresConnection.connect(on: PostgresConnectionBridge.eventLoopGroup.next(),
                                                                      configuration: configuration, id: 0, logger: logger)
                do {
                    let key = advisoryLockKey(schema: location.schema)
                    try await connection.query("SELECT pg_advisory_lock(hashtext(\(key)))", logger: logger)
                } catch {
                    try? await connection.close()
                    throw error
                }
                return connection
            }
            migrationLocks.update { $0[workingURL] = MigrationLock(bridge: bridge, connection: connection) }
        } catch {
            bridge.close()
            if (error as NSError).domain == NSCocoaErrorDomain { throw error }
            throw PersistentStoreErrors.make(NSPersistentStoreOperationError,
                "Can't take the lock of the PostgreSQL store at \(url) for its migration: \(PostgresErrors.describe(error)).",
                url: url, underlying: error)
        }
    }

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
        let swap: @Sendable (PostgresConnection, Logger) async throws -> Void = { connection, logger in
            try await transaction(on: connection, logger: logger) { connection in
                let key = advisoryLockKey(schema: schema)
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(key)))", logger: logger)
                for statement in ["ALTER SCHEMA \(PostgresSQL.quote(schema)) RENAME TO \(PostgresSQL.quote(retired))",
                                  "ALTER SCHEMA \(PostgresSQL.quote(working)) RENAME TO \(PostgresSQL.quote(schema))",
                                  "DROP SCHEMA \(PostgresSQL.quote(retired)) CASCADE"] {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
        }
        // On the migration's own connection when it holds the lock (the lock is the session's,
        // so taking it again there doesn't wait); closing that connection releases it.
        if let held = migrationLocks.update({ $0.removeValue(forKey: workingURL) }) {
            try held.finish(swap)
        } else {
            try withServer(at: url) { connection, _, logger in try await swap(connection, logger) }
        }
    }

    /// Drops the working schema, and releases the migration's lock when it holds it.
    static func dropMigratedSchema(at workingURL: URL) {
        let held = migrationLocks.update { $0.removeValue(forKey: workingURL) }
        let working = try? PostgresStoreLocation(url: workingURL).schema
        let drop: @Sendable (PostgresConnection, Logger) async throws -> Void = { connection, logger in
            guard let working else { return }
            try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(PostgresSQL.quote(working)) CASCADE"), logger: logger)
        }
        if let held {
            _ = try? held.finish(drop)
        } else {
            _ = try? withServer(at: workingURL) { connection, _, logger in try await drop(connection, logger) }
        }
    }
}
