import ArgumentParser
import OpenCoreData

// PLACEHOLDER, replaced by the CLI work.
struct PredicateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "predicate", abstract: "Parse, print and evaluate predicates.")
}
