import Testing
@testable import OpenCoreData

/// A class only this suite registers, so the models other suites load can't answer for it.
final class EntityLookupRun: NSManagedObject {}
final class EntityLookupOrphan: NSManagedObject {}

/// `NSManagedObject.entity()` and `fetchRequest()`: the class's entity found in the models of the
/// live coordinators, as Apple's sample code uses them (`Run.entity()`, `Run.fetchRequest()`).
@Suite struct EntityLookupTests {
    @Test func entityAndFetchRequestComeFromTheLoadedModel() throws {
        let model = GraphTestModel.make()
        model.register(EntityLookupRun.self, forEntityName: "Run")
        let context = try GraphTestModel.storedContext(model: model)
        #expect(EntityLookupRun.entity() === model.entitiesByName["Run"])

        let run = EntityLookupRun(entity: EntityLookupRun.entity(), insertInto: context)
        try context.save()
        let request = EntityLookupRun.fetchRequest()
        #expect(request.entityName == "Run")
        #expect(request.entity === model.entitiesByName["Run"])
        let fetched = try context.fetch(request)
        #expect(fetched.count == 1 && fetched.first as? EntityLookupRun === run)
    }

    /// A registry of its own: the shared one is read by other tests running in parallel, whose
    /// lookups hold its models for a moment, so a model there is not freed at a predictable time.
    @Test func aFreedModelIsForgotten() throws {
        let registry = LoadedModels()
        weak var released: NSManagedObjectModel?
        do {
            let model = GraphTestModel.make()
            model.register(EntityLookupOrphan.self, forEntityName: "Run")
            registry.add(model)
            #expect(registry.entities(for: EntityLookupOrphan.self).first === model.entitiesByName["Run"])
            released = model
        }
        #expect(released == nil, "the registry holds models weakly")
        #expect(registry.entities(for: EntityLookupOrphan.self).isEmpty)
    }

    /// `insertNewObject(forEntityName:into:)` remembers the last entity it found: the next
    /// name, and the entity of the same name in another model, are looked up again.
    @Test func insertNewObjectFindsEachNameInTheContextsCurrentModel() throws {
        let first = GraphTestModel.make()
        let context = GraphTestModel.context(model: first)
        let runs = (0..<2).map { _ in NSEntityDescription.insertNewObject(forEntityName: "Run", into: context) }
        let animal = NSEntityDescription.insertNewObject(forEntityName: "Animal", into: context)
        let dog = NSEntityDescription.insertNewObject(forEntityName: "Dog", into: context)
        #expect(runs.allSatisfy { $0.entity === first.entitiesByName["Run"] })
        #expect(animal.entity === first.entitiesByName["Animal"])
        #expect(dog.entity === first.entitiesByName["Dog"])

        // An emptied context may move to another coordinator: "Dog" is then the other model's.
        context.reset()
        let second = GraphTestModel.make()
        context.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: second)
        let secondDog = NSEntityDescription.insertNewObject(forEntityName: "Dog", into: context)
        #expect(secondDog.entity === second.entitiesByName["Dog"])
        #expect(secondDog.entity !== first.entitiesByName["Dog"])
    }

    @Test func aCoordinatorRecordsItsModel() throws {
        let model = GraphTestModel.make()
        model.register(EntityLookupOrphan.self, forEntityName: "Run")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        #expect(LoadedModels.shared.entities(for: EntityLookupOrphan.self).first === coordinator.managedObjectModel.entitiesByName["Run"])
    }
}
