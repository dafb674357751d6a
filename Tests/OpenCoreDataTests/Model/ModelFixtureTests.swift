import Testing
@testable import OpenCoreData

/// The real Xcode models of the fixtures load with every element checked.
@Suite struct ModelFixtureTests {
    private func version(_ name: String) -> URL {
        Fixtures.sampleModel.appendingPathComponent("\(name).xcdatamodel")
    }

    private func attribute(_ entity: NSEntityDescription, _ name: String) throws -> NSAttributeDescription {
        try #require(entity.attributesByName[name], "\(entity.name ?? "") has no attribute \(name)")
    }

    private func relationship(_ entity: NSEntityDescription, _ name: String) throws -> NSRelationshipDescription {
        try #require(entity.relationshipsByName[name], "\(entity.name ?? "") has no relationship \(name)")
    }

    @Test func packageLoadsTheCurrentVersion() throws {
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel)
        #expect(model.versionIdentifiers == ["1"])
        #expect(model.entities.map(\.name) == ["Car", "ExpensiveSportCar", "Person", "SportCar"])
        let viaInit = try #require(NSManagedObjectModel(contentsOf: Fixtures.sampleModel))
        #expect(viaInit.isEqual(model))
        #expect(viaInit.entities.allSatisfy { $0.managedObjectModel === viaInit })
    }

    @Test func version1() throws {
        let model = try NSManagedObjectModel.load(contentsOf: version("SampleModel"))
        #expect(model.entities.count == 4)
        #expect(model.configurations.isEmpty)
        #expect(model.fetchRequestTemplatesByName.isEmpty)
        let entities = model.entitiesByName
        let car = try #require(entities["Car"])
        let sport = try #require(entities["SportCar"])
        let expensive = try #require(entities["ExpensiveSportCar"])
        let person = try #require(entities["Person"])

        #expect(car.managedObjectClassName == "Car")
        #expect(car.superentity == nil && !car.isAbstract)
        #expect(car.subentities.map(\.name) == ["SportCar"])
        #expect(sport.superentity === car)
        #expect(sport.subentities.map(\.name) == ["ExpensiveSportCar"])
        #expect(expensive.superentity === sport)
        #expect(expensive.isKindOf(entity: car) && expensive.isKindOf(entity: sport) && !car.isKindOf(entity: sport))
        #expect(!person.isKindOf(entity: car))

        #expect(car.properties.map(\.name) == ["color", "currentDrivingSpeed", "maker", "markedForDeletionAsOf", "model", "numberPlate", "owner"])
        #expect(expensive.properties.map(\.name) == car.properties.map(\.name) + ["isLimitedEdition"])
        #expect(expensive.propertiesByName["owner"] === car.propertiesByName["owner"])
        #expect(expensive.propertiesByName["owner"]?.entity === car)

        let color = try attribute(car, "color")
        #expect(color.attributeType == .transformableAttributeType)
        #expect(color.valueTransformerName == "ColorTransformer")
        #expect(color.attributeValueClassName == "Color")
        #expect(color.isOptional && !color.isTransient)
        let speed = try attribute(car, "currentDrivingSpeed")
        #expect(speed.attributeType == .integer64AttributeType && speed.isTransient)
        #expect(speed.defaultValue as? Int64 == 0)
        #expect(speed.attributeValueClassName == "NSNumber")
        let plate = try attribute(car, "numberPlate")
        #expect(plate.attributeType == .stringAttributeType && !plate.isOptional && plate.defaultValue == nil)
        #expect(try attribute(car, "markedForDeletionAsOf").attributeType == .dateAttributeType)
        #expect(car.uniquenessConstraints as? [[String]] == [["numberPlate"]])
        #expect(car.indexes.isEmpty)

        let limited = try attribute(expensive, "isLimitedEdition")
        #expect(limited.attributeType == .booleanAttributeType && limited.defaultValue as? Bool == false)

        let id = try attribute(person, "id")
        #expect(id.attributeType == .UUIDAttributeType && !id.isOptional && id.preservesValueInHistoryOnDeletion)
        #expect(id.attributeValueClassName == "NSUUID")
        let driving = try attribute(person, "isDriving")
        #expect(driving.isTransient && !driving.isOptional)
        #expect(person.uniquenessConstraints as? [[String]] == [["firstName", "lastName"]])

        let owner = try relationship(car, "owner")
        let cars = try relationship(person, "cars")
        #expect(owner.destinationEntity === person && owner.inverseRelationship === cars)
        #expect(!owner.isToMany && owner.maxCount == 1 && owner.minCount == 0 && owner.isOptional)
        #expect(owner.deleteRule == .nullifyDeleteRule && !owner.isOrdered)
        #expect(cars.destinationEntity === car && cars.inverseRelationship === owner)
        #expect(cars.isToMany && cars.maxCount == 0)
        #expect(person.relationships(forDestination: car).map(\.name) == ["cars"])
        #expect(expensive.relationships(forDestination: person).map(\.name) == ["owner"])
        #expect(car.relationships(forDestination: car).isEmpty)
    }

    @Test func version2() throws {
        let model = try NSManagedObjectModel.load(contentsOf: version("SampleModel2"))
        #expect(model.versionIdentifiers == ["2"])
        #expect(model.entities.map(\.name) == ["Car", "LuxuryCar", "Person", "SportCar"])
        let car = try #require(model.entitiesByName["Car"])
        let luxury = try #require(model.entitiesByName["LuxuryCar"])
        #expect(luxury.renamingIdentifier == "ExpensiveSportCar")
        #expect(luxury.superentity?.name == "SportCar")
        #expect(car.attributesByName["color"] == nil)
        let index = try #require(car.indexes.first)
        #expect(car.indexes.count == 1)
        #expect(index.name == "byMakerAndNumberPlate")
        #expect(index.entity === car)
        #expect(index.elements.map(\.propertyName) == ["maker", "numberPlate"])
        #expect(index.elements.allSatisfy { $0.collationType == .binary && $0.isAscending })
        #expect(index.elements.first?.property === car.propertiesByName["maker"])
    }

    @Test func version3() throws {
        let model = try NSManagedObjectModel.load(contentsOf: version("SampleModel3"))
        #expect(model.entities.map(\.name) == ["Car", "LuxuryCar", "Maker", "Person", "SportCar"])
        let byName = model.entitiesByName
        let car = try #require(byName["Car"])
        let maker = try #require(byName["Maker"])
        let person = try #require(byName["Person"])
        #expect(car.attributesByName["maker"] == nil)
        #expect(car.relationshipsByName.keys.sorted() == ["createdBy", "owner", "previousOwners"])
        let previousOwners = try relationship(car, "previousOwners")
        let previousCars = try relationship(person, "previousCars")
        #expect(previousOwners.isToMany && previousCars.isToMany)
        #expect(previousOwners.inverseRelationship === previousCars && previousCars.inverseRelationship === previousOwners)
        #expect(try relationship(car, "createdBy").inverseRelationship === (try relationship(maker, "cars")))
        #expect(person.relationships(forDestination: car).map(\.name).sorted() == ["cars", "previousCars"])
        #expect(maker.uniquenessConstraints as? [[String]] == [["name"]])
        #expect(try attribute(maker, "name").isOptional == false)
    }

    @Test(arguments: ["SampleModel3", "SampleModel3_v2", "SampleModel3_v3"])
    func sampleModel3Versions(name: String) throws {
        let url = Fixtures.sampleModel3.appendingPathComponent("\(name).xcdatamodel")
        let model = try NSManagedObjectModel.load(contentsOf: url)
        let user = try #require(model.entitiesByName["User"])
        #expect(try attribute(user, "name").isOptional == false)
        switch name {
        case "SampleModel3":
            #expect(model.entities.map(\.name) == ["User"])
            #expect(user.properties.map(\.name) == ["name", "petName"])
        case "SampleModel3_v2":
            #expect(model.entities.map(\.name) == ["Pet", "User"])
            #expect(user.properties.map(\.name) == ["name", "petName", "pet"])
        default:
            #expect(user.properties.map(\.name) == ["name", "pet"])
        }
        if let pet = model.entitiesByName["Pet"] {
            let owner = try relationship(pet, "owner")
            #expect(owner.destinationEntity === user)
            #expect(owner.inverseRelationship === user.relationshipsByName["pet"])
        }
    }

    @Test func sampleModel3PackageUsesItsCurrentVersion() throws {
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel3)
        #expect(model.entities.map(\.name) == ["User"])
        #expect(model.versionIdentifiers == ["1"])
    }

    @Test func contentsFileLoadsDirectly() throws {
        let file = version("SampleModel2").appendingPathComponent("contents")
        let direct = try NSManagedObjectModel.load(contentsOf: file)
        #expect(direct.isEqual(try NSManagedObjectModel.load(contentsOf: version("SampleModel2"))))
    }

    @Test func appleCompiledModelsGoThroughTheSameEntryPoints() throws {
        let momd = try #require(NSManagedObjectModel(contentsOf: Fixtures.sampleModelMomd))
        #expect(momd.entities.compactMap(\.name) == ["Car", "ExpensiveSportCar", "Person", "SportCar"])
        let source = try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel)
        #expect(momd.entityVersionHashesByName == source.entityVersionHashesByName)
        let mom = try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel3Momd.appendingPathComponent("SampleModel3_v2.mom"))
        #expect(mom.entities.compactMap(\.name) == ["Pet", "User"])
        #expect(mom.entitiesByName["Pet"]?.relationshipsByName["owner"]?.inverseRelationship?.name == "pet")
    }
}
