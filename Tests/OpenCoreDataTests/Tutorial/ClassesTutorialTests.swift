import CoreDataTutorial
import Foundation
import Testing
@testable import OpenCoreData

// The graph tests declare their own ClassEntity and StudentEntity; these are the tutorial's.
private typealias TutorialClass = CoreDataTutorial.ClassEntity
private typealias TutorialStudent = CoreDataTutorial.StudentEntity

@Suite("coredata-tutorial classes: classes, students and the monitor rule")
struct ClassesTutorialTests {
    private static func context() throws -> NSManagedObjectContext {
        let container = NSPersistentContainer(name: "Classes", managedObjectModel: ClassesModel.make())
        container.persistentStoreDescriptions = [TutorialStoreType.memory.storeDescription(base: "Classes", directory: FileManager.default.temporaryDirectory)]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        return container.viewContext
    }

    @Test("New classes and students get the seed's default names, as typed subclasses")
    func defaults() throws {
        let context = try Self.context()
        let newClass = TutorialClass(context: context)
        let student = NSEntityDescription.insertNewObject(forEntityName: "StudentEntity", into: context)
        #expect(newClass.name == "XX班")
        #expect(student is TutorialStudent)
        #expect((student as? TutorialStudent)?.name == "学生甲")
        #expect(newClass.students.isEmpty)
        #expect(newClass.monitor == nil)
    }

    @Test("Adding students sets their class; the model's inverse is kept both ways")
    func inverse() throws {
        let context = try Self.context()
        let newClass = TutorialClass(context: context)
        let a = TutorialStudent(context: context)
        let b = TutorialStudent(context: context)
        newClass.addStudentsObject(a)
        #expect(a.inClass === newClass)
        b.inClass = newClass
        #expect(newClass.students == [a, b])
        newClass.removeStudents([a, b])
        #expect(a.inClass == nil && b.inClass == nil)
    }

    @Test("Removing the monitor from the class clears monitor; removing another student keeps it")
    func monitorRule() throws {
        let context = try Self.context()
        let newClass = TutorialClass(context: context)
        let monitor = TutorialStudent(context: context)
        let other = TutorialStudent(context: context)
        newClass.addStudents([monitor, other])
        newClass.monitor = monitor
        try context.save()

        newClass.removeStudentsObject(other)
        #expect(newClass.monitor === monitor)
        #expect(other.inClass == nil)

        newClass.removeStudentsObject(monitor)
        #expect(newClass.monitor == nil)
        #expect(monitor.inClass == nil)
        #expect(newClass.students.isEmpty)
        try context.save()
        #expect(newClass.changedValues().isEmpty)
        #expect(newClass.monitor == nil)
    }

    @Test("Undo restores the monitor and the student together")
    func undoMonitorRule() throws {
        let context = try Self.context()
        context.undoManager = UndoManager()
        let newClass = TutorialClass(context: context)
        let monitor = TutorialStudent(context: context)
        newClass.addStudentsObject(monitor)
        newClass.monitor = monitor
        context.processPendingChanges()
        newClass.removeStudentsObject(monitor)
        context.processPendingChanges()
        #expect(newClass.monitor == nil)
        context.undo()
        #expect(newClass.monitor === monitor)
        #expect(newClass.students == [monitor])
    }

    @Test("The classes script prints the class before and after removing its monitor")
    func script() throws {
        var lines: [String] = []
        try ClassesTutorial(directory: FileManager.default.temporaryDirectory, storeType: .memory).perform { lines.append($0) }
        #expect(lines == [
            "Created:",
            "  XX班: monitor 学生甲; students 学生丙, 学生乙, 学生甲",
            "  not in a class: none",
            "Removed 学生甲 from XX班:",
            "  XX班: monitor none; students 学生丙, 学生乙",
            "  not in a class: 学生甲",
        ])
    }
}
