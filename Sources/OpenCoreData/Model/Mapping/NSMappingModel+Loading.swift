import Foundation

extension NSMappingModel {
    /// Reads the mapping model at `url`; `nil` when it cannot be read (``load(contentsOf:)``
    /// says why).
    public convenience init?(contentsOf url: URL?) {
        guard let url, let model = try? NSMappingModel.load(contentsOf: url) else { return nil }
        self.init()
        entityMappings = model.entityMappings
    }

    /// Reads the mapping model at `url`, throwing a ``ManagedObjectModelError`` that names the
    /// file and the element when it cannot. Not in Apple's API.
    ///
    /// Accepts a compiled `.cdm` file (`CompiledMappingModelReader`), an Xcode
    /// `.xcmappingmodel` folder or its `xcmapping.xml` file (`XcodeMappingModelReader`; its
    /// source and destination models are looked for beside it to compute the entity version
    /// hashes and the relationship expressions).
    public static func load(contentsOf url: URL) throws -> NSMappingModel {
        try load(contentsOf: url, sourceModel: nil, destinationModel: nil)
    }

    /// ``load(contentsOf:)``, completing an `.xcmappingmodel` from the given models when the
    /// models it names cannot be found beside it.
    static func load(contentsOf url: URL, sourceModel: NSManagedObjectModel?,
                     destinationModel: NSManagedObjectModel?) throws -> NSMappingModel {
        let url = url.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ManagedObjectModelError(.unreadableFile, "no such file or folder", file: url)
        }
        let file = isDirectory.boolValue ? url.appendingPathComponent("xcmapping.xml") : url
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            let reason = isDirectory.boolValue ? "the mapping model folder has no readable xcmapping.xml" : "the file cannot be read"
            throw ManagedObjectModelError(.unreadableFile, reason, file: file)
        }
        if data.starts(with: Array("bplist".utf8)) {
            return try CompiledMappingModelReader.read(data, file: file)
        }
        let reader = XcodeMappingModelReader(file: file)
        let document = try reader.parse(data)
        let folder = isDirectory.boolValue ? url : file
        func model(_ path: String?) -> NSManagedObjectModel? {
            guard let path, let modelURL = XcodeMappingModelReader.modelURL(forPath: path, near: folder) else { return nil }
            return try? NSManagedObjectModel.load(contentsOf: modelURL)
        }
        return XcodeMappingModelReader.mappingModel(document, source: model(document.sourceModelPath) ?? sourceModel,
                                                    destination: model(document.destinationModelPath) ?? destinationModel)
    }

    /// The mapping model in `bundles` (the main bundle when `nil`) that maps `sourceModel` to
    /// `destinationModel`: a `.cdm` file (and, an extension, an `.xcmappingmodel` folder) whose
    /// entity mappings' source and destination version hashes equal the two models' hashes of
    /// those entities, Apple's matching rule. `nil` when none fits.
    ///
    /// When several fit, the first in the natural order of their file names is returned;
    /// `fittingMappingModels(in:forSourceModel:destinationModel:)` gives all of them, for a
    /// multi-pass migration.
    public convenience init?(from bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?,
                             destinationModel: NSManagedObjectModel?) {
        let folders = (bundles ?? [Bundle.main]).compactMap { $0.resourceURL ?? $0.bundleURL }
        self.init(fromFolders: folders, forSourceModel: sourceModel, destinationModel: destinationModel)
    }

    /// ``init(from:forSourceModel:destinationModel:)`` searching folders instead of bundles
    /// (and their subfolders), for Linux programs that keep their mapping models in plain
    /// folders. Not in Apple's API.
    public convenience init?(fromFolders folders: [URL], forSourceModel sourceModel: NSManagedObjectModel?,
                             destinationModel: NSManagedObjectModel?) {
        guard let sourceModel, let destinationModel,
              let first = NSMappingModel.fittingMappingModels(in: folders, forSourceModel: sourceModel,
                                                              destinationModel: destinationModel).first else { return nil }
        self.init()
        entityMappings = first.mappingModel.entityMappings
    }

    /// Every mapping model in `folders` (searched recursively) that fits the two models, in the
    /// natural order of their file names (`V1toV2-pass2` after `V1toV2-pass1`): the passes of a
    /// multi-pass migration. Files that cannot be read are skipped.
    static func fittingMappingModels(in folders: [URL], forSourceModel sourceModel: NSManagedObjectModel,
                                     destinationModel: NSManagedObjectModel) -> [(url: URL, mappingModel: NSMappingModel)] {
        let candidates = folders.flatMap(mappingModelFiles).sorted {
            $0.lastPathComponent.compare($1.lastPathComponent, options: [.numeric]) == .orderedAscending
        }
        return candidates.compactMap { url in
            guard let mapping = try? load(contentsOf: url, sourceModel: sourceModel, destinationModel: destinationModel),
                  mapping.fits(sourceModel: sourceModel, destinationModel: destinationModel) else { return nil }
            return (url, mapping)
        }
    }

    /// Whether every entity mapping's version hashes equal the models' hashes of its entities
    /// (a mapping without a hash, from an `.xcmappingmodel` whose models were not found, fits
    /// when its entity exists in the model).
    func fits(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) -> Bool {
        let mappings = entityMappings ?? []
        guard !mappings.isEmpty else { return false }
        let sourceHashes = sourceModel.entityVersionHashesByName, destinationHashes = destinationModel.entityVersionHashesByName
        func fits(_ name: String?, _ hash: Data?, _ hashes: [String: Data]) -> Bool {
            guard let name else { return true }
            guard let modelHash = hashes[name] else { return false }
            return hash == nil || hash == modelHash
        }
        return mappings.allSatisfy { mapping in
            fits(mapping.sourceEntityName, mapping.sourceEntityVersionHash, sourceHashes)
                && fits(mapping.destinationEntityName, mapping.destinationEntityVersionHash, destinationHashes)
        }
    }

    /// The `.cdm` files and `.xcmappingmodel` folders under `folder`.
    private static func mappingModelFiles(in folder: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var found: [URL] = []
        while let url = enumerator.nextObject() as? URL {
            switch url.pathExtension {
            case "cdm": found.append(url)
            case "xcmappingmodel":
                found.append(url)
                enumerator.skipDescendants()
            case "xcdatamodeld", "momd", "xcdatamodel": enumerator.skipDescendants()
            default: break
            }
        }
        return found
    }
}
