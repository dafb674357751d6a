extension NSPersistentContainer {
    /// The model file names tried in each folder, in order: compiled models first
    /// (`<name>.momd`, `<name>.mom`, `<name>.ocdmom`), then Xcode's (`<name>.xcdatamodeld`,
    /// `<name>.xcdatamodel`).
    public static func modelFileNames(forName name: String) -> [String] {
        ["momd", "mom", CompiledModelFormat.fileExtension, "xcdatamodeld", "xcdatamodel"].map { "\(name).\($0)" }
    }

    /// The folders ``init(name:)`` searches for the model named `name`, in order:
    /// 1. the current directory;
    /// 2. the running executable's folder;
    /// 3. its `Resources` folder and its `<name>.resources` folder;
    /// 4. every other `*.resources` folder beside the executable (the resource bundles SwiftPM
    ///    builds, named `<Package>_<Target>.resources`), in name order.
    ///
    /// Not in Apple's API, which searches the main bundle.
    public static func modelSearchDirectories(forName name: String) -> [URL] {
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        return modelSearchDirectories(forName: name, currentDirectory: current, executableDirectory: executableDirectory)
    }

    static func modelSearchDirectories(forName name: String, currentDirectory: URL, executableDirectory: URL?) -> [URL] {
        var folders = [currentDirectory]
        if let executableDirectory {
            folders.append(executableDirectory)
            folders.append(executableDirectory.appendingPathComponent("Resources", isDirectory: true))
            folders.append(executableDirectory.appendingPathComponent("\(name).resources", isDirectory: true))
            let bundles = (try? FileManager.default.contentsOfDirectory(atPath: executableDirectory.path)) ?? []
            for bundle in bundles.sorted() where bundle.hasSuffix(".resources") && bundle != "\(name).resources" {
                folders.append(executableDirectory.appendingPathComponent(bundle, isDirectory: true))
            }
        }
        var seen = Set<String>()
        return folders.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }

    /// The folder of the running executable (symbolic links resolved), if it can be found.
    static var executableDirectory: URL? {
        let executable = Bundle.main.executableURL
            ?? CommandLine.arguments.first.flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
        return executable?.resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// The URL of the model named `name`: the first of ``modelFileNames(forName:)`` that exists in
    /// the first of ``modelSearchDirectories(forName:)`` that has one; `nil` when none does.
    ///
    /// Not in Apple's API.
    public static func modelURL(forName name: String) -> URL? {
        modelURL(forName: name, in: modelSearchDirectories(forName: name))
    }

    static func modelURL(forName name: String, in folders: [URL]) -> URL? {
        for folder in folders {
            for file in modelFileNames(forName: name) {
                let candidate = folder.appendingPathComponent(file)
                if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }

    /// Loads the model named `name` as ``init(name:)`` does, throwing when it is missing
    /// (``NSPersistentContainerError/modelNotFound(name:searched:)``) or unreadable (the model
    /// layer's ``ManagedObjectModelError``).
    ///
    /// Not in Apple's API.
    public static func loadModel(named name: String) throws -> NSManagedObjectModel {
        try loadModel(named: name, in: modelSearchDirectories(forName: name))
    }

    static func loadModel(named name: String, in folders: [URL]) throws -> NSManagedObjectModel {
        guard let url = modelURL(forName: name, in: folders) else {
            throw NSPersistentContainerError.modelNotFound(name: name, searched: folders.map(\.path))
        }
        return try NSManagedObjectModel.load(contentsOf: url)
    }
}

/// Why a container could not be set up. Not in Apple's API.
public enum NSPersistentContainerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No model file named after the container exists in the folders searched.
    case modelNotFound(name: String, searched: [String])

    public var description: String {
        switch self {
        case .modelNotFound(let name, let searched):
            return "Failed to load model named \(name): none of \(NSPersistentContainer.modelFileNames(forName: name).joined(separator: ", ")) in \(searched.joined(separator: ", "))"
        }
    }
}
