import Foundation
import Testing
@testable import OpenCoreData

/// A model with uniqueness constraints and delete rules, a store of one type and a private
/// context on it: the ground for constraint and batch-request tests.
///
/// - `Tag` (`name` unique, `note`, `uses`) ↔ many-to-many `posts` of `Post`;
/// - `Post` (`title`, `views`, `score`, `published`, `created`, `longDescriptionText`: a name too
///   long for a small string);
/// - `Person` (`email` + `company` unique together, `nick`), with the subentity `Staff` (`level`);
/// - `Author` (`name`) with `books` (cascade) ↔ `Book.author` (nullify); `Publisher` (`name`) with
///   `books` (nullify) ↔ `Book.publisher`; `Book` (`title`, `pages`).
final class CatalogScenario {
    let model: NSManagedObjectModel
    let coordinator: NSPersistentStoreCoordinator
    let store: NSPersistentStore
    let context: NSManagedObjectContext
    let storeType: String
    private var directory: URL?

    /// `adjust` changes the model before the coordinator uses it (and makes it immutable).
    init(storeType: String, options: [AnyHashable: Any]? = nil, adjust: (NSManagedObjectModel) -> Void = { _ in }) throws {
        self.storeType = storeType
        model = Self.makeModel()
        adjust(model)
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        var url: URL?
        if storeType != NSInMemoryStoreType {
            let directory = try Fixtures.temporaryDirectory()
            self.directory = directory
            url = StoreTypesUnderTest.location(storeType, directory.appendingPathComponent("Catalog.\(storeType.lowercased())"))
        }
        store = try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url, options: options)
        context = Self.newContext(on: coordinator)
    }

    deinit {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    static func newContext(on coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Authors Ann (books a1, a2) and Bob (b1), every book published by House; saved.
    @discardableResult
    func insertAuthorsAndBooks() throws -> (ann: NSManagedObject, bob: NSManagedObject, house: NSManagedObject) {
        let ann = insert("Author", ["name": "Ann"])
        let bob = insert("Author", ["name": "Bob"])
        let house = insert("Publisher", ["name": "House"])
        for (title, author) in [("a1", ann), ("a2", ann), ("b1", bob)] {
            let book = insert("Book", ["title": title])
            context.performAndWait {
                book.setValue(author, forKey: "author")
                book.setValue(house, forKey: "publisher")
            }
        }
        try save()
        return (ann, bob, house)
    }

    /// Inserts an object with `values` into ``context`` (on its queue).
    @discardableResult
    func insert(_ entity: String, _ values: [String: Any], in context: NSManagedObjectContext? = nil) -> NSManagedObject {
        let context = context ?? self.context
        return context.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }
    }

    func save(_ context: NSManagedObjectContext? = nil) throws {
        let context = context ?? self.context
        try context.performAndWait { try context.save() }
    }

    /// The stored objects of `entity` matching `format`, read by a fresh context: `key`'s values, sorted.
    func stored(_ entity: String, _ key: String, _ format: String = "TRUEPREDICATE") throws -> [String] {
        let fresh = Self.newContext(on: coordinator)
        return try fresh.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = NSPredicate(format: format)
            return try fresh.fetch(request).map { "\($0.value(forKey: key) ?? "nil")" }.sorted()
        }
    }

    /// One stored object of `entity` matching `format`, as a dictionary read by a fresh context.
    func storedObject(_ entity: String, _ format: String) throws -> [String: Any]? {
        let fresh = Self.newContext(on: coordinator)
        return try fresh.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = NSPredicate(format: format)
            guard let object = try fresh.fetch(request).first else { return nil }
            var result: [String: Any] = [:]
            for (name, property) in object.entity.propertiesByName {
                if let relationship = property as? NSRelationshipDescription {
                    if relationship.isToMany {
                        let objects = ManagedValueConversion.objects(in: object.value(forKey: name)) ?? []
                        result[name] = objects.compactMap { $0.value(forKey: relationship.destinationEntity?.attributesByName["name"] != nil ? "name" : "title") as? String }.sorted()
                    } else if let destination = object.value(forKey: name) as? NSManagedObject {
                        result[name] = destination.value(forKey: "name") ?? destination.value(forKey: "title")
                    }
                } else if let value = object.value(forKey: name) {
                    result[name] = value
                }
            }
            return result
        }
    }

    static func makeModel() -> NSManagedObjectModel {
        let tag = entity("Tag", [attribute("name", .stringAttributeType), attribute("note", .stringAttributeType),
                                 attribute("uses", .integer64AttributeType)])
        tag.uniquenessConstraints = [["name"]]
        let post = entity("Post", [attribute("title", .stringAttributeType), attribute("views", .integer64AttributeType),
                                   attribute("score", .doubleAttributeType), attribute("published", .booleanAttributeType),
                                   attribute("created", .dateAttributeType),
                                   attribute("longDescriptionText", .stringAttributeType)])
        link(tag, "posts", toMany: true, post, "tags", toMany: true)

        let person = entity("Person", [attribute("email", .stringAttributeType), attribute("company", .stringAttributeType),
                                       attribute("nick", .stringAttributeType)])
        person.uniquenessConstraints = [["email", "company"]]
        let staff = entity("Staff", [attribute("level", .integer16AttributeType)])
        person.subentities = [staff]

        let author = entity("Author", [attribute("name", .stringAttributeType)])
        let publisher = entity("Publisher", [attribute("name", .stringAttributeType)])
        let book = entity("Book", [attribute("title", .stringAttributeType), attribute("pages", .integer64AttributeType)])
        let (books, _) = link(author, "books", toMany: true, book, "author", toMany: false)
        books.deleteRule = .cascadeDeleteRule
        link(publisher, "books", toMany: true, book, "publisher", toMany: false)

        let model = NSManagedObjectModel()
        model.entities = [tag, post, person, staff, author, publisher, book]
        return model
    }

    private static func entity(_ name: String, _ properties: [NSPropertyDescription]) -> NSEntityDescription {
        CompanyModel.entity(name, properties)
    }

    private static func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
        CompanyModel.attribute(name, type)
    }

    @discardableResult
    private static func link(_ source: NSEntityDescription, _ name: String, toMany: Bool,
                             _ destination: NSEntityDescription, _ inverseName: String, toMany inverseToMany: Bool)
        -> (NSRelationshipDescription, NSRelationshipDescription) {
        let forward = NSRelationshipDescription()
        forward.name = name
        forward.maxCount = toMany ? 0 : 1
        forward.destinationEntity = destination
        let inverse = NSRelationshipDescription()
        inverse.name = inverseName
        inverse.maxCount = inverseToMany ? 0 : 1
        inverse.destinationEntity = source
        forward.inverseRelationship = inverse
        inverse.inverseRelationship = forward
        source.properties += [forward]
        destination.properties += [inverse]
        return (forward, inverse)
    }
}
