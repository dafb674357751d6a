import Foundation

/// The files under `Tests/Fixtures/`, written by Apple's tools (see its README and licence).
enum Fixtures {
    /// `Tests/Fixtures/`, found from this source file so that tests run from any directory.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // Support
        .deletingLastPathComponent()   // OpenCoreDataTests
        .deletingLastPathComponent()   // Tests
        .appendingPathComponent("Fixtures")

    /// `Tests/Fixtures/CoreDataPlus/<relativePath>`.
    static func coreDataPlus(_ relativePath: String) -> URL {
        root.appendingPathComponent("CoreDataPlus").appendingPathComponent(relativePath)
    }

    static var sampleModel: URL { coreDataPlus("SampleModel/SampleModel.xcdatamodeld") }
    static var sampleModelMomd: URL { coreDataPlus("SampleModel/Fixtures/SampleModel.momd") }
    static var sampleModel3: URL { coreDataPlus("SampleModel3/SampleModel3.xcdatamodeld") }
    static var sampleModel3Momd: URL { coreDataPlus("SampleModel3/Fixtures/SampleModel3.momd") }

    /// A fresh temporary directory, removed by the caller when done.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("OpenCoreDataTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
