import Foundation
import PackagePlugin

/// Plays Xcode's part for the Core Data models in a target: each `.xcdatamodeld` (or lone
/// `.xcdatamodel`) in the target's folder is compiled into `<Model>.momd` among the target's
/// resources, and the classes of its entities whose Codegen is Class Definition or
/// Category/Extension are generated into the build (`<Model>+CoreDataGenerated.swift`).
///
/// Load the model with `NSPersistentContainer(name: "Model")` (which searches the resource
/// bundles beside the executable) or `NSManagedObjectModel(contentsOf: Bundle.module.url(forResource:
/// "Model", withExtension: "momd")!)`. Exclude the model folders from the target
/// (`exclude: ["Model.xcdatamodeld"]`) so that SwiftPM does not also treat them as resources.
@main
struct CoreDataModelPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "coredata-modelc")
        // `directoryURL` needs tools 6.1; `directory` is the 6.0 spelling.
        return try Self.models(in: URL(fileURLWithPath: target.directory.string)).map { model in
            let name = model.deletingPathExtension().lastPathComponent
            let compiled = context.pluginWorkDirectoryURL.appendingPathComponent("\(name).momd")
            let swift = context.pluginWorkDirectoryURL.appendingPathComponent("\(name)+CoreDataGenerated.swift")
            return .buildCommand(
                displayName: "Compiling Core Data model \(model.lastPathComponent)",
                executable: tool.url,
                arguments: ["--module", target.moduleName, model.path, compiled.path, swift.path],
                inputFiles: try Self.files(in: model),
                outputFiles: [compiled, swift]
            )
        }
    }

    /// The `.xcdatamodeld` packages and lone `.xcdatamodel` folders under `folder`.
    static func models(in folder: URL) throws -> [URL] {
        var found: [URL] = []
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        for case let url as URL in walker {
            switch url.pathExtension {
            case "xcdatamodeld":
                found.append(url)
                walker.skipDescendants()
            case "xcdatamodel":
                found.append(url)
                walker.skipDescendants()
            default:
                continue
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// Every file inside a model folder: the command reruns when one changes.
    static func files(in model: URL) throws -> [URL] {
        guard let walker = FileManager.default.enumerator(at: model, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var files: [URL] = []
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            files.append(url)
        }
        return files
    }
}
