import ArgumentParser
import Foundation
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData

@Suite struct PredicateCommandTests {
    private func isExit2(_ error: any Error) -> Bool { (error as? ExitCode)?.rawValue == 2 }

    @Test func parsesTheStableForms() throws {
        let eval = try #require(try CoreDataCommand.parseAsRoot(
            ["predicate", "eval", "age > %d", "--object", #"{"age": 4}"#, "--arguments", "[3]", "--variables", "{}"])
            as? PredicateEvalCommand)
        #expect(eval.format == "age > %d")
        #expect(eval.object == #"{"age": 4}"#)
        #expect(eval.arguments == "[3]")
        #expect(eval.variables == "{}")
        let cases = try #require(try CoreDataCommand.parseAsRoot(["predicate", "eval", "--cases", "f.jsonl"]) as? PredicateEvalCommand)
        #expect(cases.cases == "f.jsonl")
        let format = try #require(try CoreDataCommand.parseAsRoot(["predicate", "format", "a = 1", "--arguments", "[]"]) as? PredicateFormatCommand)
        #expect(format.format == "a = 1")
        #expect(format.arguments == "[]")
    }

    @Test func rejectsIncompleteForms() {
        #expect(throws: (any Error).self) { try CoreDataCommand.parseAsRoot(["predicate", "eval", "a == 1"]) }
        #expect(throws: (any Error).self) { try CoreDataCommand.parseAsRoot(["predicate", "eval", "--object", "{}"]) }
        #expect(throws: (any Error).self) {
            try CoreDataCommand.parseAsRoot(["predicate", "eval", "a == 1", "--cases", "f.jsonl"])
        }
        #expect(throws: (any Error).self) { try CoreDataCommand.parseAsRoot(["predicate", "format"]) }
    }

    @Test func formatPrintsPredicateFormat() throws {
        #expect(try PredicateTool.format(format: "age > 3 && name beginswith[c] 'a'", argumentsJSON: nil)
                == #"age > 3 AND name BEGINSWITH[c] "a""#)
        #expect(try PredicateTool.format(format: "%K IN %@", argumentsJSON: #"["tags", {"$set": [2, 1]}]"#)
                == "tags IN {1, 2}")
        #expect(try PredicateTool.format(format: "d > %@", argumentsJSON: #"[{"$date": "2023-01-01T00:00:00Z"}]"#)
                == #"d > CAST(694224000.000000, "NSDate")"#)
        let command = try #require(try CoreDataCommand.parseAsRoot(["predicate", "format", "a = 1"]) as? PredicateFormatCommand)
        try command.run()
    }

    @Test func errorsExitWithStatus2() throws {
        #expect(throws: PredicateParseError.self) { try PredicateTool.format(format: "a ==", argumentsJSON: nil) }
        let badFormat = try #require(try CoreDataCommand.parseAsRoot(["predicate", "format", "a =="]) as? PredicateFormatCommand)
        #expect(performing: { try badFormat.run() }, throws: isExit2)
        let badArguments = try #require(try CoreDataCommand.parseAsRoot(["predicate", "format", "a == %@", "--arguments", "{"]) as? PredicateFormatCommand)
        #expect(performing: { try badArguments.run() }, throws: isExit2)
        let badEval = try #require(try CoreDataCommand.parseAsRoot(["predicate", "eval", "a ==", "--object", "{}"]) as? PredicateEvalCommand)
        #expect(performing: { try badEval.run() }, throws: isExit2)
        let badObject = try #require(try CoreDataCommand.parseAsRoot(["predicate", "eval", "a == 1", "--object", "{"]) as? PredicateEvalCommand)
        #expect(performing: { try badObject.run() }, throws: isExit2)
        let missingFile = try #require(try CoreDataCommand.parseAsRoot(["predicate", "eval", "--cases", "/nonexistent/cases.jsonl"]) as? PredicateEvalCommand)
        #expect(performing: { try missingFile.run() }, throws: isExit2)
    }

    @Test func evalPrintsTrueOrFalse() throws {
        #expect(try PredicateTool.evaluate(format: "age > %d", objectJSON: #"{"age": 4}"#, argumentsJSON: "[3]", variablesJSON: nil))
        #expect(try !PredicateTool.evaluate(format: "age > $MIN", objectJSON: #"{"age": 4}"#, argumentsJSON: nil, variablesJSON: #"{"MIN": 5}"#))
        #expect(try PredicateTool.evaluate(format: "name == nil", objectJSON: #"{"name": null}"#, argumentsJSON: nil, variablesJSON: nil))
        #expect(try PredicateTool.evaluate(format: "SELF == nil", objectJSON: "null", argumentsJSON: nil, variablesJSON: nil))
        #expect(try PredicateTool.evaluate(format: "tags CONTAINS 'b' AND ANY items.price > 10", objectJSON:
            #"{"tags": {"$set": ["a", "b"]}, "items": [{"price": 5}, {"price": 12.5}]}"#, argumentsJSON: nil, variablesJSON: nil))
        #expect(try PredicateTool.evaluate(format: "when > %@", objectJSON: #"{"when": {"$date": "2024-05-01T12:00:00Z"}}"#,
                                           argumentsJSON: #"[{"$date": "2024-01-01T00:00:00Z"}]"#, variablesJSON: nil))
        #expect(try PredicateTool.evaluate(format: "flag == YES AND n == 2", objectJSON: #"{"flag": true, "n": 2.0}"#,
                                           argumentsJSON: nil, variablesJSON: nil))
        let command = try #require(try CoreDataCommand.parseAsRoot(
            ["predicate", "eval", "age > %d", "--object", #"{"age": 4}"#, "--arguments", "[3]"]) as? PredicateEvalCommand)
        try command.run()
    }

    @Test func evaluationErrorsExitWithStatus2() throws {
        #expect(throws: (any Error).self) {
            try PredicateTool.evaluate(format: "a == $UNBOUND", objectJSON: "{}", argumentsJSON: nil, variablesJSON: nil)
        }
        let unbound = try #require(try CoreDataCommand.parseAsRoot(["predicate", "eval", "a == $X", "--object", "{}"]) as? PredicateEvalCommand)
        #expect(performing: { try unbound.run() }, throws: isExit2)
    }

    @Test func casesFile() throws {
        let text = """
            {"format": "age > %d", "object": {"age": 4}, "arguments": [3]}
            {"format": "age > $MIN", "object": {"age": 4}, "variables": {"MIN": 5}}
            {"format": "a == $X", "object": {}}
            {"format": "name ==[c] 'BOB'", "object": {"name": "bob"}, "arguments": [], "variables": {}}
            """
        let lines = PredicateTool.evaluateCases(text)
        #expect(lines.count == 4)
        #expect(Array(lines[0...1]) == ["true", "false"])
        #expect(lines[2].hasPrefix("error: "))
        #expect(lines[3] == "true")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("predicate-cases-\(UUID().uuidString).jsonl")
        try text.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let command = try #require(try CoreDataCommand.parseAsRoot(["predicate", "eval", "--cases", url.path]) as? PredicateEvalCommand)
        try command.run()
    }

    @Test func caseLinesReportErrorsInPlace() {
        let text = """
            {"format": "a ==", "object": {}}

            not json
            [1]
            {"object": {}}
            {"format": "a == %@", "arguments": {}}
            {"format": "a == $X", "variables": [], "arguments": null}
            {"format": "a == 1", "object": {"$date": 3}}
            """
        let lines = PredicateTool.evaluateCases(text)
        #expect(lines.count == 7, "a blank line is not a case")
        #expect(lines.allSatisfy { $0.hasPrefix("error: ") })
        #expect(lines[0].contains("column"))
        #expect(lines[1] == "error: invalid JSON in line 3 at $: not valid JSON (not json)")
        #expect(lines[2] == "error: invalid JSON in line 4 at $: a case must be a JSON object")
        #expect(lines[3] == #"error: invalid JSON in line 5 at $.format: a case needs a "format" string"#)
        #expect(lines[4] == "error: invalid JSON in line 6 at $: expected an array of arguments")
        #expect(lines[5] == "error: invalid JSON in line 7 at $: expected an object of variables")
        #expect(lines[6] == "error: invalid JSON in line 8 at $.object: $date needs an ISO 8601 string, not 3")
    }
}

extension PredicateCommandTests {
    /// An error message that quotes a line break (or another control character) stays on its
    /// case's one output line.
    @Test func caseErrorsStayOnOneLine() {
        let text = #"{"format": "name ==\n"}"# + "\n" + #"{"format": "a MATCHES '(\t'", "object": {"a": "x"}}"# + "\n"
            + #"{"format": "\u2028 ?"}"#
        let lines = PredicateTool.evaluateCases(text)
        #expect(lines.count == 3)
        for line in lines {
            #expect(line.hasPrefix("error: "))
            #expect(!line.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "\u{2028}" }, "\(line)")
        }
        #expect(lines[0].contains(#"name ==\n"#))
        #expect(lines[1].contains(#"(\t"#))
        #expect(PredicateTool.oneLine("a\r\nb\u{0}c\u{2029}") == #"a\r\nb\u{0}c\u{2029}"#)
    }
}
