import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// The SQLite store's own behaviour: the file it writes, pragmas, metadata, keys, optimistic
/// locking and relationship storage. (Behaviour every store shares is in StoreConformanceTests.)
@Suite struct SQLiteStoreTests {
    /// A read-only GRDB connection to a store file, for looking at what the store wrote.
    static func inspect<T>(_ url: URL, _ body: (Database) throws -> T) throws -> T {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read(body)
    }

    @Test func newStoreHasApplesDDLPragmasAndMetadata() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.coreDataPlus(SQLiteSchemaTests.cases[0].model))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = directory.appendingPathComponent("New.sqlite")
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        #expect(store is SQLiteStore)

        let ours = try Self.inspect(url) { (db: Database) throws in
            Set(try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL").map { row in
                "\(row["type"] as String) \(row["name"] as String): \(SQLiteSchemaTests.normalized(row["sql"]))"
            })
        }
        #expect(ours == (try SQLiteSchemaTests.fixtureDDL(SQLiteSchemaTests.cases[0].store)))
        try Self.inspect(url) { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal")
            #expect(try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") == 2)
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            let rows = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
            #expect(rows.map { "\($0["Z_ENT"] as Int) \($0["Z_NAME"] as String) \($0["Z_SUPER"] as Int) \($0["Z_MAX"] as Int)" }
                    == ["1 Car 0 0", "2 SportCar 1 0", "3 ExpensiveSportCar 2 0", "4 Person 0 0"])
            let uuid = try String.fetchOne(db, sql: "SELECT Z_UUID FROM Z_METADATA WHERE Z_VERSION = 1")
            #expect(uuid == store.identifier)
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url, options: nil)
        #expect(metadata[NSStoreTypeKey] as? String == "SQLite")
        #expect(metadata[NSStoreUUIDKey] as? String == store.identifier)
        #expect(metadata[NSStoreModelVersionHashesVersionKey] as? Int == 3)
        #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Any])?.count == 4)
        #expect(metadata[NSStoreModelVersionIdentifiersKey] as? [String] == ["1"])
    }

    /// Rows inserted with keys of their own (not taken from `Z_MAX`) raise their root entity's
    /// counter to the largest key, whatever the order of the entities in the save.
    @Test func insertedKeysRaiseTheirRootsCounters() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.coreDataPlus(SQLiteSchemaTests.cases[0].model))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = directory.appendingPathComponent("Keys.sqlite")
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let rows: [(entity: String, key: Int64)] = [("Car", 7), ("Person", 3), ("SportCar", 5), ("Person", 9),
                                                    ("ExpensiveSportCar", 4), ("Car", 2), ("Person", 1), ("SportCar", 12)]
        let snapshots = try rows.map { row -> ObjectSnapshot in
            let entity = try #require(model.entitiesByName[row.entity])
            let id = NSManagedObjectID(entity: entity, store: store, primaryKey: row.key)
            return row.entity == "Person"
                ? ObjectSnapshot(objectID: id, values: ["id": UUID(), "updatedAt": Date()])
                : ObjectSnapshot(objectID: id, values: ["numberPlate": "P-\(row.key)"])
        }
        try coordinator.save(StoreSaveChanges(inserted: snapshots))
        try Self.inspect(url) { (db: Database) throws in
            let counters = try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { "\($0["Z_NAME"] as String) \($0["Z_MAX"] as Int)" }
            #expect(counters == ["Car 12", "SportCar 0", "ExpensiveSportCar 0", "Person 9"])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZCAR") == 5)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZPERSON") == 3)
        }
    }

    @Test func pragmasOptionIsHonoured() throws {
        let fixture = CompanyFixture(storeType: NSSQLiteStoreType)
        let store = try fixture.addStore(options: [NSSQLitePragmasOption: ["journal_mode": "DELETE", "cache_size": 500]])
        let url = try #require(store.url)
        try Self.inspect(url) { (db: Database) throws in #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "delete") }
        #expect(throws: NSError.self) {
            try fixture.addStore(options: [NSSQLitePragmasOption: ["journal_mode": "WAL; DROP TABLE Z_METADATA"]])
        }
    }

    @Test func savesWithKeysVersionsAndOneRowPerObject() throws {
        let fixture = CompanyFixture(storeType: NSSQLiteStoreType)
        let store = try fixture.addStore()
        try fixture.insertStandardData()
        let url = try #require(store.url)
        let employees = try fixture.snapshots(fixture.request("Employee", sort: [("name", true)]))
        #expect(employees.map { $0.values["name"] as? String } == ["Ann", "Bob", "Cid", "Dee", "Eve"])
        #expect(employees.allSatisfy { $0.version == 1 })

        // Update Ann: Z_OPT goes to 2, the value is bound, not spliced.
        var ann = employees[0]
        ann.values["name"] = "Ann'); DROP TABLE ZEMPLOYEE; --"
        try fixture.coordinator.save(StoreSaveChanges(updated: [ann]))
        let reread = try #require(try fixture.coordinator.snapshots(for: [ann.objectID])[ann.objectID])
        #expect(reread.version == 2)
        #expect(reread.values["name"] as? String == "Ann'); DROP TABLE ZEMPLOYEE; --")

        // The stale version conflicts: 133020 with the conflict details, and nothing changes.
        var stale = employees[0]
        stale.values["name"] = "Stale"
        do {
            try fixture.coordinator.save(StoreSaveChanges(updated: [stale]))
            Issue.record("a stale update must fail")
        } catch let error as NSError {
            #expect(error.code == NSManagedObjectMergeError)
            let conflicts = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
            #expect(conflicts?.first?.newVersionNumber == 2)
            #expect(conflicts?.first?.oldVersionNumber == 1)
        }
        #expect(try fixture.coordinator.snapshots(for: [ann.objectID])[ann.objectID]?.values["name"] as? String != "Stale")

        try Self.inspect(url) { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            let maxKey = try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ZEMPLOYEE") ?? 0
            let zmax = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Employee'") ?? -1
            #expect(zmax >= maxKey && maxKey == 5)
        }
    }

    @Test func manyToManyAndOrderedRelationshipsRoundTrip() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = SQLiteSchemaTests.relationshipModel()
        let url = directory.appendingPathComponent("Notes.sqlite")
        var coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let entities = model.entitiesByName
        let ids = try coordinator.permanentObjectIDs(for: [(entities["Folder"]!, nil), (entities["Note"]!, nil), (entities["Note"]!, nil),
                                                           (entities["Tag"]!, nil), (entities["Tag"]!, nil)])
        let (folder, note1, note2, tag1, tag2) = (ids[0], ids[1], ids[2], ids[3], ids[4])
        try coordinator.save(StoreSaveChanges(inserted: [
            ObjectSnapshot(objectID: folder, values: ["name": "Inbox"], toMany: ["notes": [note2, note1]]),
            ObjectSnapshot(objectID: note1, values: ["title": "one", "folder": folder], toMany: ["tags": [tag1, tag2]]),
            ObjectSnapshot(objectID: note2, values: ["title": "two", "folder": folder], toMany: ["tags": [tag1]]),
            ObjectSnapshot(objectID: tag1, values: ["name": "a"], toMany: ["notes": [note1, note2]]),
            ObjectSnapshot(objectID: tag2, values: ["name": "b"], toMany: ["notes": [note1]]),
        ]))
        // Reopen in a new coordinator: everything comes back from the file.
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let reopened = { (id: NSManagedObjectID) in NSManagedObjectID(entity: id.entity, store: store, primaryKey: id.primaryKey!) }
        let folderNotes = try store.relatedObjectIDs(for: entities["Folder"]!.relationshipsByName["notes"]!, of: reopened(folder))
        #expect(folderNotes.map(\.primaryKey) == [note2.primaryKey, note1.primaryKey], "ordered through Z_FOK_FOLDER")
        let tag1Notes = try store.relatedObjectIDs(for: entities["Tag"]!.relationshipsByName["notes"]!, of: reopened(tag1))
        #expect(Set(tag1Notes.map(\.primaryKey)) == [note1.primaryKey, note2.primaryKey])
        let note1Tags = try store.relatedObjectIDs(for: entities["Note"]!.relationshipsByName["tags"]!, of: reopened(note1))
        #expect(Set(note1Tags.map(\.primaryKey)) == [tag1.primaryKey, tag2.primaryKey])
        let note = try #require(try store.snapshots(for: [reopened(note1)]).first)
        #expect((note.values["folder"] as? NSManagedObjectID)?.primaryKey == folder.primaryKey)
        #expect((note.values["folder"] as? NSManagedObjectID)?.entity.name == "Folder", "Z1_FOLDER names the row's entity")
        try Self.inspect(url) { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Z_4TAGS") == 3)
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
        }
    }

    @Test func everyAttributeTypeRoundTrips() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let entity = NSEntityDescription()
        entity.name = "Thing"
        let types: [(String, NSAttributeType, Any)] = [
            ("i16", .integer16AttributeType, Int16(-7)), ("i32", .integer32AttributeType, Int32(70_000)),
            ("i64", .integer64AttributeType, Int64(1) << 40), ("flag", .booleanAttributeType, true),
            ("when", .dateAttributeType, Date(timeIntervalSinceReferenceDate: 639_503_569.5)),
            ("real", .doubleAttributeType, 2.5), ("small", .floatAttributeType, Float(1.25)),
            ("money", .decimalAttributeType, Decimal(string: "12.34")!), ("text", .stringAttributeType, "héllo"),
            ("link", .URIAttributeType, URL(string: "https://example.com/a?b=c")!),
            ("uid", .UUIDAttributeType, UUID(uuidString: "FEFE4176-912D-429F-9C83-662FFF641115")!),
            ("blob", .binaryDataAttributeType, Data([0, 1, 2, 255])),
        ]
        entity.properties = types.map { name, type, _ in
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let url = directory.appendingPathComponent("Things.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let id = try coordinator.permanentObjectIDs(for: [(model.entitiesByName["Thing"]!, nil)])[0]
        try coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: id, values: Dictionary(uniqueKeysWithValues: types.map { ($0.0, $0.2) }))]))
        let other = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try other.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let snapshot = try #require(try store.snapshots(for: [NSManagedObjectID(entity: id.entity, store: store, primaryKey: id.primaryKey!)]).first)
        for (name, _, value) in types {
            #expect("\(snapshot.values[name] ?? "nil")" == "\(value)", "\(name)")
            #expect(type(of: snapshot.values[name] ?? ()) == type(of: value), "\(name)")
        }
        try Self.inspect(url) { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT length(ZUID) FROM ZTHING") == 16)
            #expect(try Double.fetchOne(db, sql: "SELECT ZWHEN FROM ZTHING") == 639_503_569.5)
        }
    }

    /// A range predicate with a sort and a limit on indexed attributes compiles to a statement
    /// SQLite answers by searching the index, not by scanning the table: comparisons outside
    /// `NOT` are left bare (no `COALESCE`), so the planner can use them.
    @Test func rangeFetchSearchesTheIndex() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let item = NSEntityDescription()
        item.name = "Item"
        item.properties = ["a", "b"].map { name in
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = .integer64AttributeType
            attribute.isIndexed = name == "a"
            return attribute
        }
        let model = NSManagedObjectModel()
        model.entities = [item]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try #require(try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
                                                                     at: directory.appendingPathComponent("Plan.sqlite"), options: nil) as? SQLiteStore)
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        request.predicate = NSPredicate(format: "a >= %@ AND b < %@", argumentArray: [10, 50])
        request.sortDescriptors = [NSSortDescriptor(key: "a", ascending: true)]
        request.fetchLimit = 100
        let entity = try #require(model.entitiesByName["Item"])
        let statement = try SQLFetchCompiler(mapping: store.compilerMapping).objects(request, entity: entity)
        #expect(!statement.sql.contains("COALESCE"))
        let plan = try store.openDatabase().inDatabase { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.hasPrefix("SEARCH") && $0.contains("INDEX") && $0.contains("ZA>?") }, "plan: \(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN") }, "plan: \(plan)")
    }
}
