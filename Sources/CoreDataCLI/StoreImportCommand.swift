import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata store import STORE --model MODEL --entity NAME --from FILE.jsonl [--type T]`:
/// batch-inserts the rows of a JSON-lines file (one JSON object per line: attribute values by
/// name, in the CLI's value encoding, ``JSONValueCodec``) as new objects of one entity, with an
/// `NSBatchInsertRequest`.
///
/// All or nothing: every line is read and checked first, then written in one batch, so a bad
/// line (malformed JSON, an unknown key, a value of the wrong type) is reported with its line
/// number and nothing is written. Rows that share a uniqueness constraint's values with a stored
/// row update it (the batch insert's upsert). Progress goes to standard error (a bar when it is
/// a terminal, a line per 10 % otherwise); standard output gets one line,
/// `imported N rows into ENTITY`.
struct StoreImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Batch-insert the rows of a JSON-lines file into a store.")

    @Argument(help: "The store file (created when missing).")
    var store: String

    @Option(help: "The model of the store (.xcdatamodeld, .xcdatamodel, .momd, .mom or a compiled model folder).")
    var model: String

    @Option(help: "The entity whose objects the rows become.")
    var entity: String

    @Option(name: .customLong("from"), help: "The JSON-lines file: one object of attribute values per line.")
    var file: String

    @Option(name: .customLong("type"), help: "The store's type: sqlite (default), xml, binary (or a type string).")
    var storeType: String = "sqlite"

    func run() throws {
        let count = try StoreCommandError.reporting { try importRows(progress: ImportProgress()) }
        print("imported \(count) rows into \(entity)")
    }

    /// Reads, checks and writes the rows; returns how many were written.
    func importRows(progress: ImportProgress? = nil) throws -> Int {
        let loaded = try StoreCommand.loadModel(model)
        guard loaded.entitiesByName[entity] != nil else {
            throw ValidationError("The model has no entity '\(entity)' (it has \(loaded.entitiesByName.keys.sorted().joined(separator: ", "))).")
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        var rows: [[String: Any]] = []
        var lines: [Int] = []
        var lineNumber = 0
        var offset = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            offset += line.count + 1
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { continue }
            guard let row = try JSONValueCodec.decode(text, source: "\(file), line \(lineNumber)") as? [String: Any] else {
                throw ValidationError("\(file), line \(lineNumber): a row must be a JSON object of attribute values.")
            }
            rows.append(row)
            lines.append(lineNumber)
            progress?.read(min(offset, data.count), of: data.count)
        }
        progress?.writing(rows.count)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: loaded)
        try coordinator.addPersistentStore(ofType: StoreCommand.storeType(storeType), configurationName: nil,
                                           at: StoreCommand.storeURL(store), options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let request = NSBatchInsertRequest(entityName: entity, objects: rows)
        request.resultType = .count
        do {
            let result = try context.performAndWait { try context.execute(request) as? NSBatchInsertResult }
            progress?.done()
            return result?.result as? Int ?? rows.count
        } catch let error as NSError {
            // A row's error names the batch row; the user knows the line.
            guard let row = error.userInfo[NSBatchRowErrorKey] as? Int, lines.indices.contains(row) else { throw error }
            var info = error.userInfo
            let message = (info[NSLocalizedDescriptionKey] as? String ?? "").replacingOccurrences(of: "Row \(row) of the batch", with: "\(file), line \(lines[row])")
            info[NSLocalizedDescriptionKey] = message
            throw NSError(domain: error.domain, code: error.code, userInfo: info)
        }
    }
}

/// The progress of `store import` on standard error: a bar redrawn in place on a terminal, a
/// line per tenth otherwise.
final class ImportProgress {
    private let isTerminal = isatty(FileHandle.standardError.fileDescriptor) != 0
    private var shownTenth = -1

    func read(_ done: Int, of total: Int) {
        guard total > 0 else { return }
        let fraction = Double(done) / Double(total)
        if isTerminal {
            let width = 30
            let filled = Int(fraction * Double(width))
            write("\rreading [\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))] \(Int(fraction * 100))%")
        } else if Int(fraction * 10) > shownTenth {
            shownTenth = Int(fraction * 10)
            write("reading \(shownTenth * 10)%\n")
        }
    }

    func writing(_ rows: Int) { write((isTerminal ? "\n" : "") + "writing \(rows) rows\n") }

    func done() { write("done\n") }

    private func write(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
