import Foundation

/// A typed reading of a mapping model of the simple shape an inferred mapping has, for
/// migrations that work on the store directly (SQLite in place) instead of evaluating
/// expressions: which source entity each destination entity comes from, and which source
/// property each destination property takes its value from.
///
/// `init(_:)` gives `nil` when any entity mapping is not of that shape (a custom type or policy
/// class, a source expression other than fetching all instances of the source entity, a value
/// expression other than `$source.key` or the `destinationInstances…` function of
/// ``MappingExpressions``): such a mapping model needs the generic, object-by-object migration.
/// An inferred mapping model (``NSMappingModel/inferredMappingModel(forSourceModel:destinationModel:)``)
/// always has the shape.
///
/// `package`, not internal, so that the mapping-model fuzz target (`OpenCoreDataFuzzing`)
/// can run `init(_:)` on what the readers return.
package struct LightweightPlan: Sendable, Equatable {
    /// What happens to one entity.
    struct Entity: Sendable, Equatable {
        /// The entity mapping's name.
        let mappingName: String
        /// `add`, `remove`, `copy` or `transform`.
        let mappingType: NSEntityMappingType
        /// The source entity; `nil` for an added entity.
        let sourceEntityName: String?
        /// The destination entity; `nil` for a removed entity.
        let destinationEntityName: String?
        let sourceEntityVersionHash: Data?
        let destinationEntityVersionHash: Data?
        /// Destination attribute name → the source attribute it takes its value from, `nil`
        /// for a new attribute (it gets its default value).
        let attributeSources: [String: String?]
        /// Destination relationship name → the source relationship it takes its destinations
        /// from, `nil` for a new relationship (empty).
        let relationshipSources: [String: String?]

        /// The source property of destination property `name`: `.some(nil)` for a new property,
        /// `nil` when the mapping does not list the property.
        func source(ofDestinationProperty name: String) -> String?? {
            attributeSources[name] ?? relationshipSources[name]
        }
    }

    /// The entity mappings in order.
    let entities: [Entity]

    /// The entity step whose destination is `name`.
    func entity(forDestination name: String) -> Entity? {
        entities.first { $0.destinationEntityName == name }
    }

    /// The entity step whose source is `name` (a remove step for a removed entity).
    func entity(forSource name: String) -> Entity? {
        entities.first { $0.sourceEntityName == name }
    }

    /// The plan of `mappingModel`, or `nil` when it is not of the simple inferred shape.
    package init?(_ mappingModel: NSMappingModel) {
        var entities: [Entity] = []
        for mapping in mappingModel.entityMappings ?? [] {
            guard let entity = mapping.lightweightStep else { return nil }
            entities.append(entity)
        }
        self.entities = entities
    }
}

extension NSEntityMapping {
    /// This mapping as a ``LightweightPlan/Entity``, or `nil` when it is not of the simple
    /// inferred shape.
    var lightweightStep: LightweightPlan.Entity? {
        guard let name else { return nil }
        if let policy = entityMigrationPolicyClassName, !policy.isEmpty, policy != "NSEntityMigrationPolicy" { return nil }
        switch mappingType {
        case .addEntityMappingType:
            guard destinationEntityName != nil, sourceExpression == nil else { return nil }
        case .removeEntityMappingType:
            guard sourceEntityName != nil else { return nil }
        case .copyEntityMappingType, .transformEntityMappingType:
            guard let source = sourceEntityName, destinationEntityName != nil else { return nil }
            if let expression = sourceExpression, MappingExpressions.fetchedEntityName(expression) != source { return nil }
        default:
            return nil
        }
        var attributes: [String: String?] = [:]
        for mapping in attributeMappings ?? [] {
            guard let property = mapping.name else { return nil }
            guard let expression = mapping.valueExpression else { attributes[property] = .some(nil); continue }
            guard let key = MappingExpressions.sourceKey(expression) else { return nil }
            attributes[property] = key
        }
        var relationships: [String: String?] = [:]
        for mapping in relationshipMappings ?? [] {
            guard let property = mapping.name else { return nil }
            guard let expression = mapping.valueExpression else { relationships[property] = .some(nil); continue }
            if let key = MappingExpressions.sourceKey(expression) {
                relationships[property] = key
            } else if let source = MappingExpressions.destinationInstancesSource(expression) {
                relationships[property] = source.key
            } else {
                return nil
            }
        }
        let isRemove = mappingType == .removeEntityMappingType
        return LightweightPlan.Entity(mappingName: name, mappingType: mappingType,
                                      sourceEntityName: mappingType == .addEntityMappingType ? nil : sourceEntityName,
                                      destinationEntityName: isRemove ? nil : destinationEntityName,
                                      sourceEntityVersionHash: sourceEntityVersionHash,
                                      destinationEntityVersionHash: destinationEntityVersionHash,
                                      attributeSources: attributes, relationshipSources: relationships)
    }

    /// The source property destination property `name` takes its value from in a mapping of the
    /// simple inferred shape: `.some(nil)` for a new property; `nil` when the property is not
    /// mapped or the mapping is not of that shape (see ``LightweightPlan``).
    func inferredSource(forDestinationProperty name: String) -> String?? {
        lightweightStep?.source(ofDestinationProperty: name)
    }
}
