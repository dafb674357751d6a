import Foundation
@testable import OpenCoreData

/// A store with `Item`s (`name`, `group`, `rank`, `visible`) for the fetched results
/// controller tests.
final class FetchedResultsFixture {
    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext
    let directory: URL

    static func model() -> NSManagedObjectModel {
        let item = GraphTestModel.entity("Item")
        item.properties = [GraphTestModel.attribute("name", .stringAttributeType),
                           GraphTestModel.attribute("group", .stringAttributeType),
                           GraphTestModel.attribute("rank", .integer64AttributeType, defaultValue: 0),
                           GraphTestModel.attribute("visible", .booleanAttributeType, defaultValue: true)]
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    init(storeType: String = NSInMemoryStoreType, directory: URL? = nil) throws {
        self.directory = try directory ?? Fixtures.temporaryDirectory()
        let url = StoreTypesUnderTest.location(storeType, self.directory.appendingPathComponent("items.sqlite"))
        (coordinator, context) = try Self.stack(model: Self.model(), storeType: storeType, at: url)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func newContext() -> NSManagedObjectContext { Self.mainContext(on: coordinator) }

    /// A coordinator for `model` with one store of `storeType` at `url`, and a main-queue
    /// context on it.
    static func stack(model: NSManagedObjectModel, storeType: String,
                      at url: URL?) throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url, options: nil)
        return (coordinator, mainContext(on: coordinator))
    }

    /// A new main-queue context on `coordinator`.
    static func mainContext(on coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @discardableResult
    func insert(_ name: String, group: String? = nil, rank: Int = 0, visible: Bool = true, in context: NSManagedObjectContext? = nil) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context ?? self.context)
        object.setValue(name, forKey: "name")
        object.setValue(group, forKey: "group")
        object.setValue(Int64(rank), forKey: "rank")
        object.setValue(visible, forKey: "visible")
        return object
    }

    func request(_ predicate: String? = nil, sort: [(String, Bool)] = [("group", true), ("name", true)]) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.predicate = predicate.map { NSPredicate(format: $0) }
        request.sortDescriptors = sort.map { NSSortDescriptor(key: $0.0, ascending: $0.1) }
        return request
    }

    func controller(_ predicate: String? = nil, sort: [(String, Bool)] = [("group", true), ("name", true)],
                    sectionNameKeyPath: String? = "group", cacheName: String? = nil) -> NSFetchedResultsController<NSManagedObject> {
        NSFetchedResultsController(fetchRequest: request(predicate, sort: sort), managedObjectContext: context,
                                   sectionNameKeyPath: sectionNameKeyPath, cacheName: cacheName)
    }
}

/// Names of a controller's sections and their objects' names.
func arrangement<T>(_ controller: NSFetchedResultsController<T>) -> [String: [String]] {
    Dictionary((controller.sections ?? []).map { section in
        (section.name, (section.objects ?? []).map { (($0 as? NSManagedObject)?.value(forKey: "name") as? String) ?? "?" })
    }, uniquingKeysWith: { first, _ in first })
}

func sectionNames<T>(_ controller: NSFetchedResultsController<T>) -> [String] {
    (controller.sections ?? []).map(\.name)
}

func names(_ objects: [Any]?) -> [String] {
    (objects ?? []).map { (($0 as? NSManagedObject)?.value(forKey: "name") as? String) ?? "?" }
}

/// Records every delegate callback as a line of text, and optionally the index titles asked.
final class RecordingFetchDelegate: NSObject, NSFetchedResultsControllerDelegate {
    var events: [String] = []
    var titleRequests = 0
    var objectChanges: [(object: NSManagedObject, old: IndexPath?, type: NSFetchedResultsChangeType, new: IndexPath?)] = []
    var sectionChanges: [(index: Int, type: NSFetchedResultsChangeType, name: String)] = []
    var controllers: [NSFetchedResultsController<NSFetchRequestResult>] = []

    func reset() {
        events = []
        objectChanges = []
        sectionChanges = []
    }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        events.append("will")
        controllers.append(controller)
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        let object = anObject as? NSManagedObject
        let name = object?.value(forKey: "name") as? String ?? "?"
        events.append("\(Self.word(type)) \(name) \(Self.path(indexPath))->\(Self.path(newIndexPath))")
        if let object { objectChanges.append((object, indexPath, type, newIndexPath)) }
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        events.append("section \(Self.word(type)) \(sectionInfo.name) \(sectionIndex)")
        sectionChanges.append((sectionIndex, type, sectionInfo.name))
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        events.append("did")
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        titleRequests += 1
        return controller.sectionIndexTitle(forSectionName: sectionName)
    }

    static func word(_ type: NSFetchedResultsChangeType) -> String {
        switch type {
        case .insert: "insert"
        case .delete: "delete"
        case .move: "move"
        case .update: "update"
        }
    }

    static func path(_ path: IndexPath?) -> String {
        path.map { "\($0.section).\($0.row)" } ?? "nil"
    }
}
