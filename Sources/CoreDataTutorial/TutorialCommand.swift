import ArgumentParser
import OpenCoreData

/// `coredata-tutorial`: the seed program (深入浅出 Cocoa 之 Core Data). Without a subcommand it
/// records a run; `classes` runs the classes-and-students example; `web` serves the
/// classes-and-students window as a web page.
@available(macOS 10.15, macCatalyst 13, iOS 13, tvOS 13, watchOS 6, *)
public struct TutorialCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "coredata-tutorial",
        abstract: "The Core Data tutorial: record this run in a store and print the run history.",
        subcommands: [RunCommand.self, ClassesCommand.self, WebCommand.self],
        defaultSubcommand: RunCommand.self
    )

    public init() {}
}

/// The options both tutorial programs share.
public struct StoreOptions: ParsableArguments {
    @Option(help: "The folder of the store file.")
    public var directory: String = "CoreDataTutorial"

    @Option(name: .customLong("store-type"), help: "The store type: \(TutorialStoreType.allCases.map(\.rawValue).joined(separator: ", ")).")
    public var storeType: TutorialStoreType = .sqlite

    public init() {}

    /// ``directory`` as a URL, relative to the current directory.
    var directoryURL: URL {
        URL(fileURLWithPath: directory, isDirectory: true,
            relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
            .standardizedFileURL
    }
}

/// `coredata-tutorial [run]`: records a run and prints the history. Exit status 1 on failure.
public struct RunCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Record this run (date and process ID) and print the run history sorted by date."
    )

    @OptionGroup public var store: StoreOptions

    @Option(name: .customLong("process-id"), help: "The process ID to record (default: this process's). Values below 1 fail validation.")
    public var processID: Int32?

    public init() {}

    public func run() throws {
        let tutorial = RunTutorial(
            directory: store.directoryURL, storeType: store.storeType,
            processID: processID ?? ProcessInfo.processInfo.processIdentifier)
        try runReportingFailure { try tutorial.perform { print($0) } }
    }
}

/// `coredata-tutorial classes`: the classes-and-students example. Exit status 1 on failure.
public struct ClassesCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "classes",
        abstract: "Create a class with students and a monitor, then remove the monitor from the class."
    )

    @OptionGroup public var store: StoreOptions

    public init() {}

    public func run() throws {
        let tutorial = ClassesTutorial(directory: store.directoryURL, storeType: store.storeType)
        try runReportingFailure { try tutorial.perform { print($0) } }
    }
}

/// Runs `body`; a ``TutorialError`` (or any other error) is printed to standard error and
/// becomes exit status 1.
func runReportingFailure(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch {
        FileHandle.standardError.write(Data("coredata-tutorial: \(error)\n".utf8))
        throw ExitCode(1)
    }
}
