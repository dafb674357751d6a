/// Finds the files of Xcode model packages: `Name.xcdatamodeld` folders with their
/// `.xccurrentversion`, and `V.xcdatamodel` folders with their `contents`.
enum XcodeModelPackage {
    /// The plist key of `.xccurrentversion` naming the current version's folder.
    static let currentVersionKey = "_XCCurrentVersionName"

    /// The current version folder of the `.xcdatamodeld` package at `url`.
    ///
    /// A package without `.xccurrentversion` that holds exactly one version uses it, as Xcode
    /// does; otherwise a missing or unreadable `.xccurrentversion`, or one naming a version the
    /// package does not hold, is a ``ManagedObjectModelError/Kind/badCurrentVersion`` error.
    static func currentVersion(ofPackage url: URL) throws -> URL {
        let marker = url.appendingPathComponent(".xccurrentversion")
        guard FileManager.default.fileExists(atPath: marker.path) else {
            let versions = self.versions(ofPackage: url)
            if versions.count == 1 { return versions[0] }
            throw ManagedObjectModelError(.badCurrentVersion,
                                          "the package has no .xccurrentversion and \(versions.count) versions", file: marker)
        }
        let plist: Any
        do {
            plist = try PropertyListInput.propertyList(from: Data(contentsOf: marker))
        } catch {
            throw ManagedObjectModelError(.badCurrentVersion, "the file is not a property list", file: marker)
        }
        guard let name = (plist as? [String: Any])?[currentVersionKey] as? String, !name.isEmpty else {
            throw ManagedObjectModelError(.badCurrentVersion, "the property list has no \(currentVersionKey) string", file: marker)
        }
        let version = url.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: version.path) else {
            throw ManagedObjectModelError(.badCurrentVersion, "the current version '\(name)' is not in the package", file: marker)
        }
        return version
    }

    /// The version folders of a package, sorted by name.
    static func versions(ofPackage url: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasSuffix(".xcdatamodel") }.sorted().map { url.appendingPathComponent($0) }
    }

    /// Reads the version folder (or bare `contents` file) at `url`.
    static func readVersion(at url: URL) throws -> NSManagedObjectModel {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        let contents = isDirectory.boolValue ? url.appendingPathComponent("contents") : url
        guard let data = FileManager.default.contents(atPath: contents.path) else {
            let reason = isDirectory.boolValue
                ? "the model version has no 'contents' file (models older than Xcode 4 are not supported)"
                : "the file cannot be read"
            throw ManagedObjectModelError(.unreadableFile, reason, file: contents)
        }
        return try XcodeModelContentsReader(file: contents).read(data)
    }
}
