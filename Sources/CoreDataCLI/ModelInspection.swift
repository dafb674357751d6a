import OpenCoreData

/// The JSON that `coredata model inspect` prints. Its shape is stable; scripts depend on it:
/// ```
/// {"entities": [{"name": …, "parent": … or null, "abstract": …, "className": …,
///    "attributes": [{"name", "type", "optional", "transient", "default"}],
///    "relationships": [{"name", "destination", "inverse", "toMany", "ordered", "deleteRule",
///                       "minCount", "maxCount", "optional"}],
///    "fetchedProperties": [{"name", "entity", "predicate"}],
///    "versionHash": "<base64>"}],
///  "fetchRequests": [{"name", "entity", "predicate"}],
///  "configurations": {"Name": ["Entity", …]}}
/// ```
/// Keys appear in this order. Entities and properties are in declaration order, each entity
/// listing only its own properties; fetch requests are sorted by name. Types and delete rules
/// use Xcode's spellings. Defaults are JSON numbers, strings and Booleans; dates are ISO 8601
/// strings, UUIDs and URIs strings, data base64.
enum ModelInspection {
    static func json(for model: NSManagedObjectModel) -> String {
        // Every entity's hash at once: each ancestor is hashed once, not once per descendant.
        let hashes = model.entityVersionHashesByName
        let entities = model.entities.map { entity -> JSONValue in
            let own = entity.properties.filter { $0.entity === entity }
            return .object([
                ("name", .string(entity.name ?? "")),
                ("parent", entity.superentity?.name.map(JSONValue.string) ?? .null),
                ("abstract", .bool(entity.isAbstract)),
                ("className", .string(entity.managedObjectClassName ?? "NSManagedObject")),
                ("attributes", .array(own.compactMap { $0 as? NSAttributeDescription }.map { attribute in
                    .object([
                        ("name", .string(attribute.name)),
                        ("type", .string(attribute.attributeType.xcodeName)),
                        ("optional", .bool(attribute.isOptional)),
                        ("transient", .bool(attribute.isTransient)),
                        ("default", value(attribute.defaultValue)),
                    ])
                })),
                ("relationships", .array(own.compactMap { $0 as? NSRelationshipDescription }.map { relationship in
                    .object([
                        ("name", .string(relationship.name)),
                        ("destination", relationship.destinationEntity?.name.map(JSONValue.string) ?? .null),
                        ("inverse", relationship.inverseRelationship.map { .string($0.name) } ?? .null),
                        ("toMany", .bool(relationship.isToMany)),
                        ("ordered", .bool(relationship.isOrdered)),
                        ("deleteRule", .string(relationship.deleteRule.xcodeName)),
                        ("minCount", .number(String(relationship.minCount))),
                        ("maxCount", .number(String(relationship.maxCount))),
                        ("optional", .bool(relationship.isOptional)),
                    ])
                })),
                ("fetchedProperties", .array(own.compactMap { $0 as? NSFetchedPropertyDescription }.map { fetched in
                    .object([
                        ("name", .string(fetched.name)),
                        ("entity", fetched.fetchRequest?.entityName.map(JSONValue.string) ?? .null),
                        ("predicate", fetched.fetchRequest?.predicate.map { .string($0.predicateFormat) } ?? .null),
                    ])
                })),
                ("versionHash", .string((hashes[entity.name ?? ""] ?? entity.versionHash).base64EncodedString())),
            ])
        }
        let templates = model.fetchRequestTemplatesByName.sorted { $0.key < $1.key }.map { name, request -> JSONValue in
            .object([
                ("name", .string(name)),
                ("entity", request.entityName.map(JSONValue.string) ?? .null),
                ("predicate", request.predicate.map { .string($0.predicateFormat) } ?? .null),
            ])
        }
        let configurations = model.configurations.map { name -> (String, JSONValue) in
            (name, .array((model.entities(forConfigurationName: name) ?? []).compactMap(\.name).map(JSONValue.string)))
        }
        return JSONValue.object([
            ("entities", .array(entities)),
            ("fetchRequests", .array(templates)),
            ("configurations", .object(configurations)),
        ]).rendered
    }

    /// An attribute's default value as JSON.
    static func value(_ value: Any?) -> JSONValue {
        switch value {
        case nil: return .null
        case let bool as Bool: return .bool(bool)
        case let number as Int16: return .number(String(number))
        case let number as Int32: return .number(String(number))
        case let number as Int64: return .number(String(number))
        case let number as Int: return .number(String(number))
        case let number as Double: return number.isFinite ? .number(String(number)) : .string(String(number))
        case let number as Float: return number.isFinite ? .number(String(number)) : .string(String(number))
        case let decimal as Decimal: return .number("\(decimal)")
        case let string as String: return .string(string)
        case let date as Date: return .string(ISO8601DateFormatter().string(from: date))
        case let uuid as UUID: return .string(uuid.uuidString)
        case let url as URL: return .string(url.absoluteString)
        case let data as Data: return .string(data.base64EncodedString())
        case let other?: return .string("\(other)")
        }
    }
}

/// A JSON value whose objects keep their key order, rendered on one line.
enum JSONValue {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    var rendered: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let text): return text
        case .string(let text): return JSONValue.quote(text)
        case .array(let items): return "[" + items.map(\.rendered).joined(separator: ", ") + "]"
        case .object(let pairs):
            return "{" + pairs.map { JSONValue.quote($0.0) + ": " + $0.1.rendered }.joined(separator: ", ") + "}"
        }
    }

    static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case let c where c.value < 0x20: result += String(format: "\\u%04x", c.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
