import Foundation
import Testing
import OpenCoreData
import PostgresNIO
@testable import OpenCoreDataPostgres

/// `Z_PRIMARYKEY` in PostgreSQL: key ranges taken by many pools at once never overlap.
@Suite("PostgreSQL primary keys", .enabled(if: PostgresTestServer.unavailableReason == nil,
                                          Comment(rawValue: PostgresTestServer.unavailableReason ?? "")))
struct PostgresPrimaryKeyTableTests {
    private let logger = Logger(label: "OpenCoreDataPostgresTests")

    /// A table in a schema of its own, set up with `entities`, and `pools` bridges to it (each
    /// with its own pool, as separate processes have).
    private func setUp(pools: Int, entities: [(number: Int64, name: String, superNumber: Int64)])
        throws -> (PostgresPrimaryKeyTable, [PostgresConnectionBridge]) {
        let schema = "keys_" + UUID().uuidString.prefix(8).lowercased()
        let location = try PostgresStoreLocation(url: try PostgresTestServer.server().url(schema: schema))
        let table = PostgresPrimaryKeyTable(schema: schema)
        let bridges = (0..<pools).map { _ in PostgresConnectionBridge(location: location) }
        let logger = self.logger
        try bridges[0].wait { client in
            try await client.withConnection { connection in
                try await table.create(on: connection, logger: logger)
                try await table.register(entities, on: connection, logger: logger)
            }
        }
        return (table, bridges)
    }

    private func allocate(_ count: Int, _ entity: Int64, _ table: PostgresPrimaryKeyTable,
                          _ bridge: PostgresConnectionBridge) throws -> ClosedRange<Int64> {
        let logger = self.logger
        return try bridge.wait { client in
            try await client.withConnection { try await table.allocate(count, forEntity: entity, on: $0, logger: logger) }
        }
    }

    @Test func concurrentAllocationsFromTwoPoolsNeverOverlap() throws {
        let (table, bridges) = try setUp(pools: 2, entities: [(1, "Item", 0)])
        defer { bridges.forEach { $0.close() } }
        let taken = LockedList<ClosedRange<Int64>>()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for count in 1...20 {
                if let range = try? allocate(count, 1, table, bridges[worker % 2]) { taken.append(range) }
            }
        }
        let ranges = taken.sorted { $0.lowerBound < $1.lowerBound }
        #expect(ranges.count == 160)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound + 1 == $1.lowerBound })
        #expect(ranges.first?.lowerBound == 1 && ranges.last?.upperBound == 8 * 210)
    }

    @Test func registeringAgainKeepsTheCounterAndAnUnknownEntityFails() throws {
        let (table, bridges) = try setUp(pools: 1, entities: [(1, "Item", 0), (2, "Tag", 0)])
        defer { bridges.forEach { $0.close() } }
        #expect(try allocate(5, 1, table, bridges[0]) == 1...5)
        let logger = self.logger
        try bridges[0].wait { client in
            try await client.withConnection { try await table.register([(1, "Item", 0)], on: $0, logger: logger) }
        }
        #expect(try allocate(1, 1, table, bridges[0]) == 6...6)
        #expect(try allocate(2, 2, table, bridges[0]) == 1...2)
        let unknown = #expect(throws: NSError.self) { try allocate(1, 9, table, bridges[0]) }
        #expect(unknown?.code == NSCoreDataError)
        let none = #expect(throws: NSError.self) { try allocate(0, 1, table, bridges[0]) }
        #expect(none?.code == NSCoreDataError)
    }
}
