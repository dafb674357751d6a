import ArgumentParser
import OpenCoreData

/// `coredata model`: inspect and compile managed object models.
///
/// The forms are stable; scripts depend on them:
/// - `coredata model inspect MODEL` prints the model as JSON (see ``ModelInspection``);
/// - `coredata model compile SOURCE -o DEST` writes a compiled model folder.
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
            abstract: "Compile a model into a folder with VersionInfo.plist and one .ocdmom file per version.")

        @Argument(help: "An .xcdatamodeld, .xcdatamodel, compiled model folder, .momd or .mom.")
        var source: String

        @Option(name: .shortAndLong, help: "The folder to write.")
        var output: String

        func run() throws {
            try CompiledModelFormat.compile(modelAt: URL(fileURLWithPath: source), to: URL(fileURLWithPath: output))
        }
    }
}
