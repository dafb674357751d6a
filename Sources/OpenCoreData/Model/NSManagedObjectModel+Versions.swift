extension NSManagedObjectModel {
    /// The version checksum of every version of a versioned model, by version name.
    ///
    /// Accepts a compiled folder (Apple's `.momd` or ours), whose `VersionInfo.plist` holds the
    /// entity hashes of each version, and also an `.xcdatamodeld` package, whose versions are
    /// read. The checksum is the one ``versionChecksum`` gives for the loaded version.
    public class func checksumsForVersionedModel(at modelURL: URL) throws -> [String: String] {
        let url = modelURL.standardizedFileURL
        if url.pathExtension == "xcdatamodeld" {
            var result: [String: String] = [:]
            for version in XcodeModelPackage.versions(ofPackage: url) {
                result[version.deletingPathExtension().lastPathComponent] = try XcodeModelPackage.readVersion(at: version).versionChecksum
            }
            return result
        }
        let infoURL = url.appendingPathComponent(CompiledModelFormat.versionInfoName)
        guard let data = FileManager.default.contents(atPath: infoURL.path),
              let info = try? PropertyListInput.propertyList(from: data) as? [String: Any] else {
            throw ManagedObjectModelError(.unsupportedFormat, "not a versioned model (no readable VersionInfo.plist)", file: url)
        }
        guard let versions = info[CompiledModelFormat.versionHashesKey] as? [String: [String: Data]] else {
            throw ManagedObjectModelError(.invalidCompiledModel, "VersionInfo.plist has no \(CompiledModelFormat.versionHashesKey)",
                                          file: infoURL)
        }
        return versions.mapValues { VersionHasher.modelChecksum(entityVersionHashes: $0).base64EncodedString() }
    }
}
