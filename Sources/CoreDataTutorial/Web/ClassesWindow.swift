import Foundation
import OpenCoreData

/// The seed's classes-and-students window without AppKit: the same controllers and bindings,
/// driven by a web page (``ClassesWebServer``) instead of table views.
///
/// - `classes`: an array controller in entity mode (`ClassEntity`, sorted by name) that follows
///   the context;
/// - `students`: an array controller whose content set is bound to `selection.students` of
///   `classes`, sorted by name;
/// - `monitor`: an object controller whose content is bound to `selection.monitor`.
///
/// Every action saves the context, so the page shows what the store holds. Differs from the
/// seed: removing a student calls the class's `removeStudentsObject(_:)` (the seed's monitor
/// rule) directly. In Objective-C, the array controller's `removeObject:` reaches it through
/// key-value coding's mutable set proxy; Swift on Linux has no run-time lookup of such methods.
///
/// `@unchecked Sendable`: the controllers and objects are only touched inside ``perform(_:)``,
/// on the private queue of its context.
public final class ClassesWindow: @unchecked Sendable {
    let context: NSManagedObjectContext
    let classes: NSArrayController
    let students: NSArrayController
    let monitor: NSObjectController
    /// The number of actions applied so far (on the context's queue).
    private var actionCount = 0

    /// Opens (or creates) the store and prepares the controllers.
    public init(storeURL: URL?, storeType: TutorialStoreType) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ClassesModel.make())
        if let directory = storeURL?.deletingLastPathComponent() {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        _ = try coordinator.addPersistentStore(ofType: storeType.storeType, configurationName: nil,
                                               at: storeType == .memory ? nil : storeURL, options: nil)
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let context = self.context
        (classes, students, monitor) = context.performAndWait {
            let classes = NSArrayController()
            classes.entityName = "ClassEntity"
            classes.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            // The lists stay sorted when names change (a new object is named after it is added).
            classes.automaticallyRearrangesObjects = true
            classes.automaticallyPreparesContent = true
            classes.managedObjectContext = context

            let students = NSArrayController()
            students.entityName = "StudentEntity"
            students.managedObjectContext = context
            students.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            students.automaticallyRearrangesObjects = true
            students.bind(.contentSet, to: classes, withKeyPath: "selection.students")

            let monitor = NSObjectController()
            monitor.bind(.contentObject, to: classes, withKeyPath: "selection.monitor")
            return (classes, students, monitor)
        }
        if let error = context.performAndWait({ classes.lastError }) { throw error }
    }

    /// What the page shows.
    public struct State: Sendable, Equatable {
        /// The number of actions applied since the window opened: a page shows which state it
        /// is (a browser test waits for the page of its action).
        public var version: Int
        public var classes: [String]
        public var selectedClass: Int?
        public var students: [String]
        public var monitor: String?
    }

    /// The state of the controllers now.
    public func state() async -> State {
        await context.perform { [self] in
            State(version: actionCount,
                  classes: names(of: classes.arrangedObjects),
                  selectedClass: classes.selectionIndex == NSNotFound ? nil : classes.selectionIndex,
                  students: names(of: students.arrangedObjects),
                  monitor: (monitor.content as? StudentEntity)?.name)
        }
    }

    /// The user's actions.
    public enum Action: Sendable, Equatable {
        case selectClass(Int)
        case addClass(name: String)
        case removeClass
        case addStudent(name: String)
        case removeStudent(Int)
        case makeMonitor(Int)
    }

    /// Performs `action` on the controllers and saves; an index that is no longer there does
    /// nothing. A failed save is rolled back and thrown.
    public func apply(_ action: Action) async throws {
        try await context.perform { [self] in
            actionCount += 1
            switch action {
            case let .selectClass(index):
                classes.setSelectionIndex(index)
            case let .addClass(name):
                guard classes.canAdd else { return }
                classes.add(nil)
                if !name.isEmpty { (classes.selectedObjects.first as? ClassEntity)?.name = name }
            case .removeClass:
                classes.remove(nil)
            case let .addStudent(name):
                guard students.canAdd else { return }
                students.add(nil)
                if !name.isEmpty { (students.selectedObjects.first as? StudentEntity)?.name = name }
            case let .removeStudent(index):
                guard let aClass = classes.selectedObjects.first as? ClassEntity,
                      let student = students.arrangedObjects.indices.contains(index) ? students.arrangedObjects[index] as? StudentEntity : nil
                else { return }
                aClass.removeStudentsObject(student)
            case let .makeMonitor(index):
                guard let aClass = classes.selectedObjects.first as? ClassEntity,
                      let student = students.arrangedObjects.indices.contains(index) ? students.arrangedObjects[index] as? StudentEntity : nil
                else { return }
                aClass.monitor = student
            }
            // The controllers hear of changes made to the objects at the end of the event.
            context.processPendingChanges()
            do {
                try context.save()
            } catch {
                context.rollback()
                throw error
            }
        }
    }
}

private func names(of objects: [Any]) -> [String] {
    objects.map { ($0 as? NSManagedObject)?.value(forKey: "name") as? String ?? "" }
}
