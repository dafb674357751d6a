import Foundation
import Testing
@testable import OpenCoreData

/// Every change Core Data infers a mapping for, end to end on every store type with a file: a
/// store written with a model v1, the inferred mapping to v2, `MigrationRunner`, and the store
/// read back with v2.
@Suite struct InferredMigrationTests {
    static let fileTypes: [NSPersistentStore.StoreType] = [.sqlite, .xml, .binary]

    /// One model change: the two models, what v1 writes and what v2 must read.
    struct Change: Sendable, CustomTestStringConvertible {
        let name: String
        let v1: @Sendable () -> NSManagedObjectModel
        let v2: @Sendable () -> NSManagedObjectModel
        let fill: @Sendable (NSManagedObjectContext) -> Void
        let check: @Sendable (NSManagedObjectContext) throws -> Void
        var testDescription: String { name }
    }

    @Test(arguments: changes, fileTypes)
    func inferredChangeMigrates(_ change: Change, _ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store")
        let v1 = change.v1(), v2 = change.v2()

        let writer = NSPersistentStoreCoordinator(managedObjectModel: v1)
        let store = try writer.addPersistentStore(type: type, at: url)
        let uuid = store.identifier
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = writer
        change.fill(context)
        try context.save()
        try writer.remove(store)

        _ = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        try MigrationRunner.migrate(storeAt: url, type: type.rawValue, options: nil, from: v1, to: v2, mapping: nil)

        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: type, at: url)
        #expect(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(metadata[NSStoreUUIDKey] as? String == uuid, "the store keeps its UUID")
        let migrated = try MigrationTestModels.open(type, at: url, model: v2)
        try change.check(migrated)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("migrating") }.isEmpty)
    }

    // MARK: Building blocks

    static func model(_ entities: NSEntityDescription...) -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        model.entities = entities
        return model
    }

    static func entity(_ name: String, _ properties: [NSPropertyDescription], renamingIdentifier: String? = nil) -> NSEntityDescription {
        let entity = GraphTestModel.entity(name)
        entity.properties = properties
        entity.renamingIdentifier = renamingIdentifier
        return entity
    }

    static func string(_ name: String, optional: Bool = true, defaultValue: Any? = nil) -> NSAttributeDescription {
        GraphTestModel.attribute(name, .stringAttributeType, optional: optional, defaultValue: defaultValue)
    }

    @discardableResult
    static func insert(_ entity: String, _ values: [String: Any], into context: NSManagedObjectContext) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    static func fetch(_ entity: String, _ context: NSManagedObjectContext, by key: String = "name") throws -> [NSManagedObject] {
        try MigrationTestModels.fetch(entity, in: context, sortedBy: key)
    }

    static func values(_ objects: [NSManagedObject], _ key: String) -> [String?] {
        objects.map { $0.value(forKey: key).map { "\($0)" } }
    }

    static func names(_ value: Any?) -> [String] {
        let objects: [NSManagedObject]
        switch value {
        case let set as Set<NSManagedObject>: objects = Array(set)
        case let ordered as NSOrderedSet: objects = ordered.array.compactMap { $0 as? NSManagedObject }
        case let object as NSManagedObject: objects = [object]
        default: objects = []
        }
        return objects.compactMap { $0.value(forKey: "name") as? String }
    }

    /// `Person.pets` ↔ `Pet.owner`, each side to-one or to-many, ordered or not.
    static func people(petsToMany: Bool, ordered: Bool = false) -> NSManagedObjectModel {
        let person = GraphTestModel.entity("Person"), pet = GraphTestModel.entity("Pet")
        let pets = GraphTestModel.relationship("pets", to: pet, toMany: petsToMany, ordered: ordered)
        let owner = GraphTestModel.relationship("owner", to: person)
        GraphTestModel.pair(pets, owner)
        person.properties = [string("name"), pets]
        pet.properties = [string("name"), owner]
        return model(person, pet)
    }

    static func fillPeople(petsPerPerson: Int) -> @Sendable (NSManagedObjectContext) -> Void {
        { context in
            let ada = insert("Person", ["name": "Ada"], into: context)
            insert("Person", ["name": "Alan"], into: context)
            let pets = ["Rex", "Felix", "Bubbles"].prefix(petsPerPerson).map { insert("Pet", ["name": $0], into: context) }
            for pet in pets { pet.setValue(ada, forKey: "owner") }
            insert("Pet", ["name": "Stray"], into: context)
        }
    }

    /// `Animal(name)` and `Dog(name, breed)`, `Dog` a subentity of `Animal` or not; or `Dog` alone.
    static func animals(dogIsAnAnimal: Bool, hasAnimal: Bool = true) -> NSManagedObjectModel {
        let animal = entity("Animal", [string("name")])
        let dog = entity("Dog", dogIsAnAnimal ? [string("breed")] : [string("name"), string("breed")])
        guard hasAnimal else { return model(dog) }
        if dogIsAnAnimal { animal.subentities = [dog] }
        return model(animal, dog)
    }

    static let fillAnimals: @Sendable (NSManagedObjectContext) -> Void = { context in
        insert("Animal", ["name": "Cat"], into: context)
        insert("Dog", ["name": "Rex", "breed": "Collie"], into: context)
    }

    // MARK: The changes

    static let changes: [Change] = [
        Change(name: "added attribute with a default",
               v1: { model(entity("Item", [string("name")])) },
               v2: { model(entity("Item", [string("name"), GraphTestModel.attribute("rating", .integer16AttributeType, optional: false, defaultValue: Int16(5))])) },
               fill: { insert("Item", ["name": "a"], into: $0); insert("Item", ["name": "b"], into: $0) },
               check: { context in
                   let items = try fetch("Item", context)
                   #expect(values(items, "name") == ["a", "b"])
                   #expect(items.map { $0.value(forKey: "rating") as? Int16 } == [5, 5])
               }),
        Change(name: "removed attribute",
               v1: { model(entity("Item", [string("name"), string("obsolete")])) },
               v2: { model(entity("Item", [string("name")])) },
               fill: { insert("Item", ["name": "a", "obsolete": "x"], into: $0) },
               check: { context in
                   let items = try fetch("Item", context)
                   #expect(values(items, "name") == ["a"])
                   #expect(items.first?.entity.attributesByName["obsolete"] == nil)
               }),
        Change(name: "renamed attribute and entity (renamingIdentifier)",
               v1: { model(entity("Item", [string("name"), string("note")])) },
               v2: {
                   let title = string("title")
                   title.renamingIdentifier = "name"
                   return model(entity("Thing", [title, string("note")], renamingIdentifier: "Item"))
               },
               fill: { insert("Item", ["name": "a", "note": "n1"], into: $0); insert("Item", ["name": "b"], into: $0) },
               check: { context in
                   let things = try fetch("Thing", context, by: "title")
                   #expect(values(things, "title") == ["a", "b"])
                   #expect(values(things, "note") == ["n1", nil])
                   #expect(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Item"] == nil)
               }),
        Change(name: "optional to non-optional with a default",
               v1: { model(entity("Item", [string("name"), string("status")])) },
               v2: { model(entity("Item", [string("name"), string("status", optional: false, defaultValue: "open")])) },
               fill: { insert("Item", ["name": "a", "status": "closed"], into: $0); insert("Item", ["name": "b"], into: $0) },
               check: { context in
                   let items = try fetch("Item", context)
                   #expect(values(items, "status") == ["closed", "open"], "a nil value takes the default")
               }),
        Change(name: "numeric type changes",
               v1: { model(entity("Item", [string("name"), GraphTestModel.attribute("count", .integer16AttributeType),
                                           GraphTestModel.attribute("amount", .integer64AttributeType),
                                           GraphTestModel.attribute("flag", .booleanAttributeType),
                                           GraphTestModel.attribute("score", .doubleAttributeType),
                                           GraphTestModel.attribute("level", .integer32AttributeType)])) },
               v2: { model(entity("Item", [string("name"), GraphTestModel.attribute("count", .integer64AttributeType),
                                           GraphTestModel.attribute("amount", .doubleAttributeType),
                                           GraphTestModel.attribute("flag", .integer32AttributeType),
                                           GraphTestModel.attribute("score", .integer16AttributeType),
                                           GraphTestModel.attribute("level", .booleanAttributeType)])) },
               fill: { insert("Item", ["name": "a", "count": Int16(-7), "amount": Int64(42), "flag": true,
                                       "score": 2.75, "level": Int32(3)], into: $0) },
               check: { context in
                   let items = try fetch("Item", context)
                   let item = try #require(items.first)
                   #expect(item.value(forKey: "count") as? Int64 == -7)
                   #expect(item.value(forKey: "amount") as? Double == 42)
                   #expect(item.value(forKey: "flag") as? Int32 == 1)
                   #expect(item.value(forKey: "score") as? Int16 == 2, "truncated, as Core Data reads a REAL as an integer")
                   #expect(item.value(forKey: "level") as? Bool == true)
               }),
        Change(name: "to-one becomes to-many",
               v1: { people(petsToMany: false) }, v2: { people(petsToMany: true) },
               fill: fillPeople(petsPerPerson: 1),
               check: { context in
                   let people = try fetch("Person", context)
                   #expect(people.map { names($0.value(forKey: "pets")).sorted() } == [["Rex"], []])
                   #expect(try fetch("Pet", context).map { ($0.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String }
                           == ["Ada", nil], "Rex keeps its owner, Stray has none")
               }),
        Change(name: "to-many becomes to-one",
               v1: { people(petsToMany: true) }, v2: { people(petsToMany: false) },
               fill: fillPeople(petsPerPerson: 1),
               check: { context in
                   let people = try fetch("Person", context)
                   #expect(people.map { names($0.value(forKey: "pets")) } == [["Rex"], []])
                   #expect(people.last?.value(forKey: "pets") == nil)
               }),
        Change(name: "ordered becomes unordered",
               v1: { people(petsToMany: true, ordered: true) }, v2: { people(petsToMany: true) },
               fill: fillPeople(petsPerPerson: 3),
               check: { context in
                   let ada = try #require(try fetch("Person", context).first)
                   #expect(ada.value(forKey: "pets") is Set<NSManagedObject>)
                   #expect(names(ada.value(forKey: "pets")).sorted() == ["Bubbles", "Felix", "Rex"])
               }),
        Change(name: "unordered becomes ordered",
               v1: { people(petsToMany: true) }, v2: { people(petsToMany: true, ordered: true) },
               fill: fillPeople(petsPerPerson: 3),
               check: { context in
                   let ada = try #require(try fetch("Person", context).first)
                   #expect(ada.value(forKey: "pets") is NSOrderedSet)
                   #expect(names(ada.value(forKey: "pets")).sorted() == ["Bubbles", "Felix", "Rex"])
               }),
        // A new parent entity, the attribute moved up into it. (Two existing entities made to
        // share a parent merge hierarchies, which Core Data does not infer: MigrationFailureTests.)
        Change(name: "entity gains a parent entity",
               v1: { animals(dogIsAnAnimal: false, hasAnimal: false) }, v2: { animals(dogIsAnAnimal: true) },
               fill: { insert("Dog", ["name": "Rex", "breed": "Collie"], into: $0) },
               check: { context in
                   let dogs = try fetch("Dog", context), animals = try fetch("Animal", context)
                   #expect(values(dogs, "name") == ["Rex"], "the attribute moved up keeps its value")
                   #expect(values(dogs, "breed") == ["Collie"])
                   #expect(values(animals, "name") == ["Rex"], "the dog is now an animal")
               }),
        Change(name: "entity loses its parent entity",
               v1: { animals(dogIsAnAnimal: true) }, v2: { animals(dogIsAnAnimal: false) },
               fill: fillAnimals,
               check: { context in
                   let dogs = try fetch("Dog", context)
                   #expect(values(dogs, "name") == ["Rex"], "the inherited attribute's value stays")
                   #expect(values(dogs, "breed") == ["Collie"])
                   let animals = try fetch("Animal", context)
                   #expect(values(animals, "name") == ["Cat"])
               }),
        Change(name: "added and removed entities",
               v1: { model(entity("Item", [string("name")]), entity("Legacy", [string("code")])) },
               v2: { model(entity("Item", [string("name")]), entity("Fresh", [string("label")])) },
               fill: { insert("Item", ["name": "a"], into: $0); insert("Legacy", ["code": "L"], into: $0) },
               check: { context in
                   let items = try fetch("Item", context), fresh = try fetch("Fresh", context, by: "label")
                   #expect(values(items, "name") == ["a"])
                   #expect(fresh.isEmpty)
                   #expect(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Legacy"] == nil)
               }),
    ]
}
