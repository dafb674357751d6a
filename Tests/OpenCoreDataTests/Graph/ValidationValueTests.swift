import Testing
@testable import OpenCoreData

/// `validateValue(_:forKey:)`: the model's rules for one property.
@Suite struct ValidationValueTests {
    let model = ValidationModels.make()
    var person: NSEntityDescription { model[entity: "Person"] }
    var department: NSEntityDescription { model[entity: "Department"] }

    // MARK: Mandatory (1570)

    @Test(arguments: [Sample(nil), Sample(NSNull())])
    func missingMandatoryAttribute(_ missing: Sample) throws {
        let object = ValidationTestObject.make(person)
        let error = try #require(validating(object, "name", missing.value).error)
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
            #expect(validating(object, key, nil).error == nil, "\(key)")
            #expect(validating(object, key, NSNull()).error == nil, "\(key)")
        }
    }

    @Test func missingMandatoryToOneRelationship() throws {
        let employee = ValidationTestObject.make(model[entity: "Employee"])
        let error = try #require(validating(employee, "office", nil).error)
        #expect(error.code == NSValidationMissingMandatoryPropertyError)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "office")
        #expect(error.localizedDescription == "office is a required value.")
        #expect(validating(employee, "office", ValidationTestObject.make(department)).error == nil)
        // An optional to-one with nil passes.
        #expect(validating(ValidationTestObject.make(person), "department", nil).error == nil)
    }

    // MARK: Types (1550) and coercion

    @Test(arguments: [
        ("age", Sample("12"), "Int16", "String"),
        ("age", Sample(true), "Int16", "Bool"),
        ("age", Sample(2.5), "Int16", "Double"),
        ("name", Sample(42), "String", "Int"),
        ("birthday", Sample("2001-01-01"), "Date", "String"),
        ("weight", Sample("heavy"), "Double", "String"),
        ("weight", Sample(false), "Double", "Bool"),
        ("price", Sample(9.99), "Decimal", "Double"),
        ("active", Sample(1), "Bool", "Int"),
        ("identifier", Sample("not a uuid"), "UUID", "String"),
        ("photo", Sample([UInt8(1)]), "Data", "Array<UInt8>"),
        ("homepage", Sample("https://example.com"), "URL", "String"),
    ])
    func wrongTypeIsValidationError(_ key: String, _ sample: Sample, _ desired: String, _ given: String) throws {
        let object = ValidationTestObject.make(person)
        let error = try #require(validating(object, key, sample.value).error)
        #expect(error.code == NSManagedObjectValidationError)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == key)
        #expect(error.userInfo[NSValidationValueErrorKey] != nil)
        #expect(error.localizedDescription.hasPrefix(
            "Unacceptable type of value for attribute: property = \"\(key)\"; desired type = \(desired); given type = \(given); value = "))
    }

    /// Integer attributes take every Swift integer width, and NSNumber, when the value fits.
    @Test(arguments: [
        (Sample(Int8(5)), Int64(5)), (Sample(UInt8(200)), 200), (Sample(Int(-300)), -300), (Sample(UInt64(7)), 7),
        (Sample(Int64(32767)), 32767), (Sample(Int32(-32768)), -32768), (Sample(NSNumber(value: 12)), 12),
        (Sample(NSNumber(value: 3.0)), 3),
    ] as [(Sample, Int64)])
    func integersOfEveryWidthAreCoerced(_ sample: Sample, _ expected: Int64) throws {
        let value = sample.value
        let entity = NSEntityDescription()
        entity.name = "Numbers"
        entity.properties = [ValidationModels.attribute("small", .integer16AttributeType),
                             ValidationModels.attribute("large", .integer64AttributeType)]
        let object = ValidationTestObject.make(entity)
        let small = validating(object, "small", value)
        #expect(small.error == nil)
        #expect(small.value as? Int16 == Int16(expected))
        let large = validating(object, "large", value)
        #expect(large.value as? Int64 == expected)
    }

    @Test(arguments: [
        (Sample(Int(70_000)), NSValidationNumberTooLargeError),
        (Sample(Int(-70_000)), NSValidationNumberTooSmallError),
        (Sample(UInt64.max), NSValidationNumberTooLargeError),
        (Sample(NSNumber(value: 40_000)), NSValidationNumberTooLargeError),
    ])
    func integersThatDoNotFitAreOutOfRange(_ sample: Sample, _ code: Int) throws {
        let value = sample.value
        let object = ValidationTestObject.make(person)
        let error = try #require(validating(object, "age", value).error)
        #expect(error.code == code)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "age")
        let reason = try #require(error.userInfo[NSLocalizedFailureReasonErrorKey] as? String)
        #expect(reason.contains("does not fit an Integer 16 attribute (-32768…32767)"))
    }

    @Test func otherTypesAreCoercedToTheAttributeType() {
        let object = ValidationTestObject.make(person)
        #expect(validating(object, "weight", 3).value as? Double == 3)
        #expect(validating(object, "weight", Float(1.5)).value as? Double == 1.5)
        #expect(validating(object, "height", 2.25).value as? Float == 2.25)
        #expect(validating(object, "price", 7).value as? Decimal == Decimal(7))
        #expect(validating(object, "price", Decimal(string: "9.99")!).value as? Decimal == Decimal(string: "9.99"))
        #expect(validating(object, "active", NSNumber(value: 1)).value as? Bool == true)
        #expect(validating(object, "active", false).value as? Bool == false)
        #expect(validating(object, "name", NSString(string: "Ann")).value as? String == "Ann")
        #expect(validating(object, "name", "Ann"[...]).value as? String == "Ann")
        let uuid = UUID()
        #expect(validating(object, "identifier", uuid).value as? UUID == uuid)
        #expect(validating(object, "homepage", URL(string: "https://example.com")!).error == nil)
    }

    @Test func floatOutOfRange() throws {
        let object = ValidationTestObject.make(person)
        #expect(try #require(validating(object, "height", 1e300).error).code == NSValidationNumberTooLargeError)
        #expect(try #require(validating(object, "height", -1e300).error).code == NSValidationNumberTooSmallError)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func datesThatAreNotFiniteAreInvalid(_ interval: Double) throws {
        let object = ValidationTestObject.make(person)
        let error = try #require(validating(object, "birthday", Date(timeIntervalSinceReferenceDate: interval)).error)
        #expect(error.code == NSValidationInvalidDateError)
        #expect(error.localizedDescription == "birthday is not a valid date.")
        #expect(error.userInfo[NSValidationValueErrorKey] is Date)
    }

    // MARK: Minimum, maximum, pattern (1610–1680)

    @Test(arguments: [
        ("age", Sample(151), NSValidationNumberTooLargeError, "age is too large."),
        ("age", Sample(-1), NSValidationNumberTooSmallError, "age is too small."),
        ("birthday", Sample(Date(timeIntervalSinceReferenceDate: 86_401)), NSValidationDateTooLateError, "birthday is too late."),
        ("birthday", Sample(Date(timeIntervalSinceReferenceDate: -1)), NSValidationDateTooSoonError, "birthday is too soon."),
        ("name", Sample("Abcdefghijk"), NSValidationStringTooLongError, "name is too long."),
        ("name", Sample("A"), NSValidationStringTooShortError, "name is too short."),
        ("name", Sample("ann"), NSValidationStringPatternMatchingError, "name does not match the required pattern."),
        ("photo", Sample(Data([1, 2, 3, 4, 5])), NSValidationStringTooLongError, "photo is too long."),
    ])
    func modelConstraints(_ key: String, _ sample: Sample, _ code: Int, _ message: String) throws {
        let value = sample.value
        let object = ValidationTestObject.make(person)
        let error = try #require(validating(object, key, value).error)
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
        #expect(validating(object, "age", 0).error == nil)
        #expect(validating(object, "age", Int16(150)).error == nil)
        #expect(validating(object, "birthday", Date(timeIntervalSinceReferenceDate: 43_200)).error == nil)
        #expect(validating(object, "name", "Ab").error == nil)
        #expect(validating(object, "name", "Abcdefghij").error == nil)
        #expect(validating(object, "photo", Data([1, 2, 3, 4])).error == nil)
    }

    @Test func valueKeyHoldsTheCheckedValue() throws {
        let object = ValidationTestObject.make(person)
        let error = try #require(validating(object, "age", 200).error)
        #expect(error.userInfo[NSValidationValueErrorKey] as? Int16 == 200)
    }

    // MARK: Validation predicates with warnings (1550)

    @Test func predicateWarningIsTheDescription() throws {
        let object = ValidationTestObject.make(department)
        let error = try #require(validating(object, "title", "Sales").error)
        #expect(error.code == NSManagedObjectValidationError)
        #expect(error.localizedDescription == "Title must start with Dept")
        #expect(error.userInfo[NSValidationValueErrorKey] as? String == "Sales")
        let predicate = try #require(error.userInfo[NSValidationPredicateErrorKey] as? NSPredicate)
        #expect(predicate.predicateFormat == "SELF BEGINSWITH \"Dept\"")
        #expect(validating(object, "title", "Dept. of Sales").error == nil)
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
        let error = try #require(validating(ValidationTestObject.make(entity), "size", 3).error)
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
        #expect(validating(object, "friends", Set<NSManagedObject>()).error == nil)
        let tooFew = try #require(validating(object, "friends", Set(others.prefix(1))).error)
        #expect(tooFew.code == NSValidationRelationshipLacksMinimumCountError)
        #expect(tooFew.localizedDescription == "Too few items in friends.")
        #expect(tooFew.userInfo[NSValidationKeyErrorKey] as? String == "friends")
        #expect((tooFew.userInfo[NSValidationValueErrorKey] as? Set<NSManagedObject>)?.count == 1)
        #expect(validating(object, "friends", Set(others.prefix(3))).error == nil)
        let tooMany = try #require(validating(object, "friends", Set(others)).error)
        #expect(tooMany.code == NSValidationRelationshipExceedsMaximumCountError)
        #expect(tooMany.localizedDescription == "Too many items in friends.")
    }

    @Test func requiredToManyNeedsOneDestination() throws {
        let object = ValidationTestObject.make(department)
        let empty = try #require(validating(object, "members", Set<NSManagedObject>()).error)
        #expect(empty.code == NSValidationRelationshipLacksMinimumCountError)
        #expect(try #require(validating(object, "members", nil).error).code == NSValidationRelationshipLacksMinimumCountError)
        #expect(validating(object, "members", Set([ValidationTestObject.make(person) as NSManagedObject])).error == nil)
    }

    @Test func relationshipDestinationsMustBeOfTheDestinationEntity() throws {
        let object = ValidationTestObject.make(person)
        let employee = ValidationTestObject.make(model[entity: "Employee"])
        let dept = ValidationTestObject.make(department)
        // A subentity of the destination fits.
        #expect(validating(object, "friends", Set<NSManagedObject>([employee, ValidationTestObject.make(person)])).error == nil)
        let wrongEntity = try #require(validating(object, "department", employee).error)
        #expect(wrongEntity.code == NSManagedObjectValidationError)
        #expect(wrongEntity.localizedDescription.hasPrefix(
            "Unacceptable type of value for to-one relationship: property = \"department\"; desired type = Department; given type = Employee;"))
        #expect(validating(object, "department", dept).error == nil)
        let notObjects = try #require(validating(object, "friends", ["Ann", "Bob"]).error)
        #expect(notObjects.code == NSManagedObjectValidationError)
        #expect(notObjects.localizedDescription.contains("to-many relationship: property = \"friends\"; desired type = Set<Person>"))
        let mixed = try #require(validating(object, "friends", Set<NSManagedObject>([dept, employee])).error)
        #expect(mixed.localizedDescription.contains("given type = Department"))
    }

    // MARK: Keys without rules

    @Test func unknownKeyHasNoRules() {
        let object = ValidationTestObject.make(person)
        let result = validating(object, "notAProperty", 12)
        #expect(result.error == nil)
        #expect(result.value as? Int == 12)
    }
}
