import Foundation
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData
#if canImport(Glibc)
import Glibc
#endif

/// Crash safety of the SQLite in-place migration: a child process (`coredata store
/// migrate-in-place`, ``StoreMigrateInPlaceCommand``) migrates a store of 2000 items and is
/// killed with SIGKILL at a random moment; afterwards the store opens either with the old model
/// and all the old data, or with the new model and all the migrated data, never anything else.
@Suite(.serialized) struct SQLiteLightweightMigrationKillTests {
    typealias S = LightweightMigrationSupport
    static let items = 2000
    static let rounds = 12

    @Test func killedMigrationsLeaveTheOldOrTheNewStore() throws {
        let executable = try #require(CrashSafetyTests.coredataExecutable, "the coredata executable is built")
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pristine = try SQLiteLightweightMigrationTests.killModelStore(in: directory, items: Self.items)
        let work = directory.appendingPathComponent("Work.sqlite")
        var generator = SystemRandomNumberGenerator()
        var outcomes: [String] = []
        for round in 0..<Self.rounds {
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: work.path + suffix)
                if FileManager.default.fileExists(atPath: pristine.path + suffix) {
                    try FileManager.default.copyItem(atPath: pristine.path + suffix, toPath: work.path + suffix)
                }
            }
            let process = Process()
            process.executableURL = executable
            process.arguments = ["store", "migrate-in-place", work.path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 0...250_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            if let old = try? S.context(MigrationKillModel.make(version: 1), at: work, readOnly: true) {
                let items = try S.fetch(old.0, "Item", sortedBy: "index")
                let names = old.0.performAndWait { items.map { $0.value(forKey: "name") as? String } }
                #expect(names == (0..<Self.items).map { "item \($0)" }, "round \(round): the old store is whole")
                outcomes.append("old")
            } else {
                let (context, _) = try S.context(MigrationKillModel.make(version: 2), at: work, readOnly: true)
                let items = try S.fetch(context, "Item", sortedBy: "index")
                let facts = context.performAndWait {
                    items.map { item in
                        "\(item.value(forKey: "label") as? String ?? "-") \(item.value(forKey: "weight") as? Double ?? -1) \((item.value(forKey: "group") as? NSManagedObject)?.value(forKey: "title") as? String ?? "-")"
                    }
                }
                #expect(facts == (0..<Self.items).map { "item \($0) 1.5 group \($0 % (Self.items / 100))" }, "round \(round): the migrated store is whole")
                outcomes.append("new")
            }
        }
        #expect(outcomes.count == Self.rounds)
    }
}
