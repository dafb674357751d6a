import ArgumentParser
import OpenCoreData

/// `coredata`: the command-line tool. Its subcommands' forms are stable; scripts depend on them.
public struct CoreDataCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "coredata",
        abstract: "Evaluate predicates, inspect models and read stores with OpenCoreData.",
        subcommands: [PredicateCommand.self, ModelCommand.self, StoreCommand.self]
    )

    public init() {}
}
