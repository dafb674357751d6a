import Testing
@testable import OpenCoreData

/// A value of any type as a test argument (test arguments must be `Sendable`; these are constants).
struct ValidationSample: @unchecked Sendable, CustomTestStringConvertible {
    let value: Any?
    init(_ value: Any?) { self.value = value }
    var testDescription: String { value.map { "\($0) (\(type(of: $0)))" } ?? "nil" }
}

/// A managed object whose values live in a dictionary, so that validation can be tested on its
/// own, without a context.
class ValidationTestObject: NSManagedObject {
    var values: [String: Any] = [:]

    override func value(forKey key: String) -> Any? { values[key] }

    static func make(_ entity: NSEntityDescription, _ values: [String: Any] = [:]) -> Self {
        let object = Self(entity: entity, insertInto: nil)
        object.values = values
        return object
    }
}

/// A subclass with per-key rules, Apple's `validate<Key>:error:` written as an override.
final class ValidatedPerson: ValidationTestObject {
    override func validateValue(_ value: inout Any?, forKey key: String) throws {
        // Coerce before the model's rules: a code given as text becomes the Int32 the model wants.
        if key == "code", let text = value as? String, let number = Int32(text) { value = number }
        try super.validateValue(&value, forKey: key)
        switch key {
        case "name":
            if let name = value as? String, name == "Nobody" {
                throw validationError(forKey: key, value: name, localizedDescription: "%{PROPERTY}@ can’t be %{VALUE}@.")
            }
        case "nickname":
            // Coerce after the model's rules: trim the spaces.
            if let nickname = value as? String { value = nickname.trimmingCharacters(in: .whitespaces) }
        default:
            break
        }
    }
}

/// A subclass with an interproperty rule, combined with super's errors as Apple's guide shows.
final class ValidationRetiredPerson: ValidationTestObject {
    override func validateForInsert() throws {
        var errors: [Error] = []
        do { try super.validateForInsert() } catch { errors.append(error) }
        if let age = values["age"] as? Int, age < 60, values["active"] as? Bool == false {
            errors.append(validationError(forKey: "active", value: false, localizedDescription: "Under 60 means active."))
        }
        if let error = combinedValidationError(errors) { throw error }
    }
}

/// The models the validation tests use, built in code.
enum ValidationModels {
    /// Sets the minimum, maximum and pattern exactly as a model file compiles them.
    static func constrain(_ attribute: NSAttributeDescription, min: String? = nil, max: String? = nil, pattern: String? = nil) {
        let constraints = NSAttributeDescription.constraintPredicates(type: attribute.attributeType, minimum: min,
                                                                      maximum: max, regularExpression: pattern)
        attribute.setValidationPredicates(constraints.predicates, warnings: constraints.warnings)
    }

    static func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true, transient: Bool = false)
        -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        attribute.isTransient = transient
        return attribute
    }

    static func relationship(_ name: String, to destination: NSEntityDescription, toMany: Bool = false,
                             optional: Bool = true, min: Int = 0, max: Int? = nil,
                             rule: NSDeleteRule = .nullifyDeleteRule) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        relationship.destinationEntity = destination
        relationship.isOptional = optional
        relationship.minCount = min
        relationship.maxCount = max ?? (toMany ? 0 : 1)
        relationship.deleteRule = rule
        return relationship
    }

    /// Person (with subentity Employee) and Department:
    /// - Person: `name` String, required, 2…10 characters, pattern `[A-Z][a-z]*`; `age` Integer 16,
    ///   0…150; `birthday` Date, between 2001-01-01 and 2001-01-02; `weight` Double; `height`
    ///   Float; `price` Decimal; `active` Boolean; `code` Integer 32; `identifier` UUID; `photo`
    ///   Binary, at most 4 bytes; `homepage` URI; `nickname` transient String, at least 2
    ///   characters; `department` to-one Department; `friends` to-many Person, 2…3 when not empty.
    /// - Employee: Person plus `badge` String, required, and `office` to-one Department, required.
    /// - Department: `title` String, validation `SELF BEGINSWITH "Dept"` with warning
    ///   "Title must start with Dept"; `members` to-many Person, required, at most 2, deny rule;
    ///   `head` to-one Person, deny rule.
    static func make(localization: [String: String]? = nil) -> NSManagedObjectModel {
        let person = NSEntityDescription()
        person.name = "Person"
        let employee = NSEntityDescription()
        employee.name = "Employee"
        let department = NSEntityDescription()
        department.name = "Department"

        let name = attribute("name", .stringAttributeType, optional: false)
        constrain(name, min: "2", max: "10", pattern: "[A-Z][a-z]*")
        let age = attribute("age", .integer16AttributeType)
        constrain(age, min: "0", max: "150")
        let birthday = attribute("birthday", .dateAttributeType)
        constrain(birthday, min: "0", max: "86400")
        let photo = attribute("photo", .binaryDataAttributeType)
        constrain(photo, max: "4")
        let nickname = attribute("nickname", .stringAttributeType, transient: true)
        constrain(nickname, min: "2")
        person.properties = [
            name, age, birthday,
            attribute("weight", .doubleAttributeType), attribute("height", .floatAttributeType),
            attribute("price", .decimalAttributeType), attribute("active", .booleanAttributeType),
            attribute("code", .integer32AttributeType), attribute("identifier", .UUIDAttributeType),
            photo, attribute("homepage", .URIAttributeType), nickname,
            relationship("department", to: department),
            relationship("friends", to: person, toMany: true, min: 2, max: 3),
        ]
        employee.properties = [attribute("badge", .stringAttributeType, optional: false),
                               relationship("office", to: department, optional: false)]
        person.subentities = [employee]

        let title = attribute("title", .stringAttributeType)
        title.setValidationPredicates([NSComparisonPredicate(leftExpression: .expressionForEvaluatedObject(),
                                                             rightExpression: NSExpression(forConstantValue: "Dept"),
                                                             modifier: .direct, type: .beginsWith)],
                                      withValidationWarnings: ["Title must start with Dept"])
        department.properties = [
            title,
            relationship("members", to: person, toMany: true, optional: false, max: 2, rule: .denyDeleteRule),
            relationship("head", to: person, rule: .denyDeleteRule),
        ]

        let model = NSManagedObjectModel()
        model.entities = [person, employee, department]
        model.localizationDictionary = localization
        return model
    }

    /// The seed tutorial's `Run` entity, as DESIGN describes it: `date` (Date, required) and
    /// `processID` (Integer 32, required, default -1, validation `SELF > 0` built from
    /// expressions with the warning "Process ID < 1"), and the localization dictionary.
    static func run() -> NSManagedObjectModel {
        let run = NSEntityDescription()
        run.name = "Run"
        let date = attribute("date", .dateAttributeType, optional: false)
        let processID = attribute("processID", .integer32AttributeType, optional: false)
        processID.defaultValue = Int32(-1)
        let positive = NSComparisonPredicate(leftExpression: NSExpression.expressionForEvaluatedObject(),
                                             rightExpression: NSExpression(forConstantValue: 0),
                                             modifier: .direct, type: .greaterThan)
        processID.setValidationPredicates([positive], withValidationWarnings: ["Process ID < 1"])
        run.properties = [date, processID]
        let model = NSManagedObjectModel()
        model.entities = [run]
        model.localizationDictionary = [
            "Entity/Run": "Run",
            "Property/date/Entity/Run": "Date",
            "Property/processID/Entity/Run": "Process ID",
            "ErrorString/Process ID < 1": "Process ID must not be less than 1",
        ]
        return model
    }
}

/// The error `body` throws, as an `NSError`, or nil when it throws nothing.
func thrownValidationError(_ body: () throws -> Void) -> NSError? {
    do {
        try body()
        return nil
    } catch {
        return error as NSError
    }
}

/// Validates `value` for `key` of `object`; returns the error and the (possibly coerced) value.
func validatingValue(_ object: NSManagedObject, _ key: String, _ value: Any?) -> (error: NSError?, value: Any?) {
    var value = value
    let error = thrownValidationError { try object.validateValue(&value, forKey: key) }
    return (error, value)
}
