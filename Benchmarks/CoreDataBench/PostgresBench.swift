import Foundation
import OpenCoreData
import OpenCoreDataPostgres
import PostgresNIO

/// `coredata-bench --engines raw-pg,OpenCoreData-pg --postgres URL` (issue 16): W1–W7
/// against a PostgreSQL server, through raw postgres-nio statements and through
/// OpenCoreData's PostgreSQL store, on the same tables (the store's schema) in the same run.
///
/// Both engines reach the server through ``PostgresConnectionBridge`` (postgres-nio's pool,
/// waited on synchronously), so the ratio is what the Core Data stack adds. Each run of each
/// workload gets a schema of its own, dropped afterwards.
enum PostgresBench {
    enum Engine: String, CaseIterable {
        case raw = "raw-pg", openCoreData = "OpenCoreData-pg"
    }

    static func run(base: URL, engines: [Engine], sizes: Sizes, runs: Int, only: Set<String>?) throws {
        PostgresStore.registerStoreClass()
        let model = BenchModel.make()
        func wanted(_ id: String) -> Bool { only.map { $0.contains(id) } ?? true }
        var lines = ["| workload | raw-pg (s) | OpenCoreData-pg (s) | ratio | goal ≤ 3× |", "|---|---|---|---|---|"]
        func measure(_ id: String, _ title: String, prepare: (String) throws -> Void,
                     _ body: (Engine, URL, inout Stopwatch) throws -> Int64) throws {
            guard wanted(id) else { return }
            var times: [Engine: [Double]] = [:], checksums: [Engine: Int64] = [:]
            for run in 0..<runs {
                for engine in engines {
                    let schema = "bench_\(id.lowercased())_\(engine == .raw ? "raw" : "ocd")_\(run)"
                    let url = try location(base, schema: schema)
                    try dropSchema(url)
                    try prepare(schema)
                    var watch = Stopwatch()
                    let checksum = try body(engine, url, &watch)
                    times[engine, default: []].append(watch.seconds)
                    if let previous = checksums[engine], previous != checksum { throw BenchError("\(id) \(engine.rawValue): checksum changed") }
                    checksums[engine] = checksum
                    try dropSchema(url)
                }
                FileHandle.standardError.write(Data("\(id) run \(run + 1)/\(runs) done\n".utf8))
            }
            if Set(checksums.values).count > 1 { throw BenchError("\(id): the engines' checksums differ: \(checksums)") }
            let raw = times[.raw].flatMap(Statistics.median), ours = times[.openCoreData].flatMap(Statistics.median)
            let ratio = raw.flatMap { r in ours.map { $0 / r } }
            func format(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "–" }
            defer { FileHandle.standardError.write(Data((lines.last ?? "").utf8 + [10])) }
            lines.append("| \(id) \(title) | \(format(raw)) | \(format(ours)) | \(ratio.map { String(format: "%.1f×", $0) } ?? "–") | \(ratio.map { $0 <= 3 ? "met" : "not met" } ?? "–") |")
        }

        // Every workload's schema starts as the store makes it; the read workloads then get rows.
        func emptyStore(_ schema: String) throws {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: try location(base, schema: schema))
            try coordinator.remove(store)
        }
        func filledStore(_ rows: Int) -> (String) throws -> Void {
            { schema in
                try emptyStore(schema)
                try execute(base, [
                    "INSERT INTO \"\(schema)\".\"ZITEM\" (\"Z_PK\", \"Z_ENT\", \"Z_OPT\", \(BenchModel.itemColumns.map { "\"\($0)\"" }.joined(separator: ", "))) "
                        + "SELECT g, 2, 1, (g * 7919) % \(rows), g % 1000, (g * 31) % 100, \((3...8).map { "g * \($0)" }.joined(separator: ", ")), g "
                        + "FROM generate_series(1::bigint, \(rows)) AS g",
                    "UPDATE \"\(schema)\".\"Z_PRIMARYKEY\" SET \"Z_MAX\" = \(rows) WHERE \"Z_NAME\" = 'Item'",
                    // As the store declares indexes: nulls first, its fetches' order (and raw SQLite's).
                    "CREATE INDEX ON \"\(schema)\".\"ZITEM\" (\"ZA0\" ASC NULLS FIRST)",
                    "ANALYZE \"\(schema)\".\"ZITEM\"",
                ])
            }
        }

        func parentStore(parents: Int, perParent: Int) -> (String) throws -> Void {
            { schema in
                try emptyStore(schema)
                func entity(_ name: String) -> String { "(SELECT \"Z_ENT\" FROM \"\(schema)\".\"Z_PRIMARYKEY\" WHERE \"Z_NAME\" = '\(name)')" }
                let children = parents * perParent
                // BenchValues.childValue and DataSets.parentStore's shape: parent `index` is its key − 1.
                try execute(base, [
                    "INSERT INTO \"\(schema)\".\"ZPARENT\" (\"Z_PK\", \"Z_ENT\", \"Z_OPT\", \"ZINDEX\") "
                        + "SELECT g, \(entity("Parent")), 1, g - 1 FROM generate_series(1::bigint, \(parents)) AS g",
                    "INSERT INTO \"\(schema)\".\"ZCHILD\" (\"Z_PK\", \"Z_ENT\", \"Z_OPT\", \"ZVALUE\", \"ZPARENT\") "
                        + "SELECT g, \(entity("Child")), 1, g % 997, (g - 1) / \(perParent) + 1 FROM generate_series(1::bigint, \(children)) AS g",
                    "UPDATE \"\(schema)\".\"Z_PRIMARYKEY\" SET \"Z_MAX\" = \(parents) WHERE \"Z_NAME\" = 'Parent'",
                    "UPDATE \"\(schema)\".\"Z_PRIMARYKEY\" SET \"Z_MAX\" = \(children) WHERE \"Z_NAME\" = 'Child'",
                    "ANALYZE \"\(schema)\".\"ZPARENT\"",
                    "ANALYZE \"\(schema)\".\"ZCHILD\"",
                ])
            }
        }

        try measure("W1", "insert \(sizes.w1Inserts) × 10 Int64, one save", prepare: emptyStore) { engine, url, watch in
            let count = Int64(sizes.w1Inserts)
            switch engine {
            case .raw:
                let schema = try PostgresStoreLocation(url: url).schema
                try rawTransaction(url, &watch) { connection, logger in
                            let sql = "INSERT INTO \"\(schema)\".\"ZITEM\" (\"Z_PK\", \"Z_ENT\", \"Z_OPT\", \(BenchModel.itemColumns.map { "\"\($0)\"" }.joined(separator: ", "))) "
                                + "VALUES ($1, 2, 1, \((2...11).map { "$\($0)" }.joined(separator: ", ")))"
                            for pk in 1...count {
                                var bindings = PostgresBindings()
                                bindings.append(pk)
                                for k in 0..<10 { bindings.append(BenchValues.item(pk, k, count: count)) }
                                try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
                            }
                            try await connection.query("UPDATE \(unescaped: "\"\(schema)\".\"Z_PRIMARYKEY\"") SET \"Z_MAX\" = \(count) WHERE \"Z_ENT\" = 2", logger: logger)
                }
            case .openCoreData:
                let context = try open(url, model: model)
                watch.start()
                try OpenCoreDataWorkloads.w1InsertTimed(context, count: sizes.w1Inserts)
                watch.stop()
            }
            return try sum(url, "SELECT (COUNT(*) * 1000003 + SUM(\"ZA0\") + SUM(\"ZA5\") + SUM(\"ZA9\"))::bigint FROM \"ZITEM\"")
        }

        try measure("W2", "fetch \(sizes.w2Rows), read every attribute", prepare: filledStore(sizes.w2Rows)) { engine, url, watch in
            switch engine {
            case .raw:
                return try rawSum(url, &watch, "SELECT \(BenchModel.itemColumns.map { "\"\($0)\"" }.joined(separator: ", ")) FROM \"ZITEM\"", [[]])
            case .openCoreData:
                let context = try open(url, model: model)
                watch.start()
                defer { watch.stop() }
                return try OpenCoreDataWorkloads.w2FetchAllTimed(context)
            }
        }

        try measure("W3", "\(sizes.w3Queries) × predicate+sort+limit 100 over \(sizes.w3Rows), indexed", prepare: filledStore(sizes.w3Rows)) { engine, url, watch in
            // The rows' values are BenchValues.item's, so the bounds are W3's.
            let bounds = (0..<sizes.w3Queries).map { RawWorkloads.w3Lower($0, rows: sizes.w3Rows, queries: sizes.w3Queries) }
            switch engine {
            case .raw:
                return try rawSum(url, &watch, "SELECT \(BenchModel.itemColumns.map { "\"\($0)\"" }.joined(separator: ", ")) FROM \"ZITEM\" "
                                  + "WHERE \"ZA0\" >= $1 AND \"ZA2\" < $2 ORDER BY \"ZA0\" NULLS FIRST LIMIT 100", bounds.map { [$0, 50] })
            case .openCoreData:
                let context = try open(url, model: model)
                watch.start()
                defer { watch.stop() }
                return try OpenCoreDataWorkloads.w3QueryTimed(context, rows: sizes.w3Rows, queries: sizes.w3Queries)
            }
        }

        try measure("W6", "update a1 of \(sizes.w6Updates), one save", prepare: filledStore(sizes.w2Rows)) { engine, url, watch in
            let limit = Int64(sizes.w6Updates)
            // A value no row holds yet, so that every selected row changes (as W6's token).
            let token: Int64 = 1_000_003
            switch engine {
            case .raw:
                try rawTransaction(url, &watch) { connection, logger in
                            var keys: [(Int64, Int64)] = []
                            for try await row in try await connection.query("SELECT \"Z_PK\", \"Z_OPT\" FROM \"ZITEM\" WHERE \"ZA0\" < \(limit)", logger: logger) {
                                keys.append(try row.decode((Int64, Int64).self))
                            }
                            for (pk, version) in keys {
                                try await connection.query("UPDATE \"ZITEM\" SET \"ZA1\" = \(token), \"Z_OPT\" = \(version + 1) WHERE \"Z_PK\" = \(pk) AND \"Z_OPT\" = \(version)", logger: logger)
                            }
                }
            case .openCoreData:
                let context = try open(url, model: model)
                watch.start()
                try OpenCoreDataWorkloads.w6UpdateTimed(context, count: sizes.w6Updates, token: token)
                watch.stop()
            }
            return try sum(url, "SELECT (SUM(\"ZA1\") + SUM(\"Z_OPT\"))::bigint FROM \"ZITEM\"")
        }

        try measure("W4", "\(sizes.w4Parents) parents × \(sizes.w4ChildrenPerParent) children, prefetched",
                    prepare: parentStore(parents: sizes.w4Parents, perParent: sizes.w4ChildrenPerParent)) { engine, url, watch in
            switch engine {
            case .raw:
                // The join raw SQLite's W4 runs; every selected value is summed, as the store's side sums them.
                return try rawSum(url, &watch, "SELECT c.\"ZVALUE\", p.\"ZINDEX\" FROM \"ZPARENT\" p JOIN \"ZCHILD\" c ON c.\"ZPARENT\" = p.\"Z_PK\"", [[]])
            case .openCoreData:
                let context = try open(url, model: model)
                watch.start()
                defer { watch.stop() }
                return try OpenCoreDataWorkloads.w4PrefetchTimed(context)
            }
        }

        let walked = max(sizes.w3Rows, sizes.w5Rows)
        try measure("W5", "walk \(walked) with fetchBatchSize \(sizes.w5BatchSize)", prepare: filledStore(walked)) { engine, url, watch in
            switch engine {
            case .raw:
                // Every column, as raw SQLite's W5 selects them; `a0` summed.
                return try rawSum(url, &watch, "SELECT \"Z_PK\", \(BenchModel.itemColumns.map { "\"\($0)\"" }.joined(separator: ", ")) FROM \"ZITEM\"",
                                  [[]], columns: 1..<2)
            case .openCoreData:
                let context = try open(url, model: model)
                watch.start()
                defer { watch.stop() }
                return try OpenCoreDataWorkloads.w5WalkTimed(context, batchSize: sizes.w5BatchSize)
            }
        }

        let w7Title = "\(sizes.w7Threads) threads × \(sizes.w7Transactions) transactions: fetch \(sizes.w7ItemsPerTransaction), change 1 attribute, save"
        try measure("W7", w7Title, prepare: filledStore(sizes.w7Rows)) { engine, url, watch in
            switch engine {
            case .raw:
                try rawConcurrent(url, sizes: sizes, &watch)
            case .openCoreData:
                try OpenCoreDataWorkloads.w7ConcurrentTimed(try open(url, model: model).persistentStoreCoordinator, sizes: sizes, &watch)
            }
            return try sum(url, "SELECT (SUM(\"ZA0\") + SUM(\"ZA5\") + SUM(\"Z_OPT\"))::bigint FROM \"ZITEM\"")
        }

        let machine = MachineInfo()
        print("PostgreSQL, \(runs) runs, medians; \(machine.cpu), \(machine.cores) cores, \(machine.configuration) build")
        print(lines.joined(separator: "\n"))
    }

    static func location(_ base: URL, schema: String) throws -> URL {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { throw BenchError("bad --postgres URL") }
        components.queryItems = (components.queryItems ?? []).filter { $0.name != "schema" } + [URLQueryItem(name: "schema", value: schema)]
        guard let url = components.url else { throw BenchError("bad --postgres URL") }
        return url
    }

    static func open(_ url: URL, model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        return context
    }

    static func withBridge<T>(_ url: URL, _ body: (PostgresConnectionBridge) throws -> T) throws -> T {
        let bridge = PostgresConnectionBridge(location: try PostgresStoreLocation(url: url))
        defer { bridge.close() }
        return try body(bridge)
    }

    /// Runs `body` in one transaction on one connection, timed.
    static func rawTransaction(_ url: URL, _ watch: inout Stopwatch,
                               _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Void) throws {
        try withBridge(url) { bridge in
            watch.start()
            defer { watch.stop() }
            try bridge.wait { client in
                try await client.withConnection { connection in
                    let logger = Logger(label: "bench")
                    try await connection.query("BEGIN", logger: logger)
                    try await body(connection, logger)
                    try await connection.query("COMMIT", logger: logger)
                }
            }
        }
    }

    static func execute(_ url: URL, _ statements: [String]) throws {
        try withBridge(url) { bridge in
            try bridge.wait { client in
                try await client.withConnection { connection in
                    for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: Logger(label: "bench")) }
                }
            }
        }
    }

    static func dropSchema(_ url: URL) throws {
        try execute(url, ["DROP SCHEMA IF EXISTS \"\(try PostgresStoreLocation(url: url).schema)\" CASCADE"])
    }

    /// The one Int64 `sql` selects.
    static func sum(_ url: URL, _ sql: String) throws -> Int64 {
        try withBridge(url) { bridge in
            try bridge.wait { client in
                try await client.withConnection { connection in
                    var value: Int64 = 0
                    for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "bench")) {
                        value = try row.decode(Int64?.self) ?? 0
                    }
                    return value
                }
            }
        }
    }

    /// Runs `sql` once per argument list, timed, and sums every selected Int64 (those of `columns` when given).
    static func rawSum(_ url: URL, _ watch: inout Stopwatch, _ sql: String, _ argumentLists: [[Int64]], columns: Range<Int>? = nil) throws -> Int64 {
        try withBridge(url) { bridge in
            watch.start()
            defer { watch.stop() }
            return try bridge.wait { client in
                try await client.withConnection { connection in
                    var sum: Int64 = 0
                    for arguments in argumentLists {
                        var bindings = PostgresBindings()
                        for argument in arguments { bindings.append(argument) }
                        for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: Logger(label: "bench")) {
                            let cells = row.makeRandomAccess()
                            for index in columns ?? 0..<cells.count { sum &+= try cells[index].decode(Int64?.self) ?? 0 }
                        }
                    }
                    return sum
                }
            }
        }
    }

    /// W7 through raw statements: one connection per thread, each running `w7Transactions`
    /// transactions (`BEGIN`, select 10 items by a range of `a0`, add 1 to their `a5` bumping
    /// `Z_OPT` where it is still the version read, `COMMIT`), as raw SQLite's W7.
    static func rawConcurrent(_ url: URL, sizes: Sizes, _ watch: inout Stopwatch) throws {
        let location = try PostgresStoreLocation(url: url)
        let bridges = LockedBridges()
        defer { bridges.closeAll() }
        try timedOnThreads(sizes.w7Threads, &watch, setup: { _ in bridges.add(PostgresConnectionBridge(location: location)) }) { thread, bridge in
            try bridge.wait { client in
                try await client.withConnection { connection in
                    let logger = Logger(label: "bench")
                    for transaction in 0..<sizes.w7Transactions {
                        let lower = RawWorkloads.w7Lower(thread: thread, transaction: transaction, sizes: sizes)
                        try await connection.query("BEGIN", logger: logger)
                        var rows: [(Int64, Int64, Int64)] = []
                        let upper = lower + Int64(sizes.w7ItemsPerTransaction)
                        for try await row in try await connection.query(
                            "SELECT \"Z_PK\", \"Z_OPT\", \"ZA5\" FROM \"ZITEM\" WHERE \"ZA0\" >= \(lower) AND \"ZA0\" < \(upper)", logger: logger) {
                            rows.append(try row.decode((Int64, Int64, Int64).self))
                        }
                        for (pk, version, value) in rows {
                            try await connection.query("UPDATE \"ZITEM\" SET \"ZA5\" = \(value + 1), \"Z_OPT\" = \(version + 1) WHERE \"Z_PK\" = \(pk) AND \"Z_OPT\" = \(version)",
                                                       logger: logger)
                        }
                        try await connection.query("COMMIT", logger: logger)
                    }
                }
            }
        }
    }
}

/// The bridges W7's raw threads open, closed together at the end.
// @unchecked Sendable: `bridges` is read and written only while holding `lock`.
private final class LockedBridges: @unchecked Sendable {
    private let lock = NSLock()
    private var bridges: [PostgresConnectionBridge] = []

    func add(_ bridge: PostgresConnectionBridge) -> PostgresConnectionBridge {
        lock.withLock { bridges.append(bridge) }
        return bridge
    }

    func closeAll() {
        lock.withLock { bridges }.forEach { $0.close() }
    }
}
