import Foundation
import OpenCoreDataFuzzing
import Testing

/// The inputs the fuzz targets in `Fuzz/` found crashing, fed through the same entry points
/// (`FuzzTarget.run`) as the fuzzers; and the seed corpora, which the readers must accept.
///
/// A regression passes when its reader returns, accepting the input or throwing an error with a
/// description; a crash kills the test process. `Fuzz/Regressions/README.md` names the class of
/// each input. Inputs that still crash are kept in `Fuzz/Regressions/pending/<target>/`, which
/// these tests do not read until their fix is merged and they are moved up a level.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// The repository's `Fuzz/` folder, found from this source file.
    static let fuzzRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // Fuzz
        .deletingLastPathComponent()   // OpenCoreDataTests
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()   // repository
        .appendingPathComponent("Fuzz")

    /// The files directly in `Fuzz/<folder>/<target>/`, sorted; none when the folder is absent.
    static func files(in folder: String, for target: FuzzTarget) throws -> [URL] {
        let directory = fuzzRoot.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { !$0.hasDirectoryPath && !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test("Crashing inputs found by fuzzing now return or throw", arguments: FuzzTarget.allCases)
    func regressions(target: FuzzTarget) throws {
        for file in try Self.files(in: "Regressions", for: target) {
            switch target.run(try Data(contentsOf: file)) {
            case .accepted:
                break
            case .rejected(let error):
                #expect(!String(describing: error).isEmpty, "\(file.lastPathComponent): an error without a description")
            }
        }
    }

    @Test("Every seed of the fuzz corpora is read without error", arguments: FuzzTarget.allCases)
    func seedsAreAccepted(target: FuzzTarget) throws {
        for file in try Self.files(in: "Corpus", for: target) {
            let outcome = target.run(try Data(contentsOf: file))
            if case .rejected(let error) = outcome {
                Issue.record("\(target.rawValue)/\(file.lastPathComponent) was rejected: \(error)")
            }
        }
    }

    @Test("The generated store and compiled-model seeds are read back with their objects")
    func generatedSeeds() throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("OpenCoreDataTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let seeds = try FuzzFixtures.writeSeeds(to: folder)
        #expect(Set(seeds.keys) == [.xmlStore, .binaryStore, .compiledModel])
        for (target, url) in seeds {
            let outcome = target.run(try Data(contentsOf: url))
            guard case .accepted(let summary) = outcome else {
                Issue.record("\(target.rawValue) rejected its generated seed: \(outcome)")
                continue
            }
            // Stores: 4 objects plus the person's 3 cars; the model: its properties and bytes.
            #expect(summary >= 7, "\(target.rawValue)")
        }
    }

    @Test("A malformed input is rejected with an error, not accepted")
    func malformedInputIsRejected() {
        for target in FuzzTarget.allCases {
            #expect(!target.run(Data("(((".utf8)).isAccepted, "\(target.rawValue)")
        }
    }
}
