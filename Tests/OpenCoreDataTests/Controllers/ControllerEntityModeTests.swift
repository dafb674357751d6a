import CoreDataTutorial
import Foundation
import Testing
@testable import OpenCoreData

/// Controllers in entity mode and bound to each other, the way the seed's window uses them
/// (classes, and the students of the selected class), over every store.
@Suite("Controllers in entity mode") struct ControllerEntityModeTests {
    @Test(arguments: StoreTypesUnderTest.all)
    func fetchesFollowsTheContextAndDeletesOnRemove(storeType: String) throws {
        let fixture = try ClassesFixture(storeType: storeType)
        fixture.addClass("B")
        fixture.addClass("A")
        fixture.addClass("Z-hidden")
        try fixture.context.save()

        let controller = NSArrayController()
        controller.entityName = "ClassEntity"
        controller.fetchPredicate = NSPredicate(format: "NOT name BEGINSWITH 'Z'")
        controller.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        controller.automaticallyPreparesContent = true
        controller.managedObjectContext = fixture.context
        #expect(controller.lastError == nil)
        #expect(names(controller.arrangedObjects) == ["A", "B"])
        #expect(names(controller.selectedObjects) == ["A"])

        // add(_:) inserts a new object into the context and selects it.
        controller.add(nil)
        #expect(fixture.context.insertedObjects.count == 1)
        let added = try #require(controller.selectedObjects.first as? SeedClass)
        #expect(added.name == ClassesModel.defaultClassName)
        #expect(names(controller.arrangedObjects) == ["A", "B", ClassesModel.defaultClassName])

        // Objects inserted and deleted elsewhere in the context join and leave at the end of
        // the event; those the fetch predicate refuses don't join.
        let other = fixture.addClass("C")
        fixture.addClass("Z-also-hidden")
        fixture.context.processPendingChanges()
        #expect(names(controller.arrangedObjects) == ["A", "B", ClassesModel.defaultClassName, "C"])
        fixture.context.delete(other)
        fixture.context.processPendingChanges()
        #expect(names(controller.arrangedObjects) == ["A", "B", ClassesModel.defaultClassName])

        // Removing deletes from the context.
        controller.setSelectedObjects(controller.arrangedObjects.filter { names([$0]) == ["B"] })
        let b = try #require(controller.selectedObjects.first as? NSManagedObject)
        controller.remove(nil)
        #expect(b.isDeleted)
        #expect(names(controller.arrangedObjects) == ["A", ClassesModel.defaultClassName])
        try fixture.context.save()

        let reader = fixture.newContext()
        let request = NSFetchRequest<NSManagedObject>(entityName: "ClassEntity")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(names(try reader.fetch(request)) == ["A", "XX班", "Z-also-hidden", "Z-hidden"])
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func aBoundControllerShowsAndChangesTheSelectedClassesStudents(storeType: String) throws {
        let fixture = try ClassesFixture(storeType: storeType)
        fixture.addClass("One", students: ["Wei", "Ann"])
        fixture.addClass("Two", students: ["Bo"])
        try fixture.context.save()

        let classes = fixture.classesController()
        let students = fixture.studentsController(of: classes)
        #expect(names(classes.selectedObjects) == ["One"])
        #expect(names(students.arrangedObjects) == ["Ann", "Wei"])

        classes.selectNext(nil)
        #expect(names(students.arrangedObjects) == ["Bo"])

        // Adding through the bound controller adds to the selected class's students.
        students.add(nil)
        let two = try #require(classes.selectedObjects.first as? SeedClass)
        #expect(two.students.count == 2)
        let newStudent = try #require(students.selectedObjects.first as? SeedStudent)
        #expect(newStudent.inClass === two)
        #expect(newStudent.name == ClassesModel.defaultStudentName)

        // Removing takes the student out of the class, without deleting it.
        students.setSelectedObjects(students.arrangedObjects.filter { names([$0]) == ["Bo"] })
        let bo = try #require(students.selectedObjects.first as? SeedStudent)
        students.remove(nil)
        #expect(!bo.isDeleted && bo.inClass == nil)
        #expect(names(students.arrangedObjects) == [ClassesModel.defaultStudentName])

        // Changes made elsewhere to the selected class's students show at the end of the event.
        two.addStudentsObject(bo)
        fixture.context.processPendingChanges()
        #expect(names(students.arrangedObjects) == ["Bo", ClassesModel.defaultStudentName], "content read again is arranged again")
        try fixture.context.save()

        // Nothing selected: nothing to show and nothing to add to.
        classes.avoidsEmptySelection = false
        classes.setSelectionIndexes(IndexSet())
        #expect(students.arrangedObjects.isEmpty)
        #expect(!students.canAdd)
        students.add(nil)
        #expect(fixture.context.insertedObjects.isEmpty)

        // Unbinding leaves the content as it is and stops following.
        classes.setSelectionIndex(0)
        #expect(names(students.arrangedObjects) == ["Ann", "Wei"])
        students.unbind(.contentSet)
        classes.setSelectionIndex(1)
        #expect(names(students.arrangedObjects) == ["Ann", "Wei"])
    }

    @Test func deletesObjectsOnRemoveDeletesTheStudent() throws {
        let fixture = try ClassesFixture()
        fixture.addClass("One", students: ["Wei"])
        let classes = fixture.classesController()
        let students = fixture.studentsController(of: classes, options: [.deletesObjectsOnRemove: true])
        let wei = try #require(students.arrangedObjects.first as? SeedStudent)
        students.remove(atArrangedObjectIndex: 0)
        #expect(wei.isDeleted)
        #expect(students.arrangedObjects.isEmpty)
    }

    @Test func anObjectControllerFollowsTheSelectedClassesMonitor() throws {
        let fixture = try ClassesFixture()
        let one = fixture.addClass("One", students: ["Wei", "Ann"])
        fixture.addClass("Two")
        one.monitor = one.students.first { $0.name == "Wei" }
        let classes = fixture.classesController()
        let monitor = NSObjectController()
        monitor.bind(.contentObject, to: classes, withKeyPath: "selection.monitor")
        #expect((monitor.content as? SeedStudent)?.name == "Wei")
        #expect(monitor.selection.value(forKey: "name") as? String == "Wei")
        // A new monitor shows at the end of the event (the monitor controller has no context
        // of its own: the binding follows the selected class's).
        one.monitor = one.students.first { $0.name == "Ann" }
        fixture.context.processPendingChanges()
        #expect((monitor.content as? SeedStudent)?.name == "Ann")
        classes.selectNext(nil)
        #expect(monitor.content == nil)
        #expect(monitor.selection.value(forKey: "name") as? NSBindingSelectionMarker === NSNoSelectionMarker)
        #expect(monitor.exposedBindings == [.contentObject])
    }

    /// The fetch that prepares the content processes the context's pending insertions, and the
    /// context reports them while the fetch runs. They used to join the empty content first, in
    /// the notification's order (by temporary object ID, which other contexts' insertions
    /// shift), so the selection followed whichever came first instead of the first arranged.
    @Test(arguments: StoreTypesUnderTest.all)
    func preparingContentOverPendingInsertionsSelectsTheFirstArrangedObject(storeType: String) throws {
        let fixture = try ClassesFixture(storeType: storeType)
        let sorted = (0..<40).map { String(format: "class %02d", $0) }
        for name in sorted.reversed() { fixture.addClass(name) }
        let classes = NSArrayController()
        classes.entityName = "ClassEntity"
        classes.automaticallyPreparesContent = true
        classes.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let recorder = ControllerChangeRecorder(classes)
        classes.managedObjectContext = fixture.context
        #expect(names(classes.arrangedObjects) == sorted)
        #expect(names(classes.selectedObjects) == ["class 00"])
        #expect(recorder.changes == [["content", "arrangedObjects", "selection", "selectionIndexes"]],
                "the content is installed once, by the fetch")
        fixture.context.processPendingChanges()
        #expect(names(classes.arrangedObjects) == sorted, "the insertions, already in, don't join twice")
    }

    /// Objects inserted in one event join an unsorted controller in the order they were
    /// inserted (Apple's come in the notification set's order, which is arbitrary).
    @Test(arguments: StoreTypesUnderTest.all)
    func objectsInsertedInOneEventJoinInTheOrderTheyWereInserted(storeType: String) throws {
        let fixture = try ClassesFixture(storeType: storeType)
        fixture.addClass("first")
        try fixture.context.save()
        let classes = NSArrayController()
        classes.entityName = "ClassEntity"
        classes.automaticallyPreparesContent = true
        classes.managedObjectContext = fixture.context
        let inserted = (0..<300).map { "class \($0)" }
        for name in inserted { fixture.addClass(name) }
        fixture.context.processPendingChanges()
        #expect(names(classes.arrangedObjects) == ["first"] + inserted)
    }

    /// The changes the context reports while a controller's fetch processes its pending changes
    /// are applied either way: after a merging fetch installs its objects, and to the unchanged
    /// content when the fetch fails. An object deleted in that event leaves the content.
    @Test(arguments: StoreTypesUnderTest.all, [false, true])
    func changesDuringAFetchApplyWhetherItMergesOrFails(storeType: String, fails: Bool) throws {
        let fixture = try ClassesFixture(storeType: storeType)
        let a = fixture.addClass("A")
        fixture.addClass("B")
        fixture.context.processPendingChanges()
        let classes = fixture.classesController()
        #expect(names(classes.arrangedObjects) == ["A", "B"])
        fixture.context.delete(a)
        if fails {
            classes.fetchPredicate = NSPredicate(format: "nosuchkey == 1")
            classes.fetch(nil)
            #expect(classes.lastError != nil)
        } else {
            try classes.fetch(with: nil, merge: true)
        }
        fixture.context.processPendingChanges()
        #expect(names(classes.arrangedObjects) == ["B"])
        #expect(names(classes.selectedObjects) == ["B"])
    }

    @Test func anObjectControllerInEntityMode() throws {
        let fixture = try ClassesFixture()
        let controller = NSObjectController()
        controller.entityName = "ClassEntity"
        controller.automaticallyPreparesContent = true
        controller.managedObjectContext = fixture.context
        #expect(controller.content == nil)
        #expect(controller.canAdd && !controller.canRemove)

        controller.add(nil)
        let made = try #require(controller.content as? SeedClass)
        #expect(made.isInserted)
        #expect(controller.selectedObjects.count == 1)
        controller.remove(nil)
        #expect(made.isDeleted && controller.content == nil)

        // The content follows the context: a new class is taken when there is none.
        let other = fixture.addClass("Other")
        fixture.context.processPendingChanges()
        #expect(controller.content as? SeedClass === other)
        fixture.context.delete(other)
        fixture.context.processPendingChanges()
        #expect(controller.content == nil)
    }

    @Test func aResetContextIsFetchedAgainAndNilValuesReadAsNil() throws {
        let fixture = try ClassesFixture()
        fixture.addClass("A")
        try fixture.context.save()
        let classes = fixture.classesController()
        let students = fixture.studentsController(of: classes)
        let before = try #require(classes.arrangedObjects.first as? NSManagedObject)
        #expect(classes.selection.value(forKey: "monitor") == nil, "a nil value is nil, not a marker")

        fixture.context.reset()
        let after = try #require(classes.arrangedObjects.first as? NSManagedObject)
        #expect(after !== before && after.managedObjectContext === fixture.context)
        #expect(names(classes.arrangedObjects) == ["A"])
        #expect(names(classes.selectedObjects) == ["A"])
        #expect(students.arrangedObjects.isEmpty)
        students.add(nil)
        #expect((students.selectedObjects.first as? SeedStudent)?.inClass === after, "the binding follows the fetched class")
    }

    @Test func fetchErrorsAreKeptAndThrown() throws {
        let controller = NSArrayController()
        controller.entityName = "ClassEntity"
        controller.fetch(nil)
        #expect((controller.lastError as? NSError)?.localizedDescription.contains("no managed object context") == true)
        #expect(throws: NSError.self) { try controller.fetch(with: nil, merge: false) }

        let fixture = try ClassesFixture()
        fixture.addClass("A")
        try fixture.context.save()
        controller.managedObjectContext = fixture.context
        controller.fetchPredicate = NSPredicate(format: "nosuchkey == 1")
        controller.fetch(nil)
        #expect(controller.lastError != nil, "a predicate on an unknown key fails the fetch")
        controller.fetchPredicate = nil
        controller.fetch(nil)
        #expect(controller.lastError == nil)
        #expect(names(controller.arrangedObjects) == ["A"])

        // merge adds what the request finds to the content.
        fixture.addClass("B")
        try fixture.context.save()
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "ClassEntity")
        request.predicate = NSPredicate(format: "name == 'B'")
        try controller.fetch(with: request, merge: true)
        #expect(Set(names(controller.arrangedObjects)) == ["A", "B"])
        try controller.fetch(with: request, merge: false)
        #expect(names(controller.arrangedObjects) == ["B"])
    }
}
