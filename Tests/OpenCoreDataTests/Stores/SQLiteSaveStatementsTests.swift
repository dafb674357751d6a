import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// What a save runs on the SQLite connection beyond its rows: metadata only when it changed,
/// no switch of `PRAGMA query_only` (which expires every prepared statement), and UPDATEs
/// that write the changed columns through statements made once per key set.
@Suite struct SQLiteSaveStatementsTests {
    static func model() -> NSManagedObjectModel {
        let item = NSEntityDescription()
        item.name = "Item"
        item.properties = [GraphTestModel.attribute("count", .integer64AttributeType), GraphTestModel.attribute("label", .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    struct Stack {
        let coordinator: NSPersistentStoreCoordinator
        let store: SQLiteStore
        let context: NSManagedObjectContext
        let counter = SQLStatementCounter()
        let url: URL

        init(directory: URL) throws {
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: SQLiteSaveStatementsTests.model())
            url = directory.appendingPathComponent("Items.sqlite")
            store = try #require(try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
                                                                    at: url, options: nil) as? SQLiteStore)
            context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let counter = self.counter
            _ = store.sqlLog.addObserver { counter.add($0) }
        }

        /// The SQL of the statements run while `body` runs.
        func statements(_ body: () throws -> Void) rethrows -> [String] {
            let before = counter.all.count
            try body()
            return counter.all.dropFirst(before).map(\.sql)
        }
    }

    /// Objects of two entities inserted alternately are saved in that order, each row through
    /// its own entity's INSERT (the writer keeps the last entity's statement at hand and must
    /// switch), and read back as they were made.
    @Test func alternatingEntitiesAreInsertedThroughTheirOwnStatements() throws {
        let fixture = try SQLiteStatementFixture(standardData: false)
        let writer = fixture.context()
        for index in 0..<3 {
            let department = NSEntityDescription.insertNewObject(forEntityName: "Department", into: writer)
            department.setValue("d\(index)", forKey: "name")
            let employee = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: writer)
            employee.setValue("e\(index)", forKey: "name")
            employee.setValue(Int64(index), forKey: "salary")
            employee.setValue(department, forKey: "department")
        }
        let before = fixture.counter.all.count
        try writer.save()
        let inserts = fixture.counter.all.dropFirst(before).map(\.sql).filter { $0.hasPrefix("INSERT INTO") }
        let tables = inserts.compactMap { $0.split(separator: " ").dropFirst(2).first.map(String.init) }
        #expect(tables.count == 6 && Set(tables).count == 2, "\(inserts)")
        #expect(zip(tables, tables.dropFirst()).allSatisfy { $0 != $1 }, "the rows alternate: \(tables)")

        fixture.forgetCachedRows()
        let reader = fixture.context()
        let employees = try reader.fetch(fixture.request("Employee"))
        let read = employees.map {
            "\($0.value(forKey: "name") as? String ?? "?")/\($0.value(forKey: "salary") as? Int64 ?? -1)/"
                + "\(($0.value(forKey: "department") as? NSManagedObject)?.value(forKey: "name") as? String ?? "-")"
        }
        #expect(read == ["e0/0/d0", "e1/1/d1", "e2/2/d2"])
        #expect(try reader.count(for: fixture.request("Department")) == 3)
    }

    @Test func metadataIsWrittenByTheSaveAfterItChanges() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stack = try Stack(directory: directory)
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: stack.context)
        item.setValue(Int64(1), forKey: "count")

        // The file got its metadata when it was created: saving rows leaves it alone.
        let first = try stack.statements { try stack.context.save() }
        #expect(first.contains { $0.contains("INSERT INTO") && $0.contains("ZITEM") })
        #expect(!first.contains { $0.contains("Z_METADATA") })

        var metadata = stack.coordinator.metadata(for: stack.store)
        metadata["com.example.marker"] = "written"
        stack.coordinator.setMetadata(metadata, for: stack.store)
        item.setValue(Int64(2), forKey: "count")
        let second = try stack.statements { try stack.context.save() }
        #expect(second.contains { $0.contains("INSERT INTO Z_METADATA") })
        let onDisk = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: stack.url, options: nil)
        #expect(onDisk["com.example.marker"] as? String == "written")

        // Written once: the next save leaves it alone again.
        item.setValue(Int64(3), forKey: "count")
        let third = try stack.statements { try stack.context.save() }
        #expect(!third.contains { $0.contains("Z_METADATA") })
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: stack.url, options: nil)["com.example.marker"]
                as? String == "written")
    }

    @Test func savesAndFetchesDoNotSwitchQueryOnly() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stack = try Stack(directory: directory)
        for value in 1...3 {
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: stack.context).setValue(Int64(value), forKey: "count")
        }
        try stack.context.save()
        let statements = try stack.statements {
            for round in 0..<3 {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.predicate = NSPredicate(format: "count >= %@", argumentArray: [NSNumber(value: 1)])
                for item in try stack.context.fetch(request) {
                    item.setValue(Int64(10 * (round + 1)), forKey: "count")
                }
                try stack.context.save()
            }
        }
        #expect(statements.contains { $0.hasPrefix("UPDATE") })
        #expect(!statements.contains { $0.uppercased().contains("QUERY_ONLY") })
    }
    @Test func updatesWriteTheChangedColumnsThroughOnePlanPerKeySet() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stack = try Stack(directory: directory)
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: stack.context)
        item.setValue(Int64(1), forKey: "count")
        item.setValue("a", forKey: "label")
        try stack.context.save()

        func update(_ value: Any, _ key: String) throws -> String? {
            item.setValue(value, forKey: key)
            return try stack.statements { try stack.context.save() }.first { $0.hasPrefix("UPDATE") }
        }
        // Each save writes only its changed column, whichever plan it reuses.
        let counts = try [update(Int64(2), "count"), update("b", "label"), update(Int64(3), "count")]
        #expect(counts[0]?.contains("ZCOUNT") == true && counts[0]?.contains("ZLABEL") == false)
        #expect(counts[1]?.contains("ZLABEL") == true && counts[1]?.contains("ZCOUNT") == false)
        #expect(counts[2] == counts[0])
        // Two key sets, two plans, kept by the table's layout from one save to the next.
        let layout = try #require(stack.store.layouts.values.first { $0.table == "ZITEM" })
        #expect(layout.updatePlans.withLock { $0.count } == 2)

        // What the three saves wrote, read back through another coordinator.
        let reader = NSPersistentStoreCoordinator(managedObjectModel: SQLiteSaveStatementsTests.model())
        _ = try reader.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: stack.url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = reader
        let stored = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first)
        #expect(stored.value(forKey: "count") as? Int64 == 3 && stored.value(forKey: "label") as? String == "b")
    }
    @Test func aSaveIsOneTransactionThroughReusedStatements() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stack = try Stack(directory: directory)
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: stack.context)
        item.setValue(Int64(1), forKey: "count")
        let statements = try stack.statements { try stack.context.save() }
        #expect(statements.first == "BEGIN IMMEDIATE TRANSACTION" && statements.last == "COMMIT TRANSACTION")
    }

    @Test func aFailingTransactionRollsBackAndLeavesTheConnectionUsable() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("t.sqlite").path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE t (v INTEGER)") }
        let (refused, leftOpen, openAfterCommit) = try queue.writeWithoutTransaction { db -> (Bool, Bool, Bool) in
            var refused = false
            do {
                try db.inReusedTransaction {
                    try db.execute(sql: "INSERT INTO t VALUES (1)")
                    throw CancellationError()
                }
            } catch is CancellationError {
                refused = true
            }
            let leftOpen = db.isInsideTransaction
            try db.inReusedTransaction { try db.execute(sql: "INSERT INTO t VALUES (2)") }
            return (refused, leftOpen, db.isInsideTransaction)
        }
        #expect(refused && !leftOpen && !openAfterCommit)
        // The failed transaction's row was rolled back; the next one's committed.
        #expect(try queue.read { db in try Int64.fetchAll(db, sql: "SELECT v FROM t") } == [2])
    }
}
