import Foundation

/// Evaluating a mapping's expressions, and the `FUNCTION($manager, …)` selectors they call.
extension NSMigrationManager {
    /// The selectors `FUNCTION($manager, "…", …)` answers: Apple's documented
    /// `fetchRequestForSourceEntityNamed:predicateString:`,
    /// `destinationInstancesForEntityMappingNamed:sourceInstances:` and
    /// `sourceInstancesForEntityMappingNamed:destinationInstances:`, and
    /// `destinationInstancesForSourceRelationshipNamed:sourceInstances:`, which Xcode writes in
    /// the relationship mappings it generates.
    static let functionSelectors: Set<String> = [
        "fetchRequestForSourceEntityNamed:predicateString:",
        "destinationInstancesForEntityMappingNamed:sourceInstances:",
        "sourceInstancesForEntityMappingNamed:destinationInstances:",
        "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
    ]

    public func respondsToPredicateFunction(_ selector: String) -> Bool {
        Self.functionSelectors.contains(selector)
    }

    public func performPredicateFunction(_ selector: String, arguments: [Any?]) throws -> Any? {
        guard arguments.count == 2 else {
            throw PredicateEvaluationError.wrongArgumentType(function: selector, argument: arguments.count, expected: "2 arguments",
                                                             typeName: "\(arguments.count) arguments")
        }
        func name() throws -> String {
            guard let name = ValueComparison.string(arguments[0]) else {
                throw PredicateEvaluationError.wrongArgumentType(function: selector, argument: 0, expected: "a name",
                                                                 typeName: ValueComparison.typeName(arguments[0]))
            }
            return name
        }
        switch selector {
        case "fetchRequestForSourceEntityNamed:predicateString:":
            return try fetchRequestForSourceEntity(named: name(), predicateString: ValueComparison.string(arguments[1]) ?? "TRUEPREDICATE")
        // A nil instances argument here is a value expression's nil (`$source.owner` of an
        // object without owner): no instances, never "every instance" as a nil array means to
        // the Swift methods, or each object without owner would get the mapping's first one.
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            return destinationInstances(forEntityMappingName: try name(), sourceInstances: Self.objects(arguments[1]) ?? [])
        case "sourceInstancesForEntityMappingNamed:destinationInstances:":
            return sourceInstances(forEntityMappingName: try name(), destinationInstances: Self.objects(arguments[1]) ?? [])
        default:
            return destinationInstances(forSourceRelationshipNamed: try name(), sourceInstances: Self.objects(arguments[1]) ?? [])
        }
    }

    /// A request for the instances of exactly the source entity `name` (not its subentities,
    /// which have their own entity mappings) matching `predicateString`.
    func fetchRequestForSourceEntity(named name: String, predicateString: String) throws -> NSFetchRequest<NSFetchRequestResult> {
        guard let entity = sourceModel.entitiesByName[name] else {
            throw MigrationErrors.make(NSMigrationError, "The source model has no entity named '\(name)' (fetchRequestForSourceEntityNamed:predicateString:).")
        }
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: name)
        request.entity = entity
        request.includesSubentities = false
        if predicateString != "TRUEPREDICATE" {
            request.predicate = try PredicateParser.parsePredicate(predicateString, arguments: [])
        }
        return request
    }

    /// The destination instances made from `sourceInstances` (reached through the source
    /// relationship `name`) by whichever entity mappings migrated their entities.
    func destinationInstances(forSourceRelationshipNamed name: String, sourceInstances: [NSManagedObject]) -> [NSManagedObject] {
        let mappings = mappingModel.entityMappings ?? []
        return sourceInstances.flatMap { source in
            mappings.filter { $0.sourceEntityName == source.entity.name }.flatMap { mapping in
                destinationInstances(forEntityMappingName: mapping.name ?? "", sourceInstances: [source])
            }
        }
    }

    /// The managed objects in a value: one object, a collection of them, or nil (nil).
    static func objects(_ value: Any?) -> [NSManagedObject]? {
        let value = ValueComparison.unwrap(value)
        if value == nil || ValueComparison.isNSNull(value) { return nil }
        if let object = value as? NSManagedObject { return [object] }
        return ManagedValueConversion.objects(in: value) ?? CollectionValue(value)?.elements.compactMap { $0 as? NSManagedObject }
    }

    // MARK: Evaluating

    /// The variables of a mapping expression: `$manager`, `$entityMapping`, `$entityPolicy` and
    /// those given.
    func variables(mapping: NSEntityMapping, policy: NSEntityMigrationPolicy, source: NSManagedObject? = nil,
                   destination: NSManagedObject? = nil, propertyMapping: NSPropertyMapping? = nil) -> [String: Any] {
        var variables: [String: Any] = [NSMigrationManagerKey: self, NSMigrationEntityMappingKey: mapping,
                                        NSMigrationEntityPolicyKey: policy]
        if let source { variables[NSMigrationSourceObjectKey] = source }
        if let destination { variables[NSMigrationDestinationObjectKey] = destination }
        if let propertyMapping { variables[NSMigrationPropertyMappingKey] = propertyMapping }
        return variables
    }

    /// The value of `expression`, errors naming the mapping and the property.
    func evaluate(_ expression: NSExpression, variables: [String: Any], mapping: NSEntityMapping, what: String) throws -> Any? {
        do {
            return try expression.expressionValueThrowing(with: nil, variables: variables)
        } catch {
            if MigrationErrors.isMigrationError(error) { throw error }
            throw MigrationErrors.make(NSMigrationError,
                "Evaluating \(what) of entity mapping '\(mapping.name ?? "?")' (\(expression)) failed: \((error as NSError).localizedDescription)",
                userInfo: ["entityMapping": mapping.name ?? ""], underlying: error)
        }
    }

    /// The source instances of `mapping`: its source expression's value, else every instance of
    /// exactly its source entity.
    func sourceInstances(of mapping: NSEntityMapping, policy: NSEntityMigrationPolicy) throws -> [NSManagedObject] {
        if let expression = mapping.sourceExpression {
            let value = try evaluate(expression, variables: variables(mapping: mapping, policy: policy), mapping: mapping,
                                     what: "the source expression")
            return Self.objects(value) ?? []
        }
        guard let name = mapping.sourceEntityName else { return [] }
        let request = try fetchRequestForSourceEntity(named: name, predicateString: "TRUEPREDICATE")
        return try sourceContext.fetch(request).compactMap { $0 as? NSManagedObject }
    }

    /// A new instance of `mapping`'s destination entity in ``destinationContext``.
    func newDestinationInstance(for mapping: NSEntityMapping) throws -> NSManagedObject {
        guard let entity = destinationEntity(for: mapping) else {
            throw MigrationErrors.make(NSMigrationError,
                "The entity mapping '\(mapping.name ?? "?")' names the destination entity '\(mapping.destinationEntityName ?? "")', which the destination model does not have.",
                userInfo: ["entityMapping": mapping.name ?? ""])
        }
        return ManagedObjectClasses.instantiate(entity, insertInto: destinationContext)
    }

    /// Sets the attributes of `destination` from `mapping`'s attribute mappings evaluated for
    /// `source`; a nil value leaves the attribute's default. A copy mapping without attribute
    /// mappings copies the attributes both entities have.
    func applyAttributeMappings(of mapping: NSEntityMapping, source: NSManagedObject, destination: NSManagedObject,
                                policy: NSEntityMigrationPolicy) throws {
        var propertyMappings = mapping.attributeMappings ?? []
        if propertyMappings.isEmpty, mapping.mappingType == .copyEntityMappingType {
            propertyMappings = destination.entity.attributesByName.keys.sorted()
                .filter { source.entity.attributesByName[$0] != nil }
                .map { NSPropertyMapping(name: $0, valueExpression: MappingExpressions.sourceValue($0)) }
        }
        try evaluate(propertyMappings, of: mapping, kind: "attribute", in: destination.entity.attributesByName,
                     source: source, destination: destination, policy: policy) { attribute, name, value in
            guard let value = ValueComparison.unwrap(value), !ValueComparison.isNSNull(value) else { return }
            try destination.setValueThrowing(Self.converted(value, for: attribute), forKey: name)
        }
    }

    /// Evaluates each of `propertyMappings` (the `kind` mappings of `mapping`) for the
    /// `source` → `destination` pair and hands `apply` the destination property, its name and the
    /// value. A mapping without a value expression is skipped; one naming a property the
    /// destination entity lacks is an `NSMigrationError`.
    private func evaluate<Property>(_ propertyMappings: [NSPropertyMapping], of mapping: NSEntityMapping, kind: String,
                                    in properties: [String: Property], source: NSManagedObject, destination: NSManagedObject,
                                    policy: NSEntityMigrationPolicy, apply: (Property, String, Any?) throws -> Void) throws {
        for propertyMapping in propertyMappings {
            guard let name = propertyMapping.name, let expression = propertyMapping.valueExpression else { continue }
            guard let property = properties[name] else {
                throw MigrationErrors.make(NSMigrationError,
                    "The entity mapping '\(mapping.name ?? "?")' maps \(kind) '\(name)', which destination entity '\(destination.entity.name ?? "?")' does not have.",
                    userInfo: ["entityMapping": mapping.name ?? "", "propertyMapping": name])
            }
            let value = try evaluate(expression, variables: variables(mapping: mapping, policy: policy, source: source,
                                                                       destination: destination, propertyMapping: propertyMapping),
                                     mapping: mapping, what: "\(kind) '\(name)'")
            try apply(property, name, value)
        }
    }

    /// `value` converted to the type of a numeric or Boolean `attribute` whose type changed
    /// between the models (the conversions Core Data infers, which `NSNumber` makes implicit in
    /// Apple's): a Boolean becomes 0 or 1, a number a Boolean (non-zero is true), a
    /// floating-point number an integer (truncated toward zero), an integer a `Double` or a
    /// `Decimal`. A value the attribute already accepts, or that can't be converted, is
    /// returned as is (validation then reports it).
    static func converted(_ value: Any, for attribute: NSAttributeDescription) -> Any {
        guard case .wrongType = PropertyValueCoercion.check(value, for: attribute), let number = NumericValue(value) else { return value }
        switch attribute.attributeType {
        case .booleanAttributeType:
            return number.doubleValue != 0
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return number.exactInteger ?? Int64(exactly: number.doubleValue.rounded(.towardZero)) ?? value
        case .doubleAttributeType, .floatAttributeType:
            return number.doubleValue
        case .decimalAttributeType:
            return number.decimalValue ?? value
        default:
            return value
        }
    }

    /// Sets the relationships of `destination` from `mapping`'s relationship mappings, evaluated
    /// for the source instance it was made from. A to-one relationship given a collection takes
    /// its first object. A copy mapping without relationship mappings maps each relationship both
    /// entities have to the destination instances of its source objects.
    func applyRelationshipMappings(of mapping: NSEntityMapping, destination: NSManagedObject, policy: NSEntityMigrationPolicy) throws {
        guard let source = sourceInstances(forEntityMappingName: mapping.name ?? "", destinationInstances: [destination]).first else { return }
        var propertyMappings = mapping.relationshipMappings ?? []
        if propertyMappings.isEmpty, mapping.mappingType == .copyEntityMappingType {
            propertyMappings = destination.entity.relationshipsByName.keys.sorted()
                .filter { source.entity.relationshipsByName[$0] != nil }
                .map { NSPropertyMapping(name: $0, valueExpression: MappingExpressions.destinationInstances(sourceRelationship: $0)) }
        }
        try evaluate(propertyMappings, of: mapping, kind: "relationship", in: destination.entity.relationshipsByName,
                     source: source, destination: destination, policy: policy) { relationship, name, value in
            let objects = Self.objects(value) ?? []
            if relationship.isToMany {
                try destination.setValueThrowing(relationship.isOrdered ? NSOrderedSet(array: objects) as Any : Set(objects) as Any,
                                                 forKey: name)
            } else {
                try destination.setValueThrowing(objects.first, forKey: name)
            }
        }
    }
}
