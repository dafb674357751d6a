import ArgumentParser
import Foundation
@_spi(CLI) import OpenCoreData
import OpenCoreDataPostgres

/// `coredata store upgrade STORE --model MODEL.xcdatamodeld [--to VERSION] [--mapping PATH]...
/// [--type sqlite|xml|binary|postgresql]`: migrates STORE (a file, or a `postgres://` URL) in
/// place, through the model's versions in the natural order of their names, to the current
/// version (or VERSION).
///
/// One step per version pair, with a given mapping model where one fits the step (a mapping
/// spanning several versions is one direct step) and an inferred mapping elsewhere; all or
/// nothing, on a copy of the store (see `StoreUpgrade` in the library; a PostgreSQL store's copy
/// is a schema beside it, swapped in at the end). A mapping whose entity
/// policy class can't be loaded here is refused before anything is done. Prints a JSON summary
/// on standard output (`source`, `destination`, `steps` with `from`, `to` and `mapping`, the path
/// or `"inferred"`, and `objects`, the count per entity) and, on a terminal, a progress bar on
/// standard error. A store already at the destination version: exit 0 and says so. Values of
/// externally stored data whose file is missing read as nil, as the SQLite store reads them.
struct StoreUpgradeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upgrade",
        abstract: "Migrate a store in place through its model's versions (all or nothing).")

    @Argument(help: "The store file to upgrade (or a postgres:// URL).")
    var store: String

    @Option(help: "The versioned model (.xcdatamodeld, .momd or a compiled model folder).")
    var model: String

    @Option(name: .customLong("to"), help: "The version to upgrade to (default: the model's current version).")
    var version: String?

    @Option(name: .customLong("mapping"), help: "A mapping model (.xcmappingmodel or .cdm) to use where it fits a step; repeatable.")
    var mappings: [String] = []

    @Option(name: .customLong("type"), help: "The store's type: sqlite, xml, binary, postgresql (default: sqlite).")
    var storeType: String = "sqlite"

    func run() throws {
        let url = StoreCommand.storeURL(store)
        let type = StoreCommand.storeType(storeType)
        let bar = isatty(STDERR_FILENO) != 0 ? ProgressBar() : nil
        defer { bar?.finish(complete: false) }
        let summary = try StoreCommandError.reporting {
            try StoreUpgrade.upgrade(storeAt: url, type: type, modelAt: URL(fileURLWithPath: model), to: version,
                                     mappings: mappings.map { URL(fileURLWithPath: $0) }, progress: bar?.progress)
        }
        bar?.finish(complete: true)
        if summary.steps.isEmpty {
            FileHandle.standardError.write(Data("The store at \(store) already has version '\(summary.destination)'; nothing to do.\n".utf8))
        }
        print(try Self.json(summary))
    }

    /// The JSON summary, keys sorted.
    static func json(_ summary: StoreUpgrade.Summary) throws -> String {
        let object: [String: Any] = [
            "source": summary.source,
            "destination": summary.destination,
            "steps": summary.steps.map { ["from": $0.from, "to": $0.to, "mapping": $0.mappingPath ?? "inferred"] },
            "objects": summary.objectCounts,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}

/// A progress bar on standard error, redrawn from a timer while a `Progress` advances.
final class ProgressBar: @unchecked Sendable {
    // @unchecked Sendable: `lock` guards `finished`; `progress` is thread-safe (Foundation).
    let progress = Progress(totalUnitCount: 1)
    private let timer: DispatchSourceTimer
    private let lock = NSLock()
    private var finished = false

    init() {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now(), repeating: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
    }

    private func tick() {
        lock.lock()
        defer { lock.unlock() }
        if !finished { draw(final: false) }
    }

    private func draw(final: Bool) {
        let fraction = min(max(progress.fractionCompleted, 0), 1)
        let width = 40, filled = Int(fraction * Double(width))
        let line = "\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            + "] \(Int(fraction * 100))%" + (final ? "\n" : "")
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Stops the timer and ends the bar's line (once): drawn full when `complete`.
    func finish(complete: Bool) {
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return }
        finished = true
        timer.cancel()
        if complete { progress.completedUnitCount = progress.totalUnitCount }
        draw(final: true)
    }
}
