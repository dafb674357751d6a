/// Lookups in the localization dictionary, with Core Data's key table:
///
/// | key | localizes |
/// |---|---|
/// | `Entity/<entity>` | an entity's name |
/// | `Property/<property>/Entity/<entity>` | a property's name in one entity |
/// | `Property/<property>` | a property's name in every entity |
/// | `ErrorString/<message>` | a validation message (e.g. a validation warning) |
///
/// Validation and error reporting (the object graph) use these to build localized messages.
extension NSManagedObjectModel {
    /// The localized name of the entity named `entityName`, or `entityName` itself.
    func localizedEntityName(_ entityName: String) -> String {
        localizationDictionary?["Entity/\(entityName)"] ?? entityName
    }

    /// The localized name of `property` of `entityName`: the entity-specific key first (for the
    /// entity and then each superentity), then the model-wide key, then the name itself.
    func localizedPropertyName(_ property: String, entityName: String) -> String {
        guard let dictionary = localizationDictionary else { return property }
        var current = entitiesByName[entityName]
        var names = [entityName]
        while let superentity = current?.superentity {
            if let name = superentity.name { names.append(name) }
            current = superentity
        }
        for name in names {
            if let localized = dictionary["Property/\(property)/Entity/\(name)"] { return localized }
        }
        return dictionary["Property/\(property)"] ?? property
    }

    /// The localized form of the message `message`, or `message` itself.
    func localizedErrorString(_ message: String) -> String {
        localizationDictionary?["ErrorString/\(message)"] ?? message
    }
}
