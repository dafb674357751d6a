import Foundation

/// Derived attributes at save: a root context's save computes each
/// ``NSDerivedAttributeDescription``'s `derivationExpression` (a key path, possibly across a
/// to-one relationship, `@count` of a to-many, `lowercase:`, `canonical:`, `now()`) for the
/// objects the save changes and for the objects whose derivation reads them through a
/// relationship (a book's `author.name` when the author is renamed, a tag's `posts.@count` when a
/// post joins), and saves the values with them.
///
/// Differs from Apple, which computes them in SQL triggers after the rows are written: the
/// values are computed in the context, so every store type has them and the saved objects show
/// them at once; a child context's save leaves them to the root's.
extension NSManagedObjectContext {
    /// Computes the derived attributes the pending changes affect (see the extension's summary).
    func updateDerivedAttributes() throws {
        guard parentBacking == nil, let model = persistentStoreCoordinator?.managedObjectModel,
              model.hasDerivedAttributes else { return }
        var targets: [NSManagedObject] = []
        var seen: Set<ObjectIdentifier> = []
        func add(_ object: NSManagedObject) {
            guard object.managedObjectContext === self, !deletedList.contains(object),
                  seen.insert(ObjectIdentifier(object)).inserted else { return }
            targets.append(object)
        }
        let changed = insertedList.objects + updatedList.objects
        // Per entity, once: whether it derives, and the relationships over which other
        // entities' derivations read its objects.
        var plans: [ObjectIdentifier: (derives: Bool, readThrough: [NSRelationshipDescription])] = [:]
        func plan(_ entity: NSEntityDescription) -> (derives: Bool, readThrough: [NSRelationshipDescription]) {
            if let known = plans[ObjectIdentifier(entity)] { return known }
            let relationships = entity.relationshipsByName.values.filter { relationship in
                guard let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity else { return false }
                return ([destination] + destination.allSubentities).contains { $0.derivationsRead(through: inverse.name) }
            }
            let made = (derives: !entity.derivedAttributes.isEmpty, readThrough: relationships)
            plans[ObjectIdentifier(entity)] = made
            return made
        }
        for object in changed where plan(object.entity).derives { add(object) }
        // Objects whose derivations read a changed (or deleted) object through a relationship:
        // the changed object's destinations over the relationship's inverse.
        for object in changed + deletedList.objects {
            for relationship in plan(object.entity).readThrough {
                var destinations = ManagedValueConversion.objects(in: object.value(forKey: relationship.name)) ?? []
                if let committed = object.committedSnapshot {
                    let ids = relationship.isToMany ? committed.toMany[relationship.name] ?? []
                        : (committed[relationship.name] as? NSManagedObjectID).map { [$0] } ?? []
                    destinations += ids.compactMap { registry[$0] }
                }
                for destination in destinations where plan(destination.entity).derives { add(destination) }
            }
        }
        try computeDerivedAttributes(of: targets)
    }

    /// Sets each derived attribute of `objects` to its derivation's value where it differs.
    func computeDerivedAttributes(of targets: [NSManagedObject]) throws {
        for object in targets {
            object.fireFaultIfNeeded()
            for attribute in object.entity.derivedAttributes {
                guard let expression = attribute.derivationExpression else { continue }
                let raw: Any?
                do {
                    raw = try expression.expressionValueThrowing(with: object)
                } catch {
                    throw CoreDataErrorFactory.validationError(
                        NSManagedObjectValidationError, object: object, key: attribute.name,
                        description: "The derivation expression \(expression) of \(object.entity.name ?? "?").\(attribute.name) failed: \(error)",
                        underlyingError: error)
                }
                let value = try BatchValues.converted(raw, for: attribute, row: nil)
                let current = object.value(forKey: attribute.name)
                if let value, let current, ValueComparison.sameTypeEqual(value, current) == true { continue }
                if value == nil, current == nil { continue }
                object.setValue(value, forKey: attribute.name)
            }
        }
        if !targets.isEmpty { processPendingChanges() }
    }
}

extension NSManagedObjectModel {
    /// Whether any entity has a derived attribute.
    var hasDerivedAttributes: Bool {
        entities.contains { !$0.derivedAttributes.isEmpty }
    }
}

extension NSEntityDescription {
    /// The entity's derived attributes, inherited ones included.
    var derivedAttributes: [NSDerivedAttributeDescription] {
        attributesByName.values.compactMap { $0 as? NSDerivedAttributeDescription }.sorted { $0.name < $1.name }
    }

    /// Whether a derivation of this entity reads through the relationship named `name`
    /// (its key path starts with `name.`).
    func derivationsRead(through name: String) -> Bool {
        derivedAttributes.contains { attribute in
            guard let expression = attribute.derivationExpression else { return false }
            return expression.keyPathsRead.contains { $0 == name || $0.hasPrefix(name + ".") }
        }
    }
}

extension NSExpression {
    /// The key paths the expression reads, found in its format (`author.name`,
    /// `posts.@count`, `lowercase:(title)` reads `title`).
    var keyPathsRead: [String] {
        switch node {
        case .keyPath(let path):
            return [path]
        case .keyPathOn(let target, let path):
            return target.keyPathsRead.map { $0 + "." + path } + [path]
        case .function(_, let arguments):
            return arguments.flatMap(\.keyPathsRead)
        case .functionOn(let target, _, let arguments):
            return (target.keyPathsRead + arguments.flatMap(\.keyPathsRead))
        default:
            return []
        }
    }
}
