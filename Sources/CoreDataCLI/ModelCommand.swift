import ArgumentParser
import OpenCoreData

/// `coredata model`: inspect and compile managed object models.
///
/// The forms are stable; scripts depend on them:
/// - `coredata model inspect MODEL` prints the model as JSON (see ``ModelInspection``);
/// - `coredata model compile SOURCE -o DEST [--format apple|opencoredata] [--module NAME]` writes
///   a compiled model folder: Apple's `.momd` format by default, which Apple's Core Data loads.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Inspect and compile managed object models.",
        discussion: CoreDataCommand.exitStatusHelp,
        subcommands: [Inspect.self, Compile.self]
    )

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a model's entities, properties, fetch requests and configurations as JSON.")

        @Argument(help: "An .xcdatamodeld, .xcdatamodel, compiled model folder, .momd or .mom.")
        var model: String

        func run() throws {
            let loaded = try NSManagedObjectModel.load(contentsOf: URL(fileURLWithPath: model))
            print(ModelInspection.json(for: loaded))
        }
    }

    struct Compile: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compile a model into a folder with VersionInfo.plist and one compiled file per version.",
            discussion: """
                --format apple (the default) writes Apple's .momd (one .mom per version), as momc does, \
                predicates and expressions archived as Foundation archives them; --format opencoredata \
                writes OpenCoreData's format (one .ocdmom per version, predicates as format strings).
                """)

        @Argument(help: "An .xcdatamodeld, .xcdatamodel, compiled model folder, .momd or .mom.")
        var source: String

        @Option(name: .shortAndLong, help: "The folder to write.")
        var output: String

        @Option(help: "apple (.mom files, Apple's format) or opencoredata (.ocdmom files).")
        var format: String = CompiledModelFormat.Format.apple.rawValue

        @Option(help: "Qualify the entities' class names with this module, as momc's --module does.")
        var module: String?

        func run() throws {
            guard let format = CompiledModelFormat.Format(rawValue: format) else {
                throw ValidationError("--format must be apple or opencoredata, not '\(format)'")
            }
            try CompiledModelFormat.compile(modelAt: URL(fileURLWithPath: source), to: URL(fileURLWithPath: output),
                                            moduleName: module, format: format)
        }
    }
}
