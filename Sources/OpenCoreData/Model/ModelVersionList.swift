import Foundation

/// The versions of a versioned model, oldest first: the `.xcdatamodel` folders of an
/// `.xcdatamodeld` package, the `.mom` files of Apple's `.momd` folder, or the files of a folder
/// written by `coredata model compile`.
///
/// Versions are ordered by the natural order of their names, so `Model 2.9` comes before
/// `Model 2.10` (Xcode's own order). The migration code uses the list to find the version that
/// wrote a store and to step from it to the current one.
struct ModelVersionList {
    /// One version: its name (the file name without extension) and its model.
    struct Version {
        let name: String
        let url: URL
        let model: NSManagedObjectModel
    }

    /// The versioned model's location.
    let url: URL
    /// The versions, oldest first.
    let versions: [Version]
    /// The name of the current version (the one loading `url` gives).
    let currentName: String

    /// Reads every version of the versioned model at `url`. A plain, unversioned model (an
    /// `.xcdatamodel` folder, a `.mom` file, a `contents` file) is a list of one version.
    static func read(at url: URL) throws -> ModelVersionList {
        let url = url.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ManagedObjectModelError(.unreadableFile, "no such file or folder", file: url)
        }
        var files: [URL] = []
        var current: String
        if url.pathExtension == "xcdatamodeld" {
            files = XcodeModelPackage.versions(ofPackage: url)
            current = try XcodeModelPackage.currentVersion(ofPackage: url).deletingPathExtension().lastPathComponent
        } else if isDirectory.boolValue, let info = try versionInfo(ofCompiledFolder: url) {
            current = info.current
            files = info.files
        } else {
            let model = try NSManagedObjectModel.load(contentsOf: url)
            let name = url.deletingPathExtension().lastPathComponent
            return ModelVersionList(url: url, versions: [Version(name: name, url: url, model: model)], currentName: name)
        }
        let sorted = files.sorted { naturallyPrecedes($0.deletingPathExtension().lastPathComponent,
                                                        $1.deletingPathExtension().lastPathComponent) }
        let versions = try sorted.map { file in
            Version(name: file.deletingPathExtension().lastPathComponent, url: file,
                    model: try NSManagedObjectModel.load(contentsOf: file))
        }
        guard versions.contains(where: { $0.name == current }) else {
            throw ManagedObjectModelError(.badCurrentVersion, "the current version '\(current)' is not among the model's versions",
                                          file: url)
        }
        return ModelVersionList(url: url, versions: versions, currentName: current)
    }

    /// The position of the version called `name`, if there is one.
    func index(named name: String) -> Int? {
        versions.firstIndex { $0.name == name }
    }

    /// The position of the version whose entity version hashes are the ones `metadata` records
    /// (a store's metadata), or `nil` when no version wrote that store.
    func index(matchingStoreMetadata metadata: [String: Any], configuration: String? = nil) -> Int? {
        versions.lastIndex { $0.model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) }
    }

    /// Whether `a` comes before `b` in the natural order of names: runs of digits compare as
    /// numbers (`v2.9` before `v2.10`), the rest by characters.
    static func naturallyPrecedes(_ a: String, _ b: String) -> Bool {
        let order = a.compare(b, options: [.numeric])
        return order == .orderedSame ? a < b : order == .orderedAscending
    }

    /// The current version name and version files of a compiled folder (Apple's `.momd` or
    /// ours), or `nil` when `url` is neither.
    private static func versionInfo(ofCompiledFolder url: URL) throws -> (current: String, files: [URL])? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        for fileExtension in ["mom", CompiledModelFormat.fileExtension] {
            let files = names.filter { $0.hasSuffix("." + fileExtension) }.map { url.appendingPathComponent($0) }
            guard !files.isEmpty else { continue }
            let info = try AppleCompiledModelReader.versionInfo(ofModelDirectory: url)
            return (info.currentVersionName, files)
        }
        return nil
    }
}
