import Foundation
import Synchronization
import Testing
@testable import OpenCoreData

@Suite("Managed objects: values, key-value coding, state")
struct ManagedObjectTests {
    @Test func defaultValuesAreSetAtInsertAndTheObjectIsInserted() {
        let context = GraphTestModel.context()
        let run = GraphTestModel.insert("Run", context)
        #expect(run.value(forKey: "processID") as? Int32 == -1)
        #expect(run.value(forKey: "date") == nil)
        #expect(run.isInserted && run.hasChanges && !run.isUpdated && !run.isDeleted && !run.isFault)
        #expect(run.objectID.isTemporaryID)
        #expect(run.managedObjectContext === context)
        #expect(context.insertedObjects == [run])
        #expect(context.registeredObject(for: run.objectID) === run)
        #expect(context.object(with: run.objectID) === run)
        #expect(context.hasChanges)
    }

    /// Each new object starts from the entity's defaults in values of its own: writing one
    /// object changes neither the next new object nor one made before.
    @Test func newObjectsStartFromTheirOwnCopyOfTheDefaults() {
        let context = GraphTestModel.context()
        let first = GraphTestModel.insert("StudentEntity", context)
        let second = GraphTestModel.insert("StudentEntity", context)
        first.setValue("Ann", forKey: "name")
        first.setValue(Int16(12), forKey: "age")
        let third = GraphTestModel.insert("StudentEntity", context)
        #expect(first.value(forKey: "name") as? String == "Ann" && first.value(forKey: "age") as? Int16 == 12)
        for student in [second, third] {
            #expect(student.value(forKey: "name") as? String == "学生甲")
            #expect(student.value(forKey: "age") as? Int16 == 0)
            #expect(student.changedValues()["name"] as? String == "学生甲")
        }
        third.setValue(nil, forKey: "name")
        #expect(second.value(forKey: "name") as? String == "学生甲" && third.value(forKey: "name") == nil)
        #expect(GraphTestModel.insert("StudentEntity", context).value(forKey: "name") as? String == "学生甲")
    }

    @Test func setValueConvertsNumbersToTheAttributeWidth() {
        let context = GraphTestModel.context()
        let run = GraphTestModel.insert("Run", context)
        run.setValue(42, forKey: "processID")
        #expect(run.value(forKey: "processID") as? Int32 == 42)
        run.setValue(NSNumber(value: 7), forKey: "processID")
        #expect(run.value(forKey: "processID") as? Int32 == 7)
        let student = GraphTestModel.insert("StudentEntity", context)
        student.setValue(Int64(12), forKey: "age")
        #expect(student.value(forKey: "age") as? Int16 == 12)
        student.setValue(NSNull(), forKey: "name")
        #expect(student.value(forKey: "name") == nil)
    }

    @Test func unknownKeysThrowNamingTheEntity() {
        let context = GraphTestModel.context()
        let run = GraphTestModel.insert("Run", context)
        #expect(throws: KeyValueCodingError.unknownKey(key: "foo", owner: "entity Run")) {
            try run.valueThrowing(forKey: "foo")
        }
        #expect("\(KeyValueCodingError.unknownKey(key: "foo", owner: "entity Run"))" == "entity Run has no property 'foo'")
        #expect(throws: KeyValueCodingError.self) { try run.setValueThrowing(1, forKey: "foo") }
    }

    @Test func wrongValueTypesAreKeptAndFailTheSaveWith1550() throws {
        let context = try GraphTestModel.storedContext()
        let run = GraphTestModel.insert("Run", context)
        try run.setValueThrowing("seven", forKey: "processID")
        #expect(run.value(forKey: "processID") as? String == "seven")
        let error = try #require(throws: NSError.self) { try context.save() }
        #expect(error.code == NSManagedObjectValidationError)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "processID")
        #expect(context.insertedObjects.contains(run))
        run.setValue(7, forKey: "processID")
        try context.save()
        #expect(run.committedSnapshot?.values["processID"] as? Int32 == 7)
        let student = GraphTestModel.insert("StudentEntity", context)
        #expect(throws: ManagedObjectAccessError.self) { try student.setValueThrowing("class", forKey: "inClass") }
    }

    @Test func outOfRangeIntegersAreNotTruncatedAndFailTheSave() throws {
        let context = try GraphTestModel.storedContext()
        let student = GraphTestModel.insert("StudentEntity", context)
        student.setValue(70000, forKey: "age")
        #expect(student.value(forKey: "age") as? Int == 70000)
        let error = try #require(throws: NSError.self) { try context.save() }
        #expect(error.code == NSValidationNumberTooLargeError)
        #expect(error.userInfo[NSValidationValueErrorKey] as? Int == 70000)
        student.setValue(-70000, forKey: "age")
        #expect(try #require(throws: NSError.self) { try context.save() }.code == NSValidationNumberTooSmallError)
        student.setValue(Int64(12), forKey: "age")
        try context.save()
        // The snapshot given to the store holds the attribute's exact Swift type.
        #expect(student.committedSnapshot?.values["age"] as? Int16 == 12)
    }

    @Test func keyPathsReadAndWriteThroughRelationships() throws {
        let context = GraphTestModel.context()
        let klass = GraphTestModel.insert("ClassEntity", context, ["name": "三班"])
        let student = GraphTestModel.insert("StudentEntity", context, ["inClass": klass])
        #expect(student.value(forKeyPath: "inClass.name") as? String == "三班")
        student.setValue("四班", forKeyPath: "inClass.name")
        #expect(klass.value(forKey: "name") as? String == "四班")
        #expect(klass.value(forKeyPath: "students.@count") as? Int == 1)
        let names = try klass.valueThrowing(forKeyPath: "students.name") as? Set<AnyHashable>
        #expect(names == ["学生甲"])
    }

    @Test func predicatesAndSortDescriptorsReadManagedObjects() {
        let context = GraphTestModel.context()
        let klass = GraphTestModel.insert("ClassEntity", context, ["name": "三班"])
        let a = GraphTestModel.insert("StudentEntity", context, ["name": "b", "age": 12, "inClass": klass])
        let b = GraphTestModel.insert("StudentEntity", context, ["name": "a", "age": 11])
        #expect(NSPredicate(format: "age > 11 AND inClass.name == '三班'").evaluate(with: a))
        #expect(!NSPredicate(format: "age > 11").evaluate(with: b))
        #expect(NSPredicate(format: "ANY students.name == 'b'").evaluate(with: klass))
        let sorted = [a, b].sortedArray(using: [NSSortDescriptor(key: "name", ascending: true)])
        #expect(sorted.map { $0 === b } == [true, false])
    }

    @Test func primitiveAccessSkipsHooksButIsTracked() {
        let context = GraphTestModel.context()
        let entity = context.persistentStoreCoordinator!.managedObjectModel.entitiesByName["Run"]!
        let run = RecordingRun(entity: entity, insertInto: context)
        #expect(run.events == ["awakeFromInsert"])
        #expect(run.primitiveValue(forKey: "date") as? Date == Date(timeIntervalSinceReferenceDate: 0))
        run.setValue(Int32(5), forKey: "processID")
        #expect(run.events.suffix(2) == ["willChange(processID)", "didChange(processID)"])
        _ = run.value(forKey: "processID")
        #expect(run.events.last == "willAccess(processID)")
        let count = run.events.count
        run.setPrimitiveValue(Int32(6), forKey: "processID")
        #expect(run.events.count == count)
        #expect(run.changedValuesForCurrentEvent()["processID"] as? Int32 == -1)
    }

    @Test func transientAttributesLiveInTheObjectOnly() {
        let context = GraphTestModel.context()
        let student = GraphTestModel.insert("StudentEntity", context, ["nickname": "Xiao"])
        #expect(student.value(forKey: "nickname") as? String == "Xiao")
        #expect(student.changedValues()["nickname"] == nil)
        #expect(student.persistentSnapshot().values["nickname"] == nil)
        #expect(student.persistentSnapshot().values["name"] as? String == "学生甲")
    }

    /// An event keeps each slot's first old value, nil (kept as a bit) or not (kept in a list),
    /// however often the slot changes again, and forgets both kinds when the event ends.
    @Test func theCurrentEventKeepsFirstOldValuesWhetherNilOrNot() {
        let context = GraphTestModel.context()
        let person = GraphTestModel.insert("Person", context)
        person.setValue("Ann", forKey: "name")
        person.setValue("Bea", forKey: "name")
        #expect(person.changedValuesForCurrentEvent().count == 1)
        #expect(person.changedValuesForCurrentEvent()["name"] is NSNull)
        context.processPendingChanges()
        #expect(person.changedValuesForCurrentEvent().isEmpty)

        let passport = GraphTestModel.insert("Passport", context, ["number": "X1"])
        context.processPendingChanges()
        person.setValue("Cid", forKey: "name")
        person.setValue(passport, forKey: "passport")
        person.setValue(nil, forKey: "passport")
        person.setValue("Dee", forKey: "name")
        let event = person.changedValuesForCurrentEvent()
        #expect(event.count == 2)
        #expect(event["name"] as? String == "Bea")
        #expect(event["passport"] is NSNull)
        #expect(passport.changedValuesForCurrentEvent()["owner"] is NSNull)
        context.processPendingChanges()
        #expect(person.changedValuesForCurrentEvent().isEmpty)
        #expect(passport.changedValuesForCurrentEvent().isEmpty)
    }

    @Test func changedValuesOfANewObjectAndOfTheCurrentEvent() {
        let context = GraphTestModel.context()
        let klass = GraphTestModel.insert("ClassEntity", context)
        let student = GraphTestModel.insert("StudentEntity", context, ["inClass": klass])
        let changed = student.changedValues()
        #expect(changed["name"] as? String == "学生甲")
        #expect(changed["inClass"] as? NSManagedObject === klass)
        #expect(klass.changedValues()["students"] as? Set<NSManagedObject> == [student])
        #expect(student.changedValuesForCurrentEvent()["inClass"] is NSNull)
        #expect(student.hasPersistentChangedValues)
        context.processPendingChanges()
        #expect(student.changedValuesForCurrentEvent().isEmpty)
        #expect(student.committedValues(forKeys: nil).isEmpty)
    }

    @Test func typedAccessorsConvertAndCast() {
        let model = GraphTestModel.make()
        model.register(StudentEntity.self, forEntityName: "StudentEntity")
        model.register(ClassEntity.self, forEntityName: "ClassEntity")
        let context = GraphTestModel.context(model: model)
        let klass = ClassEntity(context: context)
        let student = StudentEntity(context: context)
        #expect(klass.awakeCount == 1 && klass.name == "XX班" && student.name == "学生甲")
        student.age = 17
        #expect(student.value(forKey: "age") as? Int16 == 17)
        #expect(student.age == 17)
        student.inClass = klass
        #expect(klass.students == [student])
        student.name = nil
        #expect(student.name == nil)
        let inserted = NSEntityDescription.insertNewObject(forEntityName: "StudentEntity", into: context)
        #expect(inserted is StudentEntity)
    }

    @Test func classesAreFoundByModuleQualifiedName() {
        let model = GraphTestModel.make()
        model.entitiesByName["StudentEntity"]!.managedObjectClassName = String(reflecting: StudentEntity.self)
        let context = GraphTestModel.context(model: model)
        #expect(NSEntityDescription.insertNewObject(forEntityName: "StudentEntity", into: context) is StudentEntity)
        #expect(StudentEntity(context: context).entity.name == "StudentEntity")
    }

    @Test func aClassNameIsResolvedOnceAndAgainWhenItChanges() {
        let model = GraphTestModel.make()
        let entity = model.entitiesByName["StudentEntity"]!
        entity.managedObjectClassName = "NoSuchModule.NoSuchStudentClass"
        let context = GraphTestModel.context(model: model)
        // A name the runtime doesn't know: plain objects, every time (the miss is kept).
        let first = NSEntityDescription.insertNewObject(forEntityName: "StudentEntity", into: context)
        let second = NSEntityDescription.insertNewObject(forEntityName: "StudentEntity", into: context)
        #expect(type(of: first) == NSManagedObject.self && type(of: second) == NSManagedObject.self)
        #expect(entity.resolvedClassBits.load(ordering: .relaxed) == 1, "the miss is remembered, not looked up per object")

        // Another model whose entity names a real class resolves it, and keeps it.
        let named = GraphTestModel.make()
        named.entitiesByName["StudentEntity"]!.managedObjectClassName = String(reflecting: StudentEntity.self)
        let namedContext = GraphTestModel.context(model: named)
        #expect(NSEntityDescription.insertNewObject(forEntityName: "StudentEntity", into: namedContext) is StudentEntity)
        #expect(NSEntityDescription.insertNewObject(forEntityName: "StudentEntity", into: namedContext) is StudentEntity)

        // Renaming the class of an editable model's entity drops what was resolved.
        let editable = GraphTestModel.make()
        let student = editable.entitiesByName["StudentEntity"]!
        student.managedObjectClassName = "NoSuchModule.NoSuchStudentClass"
        #expect(type(of: ManagedObjectClasses.instantiate(student, insertInto: nil)) == NSManagedObject.self)
        student.managedObjectClassName = String(reflecting: StudentEntity.self)
        #expect(student.resolvedClassBits.load(ordering: .relaxed) == 0, "renaming forgets the resolution")
        #expect(ManagedObjectClasses.instantiate(student, insertInto: nil) is StudentEntity)
        #expect(student.resolvedClassBits.load(ordering: .relaxed) > 1)
    }

    @Test func descriptionNamesEntityAndValues() {
        let context = GraphTestModel.context()
        let run = GraphTestModel.insert("Run", context)
        #expect(run.description.contains("Run"))
        #expect(run.description.contains("processID = -1"))
    }
}

@Suite("Managed objects: traps where Apple raises")
struct ManagedObjectTrapTests {
    @Test func unknownKeyTrapsNamingEntityAndKey() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = GraphTestModel.context()
            let run = GraphTestModel.insert("Run", context)
            _ = run.value(forKey: "foo")
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("entity Run has no property 'foo'"))
    }
}
