import Foundation
import Testing
import OpenCoreData
import PostgresNIO
@testable import OpenCoreDataPostgres

/// LISTEN/NOTIFY between two pools (as two processes): payloads arrive once committed, in
/// commit order, and never from a rolled-back transaction.
@Suite("PostgreSQL change notifications", .enabled(if: PostgresTestServer.unavailableReason == nil,
                                                  Comment(rawValue: PostgresTestServer.unavailableReason ?? "")))
struct PostgresChangeChannelTests {
    @Test func committedPayloadsArriveInOrderAndRolledBackOnesNever() throws {
        let location = try PostgresStoreLocation(url: try PostgresTestServer.server().url())
        let listening = PostgresConnectionBridge(location: location), sending = PostgresConnectionBridge(location: location)
        defer {
            listening.close()
            sending.close()
        }
        let channel = PostgresChangeChannel(schema: "notify_" + UUID().uuidString.prefix(8).lowercased())
        let received = LockedList<String>(), arrived = DispatchSemaphore(value: 0)
        let order = LockedValue<[String]>([])
        let listener = try channel.listen(with: listening) { payload in
            received.append(payload)
            order.set(order.get() + [payload])
            arrived.signal()
        }
        defer { listener.stop() }
        try sending.wait { client in
            try await client.withConnection { connection in
                let logger = Logger(label: "test")
                try await channel.notify("alone", on: connection, logger: logger)
                try await connection.query("BEGIN", logger: logger)
                try await channel.notify("rolled back", on: connection, logger: logger)
                try await connection.query("ROLLBACK", logger: logger)
                try await connection.query("BEGIN", logger: logger)
                try await channel.notify("first of two", on: connection, logger: logger)
                try await channel.notify("second of two", on: connection, logger: logger)
                try await connection.query("COMMIT", logger: logger)
            }
        }
        // Three payloads arrive; notifications come in commit order, so once the last one is
        // here the rolled-back one could only have come before it.
        for _ in 0..<3 { arrived.wait() }
        #expect(order.get() == ["alone", "first of two", "second of two"])
    }

    /// A save's last statement queues its notices, in order, and reads its schema's OID (with
    /// no notice too, and nil for a schema that isn't there).
    @Test func noticesQueuedWithTheSchemaOIDArriveInOrder() throws {
        let location = try PostgresStoreLocation(url: try PostgresTestServer.server().url())
        let listening = PostgresConnectionBridge(location: location), sending = PostgresConnectionBridge(location: location)
        defer {
            listening.close()
            sending.close()
        }
        let channel = PostgresChangeChannel(schema: "notify_" + UUID().uuidString.prefix(8).lowercased())
        let order = LockedValue<[String]>([]), arrived = DispatchSemaphore(value: 0)
        let listener = try channel.listen(with: listening) { payload in
            order.set(order.get() + [payload])
            arrived.signal()
        }
        defer { listener.stop() }
        let oids: [Int64?] = try sending.wait { client in
            try await client.withConnection { connection in
                let logger = Logger(label: "test")
                try await connection.query("BEGIN", logger: logger)
                let withNotices = try await channel.notify(["one", "two", "three"], readingOIDOf: "public", on: connection, logger: logger)
                let withoutNotices = try await channel.notify([], readingOIDOf: "public", on: connection, logger: logger)
                let missing = try await channel.notify(["four"], readingOIDOf: "no_such_schema", on: connection, logger: logger)
                try await connection.query("COMMIT", logger: logger)
                return [withNotices, withoutNotices, missing, try await PostgresStore.schemaOID("public", on: connection, logger: logger)]
            }
        }
        #expect(oids[0] != nil && oids[0] == oids[1] && oids[0] == oids[3])
        #expect(oids[2] == nil)
        for _ in 0..<4 { arrived.wait() }
        #expect(order.get() == ["one", "two", "three", "four"])
    }

    @Test func aListenerOnAClosedPoolFails() throws {
        let bridge = PostgresConnectionBridge(location: try PostgresStoreLocation(url: try PostgresTestServer.server().url()))
        bridge.close()
        #expect(throws: (any Error).self) {
            _ = try PostgresChangeChannel(schema: "x").listen(with: bridge) { _ in }
        }
    }
}
