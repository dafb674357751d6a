import Foundation
import Testing
@testable import OpenCoreData

extension GraphTestModel {
    /// A context over an in-memory store of a fresh model.
    static func storedContext(undo: Bool = false, model: NSManagedObjectModel = make()) throws -> NSManagedObjectContext {
        let context = self.context(undo: undo, model: model)
        _ = try context.persistentStoreCoordinator!.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        return context
    }

    /// A second context on the same coordinator.
    static func sibling(of context: NSManagedObjectContext) -> NSManagedObjectContext {
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        return other
    }
}

@Suite("Context saves over the in-memory store")
struct ContextSaveTests {
    @Test func saveGivesPermanentIDsAndClearsChanges() throws {
        let context = try GraphTestModel.storedContext()
        let klass = GraphTestModel.insert("ClassEntity", context, ["name": "一班"])
        let student = GraphTestModel.insert("StudentEntity", context, ["inClass": klass])
        let temporary = student.objectID
        try context.save()
        #expect(!student.objectID.isTemporaryID && !klass.objectID.isTemporaryID)
        #expect(context.registeredObject(for: student.objectID) === student)
        #expect(context.registeredObject(for: temporary) == nil)
        #expect(!context.hasChanges && !student.hasChanges && student.changedValues().isEmpty)
        #expect(student.committedValues(forKeys: ["name"])["name"] as? String == "学生甲")
        #expect(student.committedSnapshot?.version == 1)
        #expect(student.objectID.uriRepresentation().absoluteString.hasPrefix("x-coredata://"))
    }

    @Test func saveNotificationsCarryTheSavedObjects() throws {
        let context = try GraphTestModel.storedContext()
        let recorder = NotificationRecorder([.NSManagedObjectContextWillSave, .NSManagedObjectContextDidSave], object: context)
        let kept = GraphTestModel.insert("Run", context)
        let doomed = GraphTestModel.insert("Run", context)
        try context.save()
        #expect(recorder.notifications.map(\.name) == [.NSManagedObjectContextWillSave, .NSManagedObjectContextDidSave])
        #expect(recorder.notifications[0].userInfo == nil)
        let first = recorder.notifications[1].userInfo ?? [:]
        #expect(first[NSInsertedObjectsKey] as? Set<NSManagedObject> == [kept, doomed])
        #expect(first[NSUpdatedObjectsKey] as? Set<NSManagedObject> == [])
        #expect(first[NSDeletedObjectsKey] as? Set<NSManagedObject> == [])

        kept.setValue(Int32(4), forKey: "processID")
        context.delete(doomed)
        try context.save()
        let second = recorder.notifications[3].userInfo ?? [:]
        #expect(second[NSInsertedObjectsKey] as? Set<NSManagedObject> == [])
        #expect(second[NSUpdatedObjectsKey] as? Set<NSManagedObject> == [kept])
        #expect(second[NSDeletedObjectsKey] as? Set<NSManagedObject> == [doomed])
        #expect(doomed.managedObjectContext == nil)
        #expect(kept.committedSnapshot?.version == 2)

        try context.save()
        #expect(recorder.notifications.count == 4)
    }

    /// A run whose first `willSave()` inserts another run.
    private final class InsertingRun: NSManagedObject {
        private var insertedAnother = false
        override func willSave() {
            guard isInserted, !insertedAnother, let context = managedObjectContext else { return }
            insertedAnother = true
            _ = GraphTestModel.insert("Run", context)
        }
    }

    /// A save's `NSManagedObjectContextDidSave` carries the saved objects whether they are the
    /// ones its change notification just posted (the same set is posted again) or not: objects
    /// posted by an earlier event, or inserted by `willSave()`, are in it too.
    @Test func didSaveCarriesTheSavedObjectsWhateverTheEventsPosted() throws {
        let model = GraphTestModel.make()
        model.register(InsertingRun.self, forEntityName: "Run")
        let context = try GraphTestModel.storedContext(model: model)
        let recorder = NotificationRecorder([.NSManagedObjectContextObjectsDidChange, .NSManagedObjectContextDidSave], object: context)
        func lastSaved(_ key: String) -> Set<NSManagedObject>? {
            recorder.notifications.last { $0.name == .NSManagedObjectContextDidSave }?.userInfo?[key] as? Set<NSManagedObject>
        }
        func lastChanged(_ key: String) -> Set<NSManagedObject>? {
            recorder.notifications.last { $0.name == .NSManagedObjectContextObjectsDidChange }?.userInfo?[key] as? Set<NSManagedObject>
        }

        // One event: the save posts the inserted objects once as changed, then as saved.
        let first = (0..<3).map { _ in GraphTestModel.insert("ClassEntity", context) }
        try context.save()
        #expect(lastChanged(NSInsertedObjectsKey) == Set(first))
        #expect(lastSaved(NSInsertedObjectsKey) == Set(first))

        // Updates and deletions of one event, likewise.
        first[0].setValue("a", forKey: "name")
        first[1].setValue("b", forKey: "name")
        context.delete(first[2])
        try context.save()
        #expect(lastSaved(NSUpdatedObjectsKey) == [first[0], first[1]])
        #expect(lastSaved(NSDeletedObjectsKey) == [first[2]])

        // Two events: the save's own change notification posts only the last one.
        let early = (0..<2).map { _ in GraphTestModel.insert("ClassEntity", context) }
        context.processPendingChanges()
        let late = GraphTestModel.insert("ClassEntity", context)
        try context.save()
        #expect(lastChanged(NSInsertedObjectsKey) == [late])
        #expect(lastSaved(NSInsertedObjectsKey) == Set(early + [late]))

        // `willSave()` inserts: the save posts both runs.
        let run = GraphTestModel.insert("Run", context)
        try context.save()
        let saved = try #require(lastSaved(NSInsertedObjectsKey))
        #expect(saved.count == 2 && saved.contains(run))
        #expect(!context.hasChanges)
    }

    @Test func hooksRunInOrder() throws {
        let model = GraphTestModel.make()
        model.register(RecordingRun.self, forEntityName: "Run")
        let context = try GraphTestModel.storedContext(model: model)
        let run = RecordingRun(context: context)
        try context.save()
        #expect(run.events.filter { !$0.hasPrefix("will") || $0 == "willSave" }.filter { !$0.hasPrefix("did") || $0 == "didSave" }
                == ["awakeFromInsert", "willSave", "didSave"])
    }

    @Test func validationFailureKeepsTheChangesAndWritesNothing() throws {
        let model = GraphTestModel.make()
        model.entitiesByName["Run"]!.attributesByName["date"]!.isOptional = false
        let context = try GraphTestModel.storedContext(model: model)
        let good = GraphTestModel.insert("Run", context, ["date": Date()])
        let bad = GraphTestModel.insert("Run", context)
        #expect(throws: NSError.self) { try context.save() }
        #expect(context.insertedObjects == [good, bad])
        #expect(good.objectID.isTemporaryID)
        let reader = GraphTestModel.sibling(of: context)
        #expect(try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Run")) == 0)
        bad.setValue(Date(), forKey: "date")
        try context.save()
        #expect(try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Run")) == 2)
    }

    @Test func denyRuleFailsTheSaveWith1600() throws {
        let context = try GraphTestModel.storedContext()
        let owner = GraphTestModel.insert("Owner", context)
        let item = GraphTestModel.insert("Item", context)
        owner.mutableSetValue(forKey: "denyItems").add(item)
        try context.save()
        context.delete(owner)
        do {
            try context.save()
            Issue.record("the save should fail")
        } catch let error as NSError {
            #expect(error.code == NSValidationRelationshipDeniedDeleteError)
        }
        #expect(owner.isDeleted && context.deletedObjects == [owner])
        context.rollback()
        #expect(!owner.isDeleted && item.value(forKey: "denyOwner") as? NSManagedObject === owner)
    }

    @Test func storeFailureRestoresTemporaryIDs() throws {
        let context = try GraphTestModel.storedContext()
        let run = GraphTestModel.insert("Run", context)
        try context.save()
        let other = GraphTestModel.sibling(of: context)
        let copy = other.object(with: run.objectID)
        copy.setValue(Int32(8), forKey: "processID")
        try other.save()
        run.setValue(Int32(9), forKey: "processID")
        let fresh = GraphTestModel.insert("Run", context)
        let temporary = fresh.objectID
        #expect(throws: NSError.self) { try context.save() }
        #expect(fresh.objectID == temporary && context.registeredObject(for: temporary) === fresh)
        #expect(context.insertedObjects == [fresh] && context.updatedObjects == [run])
    }

    @Test func rollbackRestoresCommittedValuesAndDropsInserts() throws {
        let context = try GraphTestModel.storedContext()
        let klass = GraphTestModel.insert("ClassEntity", context, ["name": "一班"])
        let student = GraphTestModel.insert("StudentEntity", context, ["inClass": klass])
        try context.save()
        klass.setValue("二班", forKey: "name")
        let newcomer = GraphTestModel.insert("StudentEntity", context, ["inClass": klass])
        context.delete(student)
        context.processPendingChanges()
        context.rollback()
        #expect(klass.value(forKey: "name") as? String == "一班")
        #expect(klass.value(forKey: "students") as? Set<NSManagedObject> == [student])
        #expect(student.value(forKey: "inClass") as? NSManagedObject === klass)
        #expect(!context.hasChanges && newcomer.managedObjectContext == nil)
    }

    @Test func refreshDropsOrMergesChanges() throws {
        let context = try GraphTestModel.storedContext()
        let student = GraphTestModel.insert("StudentEntity", context, ["name": "甲", "age": 10])
        try context.save()
        let other = GraphTestModel.sibling(of: context)
        other.object(with: student.objectID).setValue(11, forKey: "age")
        try other.save()

        student.setValue("乙", forKey: "name")
        context.refresh(student, mergeChanges: true)
        #expect(student.value(forKey: "age") as? Int16 == 11)
        #expect(student.value(forKey: "name") as? String == "乙")
        #expect(student.isUpdated)

        context.refresh(student, mergeChanges: false)
        #expect(student.isFault && !student.isUpdated)
        #expect(student.value(forKey: "name") as? String == "甲")
        #expect(!student.isFault)
    }

    @Test func refreshTurnsIntoAFaultWithHooks() throws {
        let model = GraphTestModel.make()
        model.register(RecordingRun.self, forEntityName: "Run")
        let context = try GraphTestModel.storedContext(model: model)
        let run = RecordingRun(context: context)
        try context.save()
        let recorder = NotificationRecorder([.NSManagedObjectContextObjectsDidChange], object: context)
        run.setValue(Int32(3), forKey: "processID")
        context.refresh(run, mergeChanges: false)
        #expect(Array(run.events.suffix(2)) == ["willTurnIntoFault", "didTurnIntoFault"])
        #expect(run.value(forKey: "processID") as? Int32 == -1)
        #expect(run.events.last == "awakeFromFetch" || run.events.contains("awakeFromFetch"))
        context.processPendingChanges()
        #expect(recorder.notifications.last?.userInfo?[NSRefreshedObjectsKey] as? Set<NSManagedObject> == [run])
    }

    @Test func mergeChangesFromAnotherContextsSave() throws {
        let context = try GraphTestModel.storedContext()
        let klass = GraphTestModel.insert("ClassEntity", context, ["name": "一班"])
        let student = GraphTestModel.insert("StudentEntity", context, ["inClass": klass])
        try context.save()
        let other = GraphTestModel.sibling(of: context)
        let recorder = NotificationRecorder([.NSManagedObjectContextDidSave], object: other)
        other.object(with: klass.objectID).setValue("二班", forKey: "name")
        other.delete(other.object(with: student.objectID))
        try other.save()
        let changes = NotificationRecorder([.NSManagedObjectContextObjectsDidChange], object: context)
        context.mergeChanges(fromContextDidSave: try #require(recorder.notifications.first))
        #expect(klass.value(forKey: "name") as? String == "二班")
        #expect((klass.value(forKey: "students") as? Set<NSManagedObject>)?.isEmpty == true)
        #expect(student.managedObjectContext == nil)
        #expect(changes.notifications.first?.userInfo?[NSDeletedObjectsKey] as? Set<NSManagedObject> == [student])
        #expect(changes.notifications.first?.userInfo?[NSRefreshedObjectsKey] as? Set<NSManagedObject> == [klass])
        #expect(!context.hasChanges)
    }

    @Test func setNilOnAScalarGoesThroughSetNilValueForKey() {
        let model = GraphTestModel.make()
        model.entitiesByName["Run"]!.attributesByName["processID"]!.isOptional = false
        let context = GraphTestModel.context(model: model)
        let run = GraphTestModel.insert("Run", context)
        run.setValue(nil, forKey: "processID")
        #expect(run.value(forKey: "processID") == nil)
    }

    @Test func undoAndRedoAcrossSaves() throws {
        let context = try GraphTestModel.storedContext(undo: true)
        let klass = GraphTestModel.insert("ClassEntity", context)
        try context.save()
        let student = GraphTestModel.insert("StudentEntity", context, ["name": "甲", "inClass": klass])
        try context.save()
        context.undo()
        #expect(student.isDeleted && context.deletedObjects == [student])
        #expect((klass.value(forKey: "students") as? Set<NSManagedObject>)?.isEmpty == true)
        try context.save()
        let reader = GraphTestModel.sibling(of: context)
        #expect(try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "StudentEntity")) == 0)

        context.redo()
        #expect(student.isInserted && student.managedObjectContext === context)
        #expect(student.value(forKey: "inClass") as? NSManagedObject === klass)
        #expect(klass.value(forKey: "students") as? Set<NSManagedObject> == [student])
        try context.save()
        let names = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "StudentEntity")).map { $0.value(forKey: "name") as? String }
        #expect(names == ["甲"])

        let deleting = GraphTestModel.sibling(of: context)
        deleting.undoManager = UndoManager()
        let saved = try deleting.existingObject(with: klass.objectID)
        deleting.delete(saved)
        try deleting.save()
        deleting.undo()
        #expect(saved.isInserted && saved.objectID.isTemporaryID)
        try deleting.save()
        #expect(try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "ClassEntity")) == 1)
    }

    @Test func obtainPermanentIDsAndAssign() throws {
        let context = try GraphTestModel.storedContext()
        let store = context.persistentStoreCoordinator!.persistentStores[0]
        let run = GraphTestModel.insert("Run", context)
        context.assign(run, to: store)
        try context.obtainPermanentIDs(for: [run])
        #expect(!run.objectID.isTemporaryID && run.objectID.persistentStore === store)
        #expect(run.isInserted)
        let id = run.objectID
        try context.save()
        #expect(run.objectID == id)
    }

    @Test func existingObjectAndObjectWithID() throws {
        let context = try GraphTestModel.storedContext()
        let run = GraphTestModel.insert("Run", context, ["processID": 3])
        try context.save()
        let other = GraphTestModel.sibling(of: context)
        let fault = other.object(with: run.objectID)
        #expect(fault.isFault)
        #expect(fault.value(forKey: "processID") as? Int32 == 3)
        #expect(!fault.isFault)
        #expect(try other.existingObject(with: run.objectID) === fault)
        context.delete(run)
        try context.save()
        let third = GraphTestModel.sibling(of: context)
        #expect(throws: NSError.self) { try third.existingObject(with: fault.objectID) }
    }

    @Test func noCoordinatorMeansNoSave() {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        let coordinatorless = GraphTestModel.make()
        let entity = coordinatorless.entitiesByName["Run"]!
        _ = NSManagedObject(entity: entity, insertInto: context)
        #expect(throws: NSError.self) { try context.save() }
        #expect(context.hasChanges)
    }
}
