import Foundation
import OpenCoreData

/// The per-reader bodies of ``FuzzTarget/run(_:)-(Data)``, each through public API only (and
/// the `package` `LightweightPlan`, which migrations build from a loaded mapping model).
enum FuzzReaders {
    /// Format arguments for the specifiers of `format`, in order: a key for `%K`, an integer for
    /// `%d`, `%ld`…, a double for `%f`…, and for `%@` a string, a number, arrays and a date in turn.
    static func formatArguments(for format: String) -> [Any?] {
        let objects: [Any?] = ["Alice", 42, [1, 2, 3], ["a", "b"], Date(timeIntervalSinceReferenceDate: 600_000_000)]
        let keys = ["name", "age", "parent.name", "tags"]
        var arguments: [Any?] = []
        var characters = format.makeIterator()
        while let character = characters.next() {
            guard character == "%" else { continue }
            // Skip length modifiers (`l`, `ll`, `h`, `q`…) to the conversion character.
            while let next = characters.next() {
                if "lhqzjtL".contains(next) { continue }
                switch next {
                case "K": arguments.append(keys[arguments.count % keys.count])
                case "@": arguments.append(objects[arguments.count % objects.count])
                case "d", "D", "i", "u", "U", "o", "O", "x", "X", "c", "C": arguments.append(42)
                case "f", "F", "e", "E", "g", "G", "a", "A": arguments.append(2.5)
                default: break
                }
                break
            }
        }
        return arguments
    }

    /// The object predicates are evaluated against: a dictionary with nested values.
    static func evaluationObject() -> [String: Any] { [
        "name": "Alice", "age": 42, "score": 2.5, "tags": ["swift", "ios"],
        "date": Date(timeIntervalSinceReferenceDate: 600_000_000),
        "parent": ["name": "Bob", "age": 70, "children": [["name": "Alice"]]],
        "items": [["price": 5, "name": "a"], ["price": 20, "name": "b"]],
        "flags": 5, "a": 1, "b": "x", "x": [[0, 1], [2, 3]],
    ] }

    static func predicate(_ data: Data) throws -> FuzzOutcome {
        let format = String(decoding: data, as: UTF8.self)
        let predicate = try NSPredicate(validatingFormat: format, argumentArray: formatArguments(for: format))
        let formatted = predicate.predicateFormat
        // The formatted text must parse back; if it does not, that is a bug but not a crash.
        let reparsed = try? NSPredicate(validatingFormat: formatted, argumentArray: [])
        _ = reparsed?.predicateFormat
        let variables: [String: Any] = ["FIRST_NAME": "A*", "LAST_NAME": "B*", "DATE": Date(), "i": 1]
        let object = evaluationObject()
        _ = try? predicate.evaluateThrowing(with: object, substitutionVariables: variables)
        _ = try? predicate.evaluateThrowing(with: [object, object], substitutionVariables: variables)
        return .accepted(summary: formatted.count)
    }

    static func modelXML(_ data: Data) throws -> FuzzOutcome {
        try withScratchFolder { folder in
            let version = folder.appendingPathComponent("Fuzz.xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try data.write(to: version.appendingPathComponent("contents"))
            return try exercise(NSManagedObjectModel.load(contentsOf: version))
        }
    }

    static func compiledModel(_ data: Data) throws -> FuzzOutcome {
        // Both compiled formats are binary property lists; anything else would go to the
        // `.xcdatamodel` reader, which the `model-xml` target covers.
        guard data.starts(with: Array("bplist".utf8)) else { throw NotForThisTarget() }
        return try withScratchFolder { folder in
            // `load(contentsOf:)` tells our `.ocdmom` and Apple's `.mom` apart by their content.
            let file = folder.appendingPathComponent("Fuzz.mom")
            try data.write(to: file)
            return try exercise(NSManagedObjectModel.load(contentsOf: file))
        }
    }

    static func mappingModel(_ data: Data) throws -> FuzzOutcome {
        try withScratchFolder { folder in
            // `load(contentsOf:)` tells a `.cdm` from an `xcmapping.xml` by the `bplist` prefix.
            let url: URL, file: URL
            if data.starts(with: Array("bplist".utf8)) {
                url = folder.appendingPathComponent("x.cdm")
                file = url
            } else {
                url = folder.appendingPathComponent("M.xcmappingmodel", isDirectory: true)
                file = url.appendingPathComponent("xcmapping.xml")
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            }
            try data.write(to: file)
            let mapping = try NSMappingModel.load(contentsOf: url)
            var count = 0
            for entityMapping in mapping.entityMappings ?? [] {
                _ = entityMapping.description
                _ = entityMapping.sourceExpression?.description
                for property in (entityMapping.attributeMappings ?? []) + (entityMapping.relationshipMappings ?? []) {
                    _ = property.valueExpression?.description
                    count += 1
                }
                count += 1
            }
            _ = mapping.description
            _ = mapping.entityMappingsByName.count
            _ = LightweightPlan(mapping)
            // Fitting reads the file again, completing an `.xcmappingmodel` from the fixture model.
            let model = try FuzzFixtures.model()
            _ = NSMappingModel(fromFolders: [folder], forSourceModel: model, destinationModel: model)
            return .accepted(summary: count)
        }
    }

    /// Reads what a loaded model offers: entities, properties, version hashes, and a round trip
    /// through OpenCoreData's compiled format.
    static func exercise(_ model: NSManagedObjectModel) throws -> FuzzOutcome {
        var count = 0
        for entity in model.entities {
            count += entity.properties.count
            _ = entity.superentity?.name
            _ = entity.subentities.count
            _ = entity.versionHash
            for relationship in entity.relationshipsByName.values {
                _ = relationship.destinationEntity?.name
                _ = relationship.inverseRelationship?.name
            }
        }
        _ = model.entityVersionHashesByName
        _ = model.fetchRequestTemplatesByName.mapValues { $0.predicate?.predicateFormat }
        let compiled = try CompiledModelFormat.fileData(for: model)
        return .accepted(summary: count + compiled.count)
    }

    static func store(_ data: Data, type: String, fileName: String) throws -> FuzzOutcome {
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent(fileName)
            try data.write(to: url)
            _ = try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)
            return try fetchEverything(type: type, at: url)
        }
    }

    static func sqliteStore(_ data: Data) throws -> FuzzOutcome {
        try withScratchFolder { folder in
            let url = folder.appendingPathComponent("store.sqlite")
            try data.write(to: url)
            _ = try? SQLiteStore.entityTable(at: url)
            _ = try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
            return try fetchEverything(type: NSSQLiteStoreType, at: url)
        }
    }

    /// Opens the store read-only with the fixture model and reads every property of every
    /// object of every entity, firing faults and relationships.
    static func fetchEverything(type: String, at url: URL) throws -> FuzzOutcome {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try FuzzFixtures.model())
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url,
                                           options: [NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            var count = 0
            for entity in coordinator.managedObjectModel.entities {
                guard let name = entity.name else { continue }
                let objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: name))
                for object in objects {
                    for key in object.entity.propertiesByName.keys.sorted() {
                        let value = try object.valueThrowing(forKey: key)
                        if let related = value as? Set<NSManagedObject> {
                            count += related.count
                        } else if let related = value as? NSManagedObject {
                            _ = try related.valueThrowing(forKey: "objectID")
                        }
                        _ = String(describing: value)
                    }
                    count += 1
                }
            }
            return FuzzOutcome.accepted(summary: count)
        }
    }

    /// Input that another target covers.
    struct NotForThisTarget: Error, CustomStringConvertible {
        var description: String { "not input for this fuzz target" }
    }

    /// Runs `body` with a fresh empty folder that is removed afterwards.
    static func withScratchFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("OpenCoreDataFuzz-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }
}
