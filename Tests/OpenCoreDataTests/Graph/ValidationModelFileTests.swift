import Testing
@testable import OpenCoreData

/// Validation of a model read from an Xcode model file: the minimum, maximum and pattern the
/// reader compiles, and the messages of the `<Name>Model.strings` file beside it.
@Suite struct ValidationModelFileTests {
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" \
        systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Item" representedClassName="Item" syncable="YES">
                <attribute name="sku" optional="NO" attributeType="String" minValueString="3" maxValueString="8" \
        regularExpressionString="[A-Z]+-[0-9]+"/>
                <attribute name="quantity" optional="YES" attributeType="Integer 32" minValueString="1" \
        maxValueString="99" defaultValueString="1" usesScalarValueType="YES"/>
                <relationship name="tags" optional="YES" toMany="YES" minCount="1" maxCount="2" deletionRule="Deny" \
        destinationEntity="Tag"/>
            </entity>
            <entity name="Tag" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """

    static let strings = """
        "Entity/Item" = "Article";
        "Property/sku/Entity/Item" = "Stock code";
        "Property/quantity" = "Quantity";
        "ErrorString/Too many items in %{PROPERTY}@." = "%{ENTITY}@ has too many %{PROPERTY}@.";
        """

    /// Writes `Shop.xcdatamodel/contents` and `ShopModel.strings` and loads the model.
    func loadModel() throws -> NSManagedObjectModel {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = directory.appendingPathComponent("Shop.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data(Self.contents.utf8).write(to: version.appendingPathComponent("contents"))
        try Data(Self.strings.utf8).write(to: directory.appendingPathComponent("ShopModel.strings"))
        return try NSManagedObjectModel.load(contentsOf: version)
    }

    @Test func compiledConstraintsAndLocalizedMessages() throws {
        let model = try loadModel()
        let item = model.entitiesByName["Item"]!
        let object = ValidationTestObject.make(item)

        #expect(validatingValue(object, "sku", "A-1").error == nil)
        let short = try #require(validatingValue(object, "sku", "AB").error)
        #expect(short.code == NSValidationStringTooShortError)
        #expect(short.localizedDescription == "Stock code is too short.")
        #expect(try #require(validatingValue(object, "sku", "ABCDEF-12").error).code == NSValidationStringTooLongError)
        let pattern = try #require(validatingValue(object, "sku", "ab-12").error)
        #expect(pattern.code == NSValidationStringPatternMatchingError)
        #expect(pattern.localizedDescription == "Stock code does not match the required pattern.")
        #expect((pattern.userInfo[NSValidationPredicateErrorKey] as? NSPredicate)?.predicateFormat == "SELF MATCHES \"[A-Z]+-[0-9]+\"")

        let large = try #require(validatingValue(object, "quantity", 100).error)
        #expect(large.code == NSValidationNumberTooLargeError)
        #expect(large.localizedDescription == "Quantity is too large.")
        #expect(try #require(validatingValue(object, "quantity", Int32(0)).error).code == NSValidationNumberTooSmallError)
        #expect(validatingValue(object, "quantity", 99).value as? Int32 == 99)

        let tags = (0..<3).map { _ in ValidationTestObject.make(model.entitiesByName["Tag"]!) as NSManagedObject }
        let many = try #require(validatingValue(object, "tags", Set(tags)).error)
        #expect(many.code == NSValidationRelationshipExceedsMaximumCountError)
        #expect(many.localizedDescription == "Article has too many tags.")
    }

    @Test func denyRuleFromTheModelFile() throws {
        let model = try loadModel()
        let tag = ValidationTestObject.make(model.entitiesByName["Tag"]!) as NSManagedObject
        let item = ValidationTestObject.make(model.entitiesByName["Item"]!, ["sku": "AB-12", "tags": Set([tag])])
        try item.validateForInsert()
        let error = try #require(thrownValidationError { try item.validateForDelete() })
        #expect(error.code == NSValidationRelationshipDeniedDeleteError)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "tags")
    }
}
