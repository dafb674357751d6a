import Foundation
import Testing
@testable import OpenCoreData

/// A subclass that puts 0 where nil is set on a non-optional number, as Apple's documentation
/// suggests overriding `setNilValueForKey(_:)`.
final class ZeroingCounter: NSManagedObject {
    private(set) var nilKeys: [String] = []
    override func setNilValueForKey(_ key: String) {
        nilKeys.append(key)
        setPrimitiveValue(0, forKey: key)
    }
}

@Suite("Managed objects: nil for scalars, ordered proxies")
struct ManagedObjectEdgeTests {
    static func counterModel() -> NSManagedObjectModel {
        let counter = GraphTestModel.entity("Counter")
        counter.properties = [GraphTestModel.attribute("count", .integer32AttributeType, optional: false, defaultValue: 3),
                              GraphTestModel.attribute("label", .stringAttributeType, optional: false, defaultValue: "c")]
        let model = NSManagedObjectModel()
        model.entities = [counter]
        return model
    }

    @Test func nilForANonOptionalNumberGoesThroughSetNilValueForKey() throws {
        let model = Self.counterModel()
        model.register(ZeroingCounter.self, forEntityName: "Counter")
        let context = GraphTestModel.context(model: model)
        let counter = try #require(GraphTestModel.insert("Counter", context) as? ZeroingCounter)
        #expect(counter.value(forKey: "count") as? Int32 == 3)
        counter.setValue(nil, forKey: "count")
        #expect(counter.nilKeys == ["count"])
        #expect(counter.value(forKey: "count") as? Int32 == 0)
        // A non-optional string is not a scalar: nil is stored as nil.
        counter.setValue(NSNull(), forKey: "label")
        #expect(counter.nilKeys == ["count"])
        #expect(counter.value(forKey: "label") == nil)
    }

    @Test func theDefaultSetNilValueForKeyStoresNilAndSaveReportsTheMissingValue() throws {
        let context = try GraphTestModel.storedContext(model: Self.counterModel())
        let counter = GraphTestModel.insert("Counter", context)
        counter.setValue(nil, forKey: "count")
        #expect(counter.value(forKey: "count") == nil)
        let error = try #require(throws: NSError.self) { try context.save() }
        #expect(error.code == NSValidationMissingMandatoryPropertyError)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "count")
    }

    @Test func orderedProxyInsertsRemovesAndMovesByIndex() {
        let context = GraphTestModel.context()
        let list = GraphTestModel.insert("Playlist", context)
        let tracks = (0..<4).map { _ in GraphTestModel.insert("Track", context) }
        let proxy = list.mutableOrderedSetValue(forKey: "tracks")
        proxy.insert(tracks[0], at: 0)
        proxy.insert(tracks[1], at: 0)
        proxy.insert(tracks[2], at: 99)
        #expect(proxy.array == [tracks[1], tracks[0], tracks[2]])
        #expect(tracks[2].value(forKey: "playlist") as? NSManagedObject === list)
        // Inserting a present object moves it.
        proxy.insert(tracks[2], at: 0)
        #expect(proxy.array == [tracks[2], tracks[1], tracks[0]])
        proxy.add(tracks[3])
        proxy.moveObjects(at: IndexSet([0, 1]), to: 2)
        #expect(proxy.array == [tracks[0], tracks[3], tracks[2], tracks[1]])
        proxy.removeObject(at: 1)
        #expect(proxy.array == [tracks[0], tracks[2], tracks[1]])
        #expect(tracks[3].value(forKey: "playlist") == nil)
        #expect((list.value(forKey: "tracks") as? NSOrderedSet)?.array as? [NSManagedObject] == [tracks[0], tracks[2], tracks[1]])
    }

    @Test func refusedRelationshipAndFetchedPropertyValuesThrowNamingTheKey() throws {
        let counter = GraphTestModel.entity("Counter")
        let fetched = NSFetchedPropertyDescription()
        fetched.name = "others"
        counter.properties = [GraphTestModel.attribute("count", .integer32AttributeType), fetched]
        let model = NSManagedObjectModel()
        model.entities = [counter]
        let object = GraphTestModel.insert("Counter", GraphTestModel.context(model: model))
        let readOnly = ManagedObjectAccessError.readOnlyProperty(entity: "Counter", key: "others")
        #expect(throws: readOnly) { try object.setValueThrowing([], forKey: "others") }
        #expect(readOnly.description == "Property 'others' of entity Counter is a fetched property and can't be set")

        let context = GraphTestModel.context()
        let klass = GraphTestModel.insert("ClassEntity", context)
        let refused = ManagedObjectAccessError.unacceptableRelationshipValue(entity: "ClassEntity", key: "students", given: "String")
        #expect(throws: refused) { try klass.setValueThrowing("everyone", forKey: "students") }
        #expect(refused.description == "Unacceptable value for relationship 'students' of entity ClassEntity: given String")
        #expect(ManagedObjectAccessError.notToMany(entity: "ClassEntity", key: "name").description
                == "Property 'name' of entity ClassEntity is not a to-many relationship")
        // Nothing was stored by the refused calls.
        #expect((klass.value(forKey: "students") as? Set<NSManagedObject>)?.isEmpty == true)
    }

    @Test func aBoolSetOnAnIntegerAttributeIsKeptAndRefusedAtSave() throws {
        let context = try GraphTestModel.storedContext()
        let run = GraphTestModel.insert("Run", context, ["date": Date(timeIntervalSinceReferenceDate: 0)])
        run.setValue(true, forKey: "processID")
        #expect(run.value(forKey: "processID") as? Bool == true)
        let error = try #require(throws: NSError.self) { try context.save() }
        #expect(error.code == NSManagedObjectValidationError)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "processID")
        run.setValue(Int8(4), forKey: "processID")
        #expect(run.value(forKey: "processID") as? Int32 == 4)
        try context.save()
        #expect(!context.hasChanges)
    }
}
