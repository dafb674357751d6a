import ArgumentParser
import OpenCoreData

/// `coredata predicate`: parse, print and evaluate predicates. The forms are stable; scripts
/// depend on them.
struct PredicateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predicate",
        abstract: "Parse, print and evaluate predicates.",
        discussion: CoreDataCommand.exitStatusHelp,
        subcommands: [PredicateEvalCommand.self, PredicateFormatCommand.self]
    )
}

/// `coredata predicate eval FORMAT --object JSON [--arguments JSON-ARRAY] [--variables JSON-OBJECT]`
/// and `coredata predicate eval --cases FILE`.
struct PredicateEvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Evaluate a predicate against a JSON object and print true or false.",
        discussion: """
            JSON values: null is nil, {"$null": true} is NSNull, {"$date": "<ISO 8601>"} is a Date, \
            {"$set": […]} is a set; numbers, strings, booleans, arrays and objects are themselves.
            With --cases FILE, each line of FILE is a case {"format": …, "object": …, "arguments": […], \
            "variables": {…}} and one line is printed per case: true, false or error: <message>.
            A parse or evaluation error exits with status 2.
            """
    )

    @Argument(help: "The predicate format string.")
    var format: String?

    @Option(help: "The evaluated object, as JSON.")
    var object: String?

    @Option(help: "The format arguments (%@, %K, %d…), as a JSON array.")
    var arguments: String?

    @Option(help: "The $VARIABLE bindings, as a JSON object.")
    var variables: String?

    @Option(help: "A JSON-lines file of cases to evaluate.")
    var cases: String?

    func validate() throws {
        if cases != nil {
            guard format == nil, object == nil, arguments == nil, variables == nil else {
                throw ValidationError("--cases takes no FORMAT, --object, --arguments or --variables")
            }
        } else {
            guard format != nil else { throw ValidationError("Missing the FORMAT argument (or --cases FILE)") }
            guard object != nil else { throw ValidationError("Missing --object JSON") }
        }
    }

    func run() throws {
        if let cases {
            let text: String
            do {
                text = try String(contentsOfFile: cases, encoding: .utf8)
            } catch {
                throw PredicateTool.fail("cannot read the cases file \(cases): \(error.localizedDescription)")
            }
            for line in PredicateTool.evaluateCases(text) { print(line) }
            return
        }
        do {
            let result = try PredicateTool.evaluate(
                format: format ?? "", objectJSON: object ?? "null",
                argumentsJSON: arguments, variablesJSON: variables)
            print(result ? "true" : "false")
        } catch {
            throw PredicateTool.fail("\(error)")
        }
    }
}

/// `coredata predicate format FORMAT [--arguments JSON-ARRAY]`.
struct PredicateFormatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "format",
        abstract: "Parse a predicate and print it in Apple's canonical form (predicateFormat).",
        discussion: "A parse error exits with status 2."
    )

    @Argument(help: "The predicate format string.")
    var format: String

    @Option(help: "The format arguments (%@, %K, %d…), as a JSON array.")
    var arguments: String?

    func run() throws {
        do {
            print(try PredicateTool.format(format: format, argumentsJSON: arguments))
        } catch {
            throw PredicateTool.fail("\(error)")
        }
    }
}

/// The logic of the `predicate` commands, apart from argument parsing and printing.
enum PredicateTool {
    /// Parses `format` with `argumentsJSON` and evaluates it against `objectJSON`.
    static func evaluate(format: String, objectJSON: String, argumentsJSON: String?, variablesJSON: String?) throws -> Bool {
        let object = try JSONValueCodec.decode(objectJSON, source: "--object")
        let arguments = try argumentsJSON.map { try JSONValueCodec.decodeArguments($0, source: "--arguments") } ?? []
        let variables = try variablesJSON.map { try JSONValueCodec.decodeVariables($0, source: "--variables") } ?? [:]
        return try evaluate(format: format, object: object, arguments: arguments, variables: variables)
    }

    static func evaluate(format: String, object: Any?, arguments: [Any?], variables: [String: Any]) throws -> Bool {
        let predicate = try NSPredicate(validatingFormat: format, argumentArray: arguments)
        return try predicate.evaluateThrowing(with: object, substitutionVariables: variables)
    }

    /// Parses `format` with `argumentsJSON` and returns its `predicateFormat`.
    static func format(format: String, argumentsJSON: String?) throws -> String {
        let arguments = try argumentsJSON.map { try JSONValueCodec.decodeArguments($0, source: "--arguments") } ?? []
        return try NSPredicate(validatingFormat: format, argumentArray: arguments).predicateFormat
    }

    /// Evaluates each non-blank line of a JSON-lines text; one output line per case.
    static func evaluateCases(_ text: String) -> [String] {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        return lines.enumerated().compactMap { index, line -> String? in
            guard !line.allSatisfy(\.isWhitespace) else { return nil }
            do {
                return try evaluateCase(String(line), source: "line \(index + 1)") ? "true" : "false"
            } catch {
                return "error: " + oneLine("\(error)")
            }
        }
    }

    /// `text` on one line: line breaks, tabs and other control characters are written as the
    /// escapes `\n`, `\r`, `\t` and `\u{…}` (line and paragraph separators too), so that a case's
    /// error, which may quote a format or a pattern containing a line break, stays one output
    /// line. Backslashes are left as they are, so a quoted regular expression reads as written.
    static func oneLine(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .lineSeparator
                    || scalar.properties.generalCategory == .paragraphSeparator {
                    result += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    static func evaluateCase(_ line: String, source: String) throws -> Bool {
        guard let fields = try JSONValueCodec.parse(line, source: source) as? [String: Any] else {
            throw JSONValueError(source: source, path: "$", message: "a case must be a JSON object")
        }
        guard let format = fields["format"] as? String else {
            throw JSONValueError(source: source, path: "$.format", message: "a case needs a \"format\" string")
        }
        let object = try fields["object"].flatMap { try JSONValueCodec.decode(raw: $0, source: source, path: "$.object") }
        let arguments = try fields["arguments"].flatMap { $0 is NSNull ? nil : $0 }.map { try JSONValueCodec.arguments(fromRaw: $0, source: source) } ?? []
        let variables = try fields["variables"].flatMap { $0 is NSNull ? nil : $0 }.map { try JSONValueCodec.variables(fromRaw: $0, source: source) } ?? [:]
        return try evaluate(format: format, object: object, arguments: arguments, variables: variables)
    }

    /// Writes `message` to standard error and returns the exit status 2 to throw.
    static func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return ExitCode(2)
    }
}
