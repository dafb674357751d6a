import Foundation
import Testing

/// The tutorial persists across runs in each atomic file store: running the built
/// `coredata-tutorial` three times in one directory prints three history lines, in date order,
/// one per run with its process ID.
@Suite("coredata-tutorial persists across runs")
struct TutorialPersistenceTests {
    @Test(arguments: ["xml", "binary"])
    func threeRunsPrintThreeHistoryLinesInDateOrder(storeType: String) throws {
        let directory = try TutorialExecutableTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        var history: [String] = []
        for processID in [301, 302, 303] {
            let result = try TutorialExecutableTests.run(["--store-type", storeType, "--process-id", "\(processID)"], in: directory)
            #expect(result.status == 0, "run as \(processID): \(result.errors)")
            history = Array(result.output.split(separator: "\n").map(String.init).drop { $0 != "CoreDataTutorial run history:" }.dropFirst())
        }
        #expect(history.count == 3, "\(history)")
        #expect(history.map { $0.split(separator: " ").last.map(String.init) ?? "" } == ["301", "302", "303"])
        let dates = history.map { line in line.split(separator: " ").dropFirst().first.map(String.init) ?? "" }
        #expect(dates == dates.sorted() && Set(dates).count == 3, "dates in order: \(dates)")
        let file = directory.appendingPathComponent("CoreDataTutorial/CoreDataTutorial.\(storeType)")
        #expect(FileManager.default.fileExists(atPath: file.path))
    }
}
