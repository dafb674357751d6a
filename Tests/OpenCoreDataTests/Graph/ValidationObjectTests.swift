import Testing
@testable import OpenCoreData

/// `validateForInsert()`, `validateForUpdate()`, `validateForDelete()`, subclass overrides and
/// localized messages.
@Suite struct ValidationObjectTests {
    let model = ValidationModels.make()
    var person: NSEntityDescription { model.entitiesByName["Person"]! }
    var department: NSEntityDescription { model.entitiesByName["Department"]! }

    /// A Person that passes every rule.
    func validPerson(_ extra: [String: Any] = [:]) -> ValidationTestObject {
        ValidationTestObject.make(person, ["name": "Ann", "age": 30].merging(extra) { $1 })
    }

    // MARK: Insert and update

    @Test func validObjectPasses() throws {
        let object = validPerson(["friends": Set<NSManagedObject>(), "nickname": "Annie"])
        try object.validateForInsert()
        try object.validateForUpdate()
    }

    @Test func oneErrorIsThrownAsItself() throws {
        let object = validPerson(["age": 200])
        for phase in [ObjectValidation.Phase.insert, .update] {
            let error = try #require(thrownValidationError { try ObjectValidation.validate(object, for: phase) })
            #expect(error.code == NSValidationNumberTooLargeError)
            #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "age")
            #expect(error.userInfo[NSDetailedErrorsKey] == nil)
        }
    }

    @Test func severalErrorsAreGatheredInto1560() throws {
        let object = ValidationTestObject.make(person, ["age": -5, "weight": "heavy",
                                                        "friends": Set([validPerson() as NSManagedObject])])
        let error = try #require(thrownValidationError { try object.validateForInsert() })
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSValidationMultipleErrorsError)
        #expect(error.localizedDescription == "Multiple validation errors occurred.")
        let details = try #require(error.userInfo[NSDetailedErrorsKey] as? [NSError])
        // In the entity's property order.
        #expect(details.map(\.code) == [NSValidationMissingMandatoryPropertyError, NSValidationNumberTooSmallError,
                                        NSManagedObjectValidationError, NSValidationRelationshipLacksMinimumCountError])
        #expect(details.map { $0.userInfo[NSValidationKeyErrorKey] as? String } == ["name", "age", "weight", "friends"])
        #expect(details.allSatisfy { $0.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === object })
        let update = try #require(thrownValidationError { try object.validateForUpdate() })
        #expect((update.userInfo[NSDetailedErrorsKey] as? [NSError])?.count == 4)
    }

    @Test func inheritedAndTransientPropertiesAreValidated() throws {
        let employee = ValidationTestObject.make(model.entitiesByName["Employee"]!, ["nickname": "A"])
        let error = try #require(thrownValidationError { try employee.validateForInsert() })
        let details = try #require(error.userInfo[NSDetailedErrorsKey] as? [NSError])
        // Inherited `name` (required), transient `nickname` (too short), own `badge` and `office`.
        #expect(details.map { $0.userInfo[NSValidationKeyErrorKey] as? String } == ["name", "nickname", "badge", "office"])
        #expect(details.map(\.code) == [NSValidationMissingMandatoryPropertyError, NSValidationStringTooShortError,
                                        NSValidationMissingMandatoryPropertyError, NSValidationMissingMandatoryPropertyError])
    }

    @Test func derivedAttributesAreLeftToTheStore() throws {
        let entity = NSEntityDescription()
        entity.name = "Post"
        let derived = NSDerivedAttributeDescription()
        derived.name = "updated"
        derived.attributeType = .dateAttributeType
        derived.isOptional = false
        derived.derivationExpression = NSExpression(forFunction: "now", arguments: [])
        entity.properties = [derived]
        try ValidationTestObject.make(entity).validateForInsert()
    }

    // MARK: Delete (1600)

    @Test func denyRuleRefusesDeletionWhileDestinationsRemain() throws {
        let member = validPerson()
        let dept = ValidationTestObject.make(department, ["members": Set([member as NSManagedObject])])
        let error = try #require(thrownValidationError { try dept.validateForDelete() })
        #expect(error.code == NSValidationRelationshipDeniedDeleteError)
        #expect(error.code == CocoaError.Code.validationRelationshipDeniedDelete.rawValue)
        #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === dept)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "members")
        #expect(error.userInfo[NSValidationValueErrorKey] as? Set<NSManagedObject> == [member])
        #expect(error.localizedDescription == "members is not empty, so the object can’t be deleted.")

        dept.values["head"] = member
        let both = try #require(thrownValidationError { try dept.validateForDelete() })
        #expect(both.code == NSValidationMultipleErrorsError)
        #expect((both.userInfo[NSDetailedErrorsKey] as? [NSError])?.map(\.code) == [1600, 1600])

        dept.values = ["members": Set<NSManagedObject>()]
        try dept.validateForDelete()
        // Delete validation does not look at the other rules.
        try ValidationTestObject.make(person).validateForDelete()
    }

    // MARK: Subclass overrides (Apple's validate<Key>:error:)

    @Test func overrideThatRejects() throws {
        let object = ValidatedPerson.make(person, ["name": "Nobody"])
        let direct = try #require(validatingValue(object, "name", "Nobody").error)
        #expect(direct.code == NSManagedObjectValidationError)
        #expect(direct.localizedDescription == "name can’t be Nobody.")
        #expect(direct.userInfo[NSValidationValueErrorKey] as? String == "Nobody")
        #expect(direct.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === object)
        // The save-time validation goes through the override and gathers its error with the model's.
        object.values["age"] = 999
        let error = try #require(thrownValidationError { try object.validateForUpdate() })
        let details = try #require(error.userInfo[NSDetailedErrorsKey] as? [NSError])
        #expect(details.map(\.code) == [NSManagedObjectValidationError, NSValidationNumberTooLargeError])
        #expect(details[0].localizedDescription == "name can’t be Nobody.")
    }

    @Test func overrideThatCoerces() throws {
        let object = ValidatedPerson.make(person, ["name": "Ann", "code": "42", "nickname": "  Annie "])
        let code = validatingValue(object, "code", "42")
        #expect(code.error == nil)
        #expect(code.value as? Int32 == 42)
        #expect(validatingValue(object, "nickname", "  Annie ").value as? String == "Annie")
        // Coerced before the model's rules, so the text passes as an Integer 32.
        try object.validateForInsert()
        // Without the override the same text is of the wrong type.
        let plain = ValidationTestObject.make(person, ["name": "Ann", "code": "42"])
        #expect(try #require(thrownValidationError { try plain.validateForInsert() }).code == NSManagedObjectValidationError)
    }

    @Test func overrideThatSkipsSuperSkipsTheModelRules() throws {
        final class Lenient: ValidationTestObject {
            override func validateValue(_ value: inout Any?, forKey key: String) throws {
                if key == "name" { return }
                try super.validateValue(&value, forKey: key)
            }
        }
        try Lenient.make(person).validateForInsert()
        #expect(thrownValidationError { try ValidationTestObject.make(person).validateForInsert() } != nil)
    }

    @Test func interpropertyOverrideCombinesWithSuper() throws {
        try ValidationRetiredPerson.make(person, ["name": "Ann", "age": 70, "active": false]).validateForInsert()
        let one = try #require(thrownValidationError {
            try ValidationRetiredPerson.make(self.person, ["name": "Ann", "age": 30, "active": false]).validateForInsert()
        })
        #expect(one.code == NSManagedObjectValidationError)
        #expect(one.localizedDescription == "Under 60 means active.")
        #expect(one.userInfo[NSValidationKeyErrorKey] as? String == "active")
        let both = try #require(thrownValidationError {
            try ValidationRetiredPerson.make(self.person, ["age": 30, "active": false]).validateForInsert()
        })
        #expect(both.code == NSValidationMultipleErrorsError)
        let details = try #require(both.userInfo[NSDetailedErrorsKey] as? [NSError])
        #expect(details.map(\.code) == [NSValidationMissingMandatoryPropertyError, NSManagedObjectValidationError])
    }

    @Test func publicErrorHelperBuildsCoreDataErrors() {
        let object = validPerson()
        let error = object.validationError(NSValidationStringTooShortError, forKey: "name", value: "A")
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == 1670)
        #expect(error.localizedDescription == "name is too short.")
        #expect(error.userInfo[NSValidationValueErrorKey] as? String == "A")
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "name")
        #expect(object.validationError(forKey: "name", value: nil).userInfo[NSValidationValueErrorKey] == nil)
    }

    // MARK: Localization through the model

    @Test func messagesAreLocalizedThroughTheModel() throws {
        let model = ValidationModels.make(localization: [
            "Property/name": "Nom",
            "Property/name/Entity/Employee": "Nom de l’employé",
            "Property/age/Entity/Person": "Âge",
            "Entity/Person": "Personne",
            "ErrorString/%{PROPERTY}@ is a required value.": "%{PROPERTY}@ est obligatoire (%{ENTITY}@).",
            "ErrorString/Title must start with Dept": "Le titre doit commencer par Dept",
            "ErrorString/Multiple validation errors occurred.": "Plusieurs erreurs de validation.",
        ])
        let person = ValidationTestObject.make(model.entitiesByName["Person"]!)
        #expect(validatingValue(person, "name", nil).error?.localizedDescription == "Nom est obligatoire (Personne).")
        // Property/<key>/Entity/<Entity> wins, and superentities are searched for it.
        #expect(validatingValue(person, "age", 151).error?.localizedDescription == "Âge is too large.")
        let employee = ValidationTestObject.make(model.entitiesByName["Employee"]!)
        #expect(validatingValue(employee, "age", 151).error?.localizedDescription == "Âge is too large.")
        #expect(validatingValue(employee, "name", "A").error?.localizedDescription == "Nom de l’employé is too short.")
        let title = validatingValue(ValidationTestObject.make(model.entitiesByName["Department"]!), "title", "Sales").error
        #expect(title?.localizedDescription == "Le titre doit commencer par Dept")
        let several = try #require(thrownValidationError { try employee.validateForInsert() })
        #expect(several.code == NSValidationMultipleErrorsError)
        #expect(several.localizedDescription == "Plusieurs erreurs de validation.")
    }

    // MARK: The seed's processID rule

    @Test(arguments: [Int32(0), Int32(-1)])
    func seedProcessIDRule(_ processID: Int32) throws {
        let model = ValidationModels.run()
        let run = ValidationTestObject.make(model.entitiesByName["Run"]!, ["date": Date(), "processID": processID])
        let error = try #require(thrownValidationError { try run.validateForInsert() })
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSManagedObjectValidationError)
        #expect(error.localizedDescription == "Process ID must not be less than 1")
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "processID")
        #expect(error.userInfo[NSValidationValueErrorKey] as? Int32 == processID)
        let predicate = try #require(error.userInfo[NSValidationPredicateErrorKey] as? NSPredicate)
        #expect(predicate.predicateFormat == "SELF > 0")
    }

    @Test func seedRunWithAProcessIDPasses() throws {
        let model = ValidationModels.run()
        let run = ValidationTestObject.make(model.entitiesByName["Run"]!, ["date": Date(), "processID": Int32(4242)])
        try run.validateForInsert()
        // A plain Int from the command line is an Integer 32 too.
        run.values["processID"] = 7
        try run.validateForInsert()
        run.values["date"] = nil
        let missing = try #require(thrownValidationError { try run.validateForInsert() })
        #expect(missing.code == NSValidationMissingMandatoryPropertyError)
        #expect(missing.localizedDescription == "Date is a required value.")
    }

    // MARK: The error factory

    @Test func combiningFlattensNestedMultipleErrors() throws {
        let object = validPerson()
        let a = object.validationError(forKey: "a", value: 1)
        let b = object.validationError(forKey: "b", value: 2)
        let c = object.validationError(forKey: "c", value: 3)
        #expect(CoreDataErrorFactory.combining([]) == nil)
        #expect(CoreDataErrorFactory.combining([a]) === a)
        let nested = CoreDataErrorFactory.multipleValidationErrors([a, b])
        let combined = try #require(CoreDataErrorFactory.combining([nested, c]))
        #expect(combined.code == NSValidationMultipleErrorsError)
        let details = try #require(combined.userInfo[NSDetailedErrorsKey] as? [NSError])
        #expect(details.map { $0.userInfo[NSValidationKeyErrorKey] as? String } == ["a", "b", "c"])
        // A single nested 1560 is unwrapped to its details, still several.
        #expect((CoreDataErrorFactory.combining([nested])?.userInfo[NSDetailedErrorsKey] as? [NSError])?.count == 2)
    }

    @Test func generalErrorsCarryTheirDescription() {
        let error = CoreDataErrorFactory.error(NSPersistentStoreSaveError, description: "The store at /tmp/x could not save.",
                                               userInfo: [NSAffectedStoresErrorKey: ["x"]])
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == 134030)
        #expect(error.localizedDescription == "The store at /tmp/x could not save.")
        #expect(error.userInfo[NSAffectedStoresErrorKey] as? [String] == ["x"])
        #expect(CoreDataErrorMessages.template(for: 4) == "The operation couldn’t be completed. (Cocoa error 4.)")
    }
}
