/// Core Data's English error messages and their localization through a model's
/// `localizationDictionary`.
///
/// Messages are templates in which `%{PROPERTY}@` is replaced by the property's display name,
/// `%{ENTITY}@` by the entity's and `%{VALUE}@` by the value's description, Apple's
/// placeholder style (Apple documents `%{PROPERTY}@`; the other two are ours).
///
/// Lookups, with the keys Apple documents for `NSManagedObjectModel.localizationDictionary`:
/// - a property's name: `Property/<name>/Entity/<Entity>` (the object's entity, then its
///   superentities), then `Property/<name>`, else the name itself;
/// - an entity's name: `Entity/<Entity>`, else the name itself;
/// - a message (a validation warning or one of the templates below): `ErrorString/<text>`,
///   else the text itself. So a model can translate Core Data's own templates too, with keys
///   such as `ErrorString/%{PROPERTY}@ is a required value.`.
struct CoreDataErrorMessages {
    /// The model's localization dictionary (empty when the model has none).
    let dictionary: [String: String]

    init(dictionary: [String: String]?) {
        self.dictionary = dictionary ?? [:]
    }

    /// The messages of `entity`'s model.
    init(entity: NSEntityDescription?) {
        self.init(dictionary: entity?.managedObjectModel?.localizationDictionary)
    }

    /// The display name of property `key` of an object of `entity`.
    func propertyName(_ key: String, entity: NSEntityDescription?) -> String {
        var current = entity
        while let candidate = current {
            if let name = candidate.name, let localized = dictionary["Property/\(key)/Entity/\(name)"] { return localized }
            current = candidate.superentity
        }
        return dictionary["Property/\(key)"] ?? key
    }

    /// The display name of `entity`.
    func entityName(_ entity: NSEntityDescription?) -> String {
        guard let name = entity?.name else { return "" }
        return dictionary["Entity/\(name)"] ?? name
    }

    /// `text` translated through its `ErrorString/<text>` key, or `text` itself.
    func errorString(_ text: String) -> String {
        dictionary["ErrorString/\(text)"] ?? text
    }

    /// The localized message for `template` about property `key` (and its value) of an object of
    /// `entity`: the template is translated first, then its placeholders are filled.
    func message(_ template: String, key: String?, entity: NSEntityDescription?, value: Any? = nil) -> String {
        var text = errorString(template)
        if text.contains("%{PROPERTY}@") {
            text = text.replacingOccurrences(of: "%{PROPERTY}@", with: key.map { propertyName($0, entity: entity) } ?? "")
        }
        if text.contains("%{ENTITY}@") {
            text = text.replacingOccurrences(of: "%{ENTITY}@", with: entityName(entity))
        }
        if text.contains("%{VALUE}@") {
            text = text.replacingOccurrences(of: "%{VALUE}@", with: value.map(Self.describe) ?? "nil")
        }
        return text
    }

    /// A value as messages show it: strings bare, managed objects by entity and ID.
    static func describe(_ value: Any) -> String {
        switch ValueComparison.unwrap(value) {
        case nil: return "nil"
        case let string as String: return string
        case let object as NSManagedObject:
            return "<\(object.entity.name ?? "?") \(object.objectID.uriRepresentation().absoluteString)>"
        case let other?: return String(describing: other)
        }
    }

    /// Core Data's English template for a validation `code`; for other codes Foundation's generic
    /// "The operation couldn’t be completed. (Cocoa error N.)".
    static func template(for code: Int) -> String {
        switch code {
        case NSManagedObjectValidationError: return "%{PROPERTY}@ is invalid."
        case NSManagedObjectConstraintValidationError: return "%{PROPERTY}@ is not unique."
        case NSValidationMultipleErrorsError: return "Multiple validation errors occurred."
        case NSValidationMissingMandatoryPropertyError: return "%{PROPERTY}@ is a required value."
        case NSValidationRelationshipLacksMinimumCountError: return "Too few items in %{PROPERTY}@."
        case NSValidationRelationshipExceedsMaximumCountError: return "Too many items in %{PROPERTY}@."
        case NSValidationRelationshipDeniedDeleteError: return "%{PROPERTY}@ is not empty, so the object can’t be deleted."
        case NSValidationNumberTooLargeError: return "%{PROPERTY}@ is too large."
        case NSValidationNumberTooSmallError: return "%{PROPERTY}@ is too small."
        case NSValidationDateTooLateError: return "%{PROPERTY}@ is too late."
        case NSValidationDateTooSoonError: return "%{PROPERTY}@ is too soon."
        case NSValidationInvalidDateError: return "%{PROPERTY}@ is not a valid date."
        case NSValidationStringTooLongError: return "%{PROPERTY}@ is too long."
        case NSValidationStringTooShortError: return "%{PROPERTY}@ is too short."
        case NSValidationStringPatternMatchingError: return "%{PROPERTY}@ does not match the required pattern."
        case NSValidationInvalidURIError: return "%{PROPERTY}@ is not a valid URI."
        default: return "The operation couldn’t be completed. (Cocoa error \(code).)"
        }
    }
}
