import Foundation
import OpenCoreData
import PostgresNIO

/// Change notifications between coordinators, processes and hosts that share a PostgreSQL
/// store, through `LISTEN`/`NOTIFY` on one channel per store schema.
///
/// A save queues its notification inside its own transaction (`pg_notify`), so PostgreSQL
/// delivers it only if the save commits, after the save's rows are visible, and in commit
/// order. A payload is at most 8,000 bytes (PostgreSQL's limit).
public struct PostgresChangeChannel: Sendable {
    /// The channel: `ocd_changes_` and the schema, in lower case.
    public let name: String

    public init(schema: String) {
        name = "ocd_changes_" + schema.lowercased()
    }

    /// Queues `payload` for every listener: delivered when the connection's transaction
    /// commits (at once outside a transaction), never if it rolls back.
    public func notify(_ payload: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(name), \(payload))", logger: logger)
    }

    /// Queues `payloads` in order, as ``notify(_:on:logger:)`` does, and returns the OID of
    /// `schema` in the same statement (nil when there is no such schema): a save's last
    /// statement before `COMMIT`, which checks that a migration did not swap its schema.
    func notify(_ payloads: [String], readingOIDOf schema: String, on connection: PostgresConnection, logger: Logger) async throws -> Int64? {
        // The OID comes with each notice's row: without a notice, it is read alone.
        if payloads.isEmpty { return try await PostgresStore.schemaOID(schema, on: connection, logger: logger) }
        let rows = try await connection.query("""
            SELECT (SELECT oid::int8 FROM pg_namespace WHERE nspname = \(schema)), pg_notify(\(name), p) \
            FROM unnest(\(payloads)::text[]) WITH ORDINALITY AS u(p, n) ORDER BY n
            """, logger: logger)
        var oid: Int64?
        for try await row in rows where oid == nil { oid = try row.decode(Int64?.self) }
        return oid
    }

    /// Calls `handler` with each payload sent on the channel from now on, on a connection of
    /// `bridge`'s pool held for the purpose, until the listener is stopped. Returns once the
    /// server listens, so that nothing sent afterwards is missed. When the connection drops,
    /// the listener takes another one (payloads sent in between are lost: a listener that must
    /// not miss changes reads persistent history after it reconnects). Throws the error of the
    /// first attempt to listen.
    public func listen(with bridge: PostgresConnectionBridge, handler: @escaping @Sendable (String) -> Void) throws -> PostgresChangeListener {
        let started = DispatchSemaphore(value: 0)
        let firstError = LockedValue<(any Error)?>(nil)
        let channel = name
        let task = bridge.start { client in
            var first = true
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: channel) { notifications in
                            if first {
                                first = false
                                started.signal()
                            }
                            for try await notification in notifications { handler(notification.payload) }
                        }
                    }
                } catch {
                    if first {
                        firstError.set(error)
                        started.signal()
                        return
                    }
                    // Try again after a pause, unless stopped.
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
        started.wait()
        if let error = firstError.get() {
            task.cancel()
            throw error
        }
        return PostgresChangeListener(task: task)
    }
}

/// A running ``PostgresChangeChannel`` listener.
public final class PostgresChangeListener: Sendable {
    private let task: Task<Void, Never>

    init(task: Task<Void, Never>) {
        self.task = task
    }

    /// Stops listening, which gives the listener's connection back to the pool.
    public func stop() {
        task.cancel()
    }

    deinit {
        task.cancel()
    }
}
