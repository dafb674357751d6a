import Foundation
import Testing
@testable import OpenCoreData

/// A typed subclass using `@Managed` for every kind of property.
final class ManagedSample: NSManagedObject {
    @Managed var count16: Int16
    @Managed var count32: Int32
    @Managed var count64: Int64
    @Managed var ratio: Double
    @Managed var weight: Float
    @Managed var flag: Bool
    @Managed var amount: Decimal
    @Managed var date: Date
    @Managed var title: String?
    @Managed var blob: Data?
    @Managed var identifier: UUID?
    @Managed var link: URL?
    @Managed var owner: ManagedOwner?
}

/// The other side of the sample's relationships, with generated to-many accessors.
final class ManagedOwner: NSManagedObject {
    @Managed var name: String?
    @Managed(toManyAccessors: true) var samples: Set<ManagedSample>
    @Managed(toManyAccessors: true) var steps: NSOrderedSet
}

enum ManagedSampleModel {
    static func make() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true, default value: Any? = nil) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = optional
            attribute.defaultValue = value
            return attribute
        }
        let sample = NSEntityDescription()
        sample.name = "Sample"
        let owner = NSEntityDescription()
        owner.name = "Owner"

        let ownerRelationship = NSRelationshipDescription()
        ownerRelationship.name = "owner"
        ownerRelationship.destinationEntity = owner
        let samples = NSRelationshipDescription()
        samples.name = "samples"
        samples.destinationEntity = sample
        samples.maxCount = 0
        samples.inverseRelationship = ownerRelationship
        ownerRelationship.inverseRelationship = samples
        let steps = NSRelationshipDescription()
        steps.name = "steps"
        steps.destinationEntity = sample
        steps.maxCount = 0
        steps.isOrdered = true

        sample.properties = [
            attribute("count16", .integer16AttributeType, default: Int16(0)),
            attribute("count32", .integer32AttributeType, default: Int32(0)),
            attribute("count64", .integer64AttributeType, default: Int64(0)),
            attribute("ratio", .doubleAttributeType, default: 0.0),
            attribute("weight", .floatAttributeType, default: Float(0)),
            attribute("flag", .booleanAttributeType, default: false),
            attribute("amount", .decimalAttributeType, default: Decimal(0)),
            attribute("date", .dateAttributeType, default: Date(timeIntervalSinceReferenceDate: 0)),
            attribute("title", .stringAttributeType),
            attribute("blob", .binaryDataAttributeType),
            attribute("identifier", .UUIDAttributeType),
            attribute("link", .URIAttributeType),
            ownerRelationship,
        ]
        owner.properties = [attribute("name", .stringAttributeType), samples, steps]
        let model = NSManagedObjectModel()
        model.entities = [sample, owner]
        model.register(ManagedSample.self, forEntityName: "Sample")
        model.register(ManagedOwner.self, forEntityName: "Owner")
        return model
    }

    /// A context on an in-memory store of the sample model.
    static func context() throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: make())
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}

/// A typed subclass that logs its change hooks and key-value setter, to see which a typed setter
/// runs. (Registered for the sample model's `Sample` entity in a model of its own.)
final class HookedSample: NSManagedObject {
    /// Wider than its Integer 16 attribute: set through the converting path.
    @Managed var count16: Int64
    @Managed var count32: Int32
    @Managed var count64: Int64
    @Managed var title: String?
    @Managed var amount: Decimal
    var calls: [String] = []

    override func willChangeValue(forKey key: String) {
        calls.append("will \(key)")
        super.willChangeValue(forKey: key)
    }

    override func didChangeValue(forKey key: String) {
        calls.append("did \(key)")
        super.didChangeValue(forKey: key)
    }

    override func setValue(_ value: Any?, forKey key: String) {
        calls.append("setValue \(key)")
        super.setValue(value, forKey: key)
    }
}

@Suite("@Managed properties")
struct ManagedPropertyTests {
    @Test("Typed setters run the change hooks, not setValue(_:forKey:), and record the change and its undo")
    func typedSettersAsGeneratedAccessors() throws {
        let model = ManagedSampleModel.make()
        model.register(HookedSample.self, forEntityName: "Sample")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let sample = HookedSample(context: context)
        try context.save()
        context.undoManager = UndoManager()

        // Exact types (Int64, Int32) go into their slots unboxed; a String? and a Decimal are
        // converted as setValue converts them. Neither path calls the setValue override.
        sample.count64 = 1 << 40
        sample.count32 = -32
        sample.title = "t"
        sample.amount = Decimal(string: "1.5")!
        sample.count16 = 7
        sample.count64 = 5   // the same slot again in this event
        #expect(sample.calls == ["will count64", "did count64", "will count32", "did count32",
                                 "will title", "did title", "will amount", "did amount",
                                 "will count16", "did count16", "will count64", "did count64"])
        #expect(sample.value(forKey: "count64") as? Int64 == 5)
        #expect(sample.value(forKey: "count32") as? Int32 == -32)
        #expect(sample.value(forKey: "count16") as? Int16 == 7, "converted to the attribute's width")
        #expect(sample.count16 == 7 && sample.title == "t" && sample.amount == Decimal(string: "1.5")!)
        #expect(sample.isUpdated && context.updatedObjects.contains(sample))
        #expect(Set(sample.changedValues().keys) == ["count64", "count32", "title", "amount", "count16"])
        #expect(sample.committedValues(forKeys: ["count64"])["count64"] as? Int64 == 0)
        // The event keeps each slot's value from before its first change.
        let eventChanges = sample.changedValuesForCurrentEvent()
        #expect(eventChanges["count64"] as? Int64 == 0 && eventChanges["count32"] as? Int32 == 0)
        #expect(eventChanges["count16"] as? Int16 == 0)

        // The typed changes are undoable like key-value ones, both changes of count64 included.
        context.processPendingChanges()
        context.undo()
        #expect(sample.count64 == 0 && sample.count32 == 0 && sample.count16 == 0 && sample.title == nil)
        #expect(sample.amount == 0)
        #expect(!context.hasChanges)
        context.redo()
        #expect(sample.count64 == 5 && sample.count32 == -32 && sample.count16 == 7 && sample.title == "t")
        #expect(sample.amount == Decimal(string: "1.5")!)

        // Key-value coding still goes through the override.
        sample.calls = []
        sample.setValue(Int64(3), forKey: "count64")
        #expect(sample.calls.first == "setValue count64")
        try context.save()
        #expect(sample.count64 == 3)
    }

    @Test("Attributes read and write through key-value coding")
    func attributesRoundTrip() throws {
        let context = try ManagedSampleModel.context()
        let sample = ManagedSample(context: context)
        sample.count16 = 16
        sample.count32 = -32
        sample.count64 = 1 << 40
        sample.ratio = 0.25
        sample.weight = 1.5
        sample.flag = true
        sample.amount = Decimal(string: "12.34")!
        let date = Date(timeIntervalSinceReferenceDate: 1000)
        sample.date = date
        sample.title = "标题"
        sample.blob = Data([1, 2, 3])
        let uuid = UUID()
        sample.identifier = uuid
        sample.link = URL(string: "https://example.com/a")
        #expect(sample.value(forKey: "count32") as? Int32 == -32)
        #expect(sample.value(forKey: "title") as? String == "标题")
        #expect(sample.count16 == 16)
        #expect(sample.count32 == -32)
        #expect(sample.count64 == 1 << 40)
        #expect(sample.ratio == 0.25)
        #expect(sample.weight == 1.5)
        #expect(sample.flag)
        #expect(sample.amount == Decimal(string: "12.34")!)
        #expect(sample.date == date)
        #expect(sample.title == "标题")
        #expect(sample.blob == Data([1, 2, 3]))
        #expect(sample.identifier == uuid)
        #expect(sample.link == URL(string: "https://example.com/a"))
        #expect(sample.changedValues().keys.contains("count32"))
    }

    @Test("Optionals read nil for a missing value, and setting nil clears the value")
    func optionals() throws {
        let context = try ManagedSampleModel.context()
        let sample = ManagedSample(context: context)
        #expect(sample.title == nil)
        #expect(sample.owner == nil)
        sample.title = "x"
        sample.title = nil
        #expect(sample.value(forKey: "title") == nil)
        #expect(sample.title == nil)
    }

    @Test("An Int64 stored for an Integer 32 attribute reads as Int32")
    func numbersFromTheStoreAcrossWidths() throws {
        let context = try ManagedSampleModel.context()
        let sample = ManagedSample(context: context)
        sample.setPrimitiveValue(Int64(77), forKey: "count32")
        #expect(sample.count32 == 77)
        sample.setPrimitiveValue(Int32(3), forKey: "ratio")
        #expect(sample.ratio == 3.0)
    }

    @Test("Values survive a save and a fetch into a new context")
    func savedAndFetched() throws {
        let context = try ManagedSampleModel.context()
        let sample = ManagedSample(context: context)
        sample.count32 = 5
        sample.title = "saved"
        try context.save()
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        let fetched = try other.fetch(NSFetchRequest<ManagedSample>(entityName: "Sample"))
        #expect(fetched.count == 1)
        #expect(fetched.first?.count32 == 5)
        #expect(fetched.first?.title == "saved")
        #expect(fetched.first !== sample)
    }

    @Test("To-one and to-many relationships are typed and keep their inverses")
    func relationships() throws {
        let context = try ManagedSampleModel.context()
        let owner = ManagedOwner(context: context)
        let a = ManagedSample(context: context)
        let b = ManagedSample(context: context)
        #expect(owner.samples.isEmpty)
        a.owner = owner
        #expect(owner.samples == [a])
        owner.samples = [a, b]
        #expect(b.owner === owner)
        owner.samples = [b]
        #expect(a.owner == nil)
        #expect(owner.samples == [b])
    }

    @Test("Generated to-many accessors add and remove through the relationship")
    func generatedSetAccessors() throws {
        let context = try ManagedSampleModel.context()
        let owner = ManagedOwner(context: context)
        let a = ManagedSample(context: context)
        let b = ManagedSample(context: context)
        let c = ManagedSample(context: context)
        owner.addSamplesObject(a)
        #expect(owner.samples == [a])
        #expect(a.owner === owner)
        owner.addSamples([b, c])
        #expect(owner.samples == [a, b, c])
        owner.removeSamplesObject(a)
        #expect(owner.samples == [b, c])
        #expect(a.owner == nil)
        owner.removeSamples([b, c])
        #expect(owner.samples.isEmpty)
        #expect(c.owner == nil)
    }

    @Test("Generated ordered to-many accessors keep the order")
    func generatedOrderedAccessors() throws {
        let context = try ManagedSampleModel.context()
        let owner = ManagedOwner(context: context)
        let a = ManagedSample(context: context)
        let b = ManagedSample(context: context)
        let c = ManagedSample(context: context)
        owner.addStepsObject(b)
        owner.addSteps(NSOrderedSet(array: [a, c]))
        #expect(owner.steps.array as? [ManagedSample] == [b, a, c])
        owner.removeStepsObject(a)
        #expect(owner.steps.array as? [ManagedSample] == [b, c])
        owner.removeSteps(NSOrderedSet(array: [b]))
        #expect(owner.steps.array as? [ManagedSample] == [c])
    }
}
