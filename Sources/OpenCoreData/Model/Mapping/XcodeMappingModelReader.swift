import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the `xcmapping.xml` file of an Xcode `.xcmappingmodel` folder: a Core Data XML store
/// document (`<database>`, `<object type="XDDEVENTITYMAPPING" id="z1">` with `<attribute>`s and
/// `<relationship idrefs="…">`s) holding one `XDDEVMAPPINGMODEL`, its `XDDEVENTITYMAPPING`s and
/// their `XDDEVATTRIBUTEMAPPING`s and `XDDEVRELATIONSHIPMAPPING`s.
///
/// The file names the entities and properties, and holds only the expressions a developer typed
/// (`valueexpressiondata`, an archived `NSExpression`); the rest Xcode's mapping compiler fills
/// in, and so does this reader, as the compiled `.cdm` shows:
/// - mapping names `SourceToDestination` (an add mapping: the destination's name; a remove
///   mapping: the source's name), in the order of `mappingnumber`;
/// - the type: `Undefined` becomes custom when a policy class is named, else add (no source),
///   remove (no destination) or copy;
/// - the source expression: a `FETCH` of every instance of the source entity;
/// - a property mapping without an expression whose source entity has a property of the same
///   name: `$source.name` for an attribute, the `destinationInstances…` function for a
///   relationship (see ``MappingExpressions``); else no expression;
/// - entity version hashes from the source and destination models.
///
/// The file does not carry the models in a form Core Data can read (it embeds Xcode's own
/// `XDPMModel` archives, not read here), but names them (`sourcemodelpath`,
/// `destinationmodelpath`, relative to the Xcode project): ``modelURL(forPath:near:)`` looks for
/// them beside the mapping model. Without models, hashes stay `nil` and relationship
/// expressions are left out; ``NSMappingModel`` then completes the mapping from the models it
/// is matched against.
struct XcodeMappingModelReader {
    /// The `xcmapping.xml` file, for error messages.
    let file: URL

    /// The parts of the file, before the models are known.
    struct Document {
        var sourceModelPath: String?
        var destinationModelPath: String?
        var entityMappings: [EntityRecord]
    }

    struct EntityRecord {
        var number: Int
        var sourceName: String?
        var destinationName: String?
        var typeName: String?
        var policyClassName: String?
        var sourceExpression: NSExpression?
        var attributes: [PropertyRecord]
        var relationships: [PropertyRecord]
    }

    struct PropertyRecord {
        var name: String
        var expression: NSExpression?
    }

    // MARK: Parsing

    func parse(_ data: Data) throws -> Document {
        let document: XMLDocument
        do {
            document = try XMLDocumentInput.document(from: data)
        } catch {
            throw ManagedObjectModelError(.malformedXML, error.description, file: file)
        }
        guard let root = document.rootElement(), root.name == "database" else {
            let name = document.rootElement()?.name ?? ""
            throw ManagedObjectModelError(.malformedXML, "the root element is <\(name)>, not <database>", file: file, element: name)
        }
        var objects: [String: XMLElement] = [:]
        var mappingModels: [XMLElement] = []
        for object in root.childElements(named: "object") {
            guard let id = object.string("id"), !id.isEmpty else {
                throw ManagedObjectModelError(.malformedXML, "an <object> has no id", file: file,
                                              element: "object of type \(object.string("type") ?? "?")")
            }
            objects[id] = object
            if object.string("type") == "XDDEVMAPPINGMODEL" { mappingModels.append(object) }
        }
        guard mappingModels.count == 1, let modelObject = mappingModels.first else {
            throw ManagedObjectModelError(.malformedXML, "expected one XDDEVMAPPINGMODEL object, found \(mappingModels.count)",
                                          file: file, element: "database")
        }
        var result = Document(sourceModelPath: attributes(of: modelObject)["sourcemodelpath"]?.stringValue,
                              destinationModelPath: attributes(of: modelObject)["destinationmodelpath"]?.stringValue,
                              entityMappings: [])
        for (index, entityObject) in try related(modelObject, "entitymappings", in: objects, element: "mapping model").enumerated() {
            result.entityMappings.append(try entityRecord(entityObject, index: index, objects: objects))
        }
        result.entityMappings.sort { $0.number < $1.number }
        return result
    }

    private func entityRecord(_ object: XMLElement, index: Int, objects: [String: XMLElement]) throws -> EntityRecord {
        let values = attributes(of: object)
        let source = nonEmpty(values["sourcename"]?.stringValue), destination = nonEmpty(values["destinationname"]?.stringValue)
        let element = "entity mapping \(source ?? "-") -> \(destination ?? "-") (object \(object.string("id") ?? "?"))"
        guard object.string("type") == "XDDEVENTITYMAPPING" else {
            throw ManagedObjectModelError(.malformedXML, "expected an XDDEVENTITYMAPPING, found \(object.string("type") ?? "no type")",
                                          file: file, element: element)
        }
        var record = EntityRecord(number: values["mappingnumber"]?.stringValue.flatMap { Int($0) } ?? index,
                                  sourceName: source, destinationName: destination,
                                  typeName: nonEmpty(values["mappingtypename"]?.stringValue),
                                  policyClassName: nonEmpty(values["migrationpolicyclassname"]?.stringValue),
                                  sourceExpression: nil, attributes: [], relationships: [])
        if let data = values["sourceexpressiondata"] { record.sourceExpression = try expression(data, element: element) }
        for (key, kind) in [("attributemappings", "XDDEVATTRIBUTEMAPPING"), ("relationshipmappings", "XDDEVRELATIONSHIPMAPPING")] {
            for property in try related(object, key, in: objects, element: element) {
                let propertyValues = attributes(of: property)
                let name = propertyValues["name"]?.stringValue ?? ""
                let propertyElement = "property mapping '\(name)' of \(element)"
                guard property.string("type") == kind, !name.isEmpty else {
                    throw ManagedObjectModelError(.malformedXML, "expected a named \(kind)", file: file, element: propertyElement)
                }
                let value = try propertyValues["valueexpressiondata"].map { try expression($0, element: propertyElement) }
                let entry = PropertyRecord(name: name, expression: value)
                if key == "attributemappings" { record.attributes.append(entry) } else { record.relationships.append(entry) }
            }
        }
        return record
    }

    /// The `<attribute name="…">` children of an object, by name.
    private func attributes(of object: XMLElement) -> [String: XMLElement] {
        Dictionary(object.childElements(named: "attribute").compactMap { element in element.string("name").map { ($0, element) } },
                   uniquingKeysWith: { first, _ in first })
    }

    /// The objects a `<relationship name="key" idrefs="z1 z2">` of `object` refers to.
    private func related(_ object: XMLElement, _ key: String, in objects: [String: XMLElement], element: String) throws -> [XMLElement] {
        guard let relationship = object.childElements(named: "relationship").first(where: { $0.string("name") == key }) else { return [] }
        let ids = (relationship.string("idrefs") ?? "").split(separator: " ").map(String.init)
        return try ids.map { id in
            guard let target = objects[id] else {
                throw ManagedObjectModelError(.missingReference, "the relationship '\(key)' refers to object '\(id)', which the file does not hold",
                                              file: file, element: element)
            }
            return target
        }
    }

    /// An archived `NSExpression` in a `type="binary"` attribute (base64).
    private func expression(_ attribute: XMLElement, element: String) throws -> NSExpression {
        guard let data = Data(base64Encoded: attribute.stringValue ?? "", options: .ignoreUnknownCharacters) else {
            throw ManagedObjectModelError(.malformedXML, "the expression data is not base64", file: file, element: element)
        }
        let root: KeyedArchive.Node
        do {
            root = try KeyedArchive(data: data, file: file).topNode()
        } catch let error as KeyedArchiveError {
            throw ManagedObjectModelError(.invalidCompiledModel, "the expression data is not an archived expression: \(error)",
                                          file: file, element: element)
        }
        return try AppleArchivedPredicate(file: file, element: element).expression(root)
    }

    private func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    // MARK: Building

    /// The mapping model of `document`, completed from the models (either may be `nil`).
    static func mappingModel(_ document: Document, source: NSManagedObjectModel?, destination: NSManagedObjectModel?) -> NSMappingModel {
        let names = Dictionary(document.entityMappings.compactMap { record -> (String, String)? in
            guard let destinationName = record.destinationName else { return nil }
            return (destinationName, NSMappingModel.entityMappingName(source: record.sourceName, destination: destinationName))
        }, uniquingKeysWith: { first, _ in first })
        let model = NSMappingModel()
        model.entityMappings = document.entityMappings.map { record in
            let mapping = NSEntityMapping()
            mapping.name = NSMappingModel.entityMappingName(source: record.sourceName, destination: record.destinationName)
            mapping.sourceEntityName = record.sourceName
            mapping.destinationEntityName = record.destinationName
            mapping.entityMigrationPolicyClassName = record.policyClassName
            mapping.mappingType = mappingType(record)
            let sourceEntity = record.sourceName.flatMap { source?.entitiesByName[$0] }
            let destinationEntity = record.destinationName.flatMap { destination?.entitiesByName[$0] }
            mapping.sourceEntityVersionHash = sourceEntity?.versionHash
            mapping.destinationEntityVersionHash = destinationEntity?.versionHash
            if let sourceName = record.sourceName, record.destinationName != nil {
                mapping.sourceExpression = record.sourceExpression ?? MappingExpressions.sourceFetch(entityName: sourceName)
            }
            guard record.destinationName != nil else { return mapping }
            mapping.attributeMappings = record.attributes.sorted { $0.name < $1.name }.map { attribute in
                var value = attribute.expression
                if value == nil, record.sourceName != nil, source == nil || sourceEntity?.propertiesByName[attribute.name] is NSAttributeDescription {
                    value = MappingExpressions.sourceValue(attribute.name)
                }
                return NSPropertyMapping(name: attribute.name, valueExpression: value)
            }
            mapping.relationshipMappings = record.relationships.sorted { $0.name < $1.name }.map { relationship in
                var value = relationship.expression
                if value == nil, sourceEntity?.relationshipsByName[relationship.name] != nil,
                   let target = destinationEntity?.relationshipsByName[relationship.name]?.destinationEntity {
                    if target.subentities.isEmpty, let name = target.name, let mappingName = names[name] {
                        value = MappingExpressions.destinationInstances(entityMapping: mappingName, sourceRelationship: relationship.name)
                    } else {
                        value = MappingExpressions.destinationInstances(sourceRelationship: relationship.name)
                    }
                }
                return NSPropertyMapping(name: relationship.name, valueExpression: value)
            }
            return mapping
        }
        return model
    }

    /// Xcode's `mappingtypename`; `Undefined` (what Xcode writes by default) is decided as the
    /// mapping compiler decides it.
    private static func mappingType(_ record: EntityRecord) -> NSEntityMappingType {
        switch record.typeName?.lowercased().replacingOccurrences(of: "entitymappingtype", with: "") {
        case "custom": return .customEntityMappingType
        case "add": return .addEntityMappingType
        case "remove": return .removeEntityMappingType
        case "copy": return .copyEntityMappingType
        case "transform": return .transformEntityMappingType
        default:
            if let policy = record.policyClassName, !policy.isEmpty { return .customEntityMappingType }
            if record.sourceName == nil { return .addEntityMappingType }
            if record.destinationName == nil { return .removeEntityMappingType }
            return .copyEntityMappingType
        }
    }

    // MARK: Models

    /// The model version a `sourcemodelpath`/`destinationmodelpath` names, looked for beside the
    /// mapping model: under each of the mapping model's ancestor folders (up to four levels up),
    /// the path and its shorter tails (`Tests/M.xcdatamodeld/M2.xcdatamodel`, then
    /// `M.xcdatamodeld/M2.xcdatamodel`, then `M2.xcdatamodel`).
    static func modelURL(forPath path: String, near mappingModel: URL) -> URL? {
        let components = path.split(separator: "/").map(String.init).filter { !$0.isEmpty && $0 != "." }
        guard !components.isEmpty else { return nil }
        var folder = mappingModel.deletingLastPathComponent()
        for _ in 0..<5 {
            for start in components.indices {
                let candidate = components[start...].reduce(folder) { $0.appendingPathComponent($1) }
                if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        return nil
    }
}
