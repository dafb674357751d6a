import Foundation

/// The value and source expressions of mapping models, in the shapes Xcode's mapping model
/// compiler and Core Data's inferred mappings write, and their recognition.
///
/// - source expression of an entity mapping:
///   `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:" , "Car", "TRUEPREDICATE"), $manager.sourceContext, NO)`
/// - attribute: `$source.numberPlate`
/// - relationship: `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:" , "PersonToPerson", $source.owner)`,
///   or, when the destination entity has subentities (several entity mappings may make its
///   instances), `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:" , "cars", $source.cars)`.
enum MappingExpressions {
    static let fetchSelector = "fetchRequestForSourceEntityNamed:predicateString:"
    static let byEntityMappingSelector = "destinationInstancesForEntityMappingNamed:sourceInstances:"
    static let bySourceRelationshipSelector = "destinationInstancesForSourceRelationshipNamed:sourceInstances:"

    /// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:" , entity, "TRUEPREDICATE"), $manager.sourceContext, NO)`.
    static func sourceFetch(entityName: String) -> NSExpression {
        let manager = NSExpression(node: .variable("manager"))
        let request = NSExpression(node: .functionOn(manager, fetchSelector, [
            NSExpression(node: .constant(entityName)), NSExpression(node: .constant("TRUEPREDICATE")),
        ]))
        let context = NSExpression(node: .keyPathOn(manager, "sourceContext"))
        return NSFetchRequestExpression.expression(forFetch: request, context: context, countOnly: false)
    }

    /// `$source.key`.
    static func sourceValue(_ key: String) -> NSExpression {
        NSExpression(node: .keyPathOn(NSExpression(node: .variable("source")), key))
    }

    /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:" , mapping, $source.key)`.
    static func destinationInstances(entityMapping: String, sourceRelationship key: String) -> NSExpression {
        NSExpression(node: .functionOn(NSExpression(node: .variable("manager")), byEntityMappingSelector, [
            NSExpression(node: .constant(entityMapping)), sourceValue(key),
        ]))
    }

    /// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:" , key, $source.key)`.
    static func destinationInstances(sourceRelationship key: String) -> NSExpression {
        NSExpression(node: .functionOn(NSExpression(node: .variable("manager")), bySourceRelationshipSelector, [
            NSExpression(node: .constant(key)), sourceValue(key),
        ]))
    }

    // MARK: Recognition

    /// The source entity name of a ``sourceFetch(entityName:)`` expression with `TRUEPREDICATE`.
    static func fetchedEntityName(_ expression: NSExpression) -> String? {
        guard case .fetch(let request, let context, countOnly: false) = expression.node,
              isManagerKey(context, "sourceContext"),
              case .functionOn(let target, fetchSelector, let arguments) = request.node, isVariable(target, "manager"),
              arguments.count == 2, let entity = constantString(arguments[0]),
              constantString(arguments[1]) == "TRUEPREDICATE" else { return nil }
        return entity
    }

    /// The key of `$source.key` (a single key, no path).
    static func sourceKey(_ expression: NSExpression) -> String? {
        guard case .keyPathOn(let base, let key) = expression.node, isVariable(base, "source"),
              !key.isEmpty, !key.contains(".") else { return nil }
        return key
    }

    /// A relationship value expression: the source relationship's key and, for the
    /// by-entity-mapping form, the entity mapping's name.
    static func destinationInstancesSource(_ expression: NSExpression) -> (key: String, entityMapping: String?)? {
        guard case .functionOn(let target, let selector, let arguments) = expression.node, isVariable(target, "manager"),
              arguments.count == 2, let name = constantString(arguments[0]), let key = sourceKey(arguments[1]) else { return nil }
        switch selector {
        case byEntityMappingSelector: return (key, name)
        case bySourceRelationshipSelector where name == key: return (key, nil)
        default: return nil
        }
    }

    private static func isVariable(_ expression: NSExpression, _ name: String) -> Bool {
        if case .variable(name) = expression.node { return true }
        return false
    }

    private static func isManagerKey(_ expression: NSExpression, _ key: String) -> Bool {
        guard case .keyPathOn(let base, key) = expression.node else { return false }
        return isVariable(base, "manager")
    }

    private static func constantString(_ expression: NSExpression) -> String? {
        if case .constant(let value) = expression.node { return value as? String }
        return nil
    }
}
