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
        /// The classes' object IDs (URIs), which the page's forms name.
        public var classIDs: [URL] = []
        public var selectedClass: Int?
        public var students: [String]
        /// The students' object IDs (URIs).
        public var studentIDs: [URL] = []
        public var monitor: String?
    }

    /// The state of the controllers now.
    public func state() async -> State {
        await context.perform { [self] in
            State(version: actionCount,
                  classes: names(of: classes.arrangedObjects),
                  classIDs: uris(of: classes.arrangedObjects),
                  selectedClass: classes.selectionIndex == NSNotFound ? nil : classes.selectionIndex,
                  students: names(of: students.arrangedObjects),
                  studentIDs: uris(of: students.arrangedObjects),
                  monitor: (monitor.content as? StudentEntity)?.name)
        }
    }

    /// The user's actions. Objects are named by their object IDs' URIs, so that a page that
    /// is out of date never acts on another object than the one it showed.
    public enum Action: Sendable, Equatable {
        case selectClass(URL)
        case addClass(name: String)
        case removeClass(URL)
        case addStudent(name: String, toClass: URL)
        case removeStudent(URL)
        case makeMonitor(URL)
    }

    /// Performs `action` on the controllers and saves; an object that is no longer there does
    /// nothing. A failed save is rolled back and thrown.
    public func apply(_ action: Action) async throws {
        try await context.perform { [self] in
            actionCount += 1
            switch action {
            case let .selectClass(uri):
                guard let aClass = object(uri, as: ClassEntity.self) else { return }
                classes.setSelectedObjects([aClass])
            case let .addClass(name):
                guard classes.canAdd else { return }
                classes.add(nil)
                if !name.isEmpty { (classes.selectedObjects.first as? ClassEntity)?.name = name }
            case let .removeClass(uri):
                guard let aClass = object(uri, as: ClassEntity.self) else { return }
                classes.removeObject(aClass)
            case let .addStudent(name, uri):
                guard let aClass = object(uri, as: ClassEntity.self) else { return }
                classes.setSelectedObjects([aClass])
                guard students.canAdd else { return }
                students.add(nil)
                if !name.isEmpty { (students.selectedObjects.first as? StudentEntity)?.name = name }
            case let .removeStudent(uri):
                guard let student = object(uri, as: StudentEntity.self), let aClass = student.inClass else { return }
                aClass.removeStudentsObject(student)
            case let .makeMonitor(uri):
                guard let student = object(uri, as: StudentEntity.self), let aClass = student.inClass else { return }
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

    /// The object of this context whose ID has the URI `uri`, if it still exists.
    private func object<T: NSManagedObject>(_ uri: URL, as type: T.Type) -> T? {
        guard let id = context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri),
              let object = try? context.existingObject(with: id), !object.isDeleted else { return nil }
        return object as? T
    }
}

private func uris(of objects: [Any]) -> [URL] {
    objects.compactMap { ($0 as? NSManagedObject)?.objectID.uriRepresentation() }
}

private func names(of objects: [Any]) -> [String] {
    objects.map { ($0 as? NSManagedObject)?.value(forKey: "name") as? String ?? "" }
}
