extension NSManagedObjectModel {
    /// A model holding the entities, configurations, fetch request templates, localization
    /// and version identifiers of all `models`; `nil` when two of them define different
    /// entities with the same name (use ``merging(_:)`` for the reason).
    public convenience init?(byMerging models: [NSManagedObjectModel]?) {
        guard let merged = try? NSManagedObjectModel.merging(models ?? []) else { return nil }
        self.init()
        adopt(merged)
    }

    /// The model merged from `models`, if it can hold the data of the store whose metadata is
    /// `metadata` (its entity version hashes match the store's `NSStoreModelVersionHashes`);
    /// otherwise `nil`.
    public convenience init?(byMerging models: [NSManagedObjectModel], forStoreMetadata metadata: [String: Any]) {
        guard let merged = try? NSManagedObjectModel.merging(models),
              merged.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) else { return nil }
        self.init()
        adopt(merged)
    }

    /// The throwing form of ``init(byMerging:)``. Not in Apple's API.
    ///
    /// An entity that two models define identically is taken once; two different entities with
    /// the same name fail with "Can't merge models with two different entities named 'X'".
    public static func merging(_ models: [NSManagedObjectModel]) throws -> NSManagedObjectModel {
        var entities: [NSEntityDescription] = []
        var configurations: [(name: String, entities: [String])] = []
        var templates: [String: NSFetchRequest<NSFetchRequestResult>] = [:]
        var localization: [String: String]?
        var identifiers: Set<AnyHashable> = []
        for model in models {
            let copy = model.copy() as! NSManagedObjectModel
            for entity in copy.entities {
                if let existing = entities.first(where: { $0.name == entity.name }) {
                    guard existing.isEqual(entity) else {
                        throw ManagedObjectModelError(.mergeConflict,
                            "Can't merge models with two different entities named '\(entity.name ?? "")'",
                            element: "entity '\(entity.name ?? "")'")
                    }
                    continue
                }
                entities.append(entity)
            }
            for configuration in copy.configurationEntityNames {
                if let index = configurations.firstIndex(where: { $0.name == configuration.name }) {
                    configurations[index].entities += configuration.entities.filter { !configurations[index].entities.contains($0) }
                } else {
                    configurations.append(configuration)
                }
            }
            templates.merge(copy.fetchRequestTemplatesByName) { first, _ in first }
            if let strings = copy.localizationDictionary {
                localization = (localization ?? [:]).merging(strings) { first, _ in first }
            }
            identifiers.formUnion(copy.versionIdentifiers)
        }
        let merged = NSManagedObjectModel()
        // The copies were detached from their models when the sources were copied; relink
        // subentities by name so that duplicate entities taken once keep one tree.
        let byName = Dictionary(entities.compactMap { entity in entity.name.map { ($0, entity) } }, uniquingKeysWith: { a, _ in a })
        for entity in entities {
            let subs = entity.subentities.compactMap { $0.name.flatMap { byName[$0] } }
            try entity.setSubentities(subs)
        }
        merged.entities = entities
        for configuration in configurations {
            merged.setEntities(configuration.entities.compactMap { byName[$0] }, forConfigurationName: configuration.name)
        }
        for (name, template) in templates {
            if template.entity != nil { template.resolveEntity(in: byName) }
            merged.setFetchRequestTemplate(template, forName: name)
        }
        merged.localizationDictionary = localization
        merged.versionIdentifiers = identifiers
        return merged
    }

    /// The model merged from the models at `urls` (any path ``init(contentsOf:)`` accepts);
    /// `nil` when one does not load or the models conflict.
    ///
    /// Differs from Apple, whose `mergedModel(from:)` searches bundles, which Linux does not have.
    public class func mergedModel(from urls: [URL]) -> NSManagedObjectModel? {
        var models: [NSManagedObjectModel] = []
        for url in urls {
            guard let model = try? NSManagedObjectModel.load(contentsOf: url) else { return nil }
            models.append(model)
        }
        return NSManagedObjectModel(byMerging: models)
    }

    /// The model merged from every compiled model (`.momd`, `.mom`, and OpenCoreData's compiled
    /// format) at the top level of the resources of `bundles` (the main bundle when `nil`);
    /// `nil` when there is none, one does not load or the models conflict.
    ///
    /// On Linux the main bundle's resources are the running executable's folder.
    public class func mergedModel(from bundles: [Bundle]?) -> NSManagedObjectModel? {
        let urls = modelURLs(in: bundles ?? [Bundle.main])
        return urls.isEmpty ? nil : mergedModel(from: urls)
    }

    /// The model merged from the compiled models of `bundles`, as `mergedModel(from: bundles)`,
    /// if it can hold the data of the store whose metadata is `metadata`; otherwise `nil`.
    public class func mergedModel(from bundles: [Bundle]?, forStoreMetadata metadata: [String: Any]) -> NSManagedObjectModel? {
        let urls = modelURLs(in: bundles ?? [Bundle.main])
        return urls.isEmpty ? nil : mergedModel(from: urls, forStoreMetadata: metadata)
    }

    /// The compiled models at the top level of each bundle's resource folder, in name order.
    private static func modelURLs(in bundles: [Bundle]) -> [URL] {
        let extensions: Set<String> = ["momd", "mom", CompiledModelFormat.fileExtension]
        return bundles.flatMap { bundle -> [URL] in
            let folder = bundle.resourceURL ?? bundle.bundleURL
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
            return names.sorted().map { folder.appendingPathComponent($0) }.filter { extensions.contains($0.pathExtension) }
        }
    }

    /// The model merged from the models at `urls` that can hold the data of the store whose
    /// metadata is `metadata`, or `nil`. Differs from Apple in taking URLs instead of bundles.
    public class func mergedModel(from urls: [URL], forStoreMetadata metadata: [String: Any]) -> NSManagedObjectModel? {
        guard let merged = mergedModel(from: urls),
              merged.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) else { return nil }
        return merged
    }
}
