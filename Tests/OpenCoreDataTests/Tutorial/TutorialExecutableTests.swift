import Foundation
import Testing

/// Runs the built `coredata-tutorial` executable, as a user does, and checks its output and
/// exit status. `swift build --build-tests` and `swift test` build it beside the test bundle.
@Suite("coredata-tutorial executable")
struct TutorialExecutableTests {
    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    /// The built executable: beside the test bundle, else in `.build/debug` of this package.
    static func executable() throws -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("coredata-tutorial"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/debug/coredata-tutorial"),
        ]
        return try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
                            "coredata-tutorial is not built; run swift build --build-tests")
    }

    static func run(_ arguments: [String], in directory: URL) throws -> Result {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      output: String(decoding: outputData, as: UTF8.self),
                      errors: String(decoding: errorData, as: UTF8.self))
    }

    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-tutorial-exe-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("--store-type memory records this run and exits 0")
    func memoryRun() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Self.run(["--store-type", "memory", "--process-id", "777"], in: directory)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("(NSManagedObjectModel) entities: [Run]"))
        let lines = result.output.split(separator: "\n").map(String.init)
        let history = lines.drop { $0 != "CoreDataTutorial run history:" }.dropFirst()
        #expect(history.count == 1)
        #expect(history.first?.hasSuffix(" as process ID 777") == true)
    }

    @Test("Without --process-id the real process ID is recorded")
    func realProcessID() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Self.run(["--store-type", "memory"], in: directory)
        #expect(result.status == 0, "\(result.errors)")
        let last = try #require(result.output.split(separator: "\n").last.map(String.init))
        let pid = try #require(last.split(separator: " ").last.flatMap { Int32($0) })
        #expect(pid > 0)
        #expect(pid != ProcessInfo.processInfo.processIdentifier)
    }

    @Test("--process-id 0 prints the localized validation message and exits 1")
    func validationFailure() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Self.run(["--store-type", "memory", "--process-id", "0"], in: directory)
        #expect(result.status == 1)
        #expect(result.errors.contains("Process ID must not be less than 1"))
        #expect(!result.output.contains("run history"))
    }

    @Test("The default SQLite store works or fails with a clear message and status 1, in ./CoreDataTutorial")
    func defaultStore() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Self.run(["--process-id", "5"], in: directory)
        let store = directory.appendingPathComponent("CoreDataTutorial/CoreDataTutorial.sqlite").path
        if result.status == 0 {
            #expect(FileManager.default.fileExists(atPath: store))
            #expect(result.output.contains("as process ID 5"))
        } else {
            #expect(result.status == 1)
            #expect(result.errors.contains("Cannot open the sqlite store at "))
            #expect(result.errors.contains("CoreDataTutorial.sqlite"))
        }
    }

    @Test("classes removes the monitor with the student and exits 0")
    func classes() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Self.run(["classes", "--store-type", "memory"], in: directory)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("XX班: monitor 学生甲; students 学生丙, 学生乙, 学生甲"))
        #expect(result.output.contains("XX班: monitor none; students 学生丙, 学生乙"))
        #expect(result.output.contains("not in a class: 学生甲"))
    }
}
