extension NSManagedObjectModel {
    /// Loads the model at `url`; `nil` when it cannot be read (``load(contentsOf:)`` says why).
    ///
    /// Accepts what ``load(contentsOf:)`` accepts.
    public convenience init?(contentsOf url: URL) {
        guard let model = try? NSManagedObjectModel.load(contentsOf: url) else { return nil }
        self.init()
        adopt(model)
    }

    /// Loads the model at `url`, throwing a ``ManagedObjectModelError`` that names the file and
    /// the element when it cannot. Not in Apple's API.
    ///
    /// Accepts:
    /// - an Xcode `.xcdatamodeld` package (the version its `.xccurrentversion` names);
    /// - an Xcode `.xcdatamodel` version folder (its `contents` file), or that file itself;
    /// - a compiled model folder or file written by `coredata model compile`;
    /// - Apple's compiled `.momd` folders and `.mom` files.
    ///
    /// A `<ModelName>Model.strings` file beside the model fills ``localizationDictionary`` (see
    /// `ModelLocalization` for the places searched).
    public static func load(contentsOf url: URL) throws -> NSManagedObjectModel {
        let url = url.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ManagedObjectModelError(.unreadableFile, "no such file or folder", file: url)
        }
        let model: NSManagedObjectModel
        var versionURL = url
        if isDirectory.boolValue {
            if url.pathExtension == "xcdatamodeld" {
                versionURL = try XcodeModelPackage.currentVersion(ofPackage: url)
                model = try XcodeModelPackage.readVersion(at: versionURL)
            } else if FileManager.default.fileExists(atPath: url.appendingPathComponent("contents").path) {
                model = try XcodeModelPackage.readVersion(at: url)
            } else if let compiled = try CompiledModelFormat.readFolderIfOurs(at: url) {
                compiled.versionedModelURL = url
                return compiled
            } else if let apple = try readAppleCompiledModel(at: url) {
                model = apple
                if let info = try? AppleCompiledModelReader.versionInfo(ofModelDirectory: url) {
                    versionURL = url.appendingPathComponent(info.currentVersionName).appendingPathExtension("mom")
                }
            } else {
                throw ManagedObjectModelError(.unsupportedFormat,
                    "not an .xcdatamodeld, .xcdatamodel, compiled model folder or .momd", file: url)
            }
        } else {
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw ManagedObjectModelError(.unreadableFile, "the file cannot be read", file: url)
            }
            if let compiled = try CompiledModelFormat.readFileIfOurs(data, at: url) {
                return compiled
            } else if data.starts(with: Array("bplist".utf8)), let apple = try readAppleCompiledModel(at: url) {
                model = apple
            } else {
                model = try XcodeModelContentsReader(file: url).read(data)
            }
        }
        if model.localizationDictionary == nil {
            model.localizationDictionary = try ModelLocalization.dictionary(forModelAt: versionURL)
        }
        if versionURL != url { model.versionedModelURL = url }
        return model
    }

    /// Apple's compiled `.mom` file or `.momd` folder; `nil` when `url` does not look like one.
    private static func readAppleCompiledModel(at url: URL) throws -> NSManagedObjectModel? {
        guard AppleCompiledModelReader.recognizes(url) else { return nil }
        return try AppleCompiledModelReader.readModel(at: url)
    }
}
