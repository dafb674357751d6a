/// Finds and loads the `<ModelName>Model.strings` file that localizes a model.
///
/// Core Data looks for the strings file named after the model beside it. For a model at
/// `Dir/Name.xcdatamodeld` (or `.momd`, `.mom`, `.xcdatamodel`) these places are tried in
/// order, and the first file found is used:
/// `Dir/NameModel.strings`, `Dir/Base.lproj/NameModel.strings`, `Dir/en.lproj/NameModel.strings`;
/// and for a version inside a package (`Name.xcdatamodeld/V.xcdatamodel`, `Name.momd/V.mom`)
/// also `VModel.strings` inside the package and then the same names beside the package.
enum ModelLocalization {
    /// The candidate strings files for the model at `url`, in search order.
    static func candidates(for url: URL) -> [URL] {
        let standardized = url.standardizedFileURL
        var names = [standardized.deletingPathExtension().lastPathComponent]
        var directories = [standardized.deletingLastPathComponent()]
        let parent = standardized.deletingLastPathComponent()
        if ["xcdatamodeld", "momd"].contains(parent.pathExtension) {
            names.append(parent.deletingPathExtension().lastPathComponent)
            directories.append(parent.deletingLastPathComponent())
        }
        if ["xcdatamodeld", "momd"].contains(standardized.pathExtension) {
            directories.insert(standardized, at: 0)
        }
        var result: [URL] = []
        for directory in directories {
            for name in names {
                for subfolder in ["", "Base.lproj", "en.lproj"] {
                    let folder = subfolder.isEmpty ? directory : directory.appendingPathComponent(subfolder)
                    result.append(folder.appendingPathComponent("\(name)Model.strings"))
                }
            }
        }
        return result
    }

    /// The localization dictionary of the first strings file found for the model at `url`, or
    /// `nil` when there is none. A strings file that does not parse is an error naming it.
    static func dictionary(forModelAt url: URL) throws -> [String: String]? {
        for candidate in candidates(for: url) where FileManager.default.fileExists(atPath: candidate.path) {
            do {
                return try StringsFile.parse(Data(contentsOf: candidate))
            } catch {
                throw ManagedObjectModelError(.invalidValue, "the strings file does not parse: \(error)", file: candidate)
            }
        }
        return nil
    }
}
