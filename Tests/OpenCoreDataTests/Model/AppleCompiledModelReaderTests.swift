import Testing
@testable import OpenCoreData

/// Reading Apple's compiled models: the fixture `.momd` folders momc wrote, and hand-made archives
/// for what the fixtures lack (fetch request templates, configurations, bounds, damaged files).
@Suite struct AppleCompiledModelReaderTests {
    static func version(_ name: String, of momd: URL = Fixtures.sampleModelMomd) throws -> NSManagedObjectModel {
        try AppleCompiledModelReader.readMom(at: momd.appendingPathComponent(name + ".mom"))
    }

    @Test func momdLoadsItsCurrentVersion() throws {
        let model = try AppleCompiledModelReader.readModel(at: Fixtures.sampleModelMomd)
        #expect(model.versionIdentifiers == ["1"])  // VersionInfo.plist: current version SampleModel
        #expect(model.entities.compactMap(\.name) == ["Car", "ExpensiveSportCar", "Person", "SportCar"])
        let model3 = try AppleCompiledModelReader.readModel(at: Fixtures.sampleModel3Momd)
        #expect(model3.entities.compactMap(\.name) == ["User"])
        let single = try AppleCompiledModelReader.readModel(at: Fixtures.sampleModel3Momd.appendingPathComponent("SampleModel3_v2.mom"))
        #expect(single.entities.compactMap(\.name) == ["Pet", "User"])
    }

    @Test func recognizesAppleCompiledModels() throws {
        #expect(AppleCompiledModelReader.recognizes(Fixtures.sampleModelMomd))
        #expect(AppleCompiledModelReader.recognizes(Fixtures.sampleModelMomd.appendingPathComponent("SampleModel2.mom")))
        #expect(!AppleCompiledModelReader.recognizes(Fixtures.sampleModel))
        #expect(!AppleCompiledModelReader.recognizes(Fixtures.sampleModel.appendingPathComponent("SampleModel.xcdatamodel/contents")))
        #expect(!AppleCompiledModelReader.recognizes(Fixtures.sampleModelMomd.appendingPathComponent("Missing.mom")))
    }

    @Test func entitiesAttributesAndInheritance() throws {
        let model = try Self.version("SampleModel")
        let car = try #require(model.entitiesByName["Car"])
        #expect(car.managedObjectClassName == "Car")
        #expect(car.superentity == nil)
        #expect(car.subentities.compactMap(\.name) == ["SportCar"])
        let sport = try #require(model.entitiesByName["SportCar"])
        #expect(sport.superentity === car)
        #expect(sport.subentities.compactMap(\.name) == ["ExpensiveSportCar"])
        let expensive = try #require(model.entitiesByName["ExpensiveSportCar"])
        #expect(expensive.superentity === sport)
        #expect(expensive.isKindOf(entity: car))
        #expect(expensive.declaredProperties.map(\.name) == ["isLimitedEdition"])
        #expect(Set(expensive.propertiesByName.keys).isSuperset(of: ["owner", "numberPlate", "isLimitedEdition"]))
        #expect(car.declaredProperties.map(\.name)
            == ["color", "currentDrivingSpeed", "maker", "markedForDeletionAsOf", "model", "numberPlate", "owner"])
        #expect(car.uniquenessConstraintNames == [["numberPlate"]])
        #expect(car.userInfo == nil)
        #expect(car.renamingIdentifier == nil)

        let attributes = car.attributesByName
        let color = try #require(attributes["color"])
        #expect(color.attributeType == .transformableAttributeType)
        #expect(color.valueTransformerName == "ColorTransformer")
        #expect(color.isOptional)
        let speed = try #require(attributes["currentDrivingSpeed"])
        #expect(speed.attributeType == .integer64AttributeType)
        #expect(speed.isTransient)
        #expect(speed.defaultValue as? Int64 == 0)
        let plate = try #require(attributes["numberPlate"])
        #expect(plate.attributeType == .stringAttributeType && !plate.isOptional && !plate.isTransient)
        #expect(plate.defaultValue == nil)
        #expect(attributes["markedForDeletionAsOf"]?.attributeType == .dateAttributeType)
        #expect(expensive.attributesByName["isLimitedEdition"]?.defaultValue as? Bool == false)

        let person = try #require(model.entitiesByName["Person"])
        let id = try #require(person.attributesByName["id"])
        #expect(id.attributeType == .UUIDAttributeType)
        #expect(id.preservesValueInHistoryOnDeletion)
        #expect(!id.isOptional)
        #expect(person.attributesByName["isDriving"]?.isTransient == true)
        #expect(person.uniquenessConstraintNames == [["firstName", "lastName"]])
    }

    @Test func relationshipsAndInverses() throws {
        let model = try Self.version("SampleModel3")
        let car = try #require(model.entitiesByName["Car"])
        let person = try #require(model.entitiesByName["Person"])
        let maker = try #require(model.entitiesByName["Maker"])
        let owner = try #require(car.relationshipsByName["owner"])
        #expect(owner.destinationEntity === person)
        #expect(owner.inverseRelationship === person.relationshipsByName["cars"])
        #expect(!owner.isToMany && owner.maxCount == 1 && owner.minCount == 0)
        #expect(owner.deleteRule == .nullifyDeleteRule)
        #expect(owner.isOptional && !owner.isOrdered)
        let previousOwners = try #require(car.relationshipsByName["previousOwners"])
        #expect(previousOwners.isToMany && previousOwners.maxCount == 0)
        #expect(previousOwners.inverseRelationship?.name == "previousCars")
        #expect(car.relationshipsByName["createdBy"]?.destinationEntity === maker)
        #expect(maker.relationshipsByName["cars"]?.inverseRelationship?.name == "createdBy")
        #expect(person.relationships(forDestination: car).map(\.name).sorted() == ["cars", "previousCars"])
    }

    @Test func renamedEntityAndFetchIndex() throws {
        let model = try Self.version("SampleModel2")
        let luxury = try #require(model.entitiesByName["LuxuryCar"])
        #expect(luxury.renamingIdentifier == "ExpensiveSportCar")
        #expect(luxury.superentity?.name == "SportCar")
        let car = try #require(model.entitiesByName["Car"])
        #expect(car.indexes.count == 1)
        let index = try #require(car.indexes.first)
        #expect(index.name == "byMakerAndNumberPlate")
        #expect(index.elements.map(\.propertyName) == ["maker", "numberPlate"])
        #expect(index.elements.allSatisfy { $0.collationType == .binary && $0.isAscending })
        #expect(index.elements.first?.property === car.attributesByName["maker"])
        #expect(model.versionIdentifiers == ["2"])
    }

    // MARK: Hand-made archives

    @Test func fetchTemplatesConfigurationsBoundsAndUserInfo() throws {
        let model = try AppleCompiledModelReader.readMom(at: try Self.write(HandMadeArchive.model))
        let item = try #require(model.entitiesByName["Item"])
        #expect(item.userInfo?["origin"] as? String == "test")
        #expect(item.versionHashModifier == "v7")
        #expect(item.declaredProperties.map(\.name) == ["count", "price", "title", "similar"])
        #expect(item.attributesByName["price"]?.defaultValue as? Decimal == Decimal(string: "9.99"))
        let similar = try #require(item.propertiesByName["similar"] as? NSFetchedPropertyDescription)
        #expect(similar.fetchRequest?.entityName == "Item")
        #expect(similar.fetchRequest?.predicate?.predicateFormat == "title == $FETCH_SOURCE.title")

        let count = try #require(item.attributesByName["count"])
        #expect(count.attributeType == .integer16AttributeType)
        #expect(count.defaultValue as? Int16 == 3)
        #expect(count.validationPredicates.map(\.predicateFormat) == ["SELF >= 1", "SELF <= 10"])
        #expect(ModelValues.isEqual(count.validationWarnings, [1620, 1610]))
        let title = try #require(item.attributesByName["title"])
        #expect(title.validationPredicates.map(\.predicateFormat) == ["length <= 20", "SELF MATCHES \"[a-z]+\""])
        #expect(ModelValues.isEqual(title.validationWarnings, [1660, 1680]))
        #expect(title.userInfo?["hint"] as? String == "short")
        #expect(title.versionHashModifier == "t2")

        #expect(model.configurations == ["Cloud"])
        #expect(model.entities(forConfigurationName: "Cloud")?.compactMap(\.name) == ["Item"])

        let template = try #require(model.fetchRequestTemplate(forName: "recent"))
        #expect(template.entityName == "Item")
        #expect(template.entity === item)
        #expect(template.fetchLimit == 5)
        #expect(template.predicate?.predicateFormat == "count > $MIN AND title BEGINSWITH[cd] \"a\"")
        #expect(template.sortDescriptors?.map(\.key) == ["title"])
        #expect(template.sortDescriptors?.first?.ascending == false)
        let filled = try #require(model.fetchRequestFromTemplate(withName: "recent", substitutionVariables: ["MIN": 2]))
        #expect(filled.predicate?.predicateFormat == "count > 2 AND title BEGINSWITH[cd] \"a\"")
    }

    @Test func damagedFilesThrowWithTheFile() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let garbage = directory.appendingPathComponent("Garbage.mom")
        try Data("not a model".utf8).write(to: garbage)
        let notArchive = try #require(throws: ManagedObjectModelError.self) { try AppleCompiledModelReader.readModel(at: garbage) }
        #expect(notArchive.kind == .invalidCompiledModel)
        #expect(notArchive.file == garbage)

        let missing = directory.appendingPathComponent("Missing.mom")
        let unreadable = try #require(throws: ManagedObjectModelError.self) { try AppleCompiledModelReader.readModel(at: missing) }
        #expect(unreadable.kind == .unreadableFile)

        let notModel = try Self.write(HandMadeArchive.notAModel, in: directory)
        let wrongRoot = try #require(throws: ManagedObjectModelError.self) { try AppleCompiledModelReader.readModel(at: notModel) }
        #expect(wrongRoot.kind == .invalidCompiledModel)
        #expect(wrongRoot.message.contains("NSDictionary"))

        let dangling = try Self.write(HandMadeArchive.danglingRelationship(), in: directory)
        let unknown = try #require(throws: ManagedObjectModelError.self) { try AppleCompiledModelReader.readModel(at: dangling) }
        #expect(unknown.kind == .missingReference)
        #expect(unknown.element == "relationship 'ghost' of entity 'Item'")
        #expect(unknown.description.contains("Ghost"))
        let noInverse = try Self.write(HandMadeArchive.danglingRelationship(inverse: true), in: directory)
        let unknownInverse = try #require(throws: ManagedObjectModelError.self) { try AppleCompiledModelReader.readModel(at: noInverse) }
        #expect(unknownInverse.kind == .missingReference)
        #expect(unknownInverse.message.contains("'haunts'"))

        // A .momd folder with two versions and no VersionInfo.plist.
        let momd = directory.appendingPathComponent("Two.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        for name in ["A.mom", "B.mom"] {
            try FileManager.default.copyItem(at: Fixtures.sampleModel3Momd.appendingPathComponent("SampleModel3.mom"),
                                             to: momd.appendingPathComponent(name))
        }
        let noInfo = try #require(throws: ManagedObjectModelError.self) { try AppleCompiledModelReader.readModel(at: momd) }
        #expect(noInfo.kind == .badCurrentVersion)
        // VersionInfo.plist naming a version the folder lacks.
        let info = try PropertyListSerialization.data(fromPropertyList: ["NSManagedObjectModel_CurrentVersionName": "C"],
                                                      format: .xml, options: 0)
        try info.write(to: momd.appendingPathComponent("VersionInfo.plist"))
        let noVersion = try #require(throws: ManagedObjectModelError.self) { try AppleCompiledModelReader.readModel(at: momd) }
        #expect(noVersion.kind == .badCurrentVersion)
        #expect(noVersion.message.contains("'C'"))
    }

    static func write(_ archive: Data, in directory: URL? = nil) throws -> URL {
        let folder = try directory ?? Fixtures.temporaryDirectory()
        let url = folder.appendingPathComponent("\(UUID().uuidString).mom")
        try archive.write(to: url)
        return url
    }
}

/// Damaged archives never crash the reader: each either reads or throws the model error.
@Suite struct AppleCompiledModelFuzzTests {
    @Test(arguments: ["SampleModel.mom", "SampleModel2.mom", "SampleModel3.mom"])
    func corruptedBytesThrowOrRead(name: String) throws {
        let url = Fixtures.sampleModelMomd.appendingPathComponent(name)
        let original = [UInt8](try Data(contentsOf: url))
        var generator = SeededGenerator(state: UInt64(original.count))   // deterministic: failures reproduce
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var thrown = 0
        for round in 0..<80 {
            var bytes = original
            for _ in 0..<(1 + round % 4) {
                let index = Int.random(in: 8..<bytes.count, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            let damaged = directory.appendingPathComponent("\(round).mom")
            try Data(bytes).write(to: damaged)
            do {
                _ = try AppleCompiledModelReader.readModel(at: damaged)
            } catch let error as ManagedObjectModelError {
                #expect(error.file == damaged)
                thrown += 1
            }
        }
        #expect(thrown > 0)
    }
}
