import Testing
@testable import OpenCoreData

/// The programmatic API: inheritance, immutability, merging, copying, store compatibility.
@Suite struct ModelAPITests {
    private func entity(_ name: String, _ properties: [String]) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.properties = properties.map { name in
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = .stringAttributeType
            return attribute
        }
        return entity
    }

    @Test func appleRawValues() {
        #expect(NSAttributeType.allCases.map(\.rawValue) == [0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200, 1800, 2000, 2100])
        #expect(NSDeleteRule.allCases.map(\.rawValue) == [0, 1, 2, 3])
        #expect(NSFetchRequestResultType.dictionaryResultType.rawValue == 2 && NSFetchRequestResultType.countResultType.rawValue == 4)
        #expect(NSAttributeType(xcodeName: "Integer 16") == .integer16AttributeType)
        #expect(NSDeleteRule(xcodeName: "No Action") == .noActionDeleteRule)
        let attribute = NSAttributeDescription()
        attribute.type = .uuid
        #expect(attribute.attributeType == .UUIDAttributeType && attribute.type == .uuid)
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Car")
        #expect(request.entityName == "Car" && request.includesSubentities && request.includesPendingChanges && request.returnsObjectsAsFaults)
        #expect(request.requestType == .fetchRequestType)
        let store = NSPersistentStore(type: "InMemory", configurationName: nil, at: nil, options: [NSReadOnlyPersistentStoreOption: true])
        request.affectedStores = [store]
        #expect(store.configurationName == "PF_DEFAULT_CONFIGURATION_NAME" && store.isReadOnly)
        let copy = request.copy() as! NSFetchRequest<NSFetchRequestResult>
        #expect(copy.isEqual(request) && copy.affectedStores?.first === store)
    }

    @Test func inheritanceInCode() throws {
        let car = entity("Car", ["model"])
        let sport = entity("SportCar", ["turbo"])
        let luxury = entity("LuxuryCar", ["gold"])
        car.subentities = [sport]
        sport.subentities = [luxury]
        let model = NSManagedObjectModel()
        model.entities = [car, sport, luxury]
        #expect(luxury.properties.map(\.name) == ["model", "turbo", "gold"])
        #expect(luxury.attributesByName.keys.sorted() == ["gold", "model", "turbo"])
        #expect(car.subentitiesByName.keys.sorted() == ["SportCar"])
        #expect(luxury.isKindOf(entity: car) && !car.isKindOf(entity: luxury))
        let otherModel = try #require(model.copy() as? NSManagedObjectModel)
        #expect(!luxury.isKindOf(entity: otherModel.entitiesByName["Car"]!))
        #expect(otherModel.entitiesByName["LuxuryCar"]!.isKindOf(entity: otherModel.entitiesByName["Car"]!))
        #expect(luxury.propertiesByName["model"]?.entity === car)
        // Adding a property to the superentity shows in the subentities.
        let plate = NSAttributeDescription()
        plate.name = "plate"
        car.properties += [plate]
        #expect(luxury.propertiesByName["plate"] === plate)
    }

    @Test func overridesAreRefusedWithAThrowingCheck() throws {
        let car = entity("Car", ["model"])
        let sport = entity("SportCar", ["model"])
        #expect { try car.setSubentities([sport]) } throws: { error in
            (error as? ManagedObjectModelError)?.kind == .propertyOverride
                && (error as? ManagedObjectModelError)?.message
                    == "entity 'SportCar' can't override property 'model' inherited from entity 'Car'"
        }
        let other = entity("Other", ["x"])
        car.subentities = [other]
        let clash = NSAttributeDescription()
        clash.name = "model"
        #expect(throws: ManagedObjectModelError.self) { try other.setProperties([clash]) }
        let duplicate = NSAttributeDescription()
        duplicate.name = "x"
        let again = NSAttributeDescription()
        again.name = "x"
        #expect(throws: ManagedObjectModelError.self) { try other.setProperties([duplicate, again]) }
    }

    @Test func overridingTraps() async {
        await #expect(processExitsWith: .failure) {
            let car = NSEntityDescription()
            let a = NSAttributeDescription()
            a.name = "model"
            car.properties = [a]
            let sport = NSEntityDescription()
            let b = NSAttributeDescription()
            b.name = "model"
            sport.properties = [b]
            car.subentities = [sport]
        }
    }

    @Test func freezingMakesTheModelImmutable() throws {
        let (model, directory) = try ModelSamples.loadBlog()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(model.isEditable)
        try model.ensureEditable()
        model.freeze()
        #expect(!model.isEditable)
        #expect { try model.ensureEditable() } throws: {
            ($0 as? ManagedObjectModelError)?.message == "Can't modify an immutable model."
        }
        let post = try #require(model.entitiesByName["Post"])
        #expect(throws: ManagedObjectModelError.self) { try post.ensureEditable() }
        #expect(throws: ManagedObjectModelError.self) { try post.properties[0].ensureEditable() }
        // The frozen lookups answer like the live ones.
        #expect(post.properties.map(\.name).prefix(3) == ["created", "title", "rating"])
        #expect(post.relationshipsByName.keys.sorted() == ["author", "comments", "tags"])
        let template = try #require(model.fetchRequestTemplate(forName: "TopPosts"))
        #expect { try template.ensureEditable() } throws: {
            ($0 as? ManagedObjectModelError)?.message == "Can't modify a named fetch request in an immutable model"
        }
        let copy = try #require(template.copy() as? NSFetchRequest<NSFetchRequestResult>)
        copy.fetchLimit = 3
        #expect(copy.fetchLimit == 3 && template.fetchLimit == 10)
        let substituted = try #require(model.fetchRequestFromTemplate(withName: "PostsByAuthor", substitutionVariables: ["NAME": "x"]))
        substituted.fetchLimit = 1
        let mutableCopy = try #require(model.copy() as? NSManagedObjectModel)
        #expect(mutableCopy.isEditable && mutableCopy.isEqual(model))
        mutableCopy.entities = []
        #expect(model.entities.count == 5)
    }

    @Test func mutatingAnImmutableModelTraps() async {
        await #expect(processExitsWith: .failure) {
            let model = NSManagedObjectModel()
            model.freeze()
            model.entities = []
        }
        await #expect(processExitsWith: .failure) {
            let entity = NSEntityDescription()
            let attribute = NSAttributeDescription()
            attribute.name = "a"
            entity.properties = [attribute]
            let model = NSManagedObjectModel()
            model.entities = [entity]
            model.freeze()
            attribute.isOptional = false
        }
        await #expect(processExitsWith: .failure) {
            let model = NSManagedObjectModel()
            model.setFetchRequestTemplate(NSFetchRequest<NSFetchRequestResult>(entityName: "A"), forName: "T")
            model.freeze()
            model.fetchRequestTemplate(forName: "T")!.fetchLimit = 2
        }
    }

    @Test func mergingModels() throws {
        let first = NSManagedObjectModel()
        first.entities = [entity("A", ["x"])]
        first.setEntities(first.entities, forConfigurationName: "One")
        first.localizationDictionary = ["Entity/A": "Ay"]
        let second = NSManagedObjectModel()
        second.entities = [entity("B", ["y"]), entity("A", ["x"])]
        second.versionIdentifiers = ["2"]
        second.setFetchRequestTemplate(NSFetchRequest<NSFetchRequestResult>(entityName: "B"), forName: "AllB")
        let merged = try #require(NSManagedObjectModel(byMerging: [first, second]))
        #expect(merged.entities.map(\.name) == ["A", "B"])
        #expect(merged.entities.allSatisfy { $0.managedObjectModel === merged })
        #expect(merged.configurations == ["One"])
        #expect(merged.fetchRequestTemplate(forName: "AllB")?.entityName == "B")
        #expect(merged.localizationDictionary == ["Entity/A": "Ay"])
        #expect(merged.versionIdentifiers == ["2"])
        #expect(first.entities.first?.managedObjectModel === first)

        let conflicting = NSManagedObjectModel()
        conflicting.entities = [entity("A", ["z"])]
        #expect(NSManagedObjectModel(byMerging: [first, conflicting]) == nil)
        #expect { try NSManagedObjectModel.merging([first, conflicting]) } throws: {
            ($0 as? ManagedObjectModelError)?.message == "Can't merge models with two different entities named 'A'"
        }
    }

    @Test func mergedModelFromURLs() throws {
        let v1 = Fixtures.sampleModel3.appendingPathComponent("SampleModel3.xcdatamodel")
        let merged = try #require(NSManagedObjectModel.mergedModel(from: [v1, Fixtures.sampleModel3]))
        #expect(merged.entities.map(\.name) == ["User"])
        let v2 = Fixtures.sampleModel3.appendingPathComponent("SampleModel3_v2.xcdatamodel")
        #expect(NSManagedObjectModel.mergedModel(from: [v1, v2]) == nil)   // User differs
        #expect(NSManagedObjectModel.mergedModel(from: [Fixtures.sampleModel3.appendingPathComponent("missing")]) == nil)
    }

    @Test func storeCompatibility() throws {
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel3)
        let hashes = model.entityVersionHashesByName
        #expect(hashes.keys.sorted() == ["User"] && hashes["User"]?.count == 32)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: [NSStoreModelVersionHashesKey: hashes]))
        #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: [NSStoreModelVersionHashesKey: ["User": Data(count: 32)]]))
        #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: [:]))
        let v2 = try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel3.appendingPathComponent("SampleModel3_v2.xcdatamodel"))
        #expect(!v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: [NSStoreModelVersionHashesKey: hashes]))
    }

    @Test func versionHashesIgnoreValidationAndDefaults() throws {
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel3)
        let before = model.entityVersionHashesByName
        let name = try #require(model.entitiesByName["User"]?.attributesByName["name"])
        name.defaultValue = "x"
        name.setValidationPredicates([NSPredicate(format: "length > 1")], withValidationWarnings: ["short"])
        #expect(model.entityVersionHashesByName == before)
        name.isOptional = true
        #expect(model.entityVersionHashesByName != before)
    }

    @Test func copiesAreDeepAndDetached() throws {
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel)
        let copy = try #require(model.copy() as? NSManagedObjectModel)
        #expect(copy.isEqual(model))
        let car = try #require(copy.entitiesByName["Car"])
        #expect(car !== model.entitiesByName["Car"])
        #expect(car.relationshipsByName["owner"]?.destinationEntity === copy.entitiesByName["Person"])
        #expect(copy.entitiesByName["SportCar"]?.superentity === car)
        let attribute = try #require(car.attributesByName["model"]?.copy() as? NSAttributeDescription)
        #expect(attribute.entity == nil && attribute.isEqual(car.attributesByName["model"]))
    }

    @Test func versionChecksumMatchesXcode() throws {
        let info = try AppleCompiledModelReader.versionInfo(ofModelDirectory: Fixtures.sampleModel3Momd)
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel3.appendingPathComponent("SampleModel3_v2.xcdatamodel"))
        let expected = try #require(info.versionChecksums["SampleModel3_v2"])
        #expect(model.versionChecksum == expected.base64EncodedString())
    }

    @Test func mergingForStoreMetadata() throws {
        let v1 = Fixtures.sampleModel3.appendingPathComponent("SampleModel3.xcdatamodel")
        let v2 = Fixtures.sampleModel3.appendingPathComponent("SampleModel3_v2.xcdatamodel")
        let hashes = try NSManagedObjectModel.load(contentsOf: v2).entityVersionHashesByName
        let metadata: [String: Any] = [NSStoreModelVersionHashesKey: hashes]
        #expect(NSManagedObjectModel.mergedModel(from: [v2], forStoreMetadata: metadata)?.entities.count == 2)
        #expect(NSManagedObjectModel.mergedModel(from: [v1], forStoreMetadata: metadata) == nil)
        let model = try NSManagedObjectModel.load(contentsOf: v2)
        #expect(NSManagedObjectModel(byMerging: [model], forStoreMetadata: metadata)?.isEqual(model) == true)
        #expect(NSManagedObjectModel(byMerging: [model], forStoreMetadata: [:]) == nil)
    }

    @Test func relationshipsFollowRenamedEntitiesAndResolveByName() throws {
        let person = NSEntityDescription()
        let car = NSEntityDescription()
        let owner = NSRelationshipDescription()
        owner.name = "owner"
        owner.destinationEntity = person          // before the entity has its name
        let cars = NSRelationshipDescription()
        cars.name = "cars"
        cars.maxCount = 0
        cars.destinationEntity = car
        owner.inverseRelationship = cars
        cars.inverseRelationship = owner
        person.name = "Person"
        car.name = "Car"
        car.properties = [owner]
        person.properties = [cars]
        #expect(owner.destinationEntityName == "Person" && owner.inverseName == "cars")
        let model = NSManagedObjectModel()
        model.entities = [car, person]
        try model.validateReferences()

        // A relationship known only by names resolves through the model, also once frozen.
        let byName = NSRelationshipDescription()
        byName.name = "previousOwner"
        byName.destinationEntityName = "Person"
        let spare = NSEntityDescription()
        spare.name = "Spare"
        spare.properties = [byName]
        model.entities = [car, person, spare]
        #expect(byName.destinationEntity === person)
        model.freeze()
        #expect(byName.destinationEntity === person && owner.inverseRelationship === cars)
        #expect(model.entitiesByName["Spare"] === spare)
    }

    @Test func checksumsOfVersionedModels() throws {
        let fromMomd = try NSManagedObjectModel.checksumsForVersionedModel(at: Fixtures.sampleModel3Momd)
        // Apple's VersionInfo.plist of this momd lists the checksums Xcode computed.
        #expect(fromMomd == ["SampleModel3": "u970QgYhRHEJGIt0zQr1UhuZL2ZJ1KxBS+B7rkAx0ik=",
                             "SampleModel3_v2": "rzn6eNBLyn8k3AoC3kH3yymPT0vSUPaVcgi0v2SuHS8=",
                             "SampleModel3_v3": "HFFd7j8Z9/s0tJ1vqPzVSPX/pNYEbNAlXayypitIFow="])
        #expect(try NSManagedObjectModel.checksumsForVersionedModel(at: Fixtures.sampleModel3) == fromMomd)
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let compiled = directory.appendingPathComponent("M.momd")
        try CompiledModelFormat.compile(modelAt: Fixtures.sampleModel, to: compiled)
        #expect(try NSManagedObjectModel.checksumsForVersionedModel(at: compiled)
                == NSManagedObjectModel.checksumsForVersionedModel(at: Fixtures.sampleModelMomd))
        #expect(throws: ManagedObjectModelError.self) { try NSManagedObjectModel.checksumsForVersionedModel(at: directory) }
    }
}
