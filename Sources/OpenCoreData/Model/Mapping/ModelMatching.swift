import Foundation

/// Which entities and properties of a source model correspond to which of a destination model,
/// by Core Data's lightweight-migration rules. ``NSMappingModel/inferredMappingModel(forSourceModel:destinationModel:)``
/// builds its entity and property mappings from it.
///
/// Matching, as Apple's:
/// - An entity or property stands for its *canonical name*: its `renamingIdentifier`, or its
///   name when it has none. A destination entity matches the source entity with the same
///   canonical name; a destination entity whose canonical name matches nothing falls back to the
///   source entity of the same name. Properties match by canonical name only, among all the
///   entity's properties (inherited ones included), so properties moved up or down a hierarchy
///   keep their values. Each source entity or property is matched at most once.
/// - So renaming identifiers must name the *original* name: Apple's documentation says to set
///   the renaming identifier to the source's name "unless that property already has a renaming
///   identifier". A chain of renames where each version's identifier names the previous
///   version's name (`color` → `paintColor` with identifier `color` → `hue` with identifier
///   `paintColor`) does not match from the middle version on (the middle's canonical name is
///   `color`, the last's `paintColor`): `hue` is taken as a new property and the value is lost,
///   as it is on Apple's Core Data.
/// - Transient properties and fetched properties are not matched (they hold no stored value).
///
/// What cannot be inferred throws `NSInferredMappingModelError` (134190) naming the entity and
/// property and why: a new non-optional attribute without a default value, an attribute type
/// change Core Data does not convert (only numeric and Boolean types convert among themselves),
/// an attribute that became a relationship or the reverse, a relationship whose destination no
/// longer corresponds, and two entity hierarchies merged into one.
struct ModelMatching {
    /// One destination entity with the source entity it comes from (`nil`: the entity is new),
    /// or a source entity with no destination (`destination` `nil`: the entity is removed).
    struct EntityMatch {
        let source: NSEntityDescription?
        let destination: NSEntityDescription?
        /// For a matched pair: each persistent destination property with the source property
        /// whose value it takes (`nil`: the property is new).
        let properties: [PropertyMatch]
    }

    /// A persistent destination property and the source property it takes its value from.
    struct PropertyMatch {
        let destination: NSPropertyDescription
        let source: NSPropertyDescription?
    }

    /// The destination entities in the destination model's order, then the removed source entities.
    let entities: [EntityMatch]

    /// Matches `source` against `destination`, throwing 134190 when the change cannot be inferred.
    init(source: NSManagedObjectModel, destination: NSManagedObjectModel) throws {
        let sourceEntities = source.entities
        var unmatched = Set(sourceEntities.compactMap(\.name))
        var sourceFor: [String: NSEntityDescription] = [:]
        let destinationEntities = destination.entities
        // Renaming identifiers first, for every destination entity, so that a name fallback
        // never takes a source entity another entity claims by identifier.
        for entity in destinationEntities {
            guard let name = entity.name else { continue }
            let canonical = Self.canonicalName(of: entity)
            if let match = sourceEntities.first(where: { unmatched.contains($0.name ?? "") && Self.canonicalName(of: $0) == canonical }) {
                sourceFor[name] = match
                unmatched.remove(match.name ?? "")
            }
        }
        for entity in destinationEntities {
            guard let name = entity.name, sourceFor[name] == nil, unmatched.contains(name),
                  let match = source.entitiesByName[name] else { continue }
            sourceFor[name] = match
            unmatched.remove(name)
        }

        var matches: [EntityMatch] = []
        for entity in destinationEntities {
            let sourceEntity = entity.name.flatMap { sourceFor[$0] }
            let properties = try Self.matchProperties(of: entity, from: sourceEntity, sourceEntityFor: sourceFor)
            matches.append(EntityMatch(source: sourceEntity, destination: entity, properties: properties))
        }
        for entity in sourceEntities where unmatched.contains(entity.name ?? "") {
            matches.append(EntityMatch(source: entity, destination: nil, properties: []))
        }
        self.entities = matches
        try Self.checkHierarchies(destinationEntities, sourceFor: sourceFor)
    }

    /// The source entity the destination entity `name` comes from.
    func sourceEntity(forDestination name: String) -> NSEntityDescription? {
        entities.first { $0.destination?.name == name }?.source
    }

    /// The destination entity the source entity `name` becomes.
    func destinationEntity(forSource name: String) -> NSEntityDescription? {
        entities.first { $0.source?.name == name }?.destination
    }

    /// An entity's or property's renaming identifier, or its name when it has none.
    static func canonicalName(of entity: NSEntityDescription) -> String {
        nonEmpty(entity.renamingIdentifier) ?? entity.name ?? ""
    }

    static func canonicalName(of property: NSPropertyDescription) -> String {
        nonEmpty(property.renamingIdentifier) ?? property.name
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    /// The properties whose values a store keeps: not transient, not fetched properties.
    static func persistentProperties(of entity: NSEntityDescription) -> [NSPropertyDescription] {
        entity.properties.filter { property in
            !property.isTransient && !(property is NSFetchedPropertyDescription)
                && (property is NSAttributeDescription || property is NSRelationshipDescription)
        }
    }

    // MARK: Properties

    private static func matchProperties(of entity: NSEntityDescription, from sourceEntity: NSEntityDescription?,
                                        sourceEntityFor: [String: NSEntityDescription]) throws -> [PropertyMatch] {
        let entityName = entity.name ?? "?"
        var available = sourceEntity.map(persistentProperties) ?? []
        var result: [PropertyMatch] = []
        for property in persistentProperties(of: entity) {
            let canonical = canonicalName(of: property)
            let match = available.firstIndex { canonicalName(of: $0) == canonical }.map { available.remove(at: $0) }
            switch (property, match) {
            case (let attribute as NSAttributeDescription, nil):
                if !attribute.isOptional && attribute.defaultValue == nil && !(attribute is NSDerivedAttributeDescription) {
                    throw inferenceError(entity: entityName, property: attribute.name,
                        "the new attribute '\(attribute.name)' of entity '\(entityName)' is not optional and has no default value")
                }
            case (let attribute as NSAttributeDescription, let old as NSAttributeDescription):
                guard typesConvert(old.attributeType, attribute.attributeType) else {
                    throw inferenceError(entity: entityName, property: attribute.name,
                        "the attribute '\(attribute.name)' of entity '\(entityName)' changed type from "
                        + "\(old.attributeType.xcodeName) to \(attribute.attributeType.xcodeName): Source and destination attribute types are incompatible")
                }
            case (let relationship as NSRelationshipDescription, let old as NSRelationshipDescription):
                try checkDestination(of: relationship, from: old, entity: entityName, sourceEntityFor: sourceEntityFor)
            case (_, let old?):
                let was = old is NSAttributeDescription ? "an attribute" : "a relationship"
                let now = property is NSAttributeDescription ? "an attribute" : "a relationship"
                throw inferenceError(entity: entityName, property: property.name,
                    "the property '\(property.name)' of entity '\(entityName)' was \(was) ('\(old.name)') and is now \(now)")
            default:
                break
            }
            result.append(PropertyMatch(destination: property, source: match))
        }
        return result
    }

    /// A relationship keeps its values when its source relationship's destination entity becomes
    /// its destination entity (or one of its subentities).
    private static func checkDestination(of relationship: NSRelationshipDescription, from old: NSRelationshipDescription,
                                         entity: String, sourceEntityFor: [String: NSEntityDescription]) throws {
        guard let destination = relationship.destinationEntity, let oldDestination = old.destinationEntity else { return }
        let candidates = [destination] + destination.allSubentities
        let fits = candidates.contains { candidate in
            guard let name = candidate.name, let source = sourceEntityFor[name] else { return false }
            return source.name == oldDestination.name
        }
        guard fits else {
            throw inferenceError(entity: entity, property: relationship.name,
                "the relationship '\(relationship.name)' of entity '\(entity)' now leads to '\(destination.name ?? "?")', "
                + "which does not come from its former destination '\(oldDestination.name ?? "?")'")
        }
    }

    /// The attribute type changes Core Data converts: among the numeric types and Boolean
    /// (stored alike as numbers). Any other change of type cannot be inferred.
    static func typesConvert(_ old: NSAttributeType, _ new: NSAttributeType) -> Bool {
        if old == new { return true }
        let numeric: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
                                             .decimalAttributeType, .doubleAttributeType, .floatAttributeType,
                                             .booleanAttributeType]
        return numeric.contains(old) && numeric.contains(new)
    }

    // MARK: Hierarchies

    /// Two existing entities that share no root entity in the source cannot share one in the
    /// destination (Apple: "you cannot merge entity hierarchies").
    private static func checkHierarchies(_ destinationEntities: [NSEntityDescription],
                                         sourceFor: [String: NSEntityDescription]) throws {
        var sourceRootOfDestinationRoot: [String: (root: String, entity: String)] = [:]
        for entity in destinationEntities {
            guard let name = entity.name, let source = sourceFor[name] else { continue }
            let destinationRoot = root(of: entity).name ?? ""
            let sourceRoot = root(of: source).name ?? ""
            if let seen = sourceRootOfDestinationRoot[destinationRoot], seen.root != sourceRoot {
                throw inferenceError(entity: name, property: nil,
                    "entities '\(seen.entity)' and '\(name)' share the hierarchy of '\(destinationRoot)' in the destination model "
                    + "but not in the source model: entity hierarchies cannot be merged")
            }
            sourceRootOfDestinationRoot[destinationRoot] = (sourceRoot, name)
        }
    }

    private static func root(of entity: NSEntityDescription) -> NSEntityDescription {
        var current = entity
        var seen = Set<ObjectIdentifier>()
        while let parent = current.superentity, seen.insert(ObjectIdentifier(parent)).inserted { current = parent }
        return current
    }

    // MARK: Errors

    /// `NSInferredMappingModelError` (134190). userInfo: `NSLocalizedDescriptionKey`, and (not
    /// Apple's keys) `entity` and `property` naming what could not be mapped.
    static func inferenceError(entity: String, property: String?, _ reason: String) -> NSError {
        var info: [String: Any] = ["entity": entity, NSLocalizedFailureReasonErrorKey: reason]
        if let property { info["property"] = property }
        return CoreDataErrorFactory.error(NSInferredMappingModelError,
                                          description: "Can't infer a mapping model: \(reason)", userInfo: info)
    }
}
