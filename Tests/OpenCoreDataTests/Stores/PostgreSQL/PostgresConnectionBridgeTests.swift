import Foundation
import Testing
import OpenCoreData
import PostgresNIO
@testable import OpenCoreDataPostgres

/// The synchronous bridge to postgres-nio's pool, against a throwaway server.
@Suite("PostgreSQL connection bridge", .enabled(if: PostgresTestServer.unavailableReason == nil,
                                               Comment(rawValue: PostgresTestServer.unavailableReason ?? "")))
struct PostgresConnectionBridgeTests {
    private func bridge() throws -> PostgresConnectionBridge {
        PostgresConnectionBridge(location: try PostgresStoreLocation(url: try PostgresTestServer.server().url()))
    }

    @Test func aCallReturnsTheServersAnswerWithBoundValues() throws {
        let bridge = try bridge()
        defer { bridge.close() }
        let sum = try bridge.wait { client in
            let rows = try await client.query("SELECT \(Int64(40))::bigint + \(Int64(2))::bigint AS total")
            var total: Int64 = 0
            for try await row in rows { total = try row.decode(Int64.self) }
            return total
        }
        #expect(sum == 42)
    }

    @Test func aServerErrorIsThrownWithItsCode() throws {
        let bridge = try bridge()
        defer { bridge.close() }
        let error = #expect(throws: PSQLError.self) {
            try bridge.wait { client in try await client.query("SELECT * FROM no_such_table").collect().count }
        }
        #expect(error?.serverInfo?[.sqlState] == "42P01")
    }

    @Test func checkingTheServerFailsAtOnceWithItsReason() throws {
        let server = try PostgresTestServer.server()
        try bridge().checkServer()
        let url = try #require(URL(string: "postgres://postgres@:\(PostgresTestServer.port)/no_such_database?host=\(server.socketFolder)"))
        let missing = PostgresConnectionBridge(location: try PostgresStoreLocation(url: url))
        defer { missing.close() }
        let error = #expect(throws: NSError.self) { try missing.checkServer() }
        #expect(error?.code == NSPersistentStoreOpenError)
        #expect(error?.localizedDescription.contains("no_such_database") == true, "\(error?.localizedDescription ?? "")")
    }

    @Test func threadsShareThePool() throws {
        let bridge = try bridge()
        defer { bridge.close() }
        let results = LockedList<Int64>()
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let value = try? bridge.wait { client in
                var found: Int64 = -1
                for try await row in try await client.query("SELECT \(Int64(index))::bigint") { found = try row.decode(Int64.self) }
                return found
            }
            results.append(value ?? -1)
        }
        #expect(results.sorted(by: <) == Array(0..<8))
    }

    /// Eight tasks block Swift's cooperative pool (as wide as the machine has cores) in
    /// synchronous calls at once: the calls still complete, because the bridge's work never
    /// needs a cooperative thread.
    @Test func callsFromTasksThatBlockTheCooperativePoolComplete() async throws {
        let bridge = try bridge()
        defer { bridge.close() }
        let values = try await withThrowingTaskGroup(of: Int64.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try bridge.wait { client in
                        var found: Int64 = -1
                        for try await row in try await client.query("SELECT \(Int64(index))::bigint") { found = try row.decode(Int64.self) }
                        return found
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values.sorted() == Array(0..<8))
    }
}
