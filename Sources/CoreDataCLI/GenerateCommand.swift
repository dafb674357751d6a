import ArgumentParser
import CoreDataModelTools
import Foundation
import OpenCoreData

/// `coredata generate MODEL [--output DIR] [--access public|internal] [--entity NAME]...`: writes
/// the `Entity+CoreDataClass.swift` and `Entity+CoreDataProperties.swift` files Xcode would
/// generate, with `@Managed` (see ``ClassGenerator``). Prints each written path.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write the NSManagedObject subclasses Xcode would generate for a model's entities.",
        discussion: """
            Entities with Codegen set to Class Definition get both files, Category/Extension only \
            the properties file; with --entity, the named entities get both files (properties only \
            for Category/Extension). \(CoreDataCommand.exitStatusHelp)
            """
    )

    @Argument(help: "An .xcdatamodeld, .xcdatamodel, compiled model folder, .momd or .mom.")
    var model: String

    @Option(name: .shortAndLong, help: "The folder to write into (created if missing).")
    var output: String = "."

    @Option(help: "The access level of the generated declarations: public or internal.")
    var access: String = "public"

    @Option(name: .customLong("entity"), help: "An entity to generate (repeatable); default: every entity whose Codegen asks for it.")
    var entities: [String] = []

    @Option(help: "The module the generated files import.")
    var importModule: String = "OpenCoreData"

    func run() throws {
        guard let access = ClassGenerator.Access(rawValue: access) else {
            throw ValidationError("--access must be public or internal, not '\(access)'")
        }
        let loaded = try NSManagedObjectModel.load(contentsOf: URL(fileURLWithPath: model))
        var generator = ClassGenerator(model: loaded)
        generator.access = access
        generator.importedModule = importModule
        let files: [ClassGenerator.File]
        do {
            files = try generator.files(forEntityNames: entities)
        } catch let failure as ClassGenerator.Failure {
            throw ValidationError(failure.description)
        }
        let folder = URL(fileURLWithPath: output, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in files {
            let url = folder.appendingPathComponent(file.name)
            try Data(file.contents.utf8).write(to: url, options: .atomic)
            print(url.path)
        }
    }
}
