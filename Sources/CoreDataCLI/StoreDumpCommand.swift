import ArgumentParser
import OpenCoreData

/// `coredata store dump STORE --model MODEL --type xml|binary|sqlite`: prints the store's objects
/// as JSON (see ``StoreDump``). The store is opened read-only; dumping never changes the file.
struct StoreDumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print a store's objects as JSON, opening it read-only.")

    @Argument(help: "The store file to read.")
    var store: String

    @Option(help: "The model of the store (.xcdatamodeld, .xcdatamodel, .momd, .mom or a compiled model folder).")
    var model: String

    @Option(name: .customLong("type"), help: "The store's type: xml, binary, sqlite (or a type string).")
    var storeType: String

    func run() throws {
        print(try StoreCommandError.reporting { try dump() })
    }

    /// The JSON text of the dump.
    func dump() throws -> String {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try StoreCommand.loadModel(model))
        let opened = try coordinator.addPersistentStore(
            ofType: StoreCommand.storeType(storeType), configurationName: nil, at: URL(fileURLWithPath: store),
            options: [NSReadOnlyPersistentStoreOption: true])
        return try StoreDump.json(of: opened, model: coordinator.managedObjectModel)
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
/// - `relationships` has every relationship by name (sorted): a to-one as its destination's URI
///   or `null`; a to-many as a list of URIs, in order for ordered relationships and sorted (as
///   strings) for unordered ones.
enum StoreDump {
    static func json(of store: NSPersistentStore, model: NSManagedObjectModel) throws -> String {
        var entries: [(String, JSONValue)] = []
        for entity in entities(of: store, model: model) {
            let snapshots = try objects(of: entity, in: store)
            var objects: [JSONValue] = []
            for snapshot in snapshots {
                objects.append(try object(snapshot, entity: entity, store: store))
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

    private static func object(_ snapshot: ObjectSnapshot, entity: NSEntityDescription, store: NSPersistentStore) throws -> JSONValue {
        var attributes: [(String, JSONValue)] = []
        for (name, attribute) in entity.attributesByName.sorted(by: { $0.key < $1.key }) where !attribute.isTransient {
            attributes.append((name, value(snapshot.values[name])))
        }
        var relationships: [(String, JSONValue)] = []
        for (name, relationship) in entity.relationshipsByName.sorted(by: { $0.key < $1.key }) where !relationship.isTransient {
            if relationship.isToMany {
                let ids = try snapshot.toMany[name] ?? store.relatedObjectIDs(for: relationship, of: snapshot.objectID)
                var uris = ids.map { $0.uriRepresentation().absoluteString }
                if !relationship.isOrdered { uris.sort() }
                relationships.append((name, .array(uris.map(JSONValue.string))))
            } else if let id = snapshot.values[name] as? NSManagedObjectID {
                relationships.append((name, .string(id.uriRepresentation().absoluteString)))
            } else {
                relationships.append((name, .null))
            }
        }
        return .object([("uri", .string(snapshot.objectID.uriRepresentation().absoluteString)),
                        ("attributes", .object(attributes)), ("relationships", .object(relationships))])
    }

    /// An attribute value as JSON: ``ModelInspection/value(_:)``, with dates keeping their
    /// fractional seconds and object IDs as URIs.
    static func value(_ value: Any?) -> JSONValue {
        switch value {
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
