import Foundation
import Testing
@testable import OpenCoreData

/// `fetchBatchSize`: all matching objects in order, as faults; firing one loads its batch with
/// one statement; at most two batches stay loaded.
@Suite struct FetchBatchSizeTests {
    private static let rows = 23

    private func fixture() throws -> SQLiteStatementFixture {
        let fixture = try SQLiteStatementFixture(standardData: false)
        try fixture.company.insertDepartment("Big", budget: 1, employees: (0..<Self.rows).map { ("E\($0)", Int64(100 - $0)) })
        fixture.forgetCachedRows()
        return fixture
    }

    private func request(_ batchSize: Int) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.predicate = NSPredicate(format: "salary > %d", 80)
        request.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: true)]
        request.fetchBatchSize = batchSize
        return request
    }

    /// The best paid employee, E0 (salary 100).
    private func bestPaid() -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.predicate = NSPredicate(format: "name == 'E0'")
        return request
    }

    @Test func walksInOrderOneStatementPerBatchKeepingTwoBatches() throws {
        let fixture = try fixture()
        let context = fixture.context()
        let (objects, fetchStatements) = try fixture.selects { try context.fetch(self.request(5)) }
        #expect(fetchStatements.count == 1)
        #expect(fetchStatements.first?.contains("ZNAME") == false, "IDs only")
        #expect(objects.count == 20)
        #expect(objects.allSatisfy { $0.isFault })

        var salaries: [Int64] = []
        var statements = 0
        for (index, object) in objects.enumerated() {
            let (salary, run) = fixture.selects { object.value(forKey: "salary") as? Int64 }
            salaries.append(salary ?? -1)
            statements += run.count
            #expect(run.count == (index % 5 == 0 ? 1 : 0), "object \(index)")
            // Loaded: the current batch and the previous one; earlier ones are faults again.
            let batch = index / 5
            for (other, earlier) in objects.enumerated().prefix(index) {
                #expect(earlier.isFault == (other / 5 < batch - 1), "object \(other) at \(index)")
            }
        }
        #expect(salaries == Array(81...100).map(Int64.init))
        #expect(statements == 4)
    }

    @Test func batchedResultsMatchUnbatchedOnEveryStore() throws {
        for storeType in StoreTypesUnderTest.all {
            let company = CompanyFixture(storeType: storeType)
            try company.addStore()
            try company.insertDepartment("Big", budget: 1, employees: (0..<Self.rows).map { ("E\($0)", Int64(100 - $0)) })
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = company.coordinator
            let batched = try context.fetch(self.request(3)).map { $0.value(forKey: "name") as? String }
            let plain = try context.fetch(request(0)).map { $0.value(forKey: "name") as? String }
            #expect(batched == plain, "\(storeType)")
            #expect(batched.count == 20, "\(storeType)")
        }
    }

    @Test func pendingChangesAppearInABatchedFetch() throws {
        let fixture = try fixture()
        let context = fixture.context()
        let newcomer = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        newcomer.setValue("New", forKey: "name")
        newcomer.setValue(Int64(90), forKey: "salary")
        let lowered = try #require(try context.fetch(request(0)).last)
        lowered.setValue(Int64(1), forKey: "salary")
        let names = try context.fetch(request(4)).map { $0.value(forKey: "name") as? String }
        #expect(names.count == 20)
        #expect(names.contains("New"))
        #expect(!names.contains(lowered.value(forKey: "name") as? String))
        let salaries = try context.fetch(request(4)).compactMap { $0.value(forKey: "salary") as? Int64 }
        #expect(salaries == salaries.sorted())
        // Changed objects are never turned back into faults.
        #expect(!newcomer.isFault && lowered.value(forKey: "salary") as? Int64 == 1)
    }
}

extension FetchBatchSizeTests {
    @inline(never)
    private func walkOnce(_ context: NSManagedObjectContext) throws -> Int {
        try context.fetch(request(5)).count { $0.value(forKey: "name") != nil }
    }

    @Test func theGroupOfAFreedResultIsForgotten() throws {
        let fixture = try fixture()
        let context = fixture.context()
        #expect(try walkOnce(context) == 20)
        #expect(context.batchGroups.count == 1)
        #expect(try walkOnce(context) == 20)
        #expect(context.batchGroups.count == 1, "the first result was freed, so its group went")
    }
}

extension FetchBatchSizeTests {
    /// A batch fault honours the context's `stalenessInterval`, as a single fault does: with
    /// the default (any age), rows the store cached fulfil it; with 0, the store reads the file.
    @Test func batchFaultsHonourTheStalenessInterval() throws {
        for (interval, expected) in [(TimeInterval(-1), Int64(100)), (0, 555)] {
            let fixture = try fixture()
            // The store caches every employee's row.
            let reader = fixture.context()
            let all = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            all.returnsObjectsAsFaults = false
            #expect(try reader.fetch(all).count == Self.rows)

            try fixture.changeElsewhere("E0", setting: "salary", to: Int64(555))

            let walker = fixture.context()
            walker.stalenessInterval = interval
            let request = bestPaid()
            request.fetchBatchSize = 5
            let found = try walker.fetch(request)
            #expect(found.first?.value(forKey: "salary") as? Int64 == expected, "staleness interval \(interval)")
        }
    }
}

extension FetchBatchSizeTests {
    /// A walk that goes back over batches already turned back into faults reads every value
    /// again as stored: integers, and NULL integers as nil (rows are decoded into the layout's
    /// empty slots, integers written straight into theirs).
    @Test func walkingBackRereadsRefaultedBatchesIncludingNulls() throws {
        let fixture = try fixture()
        let writer = fixture.context()
        for employee in try writer.fetch(fixture.request("Employee")) where ["E3", "E7", "E11"].contains(employee.value(forKey: "name") as? String) {
            employee.setValue(nil, forKey: "salary")
        }
        try writer.save()
        fixture.forgetCachedRows()

        func values(_ objects: [NSManagedObject]) -> [String] {
            objects.map { "\($0.value(forKey: "name") as? String ?? "?")=\(($0.value(forKey: "salary") as? Int64).map(String.init) ?? "nil")" }
        }
        let reader = fixture.context()
        let expected = values(try reader.fetch(fixture.request("Employee")))
        #expect(expected.count == Self.rows)
        #expect(expected.filter { $0.hasSuffix("=nil") }.count == 3)

        let walker = fixture.context()
        let request = fixture.request("Employee")
        request.fetchBatchSize = 4
        let objects = try walker.fetch(request)
        #expect(values(objects) == expected, "forward")
        #expect(objects.prefix(4).allSatisfy { $0.isFault }, "the first batch was turned back into faults")
        #expect(Array(values(objects.reversed()).reversed()) == expected, "backward, over refaulted batches")
    }
}

extension FetchBatchSizeTests {
    /// An employee whose `awakeFromFetch()` fires the object its context names in `userInfo`
    /// (when that is still a fault), and counts how often it was awoken.
    final class FiringEmployee: NSManagedObject {
        var awakenings = 0

        override func awakeFromFetch() {
            super.awakeFromFetch()
            awakenings += 1
            if let next = managedObjectContext?.userInfo["fire on awake"] as? NSManagedObject, next !== self, next.isFault {
                _ = next.value(forKey: "salary")
            }
        }
    }

    /// A batch's first object, awoken, fires another fault of its batch, which loads the rest
    /// of the batch: the objects that load are each loaded and awoken once, not again when the
    /// first load goes on.
    @Test func aFaultFiredWhileItsBatchLoadsIsAwokenOnce() throws {
        let fixture = try fixture()
        fixture.company.model.register(FiringEmployee.self, forEntityName: "Employee")
        let context = fixture.context()
        let objects = try context.fetch(request(5))
        context.userInfo["fire on awake"] = objects[1]
        #expect(objects[0].value(forKey: "salary") as? Int64 == 81)
        let firstBatch = objects.prefix(5).compactMap { $0 as? FiringEmployee }
        #expect(firstBatch.count == 5)
        #expect(firstBatch.map(\.awakenings) == [1, 1, 1, 1, 1])
        #expect(firstBatch.allSatisfy { !$0.isFault })
        #expect(objects.dropFirst(5).allSatisfy { $0.isFault }, "the next batch is not loaded")
        #expect(firstBatch.map { $0.value(forKey: "salary") as? Int64 } == [81, 82, 83, 84, 85])
    }
}

extension FetchBatchSizeTests {
    /// A batch's rows go into its objects, not into the store's row cache: a walk over more rows
    /// than the cache keeps would evict every row it holds for other reads. The rows it held
    /// stay; a batch turned back into faults is read again when walked back to.
    @Test func aWalkLeavesItsRowsOutOfTheStoresRowCache() throws {
        let fixture = try fixture()
        let departments = fixture.request("Department")
        departments.returnsObjectsAsFaults = false
        let reader = fixture.context()
        let department = try #require(try reader.fetch(departments).first)
        #expect(fixture.store.rowCache.count == 1)

        let walker = fixture.context()
        let objects = try walker.fetch(request(5))
        #expect(objects.map { $0.value(forKey: "salary") as? Int64 } == Array(81...100).map(Int64.init))
        #expect(fixture.store.rowCache.count == 1, "the walk's 20 rows are in their objects only")
        #expect(fixture.store.rowCache.contains(department.objectID))

        #expect(objects[0].isFault, "the first batch was turned back into faults")
        let (salary, reread) = fixture.selects { objects[0].value(forKey: "salary") as? Int64 }
        #expect(salary == 81)
        #expect(reread.count == 1, "its batch is read again, with one statement")
    }
}

extension FetchBatchSizeTests {
    /// A batch read past the row cache (`stalenessInterval` 0) replaces the row the cache held
    /// with the one it read, and adds none of the others.
    @Test func aFreshBatchReplacesTheRowTheCacheHeld() throws {
        let fixture = try fixture()
        let reader = fixture.context()
        let byName = bestPaid()
        byName.returnsObjectsAsFaults = false
        let id = try #require(try reader.fetch(byName).first).objectID
        #expect(fixture.store.rowCache.count == 1)
        try fixture.changeElsewhere("E0", setting: "salary", to: Int64(555))

        let walker = fixture.context()
        walker.stalenessInterval = 0
        let objects = try walker.fetch(request(5))
        #expect(objects.map { $0.value(forKey: "salary") as? Int64 }.contains(555))
        #expect(fixture.store.rowCache.count == 1, "no row of the walk was added")
        #expect(fixture.store.rowCache.lookUp([id]).found.first?.values["salary"] as? Int64 == 555, "the cached row was replaced")
    }

    /// A store that subclasses the SQLite store reads batches through the methods it overrides,
    /// and caches them as before.
    @Test func aSubclassOfTheSQLiteStoreReadsBatchesThroughItsOverrides() throws {
        let type = "CountingSQLite-\(UUID().uuidString)"
        NSPersistentStoreCoordinator.registerStoreClass(CountingSQLiteStore.self, type: type)
        defer { NSPersistentStoreCoordinator.registerStoreClass(nil, type: type) }
        let company = CompanyFixture(storeType: type)
        let store = try #require(try company.addStore() as? CountingSQLiteStore)
        try company.insertDepartment("Big", budget: 1, employees: (0..<Self.rows).map { ("E\($0)", Int64(100 - $0)) })
        store.rowCache.removeAll()
        store.reads = 0

        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = company.coordinator
        let objects = try context.fetch(request(5))
        #expect(objects.map { $0.value(forKey: "salary") as? Int64 } == Array(81...100).map(Int64.init))
        #expect(store.reads == 4, "one read a batch, through the override")
        #expect(store.rowCache.count == 20, "the batches' rows cached, as for any read")
    }

    /// An SQLite store that counts its reads by ID.
    final class CountingSQLiteStore: SQLiteStore, @unchecked Sendable {
        var reads = 0
        override func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [ObjectSnapshot] {
            reads += 1
            return try super.snapshots(for: objectIDs)
        }
    }
}

extension FetchBatchSizeTests {
    /// A child context walks its batches through its parent (`ContextBacking`'s default
    /// `walkSnapshots`): each batch holds the parent's unsaved changes.
    @Test func aChildContextWalksItsBatchesThroughItsParent() throws {
        let fixture = try fixture()
        let parent = fixture.context()
        try #require(try parent.fetch(bestPaid()).first).setValue(Int64(999), forKey: "salary")
        fixture.forgetCachedRows()

        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = parent
        let (objects, fetchStatements) = try fixture.selects { try child.fetch(self.request(5)) }
        #expect(fetchStatements.count == 1)
        #expect(objects.allSatisfy { $0.isFault })
        let salaries = objects.map { $0.value(forKey: "salary") as? Int64 }
        #expect(salaries == Array(81...99).map(Int64.init) + [999], "the parent's unsaved change, in the child's batch")
    }
}
