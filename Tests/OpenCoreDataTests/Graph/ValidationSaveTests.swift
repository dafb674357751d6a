import Testing
import OpenCoreDataPostgres
@testable import OpenCoreData

/// A typed subclass whose per-key rule runs when a context saves it.
final class ValidationSavedPerson: NSManagedObject {
    override func validateValue(_ value: inout Any?, forKey key: String) throws {
        try super.validateValue(&value, forKey: key)
        if key == "name", let name = value as? String, name == "Nobody" {
            throw validationError(forKey: key, value: name, localizedDescription: "%{PROPERTY}@ can’t be %{VALUE}@.")
        }
    }
}

/// Validation as `save()` runs it: through a context, a coordinator and the in-memory store.
@Suite struct ValidationSaveTests {
    /// A context over a new coordinator with one in-memory store.
    func makeContext(_ model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The number of saved objects of `entityName`, read by a second context.
    func savedCount(_ entityName: String, like context: NSManagedObjectContext) throws -> Int {
        let other = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        return try other.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: entityName))
    }

    @Test func seedProcessIDFailsTheSaveWithTheLocalizedMessage() throws {
        let context = try makeContext(ValidationModels.run())
        let run = NSEntityDescription.insertNewObject(forEntityName: "Run", into: context)
        run.setValue(Date(), forKey: "date")
        // The default process ID, -1, fails the rule.
        let error = try #require(thrownValidationError { try context.save() })
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSManagedObjectValidationError)
        #expect(error.localizedDescription == "Process ID must not be less than 1")
        #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === run)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "processID")
        #expect(error.userInfo[NSValidationValueErrorKey] as? Int32 == -1)
        // Nothing saved; the context keeps its change so that it can be fixed.
        #expect(context.hasChanges)
        #expect(run.objectID.isTemporaryID)
        #expect(try savedCount("Run", like: context) == 0)

        run.setValue(Int32(0), forKey: "processID")
        #expect(thrownValidationError { try context.save() }?.localizedDescription == "Process ID must not be less than 1")
        run.setValue(Int32(4242), forKey: "processID")
        try context.save()
        #expect(!context.hasChanges)
        #expect(try savedCount("Run", like: context) == 1)
    }

    @Test func errorsOfSeveralObjectsAreGatheredAndNothingIsSaved() throws {
        let context = try makeContext(ValidationModels.make())
        let nameless = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        let old = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        old.setValue("Ann", forKey: "name")
        old.setValue(Int16(200), forKey: "age")
        let valid = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        valid.setValue("Bob", forKey: "name")

        let error = try #require(thrownValidationError { try context.save() })
        #expect(error.code == NSValidationMultipleErrorsError)
        #expect(error.localizedDescription == "Multiple validation errors occurred.")
        let details = try #require(error.userInfo[NSDetailedErrorsKey] as? [NSError])
        #expect(details.count == 2)
        let byObject = Dictionary(uniqueKeysWithValues: details.map {
            (ObjectIdentifier($0.userInfo[NSValidationObjectErrorKey] as! NSManagedObject), $0)
        })
        #expect(byObject[ObjectIdentifier(nameless)]?.code == NSValidationMissingMandatoryPropertyError)
        #expect(byObject[ObjectIdentifier(old)]?.code == NSValidationNumberTooLargeError)
        #expect(byObject[ObjectIdentifier(old)]?.userInfo[NSValidationKeyErrorKey] as? String == "age")
        #expect(try savedCount("Person", like: context) == 0)
        #expect(context.insertedObjects.count == 3)

        nameless.setValue("Cid", forKey: "name")
        old.setValue(Int16(80), forKey: "age")
        try context.save()
        #expect(try savedCount("Person", like: context) == 3)
    }

    @Test func updatesAreValidatedToo() throws {
        let context = try makeContext(ValidationModels.make())
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        person.setValue("Ann", forKey: "name")
        try context.save()
        person.setValue("ann", forKey: "name")
        let error = try #require(thrownValidationError { try context.save() })
        #expect(error.code == NSValidationStringPatternMatchingError)
        #expect(context.updatedObjects.contains(person))
        context.rollback()
        #expect(person.value(forKey: "name") as? String == "Ann")
    }

    @Test func denyRuleFailsTheSaveOfADeletion() throws {
        let context = try makeContext(ValidationModels.make())
        let member = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        member.setValue("Ann", forKey: "name")
        let department = NSEntityDescription.insertNewObject(forEntityName: "Department", into: context)
        department.setValue("Dept. of Sales", forKey: "title")
        department.mutableSetValue(forKey: "members").add(member)
        try context.save()

        context.delete(department)
        let error = try #require(thrownValidationError { try context.save() })
        #expect(error.code == NSValidationRelationshipDeniedDeleteError)
        #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === department)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "members")
        #expect(try savedCount("Department", like: context) == 1)
        context.rollback()
        #expect(!department.isDeleted)
    }

    @Test func registeredSubclassOverrideRunsAtSave() throws {
        let model = ValidationModels.make()
        model.register(ValidationSavedPerson.self, forEntityName: "Person")
        let context = try makeContext(model)
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        #expect(person is ValidationSavedPerson)
        person.setValue("Nobody", forKey: "name")
        let error = try #require(thrownValidationError { try context.save() })
        #expect(error.code == NSManagedObjectValidationError)
        #expect(error.localizedDescription == "name can’t be Nobody.")
        person.setValue("Somebody", forKey: "name")
        try context.save()
        #expect(try savedCount("Person", like: context) == 1)
    }

    /// A plain object's save checks its attributes in one pass over its values: those that
    /// pass are skipped, and every one that fails is still reported, in the entity's order,
    /// whether it sits before, between or after passing ones (a missing mandatory value, a
    /// value of the wrong type kept by `setPrimitiveValue`).
    @Test func plainObjectsReportEveryFailingAttributeBetweenPassingOnes() throws {
        let model = NSManagedObjectModel()
        let entity = NSEntityDescription()
        entity.name = "Row"
        func attribute(_ name: String, _ type: NSAttributeType, optional: Bool) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = optional
            return attribute
        }
        entity.properties = [attribute("a", .integer64AttributeType, optional: false),
                             attribute("b", .stringAttributeType, optional: false),
                             attribute("c", .integer64AttributeType, optional: true),
                             attribute("d", .integer64AttributeType, optional: false),
                             attribute("e", .integer64AttributeType, optional: false)]
        model.entities = [entity]
        let context = try makeContext(model)
        let row = NSEntityDescription.insertNewObject(forEntityName: "Row", into: context)
        row.setValue(Int64(1), forKey: "a")
        row.setPrimitiveValue("seven", forKey: "d")
        row.setValue(Int64(5), forKey: "e")
        let error = try #require(thrownValidationError { try context.save() })
        #expect(error.code == NSValidationMultipleErrorsError)
        let details = try #require(error.userInfo[NSDetailedErrorsKey] as? [NSError])
        #expect(details.map(\.code) == [NSValidationMissingMandatoryPropertyError, NSManagedObjectValidationError])
        #expect(details.map { $0.userInfo[NSValidationKeyErrorKey] as? String } == ["b", "d"])
        #expect(try savedCount("Row", like: context) == 0)

        // Mended, the same object saves.
        row.setValue("two", forKey: "b")
        row.setValue(Int64(4), forKey: "d")
        try context.save()
        #expect(try savedCount("Row", like: context) == 1)
    }
}

/// Validation at save reads what changed, not what was never loaded.
@Suite struct ValidationFaultTests {
    /// Saving an attribute change leaves a to-many relationship that was never read a fault on
    /// every store: validating it would read it from the store, one query per saved object.
    @Test(arguments: StoreTypesUnderTest.all)
    func savingAnAttributeChangeDoesNotReadToManyRelationships(_ storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let post = s.insert("Post", ["title": "first"])
        let tag = s.insert("Tag", ["name": "swift"])
        s.context.performAndWait { post.mutableSetValue(forKey: "tags").add(tag) }
        try s.save()

        let other = CatalogScenario.newContext(on: s.coordinator)
        let (wasFault, isFault) = try other.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Post")
            let fetched = try #require(try other.fetch(request).first)
            fetched.setValue("second", forKey: "title")
            let wasFault = fetched.hasFault(forRelationshipNamed: "tags")
            try other.save()
            return (wasFault, fetched.hasFault(forRelationshipNamed: "tags"))
        }
        // The SQL stores read rows without join tables; the atomic stores load everything.
        if [NSSQLiteStoreType, NSPostgreSQLStoreType].contains(storeType) { #expect(wasFault) }
        #expect(isFault == wasFault)
        #expect(try s.stored("Post", "title") == ["second"])
        #expect((try s.storedObject("Post", "TRUEPREDICATE")?["tags"] as? [String]) == ["swift"])
    }
}
