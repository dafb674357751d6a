import Testing
@testable import OpenCoreData

/// What version hashes depend on, on models built in code. The expectations agree with what
/// Apple's Core Data does (for example, the delete rule, the class name, Spotlight indexing and
/// cloud encryption leave the hash alone, while external storage and history preservation change it).
@Suite struct VersionHashBehaviourTests {
    /// `Person(name, age, pets → Pet)`, `Pet(name, owner → Person)`, `Employee : Person`.
    static func makeModel() -> NSManagedObjectModel {
        let person = NSEntityDescription()
        person.name = "Person"
        person.managedObjectClassName = "Person"
        let pet = NSEntityDescription()
        pet.name = "Pet"
        let employee = NSEntityDescription()
        employee.name = "Employee"

        let name = attribute("name", .stringAttributeType, optional: false)
        let age = attribute("age", .integer32AttributeType)
        age.defaultValue = Int32(0)
        let photo = attribute("photo", .binaryDataAttributeType)
        let pets = NSRelationshipDescription()
        pets.name = "pets"
        pets.maxCount = 0
        pets.deleteRule = .cascadeDeleteRule
        person.properties = [name, age, photo, pets]

        let petName = attribute("name", .stringAttributeType)
        let owner = NSRelationshipDescription()
        owner.name = "owner"
        pet.properties = [petName, owner]

        let salary = attribute("salary", .doubleAttributeType)
        employee.properties = [salary]
        person.subentities = [employee]

        let model = NSManagedObjectModel()
        model.entities = [employee, person, pet]
        pets.destinationEntity = pet
        pets.inverseRelationship = owner
        owner.destinationEntity = person
        owner.inverseRelationship = pets
        return model
    }

    static func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        return attribute
    }

    /// One change to the model, and whether Core Data's hash of `Person` changes with it.
    enum Change: String, CaseIterable, Sendable {
        // Changes the hash.
        case renameEntity, makeAbstract, entityModifier, addUniquenessConstraint
        case renameAttribute, changeAttributeType, toggleOptional, makeAttributeTransient, propertyModifier
        case addAttribute, removeAttribute, externalStorage, preserveInHistory
        case relationshipMaxCount, relationshipMinCount, relationshipOrdered, renameInverse, changeDestination
        // Leaves the hash alone.
        case changeDefault, addValidationRule, changeUserInfo, changeClassName, setRenamingIdentifier
        case changeDeleteRule, addFetchIndex, markIndexed, setValueTransformer, addTransientAttribute
        case addFetchedProperty, changeSubentityAttribute, allowCloudEncryption, indexBySpotlight

        var changesHash: Bool {
            switch self {
            case .changeDefault, .addValidationRule, .changeUserInfo, .changeClassName, .setRenamingIdentifier,
                 .changeDeleteRule, .addFetchIndex, .markIndexed, .setValueTransformer, .addTransientAttribute,
                 .addFetchedProperty, .changeSubentityAttribute, .allowCloudEncryption, .indexBySpotlight:
                return false
            default:
                return true
            }
        }

        func apply(to model: NSManagedObjectModel) {
            let person = model.entitiesByName["Person"]!
            let attributes = person.attributesByName
            let pets = person.relationshipsByName["pets"]!
            switch self {
            case .renameEntity: person.name = "Human"
            case .makeAbstract: person.isAbstract = true
            case .entityModifier: person.versionHashModifier = "2"
            case .addUniquenessConstraint: person.uniquenessConstraints = [["name"]]
            case .renameAttribute: attributes["age"]!.name = "years"
            case .changeAttributeType: attributes["age"]!.attributeType = .integer64AttributeType
            case .toggleOptional: attributes["name"]!.isOptional = true
            case .makeAttributeTransient: attributes["age"]!.isTransient = true
            case .propertyModifier: attributes["age"]!.versionHashModifier = "v2"
            case .addAttribute: person.properties = person.declaredProperties + [attribute("email", .stringAttributeType)]
            case .removeAttribute: person.properties = person.declaredProperties.filter { $0.name != "photo" }
            case .externalStorage: attributes["photo"]!.allowsExternalBinaryDataStorage = true
            case .preserveInHistory: attributes["name"]!.preservesValueInHistoryOnDeletion = true
            case .relationshipMaxCount: pets.maxCount = 5
            case .relationshipMinCount: pets.minCount = 1
            case .relationshipOrdered: pets.isOrdered = true
            case .renameInverse: model.entitiesByName["Pet"]!.relationshipsByName["owner"]!.name = "master"
            case .changeDestination: pets.destinationEntity = model.entitiesByName["Employee"]
            case .changeDefault: attributes["age"]!.defaultValue = Int32(18)
            case .addValidationRule:
                attributes["age"]!.setValidationPredicates([NSPredicate(format: "SELF >= 0")], withValidationWarnings: ["too young"])
            case .changeUserInfo: person.userInfo = ["key": "value"]; attributes["name"]!.userInfo = ["a": "b"]
            case .changeClassName: person.managedObjectClassName = "OtherPerson"
            case .setRenamingIdentifier: person.renamingIdentifier = "OldPerson"; attributes["age"]!.renamingIdentifier = "oldAge"
            case .changeDeleteRule: pets.deleteRule = .denyDeleteRule
            case .addFetchIndex:
                person.indexes = [NSFetchIndexDescription(name: "byName", elements: [
                    NSFetchIndexElementDescription(property: attributes["name"]!, collationType: .binary)])]
            case .markIndexed: attributes["name"]!.isIndexed = true
            case .setValueTransformer: attributes["photo"]!.valueTransformerName = "SomeTransformer"
            case .addTransientAttribute:
                let scratch = attribute("scratch", .stringAttributeType)
                scratch.isTransient = true
                person.properties = person.declaredProperties + [scratch]
            case .addFetchedProperty:
                let fetched = NSFetchedPropertyDescription()
                fetched.name = "namesakes"
                fetched.fetchRequest = NSFetchRequest<NSFetchRequestResult>(entityName: "Person")
                person.properties = person.declaredProperties + [fetched]
            case .allowCloudEncryption: attributes["name"]!.allowsCloudEncryption = true
            case .indexBySpotlight: attributes["name"]!.isIndexedBySpotlight = true
            case .changeSubentityAttribute: model.entitiesByName["Employee"]!.attributesByName["salary"]!.attributeType = .floatAttributeType
            }
        }
    }

    @Test(arguments: Change.allCases)
    func hashDependsOnTheSchemaOnly(_ change: Change) throws {
        let before = Self.makeModel()
        let after = Self.makeModel()
        change.apply(to: after)
        let oldHash = try #require(before.entitiesByName["Person"]).versionHash
        let renamed = after.entitiesByName["Person"] ?? after.entitiesByName["Human"]
        let newHash = try #require(renamed).versionHash
        if change.changesHash {
            #expect(oldHash != newHash, "\(change) should change the hash")
        } else {
            #expect(oldHash == newHash, "\(change) should leave the hash alone")
        }
    }

    @Test func subentityHashFollowsItsSuperentity() {
        let before = Self.makeModel()
        let after = Self.makeModel()
        after.entitiesByName["Person"]!.attributesByName["age"]!.attributeType = .integer16AttributeType
        #expect(before.entitiesByName["Employee"]!.versionHash != after.entitiesByName["Employee"]!.versionHash)
    }

    @Test func hashesAreStableAndThirtyTwoBytes() {
        let first = Self.makeModel().entityVersionHashesByName
        let second = Self.makeModel().entityVersionHashesByName
        #expect(first == second)
        #expect(first.values.allSatisfy { $0.count == 32 })
        #expect(Set(first.values).count == 3)
    }

    /// A model built in code gets Apple's hash: `User` of the fixture `SampleModel3` v1, whose
    /// hash momc wrote into `VersionInfo.plist` (and Core Data into the fixture store). Fixed
    /// bytes, so the hash is also stable across processes and machines.
    @Test func codeBuiltModelHasApplesHash() {
        let user = NSEntityDescription()
        user.name = "User"
        user.managedObjectClassName = "User"
        user.properties = [Self.attribute("name", .stringAttributeType, optional: false),
                           Self.attribute("petName", .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [user]
        #expect(VersionHashAppleTests.hex(user.versionHash) == "6b31f4e97b691d16c4c820bae55f89408d47013bd42151ecfde1eac7fe4be798")
        #expect(VersionHasher.modelChecksum(entityVersionHashes: model.entityVersionHashesByName).base64EncodedString()
            == "u970QgYhRHEJGIt0zQr1UhuZL2ZJ1KxBS+B7rkAx0ik=")
    }

    @Test func reflexiveRelationshipLeavesOutItsInverseName() {
        // A relationship that is its own inverse hashes like one with no inverse.
        func spouseHash(inverse: Bool) -> Data {
            let person = NSEntityDescription()
            person.name = "Person"
            let spouse = NSRelationshipDescription()
            spouse.name = "spouse"
            person.properties = [spouse]
            let model = NSManagedObjectModel()
            model.entities = [person]
            spouse.destinationEntity = person
            if inverse { spouse.inverseRelationship = spouse }
            return spouse.versionHash
        }
        #expect(spouseHash(inverse: true) == spouseHash(inverse: false))
    }
}
