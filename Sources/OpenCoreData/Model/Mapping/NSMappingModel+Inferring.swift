import Foundation

extension NSMappingModel {
    /// The mapping model Core Data infers between two models for a lightweight migration.
    ///
    /// Entities and properties are matched as `ModelMatching` describes (renaming identifiers,
    /// then names for entities; see there for the chained-rename caveat Apple shares). The result:
    /// - one entity mapping per destination entity, in the destination model's order, then one
    ///   per removed source entity. A matched pair is named `SourceToDestination` and is of type
    ///   `copyEntityMappingType` when the two entities' version hashes are equal, else
    ///   `transformEntityMappingType`; a new entity gets an `addEntityMappingType` mapping named
    ///   after it, a removed one a `removeEntityMappingType` mapping named after it (the names
    ///   Xcode's mapping model compiler gives add mappings);
    /// - source and destination entity version hashes from the two models;
    /// - a source expression `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:" , "Source", "TRUEPREDICATE"), $manager.sourceContext, NO)`;
    /// - attribute mappings `$source.oldName`, relationship mappings
    ///   `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:" , "XToY", $source.oldName)`
    ///   (the `destinationInstancesForSourceRelationshipNamed:` form when the destination entity
    ///   has subentities), and a `nil` value expression for a new property, which then takes its
    ///   default value. Mappings are sorted by property name, as Xcode compiles them.
    ///
    /// Throws `NSInferredMappingModelError` (134190) naming the entity and property when the
    /// change cannot be inferred (`ModelMatching` lists the cases).
    public class func inferredMappingModel(forSourceModel sourceModel: NSManagedObjectModel,
                                         destinationModel: NSManagedObjectModel) throws -> NSMappingModel {
        let matching = try ModelMatching(source: sourceModel, destination: destinationModel)
        let mappingNames = Dictionary(matching.entities.compactMap { match -> (String, String)? in
            guard let destination = match.destination?.name else { return nil }
            return (destination, entityMappingName(source: match.source?.name, destination: destination))
        }, uniquingKeysWith: { first, _ in first })

        let model = NSMappingModel()
        model.entityMappings = matching.entities.map { match in
            let mapping = NSEntityMapping()
            mapping.name = entityMappingName(source: match.source?.name, destination: match.destination?.name)
            mapping.sourceEntityName = match.source?.name
            mapping.destinationEntityName = match.destination?.name
            mapping.sourceEntityVersionHash = match.source?.versionHash
            mapping.destinationEntityVersionHash = match.destination?.versionHash
            switch (match.source, match.destination) {
            case (let source?, let destination?):
                mapping.mappingType = source.versionHash == destination.versionHash ? .copyEntityMappingType : .transformEntityMappingType
            case (nil, _?):
                mapping.mappingType = .addEntityMappingType
            default:
                mapping.mappingType = .removeEntityMappingType
            }
            if let source = match.source?.name, match.destination != nil {
                mapping.sourceExpression = MappingExpressions.sourceFetch(entityName: source)
            }
            guard match.destination != nil else { return mapping }
            var attributes: [NSPropertyMapping] = []
            var relationships: [NSPropertyMapping] = []
            for property in match.properties.sorted(by: { $0.destination.name < $1.destination.name }) {
                let name = property.destination.name
                if let relationship = property.destination as? NSRelationshipDescription {
                    relationships.append(NSPropertyMapping(name: name, valueExpression: property.source.map { old in
                        relationshipExpression(relationship, from: old.name, mappingNames: mappingNames)
                    }))
                } else {
                    attributes.append(NSPropertyMapping(name: name, valueExpression: property.source.map {
                        MappingExpressions.sourceValue($0.name)
                    }))
                }
            }
            mapping.attributeMappings = attributes
            mapping.relationshipMappings = relationships
            return mapping
        }
        return model
    }

    /// `SourceToDestination`; an add mapping is named after its destination, a remove mapping
    /// after its source.
    static func entityMappingName(source: String?, destination: String?) -> String {
        switch (source, destination) {
        case (let source?, let destination?): return source + "To" + destination
        case (nil, let destination?): return destination
        case (let source?, nil): return source
        default: return ""
        }
    }

    private static func relationshipExpression(_ relationship: NSRelationshipDescription, from key: String,
                                               mappingNames: [String: String]) -> NSExpression {
        if let destination = relationship.destinationEntity, destination.subentities.isEmpty,
           let name = destination.name, let mapping = mappingNames[name] {
            return MappingExpressions.destinationInstances(entityMapping: mapping, sourceRelationship: key)
        }
        return MappingExpressions.destinationInstances(sourceRelationship: key)
    }
}
