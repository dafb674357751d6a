import Foundation

/// The on-disk cache of a fetched results controller's section information.
///
/// Stored as JSON in `<caches directory>/OpenCoreData/FetchedResultsControllerCaches/<name>.cache`
/// (the user's caches directory, else the temporary directory), one file per cache name.
/// It records what Apple's cache is checked against — the entity name and version hash, the
/// sort descriptors, the section name key path, and the state of the store files — plus the
/// predicate, `includesSubentities`, `fetchLimit` and `fetchOffset`, and then the section
/// names, index titles and object counts and the URIs of the objects in order.
///
/// A cache is used by `performFetch()` only when all of these match and the fetch returns
/// exactly the recorded objects in the recorded order; the sections (names, index titles,
/// counts) are then taken from it, without reading the section key path or asking the
/// delegate for index titles. Otherwise the sections are computed and the cache rewritten.
///
/// Differences from Apple: Apple does not compare the predicate (it asks callers to delete
/// the cache before changing the request); the predicate and the objects are compared here,
/// so a stale cache is never used. The fetch itself always runs. Caches are kept only for
/// contexts directly on a coordinator whose stores all have files (no in-memory store) and
/// without unsaved changes: section information that files don't reflect is not cached, and
/// the cache is written again when the context saves.
/// A cache file that can't be read or written is treated as absent (it is an optimisation).
struct FetchedResultsCache {
    /// The file's content.
    struct Content: Codable, Equatable {
        struct Key: Codable, Equatable {
            var entityName: String
            var entityVersionHash: String
            var predicate: String?
            var sortDescriptors: [String]
            var sectionNameKeyPath: String?
            var includesSubentities: Bool
            var fetchLimit: Int
            var fetchOffset: Int
            var stores: [StoreStamp]
        }
        struct StoreStamp: Codable, Equatable {
            var identifier: String
            var path: String
            var files: [String: FileStamp]
        }
        struct FileStamp: Codable, Equatable {
            var modified: Double
            var size: Int
        }
        struct Section: Codable, Equatable {
            var name: String
            var indexTitle: String?
            var numberOfObjects: Int
        }
        var version = 1
        var key: Key
        var sections: [Section]
        var objects: [String]
    }

    let name: String
    let key: Content.Key?

    /// The cache named `name` for `request` in `context`; `key` is nil when the context's
    /// state can't be cached.
    init(name: String, context: NSManagedObjectContext, request: FetchedRequestDescription, sectionNameKeyPath: String?) {
        self.name = name
        self.key = Self.key(context: context, request: request, sectionNameKeyPath: sectionNameKeyPath)
    }

    private static func key(context: NSManagedObjectContext, request: FetchedRequestDescription, sectionNameKeyPath: String?) -> Content.Key? {
        guard context.parent == nil, !context.hasChanges, let coordinator = context.persistentStoreCoordinator,
              let entityName = request.entityName,
              let entity = request.entity ?? coordinator.managedObjectModel.entitiesByName[entityName] else { return nil }
        var stores: [Content.StoreStamp] = []
        for store in coordinator.persistentStores {
            guard let url = store.url, url.isFileURL, url.path != "/dev/null",
                  FileManager.default.fileExists(atPath: url.path) else { return nil }
            var files: [String: Content.FileStamp] = [:]
            for suffix in ["", "-wal"] {
                let path = url.path + suffix
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { continue }
                let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
                files[suffix] = Content.FileStamp(modified: modified, size: size)
            }
            stores.append(Content.StoreStamp(identifier: store.identifier ?? "", path: url.path, files: files))
        }
        guard !stores.isEmpty else { return nil }
        return Content.Key(
            entityName: entityName, entityVersionHash: entity.versionHash.base64EncodedString(),
            predicate: request.predicate?.predicateFormat,
            sortDescriptors: request.sortDescriptors.map(\.description),
            sectionNameKeyPath: sectionNameKeyPath, includesSubentities: request.includesSubentities,
            fetchLimit: request.fetchLimit, fetchOffset: request.fetchOffset, stores: stores)
    }

    /// The cached sections of `objects`, when the cache is valid for them.
    func sections(for objects: [AnyObject]) -> [FetchedResultsSection]? {
        guard let key, let data = try? Data(contentsOf: Self.file(named: name)),
              let content = try? JSONDecoder().decode(Content.self, from: data),
              content.version == 1, content.key == key, content.objects == Self.uris(objects),
              content.sections.reduce(0, { $0 + $1.numberOfObjects }) == objects.count else { return nil }
        var result: [FetchedResultsSection] = []
        var start = 0
        for section in content.sections {
            let members = Array(objects[start..<start + section.numberOfObjects])
            result.append(FetchedResultsSection(name: section.name, indexTitle: section.indexTitle, members: members))
            start += section.numberOfObjects
        }
        return result
    }

    /// Writes `sections` as the cache (after a fetch, and after tracked changes: "any time the
    /// section and ordering information change, the cache is updated"); removes a cache that
    /// can't describe them.
    func write(_ sections: [FetchedResultsSection]) {
        let file = Self.file(named: name)
        guard let key else {
            try? FileManager.default.removeItem(at: file)
            return
        }
        let content = Content(
            key: key,
            sections: sections.map { Content.Section(name: $0.name, indexTitle: $0.indexTitle, numberOfObjects: $0.numberOfObjects) },
            objects: Self.uris(sections.flatMap(\.members)))
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try JSONEncoder().encode(content).write(to: file, options: .atomic)
        } catch {
            try? FileManager.default.removeItem(at: file)
        }
    }

    /// Deletes the cache named `name`, or every cache when nil.
    static func delete(named name: String?) {
        if let name {
            try? FileManager.default.removeItem(at: file(named: name))
        } else {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static var directory: URL {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("OpenCoreData", isDirectory: true)
            .appendingPathComponent("FetchedResultsControllerCaches", isDirectory: true)
    }

    /// The file of a cache: its name with every character but letters, digits, `-` and `_`
    /// percent-encoded, so any name is one file in the caches folder.
    static func file(named name: String) -> URL {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_")
        let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
        return directory.appendingPathComponent(encoded + ".cache")
    }

    private static func uris(_ objects: [AnyObject]) -> [String] {
        objects.map { ($0 as? NSManagedObject)?.objectID.uriRepresentation().absoluteString ?? "\($0)" }
    }
}
