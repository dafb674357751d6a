import Foundation
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData
#if canImport(Glibc)
import Glibc
#endif

/// Crash safety of the file stores (DESIGN decision 4): a child process (`coredata store
/// save-loop`, see `StoreSaveLoopCommand`) saves in a loop and is killed with SIGKILL at random
/// moments; after every kill the file must open and hold exactly the objects of a completed
/// save: the last one the child reported, or the one it was making when it died.
///
/// 120 kills in total, shared among the registered file stores (XML and binary).
@Suite(.serialized) struct CrashSafetyTests {
    static let fileStoreTypes: [String] = [NSBinaryStoreType, NSXMLStoreType].filter {
        StoreTypeRegistry.shared.storeClass(for: $0) != nil
    }

    static let totalKills = 120

    /// The built `coredata` executable, next to the test bundle.
    static var coredataExecutable: URL? {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug"))
        for directory in candidates {
            var url = directory
            for _ in 0..<4 {
                let candidate = url.appendingPathComponent("coredata")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                url = url.deletingLastPathComponent()
            }
        }
        return nil
    }

    @Test(arguments: fileStoreTypes)
    func killedSavesLeaveACompletedSave(storeType: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.killSavesAndCheck(storeType: storeType, at: directory.appendingPathComponent("Crash.\(storeType.lowercased())"),
                                   kills: Self.totalKills / Self.fileStoreTypes.count)
    }

    /// `kills` rounds of: start `coredata store save-loop` on the store at `url`, kill it with
    /// SIGKILL among its saves, and check that the store holds exactly the objects of the last
    /// save it reported, or of the one after (done but not yet reported).
    static func killSavesAndCheck(storeType: String, at url: URL, kills: Int) throws {
        let executable = try #require(Self.coredataExecutable, "the coredata executable is built")
        let path = url.isFileURL ? url.path : url.absoluteString
        var generator = SystemRandomNumberGenerator()
        var lastReported: Int64 = 0
        var killedMidRun = 0
        for round in 0..<kills {
            let process = Process()
            process.executableURL = executable
            process.arguments = ["store", "save-loop", path, "--type", storeType]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Wait for the first completed save, so that the kill lands among saves, then a
            // random moment within the next few saves.
            var text = ""
            while !text.contains("saved") {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            usleep(UInt32.random(in: 0...15_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationReason == .uncaughtSignal, "round \(round): the child was killed, not finished: \(text)")
            if process.terminationReason == .uncaughtSignal { killedMidRun += 1 }
            let reported = text.split(separator: "\n").compactMap { $0.hasPrefix("saved ") ? Int64($0.dropFirst(6)) : nil }
            #expect(!reported.isEmpty, "round \(round): the child saved before it was killed")
            lastReported = reported.max() ?? lastReported

            let indexes = try Self.indexes(in: url, storeType: storeType)
            let matches = [lastReported, lastReported + 1].first { SaveLoopModel.expectedIndexes(afterSave: $0) == indexes }
            #expect(matches != nil, "round \(round): the store holds \(indexes.sorted()), not the objects of save \(lastReported) or \(lastReported + 1)")
            if let matches { lastReported = matches }
        }
        #expect(killedMidRun == kills)
        #expect(lastReported >= Int64(kills), "every round completed at least one save")
    }

    /// The `index` values of the ticks in the store at `url`, opened read-only.
    static func indexes(in url: URL, storeType: String) throws -> Set<Int64> {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SaveLoopModel.make())
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url,
                                           options: [NSReadOnlyPersistentStoreOption: true])
        guard case .snapshots(let rows) = try coordinator.executeFetch(NSFetchRequest<NSFetchRequestResult>(entityName: "Tick")) else { return [] }
        return Set(rows.compactMap { $0.values["index"] as? Int64 })
    }
}
