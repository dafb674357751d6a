import Foundation
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData

/// One exit-status rule for every `coredata` command (``CoreDataCommand/runAsTool(_:)``, what
/// `main.swift` runs): 0 on success, 2 on any failure, usage errors included.
@Suite struct ExitStatusTests {
    static let missing = "/nonexistent-\(UUID().uuidString)"

    static let failures: [[String]] = [
        // Usage errors (ArgumentParser's 64 by default).
        ["frobnicate"],
        ["predicate", "eval", "a == 1"],
        ["predicate", "format"],
        ["model", "inspect"],
        ["store", "dump", "S.sqlite", "--type", "sqlite"],
        ["store", "info", "--bogus"],
        // Bad input and failed operations (ArgumentParser's 1 by default, 64 for store info).
        ["predicate", "format", "a =="],
        ["predicate", "eval", "a == 1", "--object", "{"],
        ["model", "inspect", missing],
        ["model", "compile", missing, "-o", missing + "-out"],
        ["store", "dump", missing, "--model", missing, "--type", "sqlite"],
        ["store", "info", missing],
        ["store", "migrate", missing, "--model", missing, "--from-type", "xml", "--to", missing + "-to", "--to-type", "binary"],
    ]

    @Test(arguments: failures)
    func everyFailureExitsWithStatus2(arguments: [String]) {
        #expect(CoreDataCommand.runAsTool(arguments) == CoreDataCommand.failureStatus)
        #expect(CoreDataCommand.failureStatus == 2)
    }

    @Test func successAndHelpExitWithStatus0() throws {
        #expect(CoreDataCommand.runAsTool(["predicate", "format", "a == 1"]) == 0)
        #expect(CoreDataCommand.runAsTool(["predicate", "eval", "a == 2", "--object", #"{"a": 1}"#]) == 0, "false is an answer, not a failure")
        #expect(CoreDataCommand.runAsTool(["model", "inspect", Fixtures.sampleModel.path]) == 0)
        #expect(CoreDataCommand.runAsTool(["--help"]) == 0)
        #expect(CoreDataCommand.runAsTool(["store", "info", "--help"]) == 0)
    }

    @Test func theRuleIsInEveryCommandGroupsHelp() {
        for help in [CoreDataCommand.helpMessage(), CoreDataCommand.helpMessage(for: PredicateCommand.self),
                     CoreDataCommand.helpMessage(for: ModelCommand.self), CoreDataCommand.helpMessage(for: StoreCommand.self)] {
            #expect(help.contains("Exit status: 0 on success, 2 on any failure"), "\(help)")
        }
    }
}
