import Foundation
import Testing
import PostgresNIO
@testable import OpenCoreData
@testable import OpenCoreDataPostgres

/// Reading ahead in a `fetchBatchSize` walk (``PostgresReadAhead``): the next batch is read
/// while the current one is used, and that read fulfils the batch's faults only when the
/// context's staleness interval allows data of its age and no save came between.
@Suite("PostgreSQL store: reading the next batch ahead", .enabled(if: PostgresTestServer.unavailableReason == nil,
                                                                    Comment(rawValue: PostgresTestServer.unavailableReason ?? "")))
struct PostgresReadAheadTests {
    /// A store with `count` items named "old 0", "old 1"…, and a context walking them 10 at a time,
    /// past the first batch: the second batch has been read ahead, and that read has finished.
    struct Walk {
        let url: URL
        let coordinator: NSPersistentStoreCoordinator
        let store: PostgresStore
        let context: NSManagedObjectContext
        let items: [NSManagedObject]
        var secondBatch: ArraySlice<NSManagedObject> { items[10..<20] }

        init(count: Int = 30, stalenessInterval: TimeInterval = -1) throws {
            PostgresStore.registerStoreClass()
            url = try PostgresRemoteChangeTests.freshURL()
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: SQLTestModel.make())
            store = try #require(try coordinator.addPersistentStore(type: NSPersistentStore.StoreType(rawValue: NSPostgreSQLStoreType), at: url) as? PostgresStore)
            let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            writer.persistentStoreCoordinator = coordinator
            try writer.performAndWait {
                for index in 0..<count {
                    let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: writer)
                    item.setValue("old \(index)", forKey: "name")
                    item.setValue(Int64(index), forKey: "sortOrder")
                }
                try writer.save()
            }
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            context.stalenessInterval = stalenessInterval
            self.context = context
            items = try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.sortDescriptors = [NSSortDescriptor(key: "sortOrder", ascending: true)]
                request.fetchBatchSize = 10
                let items = try context.fetch(request)
                #expect(items[0].value(forKey: "name") as? String == "old 0")
                return items
            }
        }

        /// Whether the second batch was read ahead; waits for that read to finish.
        func secondBatchWasReadAhead() -> Bool {
            store.readAheads.waitForRead(of: secondBatch.map(\.objectID))
        }

        /// Renames every item on the server, past the store.
        func renameOnTheServer() throws {
            let schema = try PostgresStoreLocation(url: url).schema
            try PostgresStore.withServer(at: url) { connection, _, logger in
                try await connection.query(PostgresQuery(unsafeSQL: "UPDATE \(PostgresSQL.qualified(schema, "ZITEM")) SET \"ZNAME\" = 'new'"), logger: logger)
            }
        }

        /// The names of the second batch, as the walking context reads them.
        func secondBatchNames() -> [String?] {
            context.performAndWait { secondBatch.map { $0.value(forKey: "name") as? String } }
        }
    }

    @Test func aWalkFulfilsTheNextBatchFromTheReadStartedAhead() throws {
        let walk = try Walk(count: 40)
        #expect(walk.secondBatchWasReadAhead())
        try walk.renameOnTheServer()
        // Any age is accepted (a staleness interval of -1, the default): the rows read ahead,
        // before the rename, fulfil the batch, as a row cache would.
        #expect(walk.secondBatchNames() == (10..<20).map { "old \($0)" })
        // The third batch was read ahead with the second (two batches ahead), before the
        // rename; the fourth is read ahead now, after it.
        #expect(walk.store.readAheads.waitForRead(of: walk.items[30..<40].map(\.objectID)))
        #expect(walk.context.performAndWait { walk.items[20].value(forKey: "name") as? String } == "old 20")
        #expect(walk.context.performAndWait { walk.items[30].value(forKey: "name") as? String } == "new")
    }

    @Test func aZeroStalenessIntervalReadsTheBatchFromTheServer() throws {
        let walk = try Walk(stalenessInterval: 0)
        #expect(walk.secondBatchWasReadAhead())
        try walk.renameOnTheServer()
        #expect(walk.secondBatchNames() == Array(repeating: "new", count: 10))
    }

    @Test func aSaveThroughTheStoreDropsWhatWasReadAhead() throws {
        let walk = try Walk()
        #expect(walk.secondBatchWasReadAhead())
        let editor = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        editor.persistentStoreCoordinator = walk.coordinator
        let renamed = walk.secondBatch.first?.objectID
        try editor.performAndWait {
            let item = try editor.existingObject(with: try #require(renamed))
            item.setValue("saved", forKey: "name")
            try editor.save()
        }
        #expect(!walk.secondBatchWasReadAhead())
        #expect(walk.secondBatchNames() == ["saved"] + (11..<20).map { "old \($0)" })
    }

    @Test func aJumpOutOfOrderReadsNothingAhead() throws {
        let walk = try Walk(count: 50)
        #expect(walk.secondBatchWasReadAhead())
        // The fourth batch, skipping the second and third: not a walk in order, so the fifth
        // is not read ahead.
        #expect(walk.context.performAndWait { walk.items[35].value(forKey: "name") as? String } == "old 35")
        #expect(!walk.store.readAheads.waitForRead(of: walk.items[40..<50].map(\.objectID)))
        #expect(walk.secondBatchNames() == (10..<20).map { "old \($0)" })
    }

    /// Reads by ID answer in the order asked, without the rows that are gone: in key order (a
    /// walk's batch, read as it comes), out of order, and across tables.
    @Test func readsByIDAnswerInTheOrderAsked() throws {
        PostgresStore.registerStoreClass()
        let s = try CatalogScenario(storeType: NSPostgreSQLStoreType)
        let posts = (0..<6).map { s.insert("Post", ["title": "p\($0)"]) }
        let author = s.insert("Author", ["name": "Ann"])
        try s.save()
        let store = try #require(s.store as? PostgresStore)
        let ids = s.context.performAndWait { posts.map(\.objectID) }
        func titles(_ asked: [NSManagedObjectID]) throws -> [String] {
            try store.objects(asked, readAheadWithin: nil).map { "\($0["title"] ?? $0["name"] ?? "?")" }
        }
        #expect(try titles(ids) == ["p0", "p1", "p2", "p3", "p4", "p5"])
        #expect(try titles(ids.reversed()) == ["p5", "p4", "p3", "p2", "p1", "p0"])
        let authorID = s.context.performAndWait { author.objectID }
        #expect(try titles([ids[4], authorID, ids[1]]) == ["p4", "Ann", "p1"])

        try s.context.performAndWait {
            s.context.delete(posts[2])
            try s.context.save()
        }
        #expect(try titles(ids) == ["p0", "p1", "p3", "p4", "p5"], "a row that is gone has no snapshot")
    }
}
