extension NSManagedObjectModel {
    /// Checks that every name the model uses refers to something it has: entity names are
    /// unique, superentities and subentities are members, relationship destinations and inverses
    /// exist, configuration members and fetch request entities exist.
    ///
    /// Not in Apple's API (momc performs these checks when it compiles a model). The readers call
    /// it; the error names the element, e.g. `relationship 'owner' of entity 'Car'`.
    public func validateReferences() throws {
        var names = Set<String>()
        let byName = entitiesByName
        for entity in entities {
            guard let name = entity.name, !name.isEmpty else {
                throw ManagedObjectModelError(.invalidValue, "an entity has no name", element: "entity")
            }
            guard names.insert(name).inserted else {
                throw ManagedObjectModelError(.invalidValue, "two entities are named '\(name)'", element: "entity '\(name)'")
            }
        }
        for entity in entities {
            let name = entity.name ?? ""
            if let parent = entity.superentity, parent.name.flatMap({ byName[$0] }) !== parent {
                throw ManagedObjectModelError(.missingReference, "superentity '\(parent.name ?? "?")' is not in the model",
                                              element: "entity '\(name)'")
            }
            for sub in entity.subentities where sub.name.flatMap({ byName[$0] }) !== sub {
                throw ManagedObjectModelError(.missingReference, "subentity '\(sub.name ?? "?")' is not in the model",
                                              element: "entity '\(name)'")
            }
            for case let relationship as NSRelationshipDescription in entity.declaredProperties {
                try validate(relationship, of: name, byName: byName)
            }
            for case let fetched as NSFetchedPropertyDescription in entity.declaredProperties {
                if let target = fetched.fetchRequest?.entityName, byName[target] == nil {
                    throw ManagedObjectModelError(.missingReference, "fetch request entity '\(target)' is not in the model",
                                                  element: "fetched property '\(fetched.name)' of entity '\(name)'")
                }
            }
        }
        for configuration in configurationEntityNames {
            if let missing = configuration.entities.first(where: { byName[$0] == nil }) {
                throw ManagedObjectModelError(.missingReference, "member entity '\(missing)' is not in the model",
                                              element: "configuration '\(configuration.name)'")
            }
        }
        for (templateName, template) in fetchRequestTemplatesByName {
            if let target = template.entityName, byName[target] == nil {
                throw ManagedObjectModelError(.missingReference, "entity '\(target)' is not in the model",
                                              element: "fetch request '\(templateName)'")
            }
        }
    }

    private func validate(_ relationship: NSRelationshipDescription, of entityName: String,
                          byName: [String: NSEntityDescription]) throws {
        let element = "relationship '\(relationship.name)' of entity '\(entityName)'"
        guard let destinationName = relationship.destinationEntityName else {
            throw ManagedObjectModelError(.missingReference, "the relationship has no destination entity", element: element)
        }
        guard let destination = byName[destinationName] else {
            throw ManagedObjectModelError(.missingReference, "destination entity '\(destinationName)' is not in the model",
                                          element: element)
        }
        if let inverseName = relationship.inverseName, destination.relationshipsByName[inverseName] == nil {
            throw ManagedObjectModelError(.missingReference,
                                          "inverse relationship '\(inverseName)' is not a relationship of entity '\(destinationName)'",
                                          element: element)
        }
    }
}
