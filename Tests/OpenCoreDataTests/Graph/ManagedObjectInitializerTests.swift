import Foundation
import Testing
@testable import OpenCoreData

// Subclasses declared exactly as Apple code declares them. `init(entity:insertInto:)` is not
// `required` in Apple's API, so these compile only if ours is not either; the framework must
// still create them through their overrides when it inserts, fetches and faults.

/// Declares no initializer.
final class InitPlainItem: NSManagedObject {}

/// Overrides the designated initializer and records that it ran.
final class InitOverridingItem: NSManagedObject {
    let createdBy: String
    private(set) var overrideRuns = 0

    override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        createdBy = "override"
        super.init(entity: entity, insertInto: context)
        overrideRuns += 1
    }
}

/// Hides the designated initializer, as JSQCoreDataKit's models do.
final class InitPrivateItem: NSManagedObject {
    private(set) var createdBy = "nobody"

    private override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
        createdBy = "private override"
    }
}

/// A designated initializer of its own beside the (private) override, with `@Managed` properties.
final class InitEmployee: NSManagedObject {
    @Managed var name: String?
    private(set) var createdBy = "nobody"

    init(context: NSManagedObjectContext, name: String) {
        super.init(entity: NSEntityDescription.entity(forEntityName: "Employee", in: context)!, insertInto: context)
        createdBy = "init(context:name:)"
        self.name = name
    }

    private override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
        createdBy = "private override"
    }
}

/// A base class whose override a subclass without initializers inherits.
class InitBaseItem: NSManagedObject {
    private(set) var baseOverrideRuns = 0

    override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
        baseOverrideRuns += 1
    }
}

final class InitDerivedItem: InitBaseItem {}

/// Declares its own `init(context:)` in an extension, as generated-class users often do.
final class InitOwnContextItem: NSManagedObject {
    private(set) var createdBy = "nobody"
}

extension InitOwnContextItem {
    convenience init(context: NSManagedObjectContext) {
        self.init(entity: NSEntityDescription.entity(forEntityName: "OwnContext", in: context)!, insertInto: context)
        createdBy = "own init(context:)"
    }
}

/// Generic creation as helper libraries write it (CoreDataPlus's `findOneOrCreate`).
extension NSFetchRequestResult where Self: NSManagedObject {
    static func initTestCreate(in context: NSManagedObjectContext) -> Self {
        Self(context: context)
    }
}

func initTestMake<T: NSManagedObject>(_ type: T.Type, in context: NSManagedObjectContext) -> T {
    T(context: context)
}

@Suite struct ManagedObjectInitializerTests {
    /// One entity per class above, each with a `name`, registered.
    static func model() -> NSManagedObjectModel {
        let classes: [(String, NSManagedObject.Type)] = [
            ("Plain", InitPlainItem.self), ("Overriding", InitOverridingItem.self), ("Private", InitPrivateItem.self),
            ("Employee", InitEmployee.self), ("Derived", InitDerivedItem.self), ("OwnContext", InitOwnContextItem.self),
        ]
        let model = NSManagedObjectModel()
        model.entities = classes.map { name, _ in
            let entity = GraphTestModel.entity(name)
            entity.properties = [GraphTestModel.attribute("name", .stringAttributeType)]
            return entity
        }
        for (name, type) in classes { model.register(type, forEntityName: name) }
        return model
    }

    /// A context over an in-memory store of ``model()``.
    static func context() throws -> NSManagedObjectContext {
        let context = GraphTestModel.context(model: model())
        try context.persistentStoreCoordinator!.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        return context
    }

    /// A second context on the same coordinator, where saved objects are not registered yet.
    static func sibling(of context: NSManagedObjectContext) -> NSManagedObjectContext {
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        return other
    }

    @Test func insertingByEntityNameRunsTheOverride() throws {
        let context = try Self.context()
        let overriding = try #require(NSEntityDescription.insertNewObject(forEntityName: "Overriding", into: context) as? InitOverridingItem)
        #expect(overriding.createdBy == "override")
        #expect(overriding.overrideRuns == 1)
        #expect(overriding.isInserted)
        let hidden = try #require(NSEntityDescription.insertNewObject(forEntityName: "Private", into: context) as? InitPrivateItem)
        #expect(hidden.createdBy == "private override")
        let derived = try #require(NSEntityDescription.insertNewObject(forEntityName: "Derived", into: context) as? InitDerivedItem)
        #expect(derived.baseOverrideRuns == 1)
        #expect(NSEntityDescription.insertNewObject(forEntityName: "Plain", into: context) is InitPlainItem)
    }

    @Test func initContextRunsTheOverride() throws {
        let context = try Self.context()
        let overriding = InitOverridingItem(context: context)
        #expect(overriding.createdBy == "override" && overriding.overrideRuns == 1)
        #expect(InitPrivateItem(context: context).createdBy == "private override")
        #expect(InitDerivedItem(context: context).baseOverrideRuns == 1)
        #expect(InitPlainItem(context: context).entity.name == "Plain")
        #expect(context.insertedObjects.count == 4)
    }

    @Test func genericAndMetatypeCreationFindTheDynamicClass() throws {
        let context = try Self.context()
        let generic = initTestMake(InitPrivateItem.self, in: context)
        #expect(generic.createdBy == "private override" && generic.entity.name == "Private")
        let viaSelf = InitOverridingItem.initTestCreate(in: context)
        #expect(viaSelf.overrideRuns == 1 && viaSelf.entity.name == "Overriding")
        let metatype: NSManagedObject.Type = InitDerivedItem.self
        let dynamic = try #require(metatype.init(context: context) as? InitDerivedItem)
        #expect(dynamic.baseOverrideRuns == 1 && dynamic.entity.name == "Derived")
        #expect(context.insertedObjects.count == 3)
    }

    @Test func ownInitContextInAnExtensionWins() throws {
        let context = try Self.context()
        let own = InitOwnContextItem(context: context)
        #expect(own.createdBy == "own init(context:)")
        #expect(own.isInserted && own.entity.name == "OwnContext")
        // Generic code goes through Core Data's init(context:), as on Apple.
        #expect(initTestMake(InitOwnContextItem.self, in: context).createdBy == "nobody")
    }

    @Test func ownDesignatedInitializerBesideAPrivateOverride() throws {
        let context = try Self.context()
        let employee = InitEmployee(context: context, name: "Ada")
        #expect(employee.createdBy == "init(context:name:)")
        #expect(employee.name == "Ada")
        #expect(employee.isInserted)
        try context.save()

        let other = Self.sibling(of: context)
        let fetched = try other.fetch(NSFetchRequest<InitEmployee>(entityName: "Employee"))
        #expect(fetched.count == 1)
        #expect(fetched.first?.createdBy == "private override")
        #expect(fetched.first?.name == "Ada")
    }

    @Test func fetchingCreatesObjectsThroughTheOverride() throws {
        let context = try Self.context()
        for name in ["a", "b"] { InitOverridingItem(context: context).setValue(name, forKey: "name") }
        InitDerivedItem(context: context).setValue("d", forKey: "name")
        try context.save()

        let other = Self.sibling(of: context)
        let request = NSFetchRequest<InitOverridingItem>(entityName: "Overriding")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let fetched = try other.fetch(request)
        #expect(fetched.map { $0.value(forKey: "name") as? String } == ["a", "b"])
        #expect(fetched.allSatisfy { $0.createdBy == "override" && $0.overrideRuns == 1 })
        #expect(fetched.allSatisfy { !$0.isInserted && $0.managedObjectContext === other })

        let derived = try other.fetch(NSFetchRequest<InitDerivedItem>(entityName: "Derived"))
        #expect(derived.map(\.baseOverrideRuns) == [1])
    }

    @Test func faultsAreCreatedThroughTheOverride() throws {
        let context = try Self.context()
        let saved = InitOverridingItem(context: context)
        saved.setValue("x", forKey: "name")
        let hidden = InitPrivateItem(context: context)
        try context.save()

        let other = Self.sibling(of: context)
        let fault = try #require(other.object(with: saved.objectID) as? InitOverridingItem)
        #expect(fault.isFault)
        #expect(fault.createdBy == "override" && fault.overrideRuns == 1)
        #expect(!fault.isInserted && !other.hasChanges)
        #expect(fault.value(forKey: "name") as? String == "x")
        #expect(!fault.isFault)

        let third = Self.sibling(of: context)
        let existing = try #require(try third.existingObject(with: hidden.objectID) as? InitPrivateItem)
        #expect(existing.createdBy == "private override")
    }
}
