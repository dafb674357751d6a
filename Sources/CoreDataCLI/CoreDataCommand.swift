import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata`: the command-line tool. Its subcommands' forms are stable; scripts depend on them.
///
/// **Exit status**, one rule for every command: 0 on success (and for `--help`), 2 on any
/// failure — a usage error (unknown option, missing argument), bad input (a predicate that does
/// not parse, a model or store file that can't be read) or a failed operation — with the
/// message on standard error. Run the tool through ``runAsTool(_:)``, which applies the rule;
/// ArgumentParser's own defaults (64 for usage errors, 1 for other errors) never reach the
/// shell. `coredata predicate eval` prints `false` for a predicate that does not match: that
/// is a success (status 0).
public struct CoreDataCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "coredata",
        abstract: "Evaluate predicates, inspect models and read stores with OpenCoreData.",
        discussion: exitStatusHelp,
        subcommands: [PredicateCommand.self, ModelCommand.self, StoreCommand.self, GenerateCommand.self]
    )

    /// The exit status of every failure.
    public static let failureStatus: Int32 = 2

    /// The exit-status rule as the commands' help states it.
    static let exitStatusHelp = """
        Exit status: 0 on success, 2 on any failure (a usage error, bad input or a failed \
        operation), with the message on standard error.
        """

    public init() {}

    /// Parses `arguments` (the process's when `nil`), runs the command and returns its exit
    /// status by the rule above, writing help to standard output and error messages to
    /// standard error. `main.swift` exits with it; tests call it directly.
    public static func runAsTool(_ arguments: [String]? = nil) -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            return 0
        } catch {
            let message = fullMessage(for: error)
            if exitCode(for: error).isSuccess {
                if !message.isEmpty { print(message) }
                return 0
            }
            if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
            return failureStatus
        }
    }
}
