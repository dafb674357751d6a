import ArgumentParser
import OpenCoreData

/// `coredata store dump STORE --model MODEL --type xml|binary|sqlite`: prints the store's objects
/// as JSON (see ``StoreDump``). The store is opened read-only; dumping never changes the file.
struct StoreDumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print a store's objects as JSON, opening it read-only.")

    @Argument(help: "The store file to read (or a postgres:// URL).")
    var store: String

    @Option(help: "The model of the store (.xcdatamodeld, .xcdatamodel, .momd, .mom or a compiled model folder).")
    var model: String

    @Option(name: .customLong("type"), help: "The store's type: xml, binary, sqlite, postgresql (or a type string).")
    var storeType: String

    func run() throws {
        print(try StoreCommandError.reporting { try dump() })
    }

    /// The JSON text of the dump.
    func dump() throws -> String {
        // The store is read through a copy of the model whose transformable attributes keep their
        // stored bytes, so that the dump decodes each value itself and can say why one can't be.
        let decodingModel = try StoreCommand.loadModel(model)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: StoreDump.keepingStoredBytes(try StoreCommand.loadModel(model)))
        let opened = try coordinator.addPersistentStore(
            ofType: StoreCommand.storeType(storeType), configurationName: nil, at: StoreCommand.storeURL(store),
            options: [NSReadOnlyPersistentStoreOption: true])
        return try StoreDump.json(of: opened, model: coordinator.managedObjectModel, decodingWith: decodingModel)
    }
}

/// The JSON that `coredata store dump` prints. Its shape is stable; scripts depend on it:
/// ```
/// {"entities": {"Run": {"count": 2, "objects": [{"uri": "x-coredata://<UUID>/Run/p1",
///     "attributes": {"date": "2011-09-03T21:41:56Z", "processID": 940},
///     "relationships": {"inClass": "x-coredata://…" , "students": ["…", "…"]}}]}}}
/// ```
/// - Every entity of the store's configuration appears, sorted by name; its entry lists the
///   objects of exactly that entity (not its subentities), by primary key.
/// - `attributes` has every persistent attribute by name (sorted), `null` when nil: numbers and
///   Booleans as JSON numbers and Booleans, dates ISO 8601 in UTC (with fractional seconds only
///   when the date has them), binary data base64, UUIDs, URIs and object IDs as strings.
/// - A transformable attribute shows its decoded value (arrays and sets as lists, dictionaries as
///   objects with sorted keys, `NSNull` as `null`); when its stored bytes can't be decoded, an
///   object `{"undecoded": "<base64>", "note": "<why>"}`.
/// - `relationships` has every relationship by name (sorted): a to-one as its destination's URI
///   or `null`; a to-many as a list of URIs, in order for ordered relationships and sorted (as
///   strings) for unordered ones.
enum StoreDump {
    /// The dump of `store`. With `decodingModel`, `store` was opened with
    /// ``keepingStoredBytes(_:)`` and transformable values are decoded with `decodingModel`'s
    /// attributes (their real value transformers).
    static func json(of store: NSPersistentStore, model: NSManagedObjectModel,
                     decodingWith decodingModel: NSManagedObjectModel? = nil) throws -> String {
        var entries: [(String, JSONValue)] = []
        for entity in entities(of: store, model: model) {
            let snapshots = try objects(of: entity, in: store)
            let decodingAttributes = decodingModel?.entitiesByName[entity.name ?? ""]?.attributesByName ?? [:]
            var objects: [JSONValue] = []
            for snapshot in snapshots {
                objects.append(try object(snapshot, entity: entity, store: store, decodingAttributes: decodingAttributes))
            }
            entries.append((entity.name ?? "", .object([("count", .number(String(objects.count))), ("objects", .array(objects))])))
        }
        return JSONValue.object([("entities", .object(entries))]).rendered
    }

    /// How many objects the store holds, over every entity.
    static func objectCount(of store: NSPersistentStore, model: NSManagedObjectModel) throws -> Int {
        try entities(of: store, model: model).reduce(0) { $0 + (try objects(of: $1, in: store).count) }
    }

    private static func entities(of store: NSPersistentStore, model: NSManagedObjectModel) -> [NSEntityDescription] {
        let entities = model.entities(forConfigurationName: store.configurationName) ?? model.entities
        return entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
    }

    /// The snapshots of exactly `entity`, by primary key.
    private static func objects(of entity: NSEntityDescription, in store: NSPersistentStore) throws -> [ObjectSnapshot] {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity.name ?? "")
        request.entity = entity
        request.includesSubentities = false
        guard case .snapshots(let snapshots) = try store.executeFetch(request) else { return [] }
        return snapshots.filter { $0.objectID.entity.name == entity.name }
            .sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
    }

    private static func object(_ snapshot: ObjectSnapshot, entity: NSEntityDescription, store: NSPersistentStore,
                               decodingAttributes: [String: NSAttributeDescription]) throws -> JSONValue {
        var attributes: [(String, JSONValue)] = []
        for (name, attribute) in entity.attributesByName.sorted(by: { $0.key < $1.key }) where !attribute.isTransient {
            if let decoding = decodingAttributes[name], decoding.attributeType == .transformableAttributeType,
               let data = snapshot[name] as? Data {
                attributes.append((name, transformable(data, decoding)))
            } else {
                attributes.append((name, value(snapshot[name])))
            }
        }
        var relationships: [(String, JSONValue)] = []
        for (name, relationship) in entity.relationshipsByName.sorted(by: { $0.key < $1.key }) where !relationship.isTransient {
            if relationship.isToMany {
                let ids = try snapshot.toMany[name] ?? store.relatedObjectIDs(for: relationship, of: snapshot.objectID)
                var uris = ids.map { $0.uriRepresentation().absoluteString }
                if !relationship.isOrdered { uris.sort() }
                relationships.append((name, .array(uris.map(JSONValue.string))))
            } else if let id = snapshot[name] as? NSManagedObjectID {
                relationships.append((name, .string(id.uriRepresentation().absoluteString)))
            } else {
                relationships.append((name, .null))
            }
        }
        return .object([("uri", .string(snapshot.objectID.uriRepresentation().absoluteString)),
                        ("attributes", .object(attributes)), ("relationships", .object(relationships))])
    }

    /// The name of the transformer ``keepingStoredBytes(_:)`` sets.
    static let storedBytesTransformerName = NSValueTransformerName("OpenCoreData.coredata.StoreDump.StoredBytes")

    /// `model` with every transformable attribute's value transformer replaced by one that keeps
    /// the stored bytes as they are (registered under ``storedBytesTransformerName``).
    static func keepingStoredBytes(_ model: NSManagedObjectModel) -> NSManagedObjectModel {
        ValueTransformer.setValueTransformer(StoredBytesTransformer(), forName: storedBytesTransformerName)
        for entity in model.entities {
            for attribute in entity.attributesByName.values where attribute.attributeType == .transformableAttributeType {
                attribute.valueTransformerName = storedBytesTransformerName.rawValue
            }
        }
        return model
    }

    /// A transformable attribute's stored bytes as JSON: the decoded value, or the bytes (base64)
    /// with a note saying why they can't be decoded.
    static func transformable(_ data: Data, _ attribute: NSAttributeDescription) -> JSONValue {
        do {
            return value(try attribute.transformableValue(fromStoredData: data))
        } catch {
            return .object([("undecoded", .string(data.base64EncodedString())), ("note", .string(String(describing: error)))])
        }
    }

    /// An attribute value as JSON: ``ModelInspection/value(_:)``, with dates keeping their
    /// fractional seconds, object IDs as URIs, and collections (transformable values) as lists
    /// and objects.
    static func value(_ value: Any?) -> JSONValue {
        switch value {
        case let dictionary as [String: Any]:
            return .object(dictionary.sorted { $0.key < $1.key }.map { ($0.key, Self.value($0.value)) })
        case let dictionary as [AnyHashable: Any]:
            return .object(dictionary.map { ("\($0.key)", Self.value($0.value)) }.sorted { $0.0 < $1.0 })
        case let set as Set<AnyHashable>:
            return .array(set.map { Self.value($0.base) }.sorted { $0.rendered < $1.rendered })
        case let ordered as NSOrderedSet:
            return .array(ordered.array.map { Self.value($0) })
        case let array as [Any]:
            return .array(array.map { Self.value($0) })
        case let date as Date:
            let formatter = ISO8601DateFormatter()
            if date.timeIntervalSinceReferenceDate.rounded(.down) != date.timeIntervalSinceReferenceDate {
                formatter.formatOptions.insert(.withFractionalSeconds)
            }
            return .string(formatter.string(from: date))
        case let id as NSManagedObjectID:
            return .string(id.uriRepresentation().absoluteString)
        case is NSNull:
            return .null
        default:
            return ModelInspection.value(value)
        }
    }
}

/// Keeps a transformable attribute's stored bytes as they are, for ``StoreDump``.
private final class StoredBytesTransformer: ValueTransformer {
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? { value as? Data }
}
