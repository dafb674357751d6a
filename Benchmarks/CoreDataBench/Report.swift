import Foundation

enum Engine: String, CaseIterable, Codable {
    case raw, grdb = "GRDB", openCoreData = "OpenCoreData"
}

/// One engine's measurements for one workload.
struct EngineResult: Codable {
    var seconds: [Double] = []
    var peakRSSMegabytes: [Double] = []
    var checksum: Int64?
    var error: String?

    var median: Double? { Statistics.median(seconds) }
    var medianRSS: Double? { Statistics.median(peakRSSMegabytes) }
}

/// One workload's results, with its goal.
struct WorkloadResult: Codable {
    var id: String
    var title: String
    var goal: String
    var results: [String: EngineResult] = [:]
    var ratioToRaw: [String: Double] = [:]
    var goalMet: Bool?
    var checksumsAgree: Bool?
}

enum Statistics {
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// The machine and build the numbers were taken on.
struct MachineInfo: Codable {
    var cores = ProcessInfo.processInfo.activeProcessorCount
    var memoryGigabytes = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
    var cpu = MachineInfo.cpuModel()
    var os = ProcessInfo.processInfo.operatingSystemVersionString
    var sqlite = MachineInfo.sqliteVersion()
    #if DEBUG
    var configuration = "debug"
    #else
    var configuration = "release"
    #endif

    static func cpuModel() -> String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        }
        return "unknown"
    }

    static func sqliteVersion() -> String {
        (try? RawDatabase(path: ":memory:").prepare("SELECT sqlite_version()")).flatMap { statement -> String? in
            guard (try? statement.step()) == true, let text = sqlite3TextColumn(statement, 0) else { return nil }
            return text
        } ?? "unknown"
    }
}

/// Peak resident set size of this process (`VmHWM`), in megabytes.
func peakRSSMegabytes() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kilobytes = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Double($0) } ?? 0
        return kilobytes / 1024
    }
    return 0
}

enum TableFormatter {
    static func time(_ seconds: Double?) -> String {
        guard let seconds else { return "n/a" }
        return seconds < 1 ? String(format: "%.1f ms", seconds * 1000) : String(format: "%.2f s", seconds)
    }

    static func cell(_ workload: WorkloadResult, _ engine: Engine) -> String {
        guard let result = workload.results[engine.rawValue] else { return "n/a" }
        if result.error != nil { return "n/a" }
        var text = time(result.median)
        if engine != .raw, let ratio = workload.ratioToRaw[engine.rawValue] { text += String(format: " (%.2f×)", ratio) }
        if let rss = result.medianRSS { text += String(format: ", %.0f MB", rss) }
        return text
    }

    static func render(_ workloads: [WorkloadResult], machine: MachineInfo, runs: Int, scale: Double) -> String {
        let header = ["workload", "raw SQLite", "GRDB records", "OpenCoreData", "goal", "met"]
        var rows = [header]
        for workload in workloads {
            let met = workload.goalMet.map { $0 ? "yes" : "NO" } ?? "n/a"
            rows.append(["\(workload.id) \(workload.title)"] + Engine.allCases.map { cell(workload, $0) } + [workload.goal, met])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            row.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                .joined(separator: " | ")
        }
        lines.insert(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-|-"), at: 1)
        lines.append("")
        lines.append("Medians of \(runs) runs, scale \(scale); ratios are to raw SQLite. Machine: \(machine.cores) cores, \(machine.cpu), "
                     + String(format: "%.0f GiB", machine.memoryGigabytes) + "; SQLite \(machine.sqlite); build: \(machine.configuration).")
        var reported = Set<String>()
        for workload in workloads {
            for engine in Engine.allCases {
                if let error = workload.results[engine.rawValue]?.error, reported.insert("\(engine.rawValue)\(error)").inserted {
                    lines.append("\(workload.id) \(engine.rawValue): n/a — \(error)")
                }
            }
            if workload.checksumsAgree == false { lines.append("\(workload.id): CHECKSUMS DIFFER between engines") }
        }
        return lines.joined(separator: "\n")
    }
}
