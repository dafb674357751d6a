import Foundation

/// Reads the compiled models Apple's tools write: a `.mom` file (an `NSKeyedArchiver` archive of
/// the model) or a `.momd` folder (one `.mom` per model version plus `VersionInfo.plist`, whose
/// `NSManagedObjectModel_CurrentVersionName` names the current version).
///
/// Read: entities (name, class, abstract, inheritance, user info, renaming identifier, version
/// hash modifier, uniqueness constraints, fetch indexes), attributes (type, default, optional,
/// transient, value transformer, external storage, history preservation, minimum and maximum,
/// validation predicates), derived attributes, relationships (destination, inverse, counts,
/// ordered, delete rule), fetched properties, configurations, fetch request templates (with
/// their archived predicates and sort descriptors) and version identifiers.
///
/// It also reads the copy of the model Core Data keeps in a SQLite store (`Z_MODELCACHE`), a
/// compressed archive written at run time in a slightly different shape
/// (``readModel(fromStoreModelCache:store:)``).
///
/// Not read, because the files hold no such thing or nothing this package models: the optimized
/// `.omo` form, localization (the `.strings` files), Spotlight display names, composite
/// attributes. momc drops the custom class name of transformable attributes, so such an
/// attribute reads back with no ``NSAttributeDescription/attributeValueClassName``.
enum AppleCompiledModelReader {
    /// The current version of a `.momd` folder, or the model in a `.mom` file.
    static func readModel(at url: URL) throws -> NSManagedObjectModel {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ManagedObjectModelError(.unreadableFile, "no such file or folder", file: url)
        }
        if isDirectory.boolValue {
            let info = try versionInfo(ofModelDirectory: url)
            return try readMom(at: try info.url(ofVersion: info.currentVersionName))
        }
        return try readMom(at: url)
    }

    /// Whether `url` looks like Apple's compiled model: a folder holding `VersionInfo.plist` or
    /// `.mom` files, or a binary property list file (keyed archives are binary plists). Cheap: it
    /// decodes nothing; ``readModel(at:)`` says what is wrong with a file that only looks right.
    static func recognizes(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return false }
        if isDirectory.boolValue {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("VersionInfo.plist").path) { return true }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            return names.contains { $0.hasSuffix(".mom") }
        }
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 6)) ?? Data()
        return magic == Data("bplist".utf8)
    }

    /// The `VersionInfo.plist` of a `.momd` folder.
    static func versionInfo(ofModelDirectory url: URL) throws -> AppleModelVersionInfo {
        let plistURL = url.appendingPathComponent("VersionInfo.plist")
        guard let data = try? Data(contentsOf: plistURL) else {
            // A folder with a single `.mom` and no version info is still unambiguous.
            let moms = (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.filter { $0.hasSuffix(".mom") } ?? []
            if moms.count == 1 {
                let name = String(moms[0].dropLast(4))
                return AppleModelVersionInfo(directory: url, currentVersionName: name, versionHashes: [:], versionChecksums: [:])
            }
            throw ManagedObjectModelError(.badCurrentVersion, "the compiled model folder has no readable VersionInfo.plist", file: url)
        }
        guard let plist = try? PropertyListInput.propertyList(from: data) as? [String: Any] else {
            throw ManagedObjectModelError(.badCurrentVersion, "VersionInfo.plist is not a property list dictionary", file: plistURL)
        }
        guard let current = plist["NSManagedObjectModel_CurrentVersionName"] as? String, !current.isEmpty else {
            throw ManagedObjectModelError(.badCurrentVersion, "VersionInfo.plist names no NSManagedObjectModel_CurrentVersionName",
                                          file: plistURL)
        }
        var hashes: [String: [String: Data]] = [:]
        for (version, value) in plist["NSManagedObjectModel_VersionHashes"] as? [String: Any] ?? [:] {
            hashes[version] = (value as? [String: Any])?.compactMapValues { $0 as? Data }
        }
        var checksums: [String: Data] = [:]
        for (version, value) in plist["NSManagedObjectModel_VersionChecksums"] as? [String: Any] ?? [:] {
            if let text = value as? String, let data = Data(base64Encoded: text) { checksums[version] = data }
        }
        return AppleModelVersionInfo(directory: url, currentVersionName: current, versionHashes: hashes, versionChecksums: checksums)
    }

    /// The model archived in one `.mom` file.
    static func readMom(at url: URL) throws -> NSManagedObjectModel {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ManagedObjectModelError(.unreadableFile, "the file cannot be read", file: url)
        }
        return try readArchivedModel(data, file: url)
    }

    /// The model Core Data caches in a SQLite store (`Z_MODELCACHE.Z_CONTENT`): a raw-DEFLATE
    /// compressed keyed archive, written at run time. `store` names the store file in errors.
    static func readModel(fromStoreModelCache content: Data, store: URL) throws -> NSManagedObjectModel {
        let archive: Data
        do {
            archive = try RawInflate.inflate(content)
        } catch let failure as RawInflate.Failure {
            throw ManagedObjectModelError(.invalidCompiledModel, "the store's model cache cannot be decompressed: \(failure)",
                                          file: store, element: "Z_MODELCACHE")
        }
        return try readArchivedModel(archive, file: store)
    }

    /// The model in a keyed archive whose root object is an `NSManagedObjectModel`.
    static func readArchivedModel(_ data: Data, file url: URL) throws -> NSManagedObjectModel {
        let root = try archivedRoot(of: data, file: url, className: "NSManagedObjectModel", what: "compiled Core Data model")
        return try MomDecoder(file: url).model(root)
    }

    /// The root object of the keyed archive `data` (a `.mom`, `.cdm`, …), which must be of class
    /// `className`; a ``ManagedObjectModelError`` naming `file` and calling it a `what` otherwise.
    static func archivedRoot(of data: Data, file url: URL, className: String, what: String) throws -> KeyedArchive.Node {
        let root: KeyedArchive.Node
        do {
            root = try KeyedArchive(data: data, file: url).topNode()
        } catch let error as KeyedArchiveError {
            throw ManagedObjectModelError(.invalidCompiledModel, "not a \(what): \(error)", file: url)
        }
        guard root.classNames.contains(className) else {
            throw ManagedObjectModelError(.invalidCompiledModel,
                "the archive holds \(root.className ?? "no object"), not an \(className)", file: url, element: "root")
        }
        return root
    }
}

/// The contents of a `.momd` folder's `VersionInfo.plist`.
struct AppleModelVersionInfo: Sendable {
    /// The `.momd` folder.
    let directory: URL
    /// `NSManagedObjectModel_CurrentVersionName`: the version `init(contentsOf:)` loads.
    let currentVersionName: String
    /// `NSManagedObjectModel_VersionHashes`: version name → entity name → hash, as momc computed.
    let versionHashes: [String: [String: Data]]
    /// `NSManagedObjectModel_VersionChecksums`, decoded from base64: version name → checksum.
    let versionChecksums: [String: Data]

    /// The `.mom` file of `version`.
    func url(ofVersion version: String) throws -> URL {
        let url = directory.appendingPathComponent(version + ".mom")
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ManagedObjectModelError(.badCurrentVersion, "the model version '\(version)' has no .mom file", file: directory)
        }
        return url
    }
}

/// Turns the archived object graph of one `.mom` into model descriptions.
struct MomDecoder {
    let file: URL

    func model(_ root: KeyedArchive.Node) throws -> NSManagedObjectModel {
        guard let entityEntries = root["NSEntities"]?.stringKeyedEntries else {
            throw ManagedObjectModelError(.invalidCompiledModel, "missing or malformed NSEntities", file: file, element: "model")
        }
        // Pass 1: every entity with its own settings, and its decoded properties.
        var entities: [(node: KeyedArchive.Node, entity: NSEntityDescription, properties: [NSPropertyDescription])] = []
        for (key, node) in entityEntries {
            let (entity, properties) = try entity(node, key: key)
            entities.append((node, entity, properties))
        }
        entities.sort { VersionHasher.precedes($0.entity.name ?? "", $1.entity.name ?? "") }
        let byName = Dictionary(entities.map { ($0.entity.name ?? "", $0.entity) }, uniquingKeysWith: { first, _ in first })

        // Pass 2: the inheritance tree, from each entity's superentity and subentities.
        var parentName: [String: String] = [:]
        for (node, entity, _) in entities {
            let name = entity.name ?? ""
            let element = "entity '\(name)'"
            for sub in try node["NSSubentities"].map({ try names(ofEntities: $0, element: element) }) ?? [] {
                guard byName[sub] != nil else { throw missingEntity(sub, element: element) }
                parentName[sub] = name
            }
            if let superName = node["NSSuperentity"]?["NSEntityName"]?.string {
                guard byName[superName] != nil else { throw missingEntity(superName, element: element) }
                parentName[name] = superName
            }
        }

        // Pass 3: each entity's own properties. Archives Core Data writes at run time (a store's
        // model cache) repeat inherited properties in every subentity; those are dropped.
        for (_, entity, properties) in entities {
            var inherited = Set<String>()
            var ancestor = parentName[entity.name ?? ""]
            var seen = Set<String>()
            while let current = ancestor, seen.insert(current).inserted {
                inherited.formUnion(entities.first { $0.entity.name == current }?.properties.map(\.name) ?? [])
                ancestor = parentName[current]
            }
            let own = properties.filter { !inherited.contains($0.name) }
            do { try entity.setProperties(own) } catch let error as ManagedObjectModelError {
                throw ManagedObjectModelError(error.kind, error.message, file: file, element: error.element ?? "entity '\(entity.name ?? "?")'")
            }
        }
        for (_, entity, _) in entities {
            let subentities = entities.map(\.entity).filter { parentName[$0.name ?? ""] == entity.name }
            guard !subentities.isEmpty else { continue }
            do { try entity.setSubentities(subentities) } catch let error as ManagedObjectModelError {
                throw ManagedObjectModelError(error.kind, error.message, file: file, element: error.element ?? "entity '\(entity.name ?? "?")'")
            }
        }

        let model = NSManagedObjectModel()
        model.entities = entities.map(\.entity)

        // Relationships name their destination and inverse; check that both exist.
        for (_, entity, _) in entities {
            for case let relationship as NSRelationshipDescription in entity.declaredProperties {
                let element = "relationship '\(relationship.name)' of entity '\(entity.name ?? "?")'"
                guard let destinationName = relationship.destinationEntityName else { continue }
                guard let destination = byName[destinationName] else { throw missingEntity(destinationName, element: element) }
                // Tolerant: an inverse declared on a subentity of the destination is accepted too.
                if let inverse = relationship.inverseName,
                   !([destination] + destination.allSubentities).contains(where: { $0.relationshipsByName[inverse] != nil }) {
                    throw ManagedObjectModelError(.missingReference,
                        "the inverse relationship '\(inverse)' is not a relationship of entity '\(destinationName)'",
                        file: file, element: element)
                }
            }
        }

        if let configurations = root["NSConfigurations"]?.stringKeyedEntries {
            for (name, members) in configurations.sorted(by: { VersionHasher.precedes($0.key, $1.key) }) {
                let element = "configuration '\(name)'"
                let memberNames = try self.names(ofEntities: members, element: element).sorted(by: VersionHasher.precedes)
                let memberEntities = try memberNames.map { member in
                    guard let entity = byName[member] else { throw missingEntity(member, element: element) }
                    return entity
                }
                model.setEntities(memberEntities, forConfigurationName: name)
            }
        }

        if let templates = root["NSFetchRequestTemplates"]?.stringKeyedEntries {
            for (name, node) in templates {
                let request = try fetchRequest(node, element: "fetch request '\(name)'", entities: byName)
                model.setFetchRequestTemplate(request, forName: name)
            }
        }

        if let identifiers = root["NSVersionIdentifiers"]?.elements {
            model.versionIdentifiers = Set(identifiers.compactMap { node -> AnyHashable? in
                if let string = node.string { return string }
                if let number = node.integer { return Int(number) }
                return nil
            })
        }
        return model
    }

    // MARK: Entities

    /// An entity with its settings and indexes, and its archived properties (not yet attached).
    private func entity(_ node: KeyedArchive.Node, key: String) throws -> (NSEntityDescription, [NSPropertyDescription]) {
        let name = node["NSEntityName"]?.string ?? key
        let element = "entity '\(name)'"
        guard node.classNames.contains("NSEntityDescription") else {
            throw ManagedObjectModelError(.invalidCompiledModel, "expected an NSEntityDescription, found \(node.className ?? "no object")",
                                          file: file, element: element)
        }
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = node["NSClassNameForEntity"]?.string ?? "NSManagedObject"
        entity.isAbstract = node["NSIsAbstract"]?.bool ?? false
        entity.userInfo = MomValues.userInfo(node["NSUserInfo"])
        if let renaming = node["NSRenamingIdentifier"]?.string, renaming != name { entity.renamingIdentifier = renaming }
        entity.versionHashModifier = MomValues.nonEmpty(node["NSVersionHashModifier"]?.string)
        if let tuples = node["NSUniqueTuples"]?.elements {
            entity.uniquenessConstraints = tuples.map { tuple in
                (tuple.elements ?? []).compactMap { $0.string ?? $0["NSPropertyName"]?.string } as [Any]
            }.filter { !$0.isEmpty }
        }

        let propertyDecoder = MomPropertyDecoder(file: file, entityName: name)
        var properties: [NSPropertyDescription] = []
        for (key, propertyNode) in node["NSProperties"]?.stringKeyedEntries ?? [] {
            properties.append(try propertyDecoder.property(propertyNode, key: key, fetchRequest: { node, element, entityName in
                try fetchRequest(node, element: element, entities: [:], entityName: entityName)
            }))
        }
        // Xcode writes attributes, then relationships, then fetched properties, each by name;
        // the archive keeps them in a dictionary, so restore that order.
        properties.sort { a, b in
            let (ra, rb) = (rank(a), rank(b))
            return ra != rb ? ra < rb : VersionHasher.precedes(a.name, b.name)
        }
        if let indexes = node["NSFetchIndexDescriptions"]?.elements {
            entity.indexes = try indexes.map { try fetchIndex($0, entityName: name) }
        }
        return (entity, properties)
    }

    private func rank(_ property: NSPropertyDescription) -> Int {
        switch property {
        case is NSAttributeDescription: return 0
        case is NSRelationshipDescription: return 1
        default: return 2
        }
    }

    private func fetchIndex(_ node: KeyedArchive.Node, entityName: String) throws -> NSFetchIndexDescription {
        guard let name = node["NSIndexName"]?.string else {
            throw ManagedObjectModelError(.invalidCompiledModel, "a fetch index has no NSIndexName", file: file,
                                          element: "entity '\(entityName)'")
        }
        let element = "fetch index '\(name)' of entity '\(entityName)'"
        let elements = try (node["NSIndexElements"]?.elements ?? []).map { elementNode -> NSFetchIndexElementDescription in
            guard let property = elementNode["NSPropertyName"]?.string ?? elementNode["NSProperty"]?["NSPropertyName"]?.string else {
                throw ManagedObjectModelError(.invalidCompiledModel, "an index element names no property", file: file, element: element)
            }
            let type = NSFetchIndexElementType(rawValue: UInt(clamping: elementNode["NSFetchIndexElementType"]?.integer ?? 0)) ?? .binary
            return NSFetchIndexElementDescription(propertyName: property, collationType: type,
                                                  ascending: elementNode["NSAscending"]?.bool ?? true)
        }
        let index = NSFetchIndexDescription(name: name, elements: elements)
        if let predicate = node["NSPartialIndexPredicate"] {
            index.partialIndexPredicate = try AppleArchivedPredicate(file: file, element: element).predicate(predicate)
        }
        return index
    }

    // MARK: Fetch requests

    /// A fetch request. Its entity is archived as the entity object or its name; a fetched
    /// property also names it separately (`_NSFetchRequestEntityName`), passed as `entityName`.
    func fetchRequest(_ node: KeyedArchive.Node, element: String, entities: [String: NSEntityDescription],
                      entityName fallbackEntityName: String? = nil) throws -> NSFetchRequest<NSFetchRequestResult> {
        let predicates = AppleArchivedPredicate(file: file, element: element)
        let entityName = node["NSEntity"].flatMap { $0.string ?? $0["NSEntityName"]?.string } ?? fallbackEntityName
        guard let entityName else {
            throw ManagedObjectModelError(.invalidCompiledModel, "the fetch request names no entity", file: file, element: element)
        }
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
        if let entity = entities[entityName] { request.entity = entity }
        if let predicate = node["NSPredicate"] { request.predicate = try predicates.predicate(predicate) }
        if let sorts = node["NSSortDescriptors"]?.elements {
            request.sortDescriptors = sorts.compactMap { sort in
                guard let key = sort["NSKey"]?.string else { return nil }
                return NSSortDescriptor(key: key, ascending: sort["NSAscending"]?.bool ?? true)
            }
        }
        request.fetchLimit = Int(node["NSFetchLimit"]?.integer ?? 0)
        request.fetchOffset = Int(node["NSFetchOffset"]?.integer ?? 0)
        request.fetchBatchSize = Int(node["NSBatchSize"]?.integer ?? 0)
        if let resultType = node["NSResultType"]?.integer {
            request.resultType = NSFetchRequestResultType(rawValue: UInt(clamping: resultType))
        }
        if node["NSHasFetchRequestFlags"]?.bool == true, let flags = node["NSFetchRequestFlags"]?.integer {
            request.returnsDistinctResults = flags & 0x1 != 0
            request.includesSubentities = flags & 0x2 != 0
            request.includesPropertyValues = flags & 0x4 != 0
            request.returnsObjectsAsFaults = flags & 0x8 != 0
            request.includesPendingChanges = flags & 0x10 != 0
            request.shouldRefreshRefetchedObjects = flags & 0x20 != 0
        }
        request.propertiesToFetch = node["NSValuesToFetch"]?.elements.map(propertyReferences)
        request.propertiesToGroupBy = node["NSValuesToGroupBy"]?.elements.map(propertyReferences)
        if let having = node["NSHavingPredicate"] { request.havingPredicate = try predicates.predicate(having) }
        request.relationshipKeyPathsForPrefetching = node["NSRelationshipKeyPathsForPrefetching"]?.elements?.compactMap(\.string)
        return request
    }

    /// Properties to fetch or group by: names, or archived property descriptions read as names.
    private func propertyReferences(_ nodes: [KeyedArchive.Node]) -> [Any] {
        nodes.compactMap { $0.string ?? $0["NSPropertyName"]?.string }
    }

    // MARK: Helpers

    /// The entity names of an archived collection or dictionary of entities (or of names).
    private func names(ofEntities node: KeyedArchive.Node, element: String) throws -> [String] {
        let members: [KeyedArchive.Node]
        if let entries = node.entries {
            members = entries.map(\.value)
        } else if let elements = node.elements {
            members = elements
        } else {
            throw ManagedObjectModelError(.invalidCompiledModel, "expected a collection of entities", file: file, element: element)
        }
        return try members.map { member in
            guard let name = member.string ?? member["NSEntityName"]?.string else {
                throw ManagedObjectModelError(.invalidCompiledModel, "an entity reference has no name", file: file, element: element)
            }
            return name
        }
    }

    private func missingEntity(_ name: String, element: String) -> ManagedObjectModelError {
        ManagedObjectModelError(.missingReference, "no entity named '\(name)'", file: file, element: element)
    }
}
