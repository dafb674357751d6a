import Foundation

/// A mapping model read as the SQLite store's in-place migration needs it: per destination
/// entity, the one source entity whose rows become its rows; per destination attribute, the
/// source attribute it copies (or none: the default value); per destination relationship, the
/// source relationship whose links it keeps (or none).
///
/// This is the one place that knows the shapes of value expressions; everything else reads the
/// typed view. A mapping it can't read this way is not lightweight-shaped
/// (``SQLiteInPlaceMigrationResult/notApplicable(_:)``) and goes to the migration manager.
///
/// Shapes understood, as Xcode and Apple's inferred mappings write them:
/// - attributes: `$source.name`, a constant, or no expression (the default value);
/// - relationships: `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "XToY", $source.rel)`
///   or `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "rel", $source.rel)`,
///   or no expression (no links);
/// - entity mappings of type copy or transform without a custom policy, whose source expression
///   is absent or fetches every source instance (`TRUEPREDICATE`); add and remove mappings.
struct SQLiteLightweightMappingView {
    /// Where a destination attribute's value comes from.
    enum AttributeSource {
        /// The value of the source instance's attribute of this name.
        case sourceAttribute(String)
        /// A constant (the expression's value).
        case constant(Any?)
        /// The destination attribute's default value.
        case defaultValue
    }

    /// The rows of one source entity becoming rows of one destination entity.
    struct EntityLink {
        let mappingName: String
        let sourceEntity: String
        let destinationEntity: String
        /// By destination attribute name; attributes not listed get their default value.
        let attributes: [String: AttributeSource]
        /// By destination relationship name: the source relationship whose links it keeps.
        /// Relationships not listed start empty.
        let relationships: [String: String]
    }

    let links: [EntityLink]

    /// The typed view of `mapping`, or why it is not lightweight-shaped.
    static func make(_ mapping: NSMappingModel) -> Result<Self, SQLiteInPlaceMigrationResult.Reason> {
        var links: [EntityLink] = []
        for entityMapping in mapping.entityMappings ?? [] {
            let name = entityMapping.name ?? "<unnamed>"
            switch entityMapping.mappingType {
            case .addEntityMappingType, .removeEntityMappingType:
                continue
            case .copyEntityMappingType, .transformEntityMappingType:
                break
            case .customEntityMappingType, .undefinedEntityMappingType:
                return .failure(.init("entity mapping '\(name)' is of type \(entityMapping.mappingType)"))
            }
            if let policy = entityMapping.entityMigrationPolicyClassName, !policy.isEmpty, policy != "NSEntityMigrationPolicy" {
                return .failure(.init("entity mapping '\(name)' uses the custom policy \(policy)"))
            }
            guard let source = entityMapping.sourceEntityName, let destination = entityMapping.destinationEntityName else {
                return .failure(.init("entity mapping '\(name)' lacks a source or destination entity"))
            }
            if let expression = entityMapping.sourceExpression, !fetchesEverySourceInstance(expression, of: source) {
                return .failure(.init("entity mapping '\(name)' selects its source instances with \(expression)"))
            }
            var attributes: [String: AttributeSource] = [:]
            for propertyMapping in entityMapping.attributeMappings ?? [] {
                guard let property = propertyMapping.name else { continue }
                guard let expression = propertyMapping.valueExpression else { attributes[property] = .defaultValue; continue }
                if let sourceName = sourceKey(expression) {
                    attributes[property] = .sourceAttribute(sourceName)
                } else if expression.expressionType == .constantValue {
                    attributes[property] = .constant(expression.constantValue)
                } else {
                    return .failure(.init("attribute '\(property)' of mapping '\(name)' is computed by \(expression)"))
                }
            }
            var relationships: [String: String] = [:]
            for propertyMapping in entityMapping.relationshipMappings ?? [] {
                guard let property = propertyMapping.name, let expression = propertyMapping.valueExpression else { continue }
                guard let sourceName = sourceRelationship(expression) else {
                    return .failure(.init("relationship '\(property)' of mapping '\(name)' is computed by \(expression)"))
                }
                relationships[property] = sourceName
            }
            links.append(EntityLink(mappingName: name, sourceEntity: source, destinationEntity: destination,
                                    attributes: attributes, relationships: relationships))
        }
        return .success(SQLiteLightweightMappingView(links: links))
    }

    /// `name` for `$source.name` (the expression shapes live in ``MappingExpressions``).
    private static func sourceKey(_ expression: NSExpression) -> String? {
        MappingExpressions.sourceKey(expression)
    }

    /// The source relationship of `FUNCTION($manager, "destinationInstancesFor…:sourceInstances:", …, $source.rel)`.
    private static func sourceRelationship(_ expression: NSExpression) -> String? {
        MappingExpressions.destinationInstancesSource(expression)?.key
    }

    /// Whether a source expression fetches every instance of the mapping's source entity: a
    /// `FETCH` of `fetchRequestForSourceEntityNamed:predicateString:` with `TRUEPREDICATE`.
    private static func fetchesEverySourceInstance(_ expression: NSExpression, of entityName: String) -> Bool {
        MappingExpressions.fetchedEntityName(expression) == entityName
    }
}
