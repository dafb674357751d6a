import Foundation
import Testing
@testable import OpenCoreData

// The initializer shapes real code writes in extensions of the stack's classes: class methods
// that call `self.init(managedObjectModel:)` (so it is `required`, as Swift demands for
// construction through a metatype), and convenience initializers that delegate to it.

extension NSPersistentStoreCoordinator {
    /// A coordinator of `model` with an in-memory store, as CoreDataKit-style stacks build it.
    static func shapeTestCoordinator(model: NSManagedObjectModel) throws -> NSPersistentStoreCoordinator? {
        let coordinator = self.init(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        return coordinator
    }

    class func shapeTestMake(model: NSManagedObjectModel) -> Self {
        self.init(managedObjectModel: model)
    }

    /// CoreDataPlus's shape: a throwaway coordinator of an empty model to destroy a store with.
    static func shapeTestDestroyStore(at url: URL) throws {
        let coordinator = self.init(managedObjectModel: NSManagedObjectModel())
        try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType, options: nil)
    }

    convenience init(shapeTestStoreAt url: URL, model: NSManagedObjectModel) throws {
        self.init(managedObjectModel: model)
        try addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
    }
}

extension NSManagedObjectModel {
    /// The failable delegation old code writes: `self.init()` before returning nil.
    convenience init?(shapeTestURL url: URL?) {
        guard let url else {
            self.init()
            return nil
        }
        self.init(contentsOf: url)
    }
}

/// A subclass without initializers inherits the required one. (`@unchecked Sendable` as its
/// superclass is, whose operation lock guards its state: it adds none.)
final class ShapeTestCoordinator: NSPersistentStoreCoordinator, @unchecked Sendable {}

@Suite struct CoordinatorInitializerShapeTests {
    @Test func classMethodsInitializeThroughSelf() throws {
        let model = GraphTestModel.make()
        let coordinator = try #require(try NSPersistentStoreCoordinator.shapeTestCoordinator(model: model))
        #expect(coordinator.managedObjectModel === model)
        #expect(coordinator.persistentStores.count == 1)

        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        _ = GraphTestModel.insert("Run", context)
        try context.save()
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Run")) == 1)

        let made = ShapeTestCoordinator.shapeTestMake(model: model)
        #expect(type(of: made) == ShapeTestCoordinator.self)
        #expect(made.managedObjectModel === model)
        #expect(type(of: NSPersistentStoreCoordinator.shapeTestMake(model: model)) == NSPersistentStoreCoordinator.self)
    }

    @Test func convenienceInitializerAndDestroyInExtensions() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("OpenCoreData-shape-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Shape.sqlite")

        do {
            let coordinator = try NSPersistentStoreCoordinator(shapeTestStoreAt: url, model: GraphTestModel.make())
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            _ = GraphTestModel.insert("Run", context)
            try context.save()
            try coordinator.remove(coordinator.persistentStores[0])
        }
        #expect(FileManager.default.fileExists(atPath: url.path))
        try NSPersistentStoreCoordinator.shapeTestDestroyStore(at: url)
        let reopened = try NSPersistentStoreCoordinator(shapeTestStoreAt: url, model: GraphTestModel.make())
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = reopened
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Run")) == 0)
    }

    @Test func failableModelInitializerInAnExtension() {
        #expect(NSManagedObjectModel(shapeTestURL: nil) == nil)
        #expect(NSManagedObjectModel(shapeTestURL: URL(fileURLWithPath: "/nonexistent/Model.momd")) == nil)
    }
}
