import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Existing SQLite stores whose rows hold values of the wrong type (written by hand with raw
/// SQL here, as a damaged or hand-edited store would): nothing traps and nothing answers
/// silently; errors name the table, the column and the row (`SQLiteRowErrors`).
@Suite struct SQLiteHostileRowTests {
    /// `Shelf.items` ↔ `Item.shelf`; `Item` with one attribute per checked type; `Animal` with
    /// subentity `Dog`.
    static func model() -> NSManagedObjectModel {
        let shelf = GraphTestModel.entity("Shelf")
        let item = GraphTestModel.entity("Item")
        let items = GraphTestModel.relationship("items", to: item, toMany: true)
        let onShelf = GraphTestModel.relationship("shelf", to: shelf)
        GraphTestModel.pair(items, onShelf)
        let allItems = NSFetchedPropertyDescription()
        allItems.name = "allItems"
        allItems.fetchRequest = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        shelf.properties = [GraphTestModel.attribute("name", .stringAttributeType), items, allItems]
        item.properties = [GraphTestModel.attribute("name", .stringAttributeType), GraphTestModel.attribute("date", .dateAttributeType),
                           GraphTestModel.attribute("count", .integer64AttributeType), GraphTestModel.attribute("price", .doubleAttributeType),
                           GraphTestModel.attribute("uuid", .UUIDAttributeType), onShelf]
        let animal = GraphTestModel.entity("Animal")
        animal.properties = [GraphTestModel.attribute("name", .stringAttributeType)]
        let dog = GraphTestModel.entity("Dog")
        dog.properties = [GraphTestModel.attribute("breed", .stringAttributeType)]
        animal.subentities = [dog]
        let model = NSManagedObjectModel()
        model.entities = [shelf, item, animal, dog]
        return model
    }

    /// A store with one shelf holding two items (`Z_PK` 1 and 2), an animal and a dog; then
    /// `sql` run on the file with a raw connection. Returns a context on a fresh coordinator.
    static func store(at directory: URL, damage sql: String...) throws -> (context: NSManagedObjectContext, store: NSPersistentStore) {
        let url = directory.appendingPathComponent("Hostile.sqlite")
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            shelf.setValue("Top", forKey: "name")
            for (index, name) in ["a", "b"].enumerated() {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(name, forKey: "name")
                item.setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "date")
                item.setValue(shelf, forKey: "shelf")
            }
            NSEntityDescription.insertNewObject(forEntityName: "Animal", into: context).setValue("Cat", forKey: "name")
            NSEntityDescription.insertNewObject(forEntityName: "Dog", into: context).setValue("Rex", forKey: "name")
            try context.save()
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in for statement in sql { try db.execute(sql: statement) } }
        try queue.close()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (context, store)
    }

    /// Checks `error` is 134070 and names every part of `expected`.
    static func expectNames(_ error: NSError, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error.code == NSPersistentStoreOperationError, sourceLocation: sourceLocation)
        let message = error.localizedDescription
        for part in expected { #expect(message.contains(part), "\(message) should name \(part)", sourceLocation: sourceLocation) }
    }

    static let badValues: [(sql: String, column: String, shown: String)] = [
        ("UPDATE ZITEM SET ZDATE = 'abc' WHERE Z_PK = 2", "column ZDATE", "text 'abc'"),
        ("UPDATE ZITEM SET ZDATE = 'NaN' WHERE Z_PK = 2", "column ZDATE", "text 'NaN'"),
        ("UPDATE ZITEM SET ZDATE = x'0102' WHERE Z_PK = 2", "column ZDATE", "a 2-byte blob"),
        ("UPDATE ZITEM SET ZCOUNT = 'many' WHERE Z_PK = 2", "column ZCOUNT", "text 'many'"),
        ("UPDATE ZITEM SET ZCOUNT = 1e300 WHERE Z_PK = 2", "column ZCOUNT", "real 1e+300"),
        ("UPDATE ZITEM SET ZPRICE = 'cheap' WHERE Z_PK = 2", "column ZPRICE", "text 'cheap'"),
        ("UPDATE ZITEM SET ZUUID = x'0102' WHERE Z_PK = 2", "column ZUUID", "a 2-byte blob"),
        ("UPDATE ZITEM SET ZUUID = 7 WHERE Z_PK = 2", "column ZUUID", "integer 7"),
        ("UPDATE ZITEM SET ZSHELF = 'top' WHERE Z_PK = 2", "column ZSHELF", "text 'top'"),
        ("UPDATE ZITEM SET Z_OPT = 'x' WHERE Z_PK = 2", "column Z_OPT", "text 'x'"),
    ]

    @Test(arguments: badValues.indices)
    func valueOfTheWrongTypeFailsTheFetchNamingTableColumnAndRow(index: Int) throws {
        let (sql, column, shown) = Self.badValues[index]
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (context, _) = try Self.store(at: directory, damage: sql)
        // The plain path (all rows in SQL) and the compiled one (a sort) both check.
        let plain = try #require(throws: NSError.self) { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")) }
        Self.expectNames(plain, ["table ZITEM", column, "row Z_PK 2", shown])
        let sorted = NSFetchRequest<NSManagedObject>(entityName: "Item")
        sorted.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let compiled = try #require(throws: NSError.self) { try context.fetch(sorted) }
        Self.expectNames(compiled, ["table ZITEM", column, "row Z_PK 2", shown])
        // The undamaged row still reads.
        let first = NSFetchRequest<NSManagedObject>(entityName: "Item")
        first.predicate = NSPredicate(format: "name == 'a'")
        #expect(try context.fetch(first).map { $0.value(forKey: "name") as? String } == ["a"])
    }

    @Test func textInADateColumnIsAnErrorInDictionaryResultsToo() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (context, _) = try Self.store(at: directory, damage: "UPDATE ZITEM SET ZDATE = 'yesterday' WHERE Z_PK = 1")
        let request = NSFetchRequest<NSDictionary>(entityName: "Item")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["date"]
        let error = try #require(throws: NSError.self) { try context.fetch(request) }
        Self.expectNames(error, ["table ZITEM", "column ZDATE", "text 'yesterday'"])
    }

    static let badEntityNumbers: [(sql: String, shown: String)] = [
        ("UPDATE ZITEM SET Z_ENT = NULL WHERE Z_PK = 2", "NULL"),
        ("UPDATE ZITEM SET Z_ENT = 'abc' WHERE Z_PK = 2", "text 'abc'"),
        ("UPDATE ZITEM SET Z_ENT = 99 WHERE Z_PK = 2", "integer 99"),
    ]

    @Test(arguments: badEntityNumbers.indices)
    func rowWhoseEntityNumberNamesNoEntityIsReportedNeverDropped(index: Int) throws {
        let (sql, shown) = Self.badEntityNumbers[index]
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (context, store) = try Self.store(at: directory, damage: sql)
        let objects = try #require(throws: NSError.self) { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")) }
        Self.expectNames(objects, ["table ZITEM", "column Z_ENT", "row Z_PK 2", shown])
        let idsRequest = NSFetchRequest<NSManagedObjectID>(entityName: "Item")
        idsRequest.resultType = .managedObjectIDResultType
        let ids = try #require(throws: NSError.self) { try context.fetch(idsRequest) }
        Self.expectNames(ids, ["table ZITEM", "column Z_ENT", "row Z_PK 2", shown])
        // The shelf's to-many destinations are read through the inverse key.
        let shelf = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelf")).first)
        let relationship = try #require(shelf.entity.relationshipsByName["items"])
        let related = try #require(throws: NSError.self) { try store.relatedObjectIDs(for: relationship, of: shelf.objectID) }
        Self.expectNames(related, ["table ZITEM", "column Z_ENT", "row Z_PK 2", shown])
        // A fault can't throw: reading the relationship logs the error and finds nothing.
        #expect((shelf.value(forKey: "items") as? Set<NSManagedObject>)?.isEmpty == true)
    }

    @Test func subentityFetchesSelectTheirOwnRowsAndTheRootFetchReportsTheStrayOne() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (context, _) = try Self.store(at: directory, damage: "UPDATE ZANIMAL SET Z_ENT = 42 WHERE ZNAME = 'Cat'")
        let dogs = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Dog"))
        #expect(dogs.map { $0.value(forKey: "name") as? String } == ["Rex"])
        let all = try #require(throws: NSError.self) { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal")) }
        Self.expectNames(all, ["table ZANIMAL", "column Z_ENT", "integer 42"])
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Animal")) == 2, "the count counts the table's rows")
    }

    @Test func faultOfAnUnreadableRowDoesNotTrap() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (context, store) = try Self.store(at: directory, damage: "UPDATE ZITEM SET ZDATE = 'abc' WHERE Z_PK = 1")
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Item"])
        let id = NSManagedObjectID(entity: entity, store: store, primaryKey: 1)
        let error = try #require(throws: NSError.self) { try store.snapshots(for: [id]) }
        Self.expectNames(error, ["table ZITEM", "column ZDATE", "row Z_PK 1"])
        let fault = context.object(with: id)
        #expect(fault.value(forKey: "name") == nil, "an inaccessible fault (the error is logged)")
        // A fetched property can't throw either: its failed fetch is logged and reads as empty.
        let shelf = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelf")).first)
        #expect((shelf.value(forKey: "allItems") as? [Any])?.isEmpty == true)
    }

    @Test(arguments: [
        ("UPDATE Z_METADATA SET Z_PLIST = 5", "column Z_PLIST", "integer 5"),
        ("UPDATE Z_METADATA SET Z_PLIST = 'text'", "column Z_PLIST", "text 'text'"),
        ("UPDATE Z_METADATA SET Z_PLIST = x'00010203'", "column Z_PLIST", "not a property list"),
        ("UPDATE Z_METADATA SET Z_UUID = x'00'", "column Z_UUID", "a 1-byte blob"),
    ])
    func unreadableMetadataRefusesTheStoreNamingTheColumn(sql: String, column: String, shown: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = try #require(throws: NSError.self) { try Self.store(at: directory, damage: sql) }
        #expect(error.code == NSFileReadCorruptFileError)
        for part in ["Z_METADATA", column, "row Z_VERSION 1", shown] {
            #expect(error.localizedDescription.contains(part), "\(error.localizedDescription) should name \(part)")
        }
        let url = directory.appendingPathComponent("Hostile.sqlite")
        #expect(throws: NSError.self) { try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url) }
    }

    @Test func storeUUIDThatIsNotURLSafeGivesURIsThatReadBack() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let uuid = "not a/uuid?#%"
        let (context, store) = try Self.store(at: directory, damage: "UPDATE Z_METADATA SET Z_UUID = '\(uuid)'")
        #expect(store.identifier == uuid)
        let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
        #expect(items.count == 2)
        for item in items {
            let uri = item.objectID.uriRepresentation()
            #expect(uri.scheme == "x-coredata")
            #expect(context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri) == item.objectID)
        }
    }
}
