import Foundation
import OpenCoreData

// coredata-bench: issues 6, 13 and 15's workloads W1–W9, W10 (a relationship of 100,000
// children built and deleted, no goal), W11 (W10 with an undo manager, no goal) and W12 (W10 with
// an event per link, no goal), each through
// raw SQLite (the limit), GRDB records (the peer) and OpenCoreData, in one process (W5 in child
// processes, to read each engine's peak RSS on its own). W8 (typed subclasses through NSPersistentContainer) is measured
// against W1 and W2's OpenCoreData times of the same run, so `--only W8` runs W1 and W2 too.
// Usage:
//
//   swift run -c release coredata-bench [--json] [--output PATH] [--scale 0.1] [--runs 5]
//                                       [--only W1,W3] [--engines raw,GRDB,OpenCoreData]

struct Options {
    var json = false
    var output: String?
    var scale = 1.0
    var runs = 5
    var only: Set<String>?
    var engines = Engine.allCases
    /// The PostgreSQL engines asked for, and the server (`--postgres URL`).
    var postgresEngines: [PostgresBench.Engine] = []
    var postgres: String?
    // Child-process mode (W5).
    var child: String?
    var childEngine: Engine?
    var database: String?
    var batchSize = 500
    /// W5 in this process (no peak RSS): for callgrind, which can't follow the child's spawn.
    var inProcess = false

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var iterator = arguments.makeIterator()
        func value(_ flag: String) throws -> String {
            guard let value = iterator.next() else { throw BenchError("\(flag) needs a value") }
            return value
        }
        while let argument = iterator.next() {
            switch argument {
            case "--json": options.json = true
            case "--output": options.output = try value(argument)
            case "--scale":
                guard let scale = Double(try value(argument)), scale > 0 else { throw BenchError("--scale takes a positive number") }
                options.scale = scale
            case "--runs":
                guard let runs = Int(try value(argument)), runs > 0 else { throw BenchError("--runs takes a positive integer") }
                options.runs = runs
            case "--only": options.only = Set(try value(argument).uppercased().split(separator: ",").map(String.init))
            case "--engines":
                let names = try value(argument).split(separator: ",").map { $0.lowercased() }
                options.postgresEngines = PostgresBench.Engine.allCases.filter { names.contains($0.rawValue.lowercased()) }
                options.engines = try names.filter { name in !options.postgresEngines.contains { $0.rawValue.lowercased() == name } }.map { name in
                    guard let engine = Engine.allCases.first(where: { $0.rawValue.lowercased() == name }) else {
                        throw BenchError("unknown engine \(name); engines are raw, GRDB, OpenCoreData, raw-pg, OpenCoreData-pg")
                    }
                    return engine
                }
            case "--postgres": options.postgres = try value(argument)
            case "--child": options.child = try value(argument)
            case "--engine": options.childEngine = Engine(rawValue: try value(argument))
            case "--db": options.database = try value(argument)
            case "--batch": options.batchSize = Int(try value(argument)) ?? 500
            case "--in-process": options.inProcess = true
            case "-h", "--help":
                print("usage: coredata-bench [--json] [--output PATH] [--scale S] [--runs N] [--only W1,W2] [--engines raw,GRDB,OpenCoreData | raw-pg,OpenCoreData-pg --postgres URL]")
                exit(0)
            default: throw BenchError("unknown argument \(argument)")
            }
        }
        return options
    }
}

/// What a W5 child process prints: one JSON line.
struct ChildReport: Codable {
    var seconds: Double
    var peakRSSMegabytes: Double
    var checksum: Int64
}

func runChild(_ options: Options) throws {
    guard options.child == "W5", let engine = options.childEngine, let path = options.database else {
        throw BenchError("child mode needs --child W5 --engine E --db PATH")
    }
    let url = URL(fileURLWithPath: path)
    var watch = Stopwatch()
    let checksum: Int64
    switch engine {
    case .raw: checksum = try RawWorkloads.w5Walk(url, &watch)
    case .grdb: checksum = try GRDBWorkloads.w5Walk(url, &watch)
    case .openCoreData: checksum = try OpenCoreDataWorkloads.w5Walk(url, model: BenchModel.make(), batchSize: options.batchSize, &watch)
    }
    let report = ChildReport(seconds: watch.seconds, peakRSSMegabytes: peakRSSMegabytes(), checksum: checksum)
    print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
}

func spawnChild(engine: Engine, database: URL, batchSize: Int) throws -> ChildReport {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    process.arguments = ["--child", "W5", "--engine", engine.rawValue, "--db", database.path, "--batch", "\(batchSize)"]
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last else {
        let message = String(decoding: errorData, as: UTF8.self).split(separator: "\n").suffix(3).joined(separator: " ")
        throw BenchError("child exited with status \(process.terminationStatus): \(message)")
    }
    return try JSONDecoder().decode(ChildReport.self, from: Data(line.utf8))
}

/// Runs one workload `runs` times per engine, engines interleaved within each run.
func measure(_ id: String, _ title: String, goal: String, options: Options, sets: DataSets,
             body: (Engine, Int, inout Stopwatch, inout Double?) throws -> Int64) -> WorkloadResult {
    var workload = WorkloadResult(id: id, title: title, goal: goal)
    var results: [Engine: EngineResult] = [:]
    for engine in options.engines {
        results[engine] = EngineResult()
        if engine == .openCoreData, let reason = sets.openCoreDataUnavailable {
            results[engine]?.error = "OpenCoreData's SQLite store is not available: \(reason)"
        }
    }
    for run in 0..<options.runs {
        for engine in options.engines where results[engine]?.error == nil {
            var watch = Stopwatch()
            var rss: Double?
            do {
                let checksum = try body(engine, run, &watch, &rss)
                results[engine]?.seconds.append(watch.seconds)
                if let rss { results[engine]?.peakRSSMegabytes.append(rss) }
                if let previous = results[engine]?.checksum, previous != checksum {
                    results[engine]?.error = "checksum changed between runs (\(previous) then \(checksum))"
                }
                results[engine]?.checksum = checksum
            } catch {
                results[engine]?.error = "\(error)"
            }
        }
        FileHandle.standardError.write(Data("\(id) run \(run + 1)/\(options.runs) done\n".utf8))
    }
    for (engine, result) in results { workload.results[engine.rawValue] = result }
    if let raw = results[.raw], raw.error == nil, let rawMedian = raw.median {
        for (engine, result) in results where engine != .raw && result.error == nil {
            if let median = result.median { workload.ratioToRaw[engine.rawValue] = median / rawMedian }
        }
    }
    let checksums = results.values.filter { $0.error == nil }.compactMap(\.checksum)
    workload.checksumsAgree = checksums.count > 1 ? Set(checksums).count == 1 : nil
    return workload
}

func ratioGoal(_ workload: inout WorkloadResult, _ limit: Double) {
    guard let ratio = workload.ratioToRaw[Engine.openCoreData.rawValue] else { return }
    workload.goalMet = ratio <= limit && workload.checksumsAgree != false
}

/// `count(*)` and the sums of `columns` of the item table, folded into one number, to compare
/// what engines wrote.
///
/// Waits out a busy database: the engine that wrote may still be closing its connections on
/// another thread (W7's private-queue contexts let their store go on their queues), and the
/// last close checkpoints the WAL under an exclusive lock. A run reported "database is locked"
/// here once.
func itemChecksum(_ url: URL, columns: [String] = ["ZA0", "ZA5", "ZA9"]) throws -> Int64 {
    let db = try RawDatabase(path: url.path)
    db.retryWhenBusy()
    let statement = try db.prepare("SELECT count(*), \(columns.map { "total(\($0))" }.joined(separator: ", ")) FROM ZITEM")
    _ = try statement.step()
    var checksum = statement.int64(0) &* 1_000_003
    for column in columns.indices { checksum &+= statement.int64(Int32(column + 1)) }
    return checksum
}

/// W8's goal: OpenCoreData's median through typed subclasses within 10 % of its median through
/// key-value access in `baseline` (W1 or W2 of the same run). The ratio is added to the goal.
func typedGoal(_ workload: inout WorkloadResult, baseline: WorkloadResult?) {
    let key = Engine.openCoreData.rawValue
    guard let typed = workload.results[key], typed.error == nil, let ours = typed.median,
          let base = baseline?.results[key], base.error == nil, let theirs = base.median, theirs > 0 else { return }
    let ratio = ours / theirs
    workload.goal += String(format: " (%.2f×)", ratio)
    workload.goalMet = ratio <= 1.10 && workload.checksumsAgree != false
}

func runBenchmarks(_ options: Options) throws {
    let sizes = Sizes(scale: options.scale)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-bench-\(ProcessInfo.processInfo.processIdentifier)")
    let sets = try DataSets(directory: directory)
    defer { try? FileManager.default.removeItem(at: directory) }
    let model = sets.model
    let machine = MachineInfo()
    func wanted(_ id: String) -> Bool {
        guard let only = options.only else { return true }
        return only.contains(id) || (only.contains("W8") && (id == "W1" || id == "W2"))
    }
    var workloads: [WorkloadResult] = []

    var w1: WorkloadResult?
    if wanted("W1") {
        var w = measure("W1", "insert \(sizes.w1Inserts) × 10 Int64, one save", goal: "≤ 2.5× raw, < GRDB", options: options, sets: sets) { engine, run, watch, _ in
            let url = try sets.newStore("w1-\(engine.rawValue)-\(run).sqlite")
            defer { DataSets.remove(url) }
            switch engine {
            case .raw: try RawWorkloads.w1Insert(url, count: sizes.w1Inserts, &watch)
            case .grdb: try GRDBWorkloads.w1Insert(url, count: sizes.w1Inserts, &watch)
            case .openCoreData: try OpenCoreDataWorkloads.w1Insert(url, model: model, count: sizes.w1Inserts, &watch)
            }
            return try itemChecksum(url)
        }
        ratioGoal(&w, 2.5)
        if w.goalMet == true, let ours = w.results[Engine.openCoreData.rawValue]?.median,
           let grdb = w.results[Engine.grdb.rawValue]?.median {
            w.goalMet = ours < grdb
        }
        w1 = w
        workloads.append(w)
    }

    if wanted("W9") {
        var w = measure("W9", "batch insert \(sizes.w9Rows) × 10 Int64", goal: "≤ 1.5× raw", options: options, sets: sets) { engine, run, watch, _ in
            let url = try sets.newStore("w9-\(engine.rawValue)-\(run).sqlite")
            defer { DataSets.remove(url) }
            switch engine {
            case .raw: try RawWorkloads.w1Insert(url, count: sizes.w9Rows, &watch)
            case .grdb: try GRDBWorkloads.w1Insert(url, count: sizes.w9Rows, &watch)
            case .openCoreData: try OpenCoreDataWorkloads.w9BatchInsert(url, model: model, count: sizes.w9Rows, &watch)
            }
            return try itemChecksum(url)
        }
        ratioGoal(&w, 1.5)
        workloads.append(w)
    }

    var w2Store: URL?
    if wanted("W2") || wanted("W6") {
        FileHandle.standardError.write(Data("building \(sizes.w2Rows) items\n".utf8))
        w2Store = try sets.itemStore("w2.sqlite", count: sizes.w2Rows)
    }
    if wanted("W2"), let url = w2Store {
        var w = measure("W2", "fetch \(sizes.w2Rows), read every attribute", goal: "≤ 2.0× raw", options: options, sets: sets) { engine, _, watch, _ in
            switch engine {
            case .raw: return try RawWorkloads.w2FetchAll(url, &watch)
            case .grdb: return try GRDBWorkloads.w2FetchAll(url, &watch)
            case .openCoreData: return try OpenCoreDataWorkloads.w2FetchAll(url, model: model, &watch)
            }
        }
        ratioGoal(&w, 2.0)
        workloads.append(w)

        // W8 right after W2, on the same, still unchanged store (W6 changes it).
        if wanted("W8") {
            let typedModel = TypedWorkloads.makeModel()
            var insert = measure("W8a", "insert \(sizes.w1Inserts) × 10 Int64, one save: container, @Managed", goal: "≤ 1.1× W1 OpenCoreData", options: options, sets: sets) { engine, run, watch, _ in
                let url = try sets.newStore("w8-\(engine.rawValue)-\(run).sqlite")
                defer { DataSets.remove(url) }
                switch engine {
                case .raw: try RawWorkloads.w1Insert(url, count: sizes.w1Inserts, &watch)
                case .grdb: try GRDBWorkloads.w1Insert(url, count: sizes.w1Inserts, &watch)
                case .openCoreData: try TypedWorkloads.w8Insert(url, model: typedModel, count: sizes.w1Inserts, &watch)
                }
                return try itemChecksum(url)
            }
            typedGoal(&insert, baseline: w1)
            workloads.append(insert)
            var fetch = measure("W8b", "fetch \(sizes.w2Rows), read every attribute: container, @Managed", goal: "≤ 1.1× W2 OpenCoreData", options: options, sets: sets) { engine, _, watch, _ in
                switch engine {
                case .raw: return try RawWorkloads.w2FetchAll(url, &watch)
                case .grdb: return try GRDBWorkloads.w2FetchAll(url, &watch)
                case .openCoreData: return try TypedWorkloads.w8Fetch(url, model: typedModel, &watch)
                }
            }
            typedGoal(&fetch, baseline: w)
            workloads.append(fetch)
        }
    }

    var bigStore: URL?
    if wanted("W3") || wanted("W5") {
        FileHandle.standardError.write(Data("building \(max(sizes.w3Rows, sizes.w5Rows)) items\n".utf8))
        bigStore = try sets.itemStore("big.sqlite", count: max(sizes.w3Rows, sizes.w5Rows))
    }
    if wanted("W3"), let url = bigStore {
        let rows = max(sizes.w3Rows, sizes.w5Rows)
        var w = measure("W3", "\(sizes.w3Queries) × predicate+sort+limit 100 over \(rows), indexed", goal: "≤ 1.5× raw", options: options, sets: sets) { engine, _, watch, _ in
            switch engine {
            case .raw: return try RawWorkloads.w3Query(url, rows: rows, queries: sizes.w3Queries, &watch)
            case .grdb: return try GRDBWorkloads.w3Query(url, rows: rows, queries: sizes.w3Queries, &watch)
            case .openCoreData: return try OpenCoreDataWorkloads.w3Query(url, model: model, rows: rows, queries: sizes.w3Queries, &watch)
            }
        }
        ratioGoal(&w, 1.5)
        workloads.append(w)
    }

    if wanted("W4") {
        FileHandle.standardError.write(Data("building \(sizes.w4Parents) parents\n".utf8))
        let url = try sets.parentStore("w4.sqlite", parents: sizes.w4Parents, perParent: sizes.w4ChildrenPerParent)
        var w = measure("W4", "\(sizes.w4Parents) parents × \(sizes.w4ChildrenPerParent) children, prefetched", goal: "≤ 3× raw join", options: options, sets: sets) { engine, _, watch, _ in
            switch engine {
            case .raw: return try RawWorkloads.w4Join(url, &watch)
            case .grdb: return try GRDBWorkloads.w4Prefetch(url, &watch)
            case .openCoreData: return try OpenCoreDataWorkloads.w4Prefetch(url, model: model, &watch)
            }
        }
        ratioGoal(&w, 3.0)
        workloads.append(w)
    }

    if wanted("W5"), let url = bigStore {
        let rows = max(sizes.w3Rows, sizes.w5Rows)
        var w = measure("W5", "walk \(rows) with fetchBatchSize \(sizes.w5BatchSize) (child process)", goal: "≤ 5× raw, peak RSS ≤ 100 MB", options: options, sets: sets) { engine, _, watch, rss in
            if options.inProcess {
                switch engine {
                case .raw: return try RawWorkloads.w5Walk(url, &watch)
                case .grdb: return try GRDBWorkloads.w5Walk(url, &watch)
                case .openCoreData: return try OpenCoreDataWorkloads.w5Walk(url, model: model, batchSize: sizes.w5BatchSize, &watch)
                }
            }
            let report = try spawnChild(engine: engine, database: url, batchSize: sizes.w5BatchSize)
            rss = report.peakRSSMegabytes
            watch = Stopwatch(nanoseconds: UInt64(report.seconds * 1e9))
            return report.checksum
        }
        ratioGoal(&w, 5.0)
        if w.goalMet != nil {
            let peak = w.results[Engine.openCoreData.rawValue]?.medianRSS
            w.goalMet = w.goalMet == true && peak.map { $0 <= 100 } == true
        }
        workloads.append(w)
    }

    if wanted("W6"), let url = w2Store {
        var w = measure("W6", "update a1 of \(sizes.w6Updates), one save", goal: "≤ 2.0× raw", options: options, sets: sets) { engine, run, watch, _ in
            let token = Int64(1_000_000 + run * 10 + (Engine.allCases.firstIndex(of: engine) ?? 0))
            switch engine {
            case .raw: try RawWorkloads.w6Update(url, count: sizes.w6Updates, token: token, &watch)
            case .grdb: try GRDBWorkloads.w6Update(url, count: sizes.w6Updates, token: token, &watch)
            case .openCoreData: try OpenCoreDataWorkloads.w6Update(url, model: model, count: sizes.w6Updates, token: token, &watch)
            }
            return try RawDatabase(path: url.path).integer("SELECT count(*) FROM ZITEM WHERE ZA1 = \(token)")
        }
        ratioGoal(&w, 2.0)
        workloads.append(w)
    }

    if wanted("W7") {
        FileHandle.standardError.write(Data("building \(sizes.w7Rows) items\n".utf8))
        let template = try sets.itemStore("w7.sqlite", count: sizes.w7Rows)
        let title = "\(sizes.w7Threads) threads × \(sizes.w7Transactions) transactions: fetch \(sizes.w7ItemsPerTransaction), change 1 attribute, save"
        var w = measure("W7", title, goal: "≤ 3× raw", options: options, sets: sets) { engine, run, watch, _ in
            let url = try sets.copy(of: template, as: "w7-\(engine.rawValue)-\(run).sqlite")
            defer { DataSets.remove(url) }
            switch engine {
            case .raw: try RawWorkloads.w7Concurrent(url, sizes: sizes, &watch)
            case .grdb: try GRDBWorkloads.w7Concurrent(url, sizes: sizes, &watch)
            case .openCoreData: try OpenCoreDataWorkloads.w7Concurrent(url, model: model, sizes: sizes, &watch)
            }
            return try itemChecksum(url, columns: ["ZA0", "ZA5", "Z_OPT"])
        }
        ratioGoal(&w, 3.0)
        workloads.append(w)
    }
    /// W10, W11 and W12: children linked one at a time to one parent, then deleted with it; with
    /// `undo`, OpenCoreData's context has an undo manager, with `eventPerLink` it processes
    /// pending changes after each link (raw and GRDB run the same statements).
    func linkAndCascade(_ id: String, _ title: String, children: Int, undo: Bool = false, eventPerLink: Bool = false) {
        let w = measure(id, title, goal: "none (not in issue 13)", options: options, sets: sets) { engine, run, watch, _ in
            let url = try sets.newStore("\(id.lowercased())-\(engine.rawValue)-\(run).sqlite")
            defer { DataSets.remove(url) }
            switch engine {
            case .raw: return try RawWorkloads.w10LinkAndCascade(url, children: children, &watch)
            case .grdb: return try GRDBWorkloads.w10LinkAndCascade(url, children: children, &watch)
            case .openCoreData:
                return try OpenCoreDataWorkloads.w10LinkAndCascade(url, model: model, children: children, undo: undo,
                                                                   eventPerLink: eventPerLink, &watch)
            }
        }
        workloads.append(w)
    }
    if wanted("W10") {
        linkAndCascade("W10", "link \(sizes.w10Children) children to one parent one at a time, one save; delete the parent (cascade; raw, GRDB: two DELETEs), one save",
                       children: sizes.w10Children)
    }
    if wanted("W11") {
        linkAndCascade("W11", "W10 with an undo manager recording (as on macOS), \(sizes.w11Children) children; raw, GRDB: W10's statements",
                       children: sizes.w11Children, undo: true)
    }
    if wanted("W12") {
        linkAndCascade("W12", "W10 with each link its own event (processPendingChanges(), as a fetch per record does), \(sizes.w12Children) children; raw, GRDB: W10's statements",
                       children: sizes.w12Children, eventPerLink: true)
    }
    workloads.sort { $0.id.compare($1.id, options: .numeric) == .orderedAscending }

    let table = TableFormatter.render(workloads, machine: machine, runs: options.runs, scale: options.scale)
    print(table)
    if options.json {
        struct Output: Codable {
            var machine: MachineInfo
            var scale: Double
            var runs: Int
            var sizes: Sizes
            var workloads: [WorkloadResult]
            var table: String
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(Output(machine: machine, scale: options.scale, runs: options.runs, sizes: sizes, workloads: workloads, table: table))
        let path = options.output ?? (FileManager.default.fileExists(atPath: "Benchmarks") ? "Benchmarks/results.json" : "results.json")
        try data.write(to: URL(fileURLWithPath: path))
        FileHandle.standardError.write(Data("wrote \(path)\n".utf8))
    }
}

do {
    let options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
    if options.child != nil {
        try runChild(options)
    } else if !options.postgresEngines.isEmpty {
        guard let server = options.postgres.flatMap(URL.init(string:)) else {
            throw BenchError("the PostgreSQL engines need --postgres postgres://user@host:port/database (scripts/bench-postgres.sh starts a throwaway server)")
        }
        try PostgresBench.run(base: server, engines: options.postgresEngines, sizes: Sizes(scale: options.scale), runs: options.runs, only: options.only)
    } else {
        try runBenchmarks(options)
    }
} catch {
    FileHandle.standardError.write(Data("coredata-bench: \(String(reflecting: error))\n".utf8))
    exit(1)
}
