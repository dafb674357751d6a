import CoreDataTutorial
import Foundation
@testable import OpenCoreData

// The graph tests declare their own ClassEntity and StudentEntity; these are the tutorial's.
typealias SeedClass = CoreDataTutorial.ClassEntity
typealias SeedStudent = CoreDataTutorial.StudentEntity

/// The seed's classes and students over any store, for the AppKit-style controller tests.
final class ClassesFixture {
    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext
    let directory: URL
    let storeURL: URL?
    let storeType: String

    init(storeType: String = NSInMemoryStoreType) throws {
        self.storeType = storeType
        directory = try Fixtures.temporaryDirectory()
        storeURL = StoreTypesUnderTest.location(storeType, directory.appendingPathComponent("classes.store"))
        (coordinator, context) = try FetchedResultsFixture.stack(model: ClassesModel.make(), storeType: storeType, at: storeURL)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func newContext() -> NSManagedObjectContext { FetchedResultsFixture.mainContext(on: coordinator) }

    @discardableResult
    func addClass(_ name: String, students: [String] = [], in context: NSManagedObjectContext? = nil) -> SeedClass {
        let context = context ?? self.context
        let aClass = NSEntityDescription.insertNewObject(forEntityName: "ClassEntity", into: context) as! SeedClass
        aClass.name = name
        for studentName in students {
            let student = NSEntityDescription.insertNewObject(forEntityName: "StudentEntity", into: context) as! SeedStudent
            student.name = studentName
            aClass.addStudentsObject(student)
        }
        return aClass
    }

    /// The classes controller of the seed's window: entity mode, sorted by name.
    func classesController() -> NSArrayController {
        let controller = NSArrayController()
        controller.entityName = "ClassEntity"
        controller.automaticallyPreparesContent = true
        controller.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        controller.managedObjectContext = context
        return controller
    }

    /// The students controller: its content set bound to the selected class's students.
    func studentsController(of classes: NSArrayController, options: [NSBindingOption: Any]? = nil) -> NSArrayController {
        let controller = NSArrayController()
        controller.entityName = "StudentEntity"
        controller.managedObjectContext = context
        controller.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        controller.bind(.contentSet, to: classes, withKeyPath: "selection.students", options: options)
        return controller
    }
}

/// The names of `objects` (managed objects or dictionaries).
func names(_ objects: [Any]) -> [String] {
    objects.map { object in
        if let managed = object as? NSManagedObject { return managed.value(forKey: "name") as? String ?? "?" }
        return (object as? NSDictionary)?["name"] as? String ?? "?"
    }
}

/// A dictionary with `name` and optional extra entries, as an array controller's plain content.
func item(_ name: String, _ extra: [String: Any] = [:]) -> NSMutableDictionary {
    let dictionary = NSMutableDictionary(dictionary: extra)
    dictionary["name"] = name
    return dictionary
}

/// Collects a controller's change notifications. `@unchecked Sendable`: the controller posts
/// on the test's thread, the only one that reads `changes`.
final class ControllerChangeRecorder: @unchecked Sendable {
    private(set) var changes: [Set<String>] = []
    private var token: NSObjectProtocol?

    init(_ controller: NSObjectController) {
        token = NotificationCenter.default.addObserver(forName: NSObjectController.didChangeNotification, object: controller,
                                                       queue: nil) { [unowned self] note in
            changes.append(note.userInfo?[NSObjectController.changedKeysKey] as? Set<String> ?? [])
        }
    }

    deinit { if let token { NotificationCenter.default.removeObserver(token) } }
}
