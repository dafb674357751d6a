import Testing
@testable import OpenCoreData

/// `validateValue(_:forKey:)`: the model's rules for one property.
@Suite struct ValidationValueTests {
    let model = ValidationModels.make()
    var person: NSEntityDescription { model.entitiesByName["Person"]! }
    var department: NSEntityDescription { model.entitiesByName["Department"]! }

    // MARK: Mandatory (1570)

    @Test(arguments: [ValidationSample(nil), ValidationSample(NSNull())])
    func missingMandatoryAttribute(_ missing: ValidationSample) throws {
        let object = ValidationTestObject.make(person)
        let error = try #require(validatingValue(object, "name", missing.value).error)
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSValidationMissingMandatoryPropertyError)
        #expect(error.code == CocoaError.Code.validationMissingMandatoryProperty.rawValue)
        #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === object)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "name")
        #expect(error.userInfo[NSValidationValueErrorKey] == nil)
        #expect(error.userInfo[NSValidationPredicateErrorKey] == nil)
        #expect(error.localizedDescription == "name is a required value.")
    }

    @Test func missingOptionalValuesPassWithoutFurtherChecks() {
        let object = ValidationTestObject.make(person)
        for key in ["age", "birthday", "weight", "photo", "nickname", "department", "friends"] {
            #expect(validatingValue(object, key, nil).error == nil, "\(key)")
            #expect(validatingValue(object, key, NSNull()).error == nil, "\(key)")
        }
    }

    @Test func missingMandatoryToOneRelationship() throws {
        let employee = ValidationTestObject.make(model.entitiesByName["Employee"]!)
        let error = try #require(validatingValue(employee, "office", nil).error)
        #expect(error.code == NSValidationMissingMandatoryPropertyError)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "office")
        #expect(error.localizedDescription == "office is a required value.")
        #expect(validatingValue(employee, "office", ValidationTestObject.make(department)).error == nil)
        // An optional to-one with nil passes.
        #expect(validatingValue(ValidationTestObject.make(person), "department", nil).error == nil)
    }

    // MARK: Types (1550) and coercion

    @Test(arguments: [
        ("age", ValidationSample("12"), "Int16", "String"),
        ("age", ValidationSample(true), "Int16", "Bool"),
        ("age", ValidationSample(2.5), "Int16", "Double"),
        ("name", ValidationSample(42), "String", "Int"),
        ("birthday", ValidationSample("2001-01-01"), "Date", "String"),
        ("weight", ValidationSample("heavy"), "Double", "String"),
        ("weight", ValidationSample(false), "Double", "Bool"),
        ("price", ValidationSample(9.99), "Decimal", "Double"),
        ("active", ValidationSample(1), "Bool", "Int"),
        ("identifier", ValidationSample("not a uuid"), "UUID", "String"),
        ("photo", ValidationSample([UInt8(1)]), "Data", "Array<UInt8>"),
        ("homepage", ValidationSample("https://example.com"), "URL", "String"),
    ])
    func wrongTypeIsValidationError(_ key: String, _ sample: ValidationSample, _ desired: String, _ given: String) throws {
        let object = ValidationTestObject.make(person)
        let error = try #require(validatingValue(object, key, sample.value).error)
        #expect(error.code == NSManagedObjectValidationError)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == key)
        #expect(error.userInfo[NSValidationValueErrorKey] != nil)
        #expect(error.localizedDescription.hasPrefix(
            "Unacceptable type of value for attribute: property = \"\(key)\"; desired type = \(desired); given type = \(given); value = "))
    }

    /// Integer attributes take every Swift integer width, and NSNumber, when the value fits.
    @Test(arguments: [
        (ValidationSample(Int8(5)), Int64(5)), (ValidationSample(UInt8(200)), 200), (ValidationSample(Int(-300)), -300), (ValidationSample(UInt64(7)), 7),
        (ValidationSample(Int64(32767)), 32767), (ValidationSample(Int32(-32768)), -32768), (ValidationSample(NSNumber(value: 12)), 12),
        (ValidationSample(NSNumber(value: 3.0)), 3),
    ] as [(ValidationSample, Int64)])
    func integersOfEveryWidthAreCoerced(_ sample: ValidationSample, _ expected: Int64) throws {
        let value = sample.value
        let entity = NSEntityDescription()
        entity.name = "Numbers"
        entity.properties = [ValidationModels.attribute("small", .integer16AttributeType),
                             ValidationModels.attribute("large", .integer64AttributeType)]
        let object = ValidationTestObject.make(entity)
        let small = validatingValue(object, "small", value)
        #expect(small.error == nil)
        #expect(small.value as? Int16 == Int16(expected))
        let large = validatingValue(object, "large", value)
        #expect(large.value as? Int64 == expected)
    }

    @Test(arguments: [
        (ValidationSample(Int(70_000)), NSValidationNumberTooLargeError),
        (ValidationSample(Int(-70_000)), NSValidationNumberTooSmallError),
        (ValidationSample(UInt64.max), NSValidationNumberTooLargeError),
        (ValidationSample(NSNumber(value: 40_000)), NSValidationNumberTooLargeError),
    ])
    func integersThatDoNotFitAreOutOfRange(_ sample: ValidationSample, _ code: Int) throws {
        let value = sample.value
        let object = ValidationTestObject.make(person)
        let error = try #require(validatingValue(object, "age", value).error)
        #expect(error.code == code)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "age")
        let reason = try #require(error.userInfo[NSLocalizedFailureReasonErrorKey] as? String)
        #expect(reason.contains("does not fit an Integer 16 attribute (-32768…32767)"))
    }

    @Test func otherTypesAreCoercedToTheAttributeType() {
        let object = ValidationTestObject.make(person)
        #expect(validatingValue(object, "weight", 3).value as? Double == 3)
        #expect(validatingValue(object, "weight", Float(1.5)).value as? Double == 1.5)
        #expect(validatingValue(object, "height", 2.25).value as? Float == 2.25)
        #expect(validatingValue(object, "price", 7).value as? Decimal == Decimal(7))
        #expect(validatingValue(object, "price", Decimal(string: "9.99")!).value as? Decimal == Decimal(string: "9.99"))
        #expect(validatingValue(object, "active", NSNumber(value: 1)).value as? Bool == true)
        #expect(validatingValue(object, "active", false).value as? Bool == false)
        #expect(validatingValue(object, "name", NSString(string: "Ann")).value as? String == "Ann")
        #expect(validatingValue(object, "name", "Ann"[...]).value as? String == "Ann")
        let uuid = UUID()
        #expect(validatingValue(object, "identifier", uuid).value as? UUID == uuid)
        #expect(validatingValue(object, "homepage", URL(string: "https://example.com")!).error == nil)
    }

    @Test func floatOutOfRange() throws {
        let object = ValidationTestObject.make(person)
        #expect(try #require(validatingValue(object, "height", 1e300).error).code == NSValidationNumberTooLargeError)
        #expect(try #require(validatingValue(object, "height", -1e300).error).code == NSValidationNumberTooSmallError)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func datesThatAreNotFiniteAreInvalid(_ interval: Double) throws {
        let object = ValidationTestObject.make(person)
        let error = try #require(validatingValue(object, "birthday", Date(timeIntervalSinceReferenceDate: interval)).error)
        #expect(error.code == NSValidationInvalidDateError)
        #expect(error.localizedDescription == "birthday is not a valid date.")
        #expect(error.userInfo[NSValidationValueErrorKey] is Date)
    }

    // MARK: Minimum, maximum, pattern (1610–1680)

    @Test(arguments: [
        ("age", ValidationSample(151), NSValidationNumberTooLargeError, "age is too large."),
        ("age", ValidationSample(-1), NSValidationNumberTooSmallError, "age is too small."),
        ("birthday", ValidationSample(Date(timeIntervalSinceReferenceDate: 86_401)), NSValidationDateTooLateError, "birthday is too late."),
        ("birthday", ValidationSample(Date(timeIntervalSinceReferenceDate: -1)), NSValidationDateTooSoonError, "birthday is too soon."),
        ("name", ValidationSample("Abcdefghijk"), NSValidationStringTooLongError, "name is too long."),
        ("name", ValidationSample("A"), NSValidationStringTooShortError, "name is too short."),
        ("name", ValidationSample("ann"), NSValidationStringPatternMatchingError, "name does not match the required pattern."),
        ("photo", ValidationSample(Data([1, 2, 3, 4, 5])), NSValidationStringTooLongError, "photo is too long."),
    ])
    func modelConstraints(_ key: String, _ sample: ValidationSample, _ code: Int, _ message: String) throws {
        let value = sample.value
        let object = ValidationTestObject.make(person)
        let error = try #require(validatingValue(object, key, value).error)
        #expect(error.code == code)
        #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === object)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == key)
        #expect(error.userInfo[NSValidationValueErrorKey] != nil)
        let predicate = try #require(error.userInfo[NSValidationPredicateErrorKey] as? NSPredicate)
        #expect(person.propertiesByName[key]!.validationPredicates.contains { $0 === predicate })
        #expect(error.localizedDescription == message)
    }

    @Test func valuesWithinTheConstraintsPass() {
        let object = ValidationTestObject.make(person)
        #expect(validatingValue(object, "age", 0).error == nil)
        #expect(validatingValue(object, "age", Int16(150)).error == nil)
        #expect(validatingValue(object, "birthday", Date(timeIntervalSinceReferenceDate: 43_200)).error == nil)
        #expect(validatingValue(object, "name", "Ab").error == nil)
        #expect(validatingValue(object, "name", "Abcdefghij").error == nil)
        #expect(validatingValue(object, "photo", Data([1, 2, 3, 4])).error == nil)
    }

    @Test func valueKeyHoldsTheCheckedValue() throws {
        let object = ValidationTestObject.make(person)
        let error = try #require(validatingValue(object, "age", 200).error)
        #expect(error.userInfo[NSValidationValueErrorKey] as? Int16 == 200)
    }

    // MARK: Validation predicates with warnings (1550)

    @Test func predicateWarningIsTheDescription() throws {
        let object = ValidationTestObject.make(department)
        let error = try #require(validatingValue(object, "title", "Sales").error)
        #expect(error.code == NSManagedObjectValidationError)
        #expect(error.localizedDescription == "Title must start with Dept")
        #expect(error.userInfo[NSValidationValueErrorKey] as? String == "Sales")
        let predicate = try #require(error.userInfo[NSValidationPredicateErrorKey] as? NSPredicate)
        #expect(predicate.predicateFormat == "SELF BEGINSWITH \"Dept\"")
        #expect(validatingValue(object, "title", "Dept. of Sales").error == nil)
    }

    @Test func predicateThatCannotBeEvaluatedIsAnErrorNotATrap() throws {
        let entity = NSEntityDescription()
        entity.name = "Thing"
        let size = ValidationModels.attribute("size", .integer32AttributeType)
        size.setValidationPredicates([NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "unknownKey"),
                                                            rightExpression: NSExpression(forConstantValue: 1),
                                                            modifier: .direct, type: .equalTo)],
                                     withValidationWarnings: ["size is odd"])
        entity.properties = [size]
        let error = try #require(validatingValue(ValidationTestObject.make(entity), "size", 3).error)
        #expect(error.code == NSManagedObjectValidationError)
        #expect(error.userInfo[NSUnderlyingErrorKey] != nil)
        #expect(error.userInfo[NSValidationPredicateErrorKey] is NSPredicate)
        let reason = try #require(error.userInfo[NSLocalizedFailureReasonErrorKey] as? String)
        #expect(reason.contains("unknownKey"))
    }

    /// Strings and data answer `length` as NSString and NSData do, which the compiled length
    /// constraints read.
    @Test func stringLengthThroughKeyValueCoding() throws {
        #expect(try NSPredicate(format: "length == 3").evaluateThrowing(with: "abc"))
        #expect(try NSPredicate(format: "length == 2").evaluateThrowing(with: "é😀"[...]) == false)
        #expect(try KeyValueAccess.value(forKey: "length", of: "😀") as? Int == 2)
        #expect(try KeyValueAccess.value(forKey: "length", of: Data([1, 2])) as? Int == 2)
    }

    // MARK: Relationships (1550, 1580, 1590)

    @Test func toManyCounts() throws {
        let object = ValidationTestObject.make(person)
        let others = (0..<4).map { _ in ValidationTestObject.make(person) as NSManagedObject }
        // Optional and empty: passes, whatever the minimum.
        #expect(validatingValue(object, "friends", Set<NSManagedObject>()).error == nil)
        let tooFew = try #require(validatingValue(object, "friends", Set(others.prefix(1))).error)
        #expect(tooFew.code == NSValidationRelationshipLacksMinimumCountError)
        #expect(tooFew.localizedDescription == "Too few items in friends.")
        #expect(tooFew.userInfo[NSValidationKeyErrorKey] as? String == "friends")
        #expect((tooFew.userInfo[NSValidationValueErrorKey] as? Set<NSManagedObject>)?.count == 1)
        #expect(validatingValue(object, "friends", Set(others.prefix(3))).error == nil)
        let tooMany = try #require(validatingValue(object, "friends", Set(others)).error)
        #expect(tooMany.code == NSValidationRelationshipExceedsMaximumCountError)
        #expect(tooMany.localizedDescription == "Too many items in friends.")
    }

    @Test func requiredToManyNeedsOneDestination() throws {
        let object = ValidationTestObject.make(department)
        let empty = try #require(validatingValue(object, "members", Set<NSManagedObject>()).error)
        #expect(empty.code == NSValidationRelationshipLacksMinimumCountError)
        #expect(try #require(validatingValue(object, "members", nil).error).code == NSValidationRelationshipLacksMinimumCountError)
        #expect(validatingValue(object, "members", Set([ValidationTestObject.make(person) as NSManagedObject])).error == nil)
    }

    @Test func relationshipDestinationsMustBeOfTheDestinationEntity() throws {
        let object = ValidationTestObject.make(person)
        let employee = ValidationTestObject.make(model.entitiesByName["Employee"]!)
        let dept = ValidationTestObject.make(department)
        // A subentity of the destination fits.
        #expect(validatingValue(object, "friends", Set<NSManagedObject>([employee, ValidationTestObject.make(person)])).error == nil)
        let wrongEntity = try #require(validatingValue(object, "department", employee).error)
        #expect(wrongEntity.code == NSManagedObjectValidationError)
        #expect(wrongEntity.localizedDescription.hasPrefix(
            "Unacceptable type of value for to-one relationship: property = \"department\"; desired type = Department; given type = Employee;"))
        #expect(validatingValue(object, "department", dept).error == nil)
        let notObjects = try #require(validatingValue(object, "friends", ["Ann", "Bob"]).error)
        #expect(notObjects.code == NSManagedObjectValidationError)
        #expect(notObjects.localizedDescription.contains("to-many relationship: property = \"friends\"; desired type = Set<Person>"))
        let mixed = try #require(validatingValue(object, "friends", Set<NSManagedObject>([dept, employee])).error)
        #expect(mixed.localizedDescription.contains("given type = Department"))
    }

    // MARK: Keys without rules

    @Test func unknownKeyHasNoRules() {
        let object = ValidationTestObject.make(person)
        let result = validatingValue(object, "notAProperty", 12)
        #expect(result.error == nil)
        #expect(result.value as? Int == 12)
    }
}
