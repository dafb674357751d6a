import Foundation
import Testing
@testable import OpenCoreData

/// The SQLite store's row cache, shared by the contexts of one coordinator.
@Suite struct SQLiteRowCacheTests {
    @Test func aSecondContextFiresFaultsFromTheCache() throws {
        let fixture = try SQLiteStatementFixture()
        let first = fixture.context()
        let request = fixture.request("Employee")
        request.returnsObjectsAsFaults = false
        let employees = try first.fetch(request)
        #expect(employees.count == 5)

        let second = fixture.context()
        let (names, statements) = fixture.selects {
            employees.map { second.object(with: $0.objectID) }.compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(names == ["Ann", "Bob", "Cid", "Dee", "Eve"])
        #expect(statements.isEmpty, "fired from the store's row cache")
    }

    @Test func savesKeepTheCacheCurrentAndRefreshReadsTheStore() throws {
        let fixture = try SQLiteStatementFixture()
        let writer = fixture.context()
        let reader = fixture.context()
        let byName = NSPredicate(format: "name == 'Ann'")
        let request = fixture.request("Employee")
        request.predicate = byName
        let annInReader = try #require(try reader.fetch(request).first)
        #expect(annInReader.value(forKey: "salary") as? Int64 == 100)

        let annInWriter = try #require(try writer.fetch(request).first)
        annInWriter.setValue(Int64(175), forKey: "salary")
        try writer.save()

        // A third context fires Ann's fault from the cache the save updated: no SQL, new value.
        let third = fixture.context()
        let (salary, statements) = fixture.selects { third.object(with: annInWriter.objectID).value(forKey: "salary") as? Int64 }
        #expect(salary == 175)
        #expect(statements.isEmpty)

        // The reader still has its values until it refreshes; refreshing reads the store.
        #expect(annInReader.value(forKey: "salary") as? Int64 == 100)
        let (_, refresh) = fixture.selects { reader.refresh(annInReader, mergeChanges: true) }
        #expect(refresh.count == 1, "refresh reads the store, not the cache")
        #expect(annInReader.value(forKey: "salary") as? Int64 == 175)
        reader.refresh(annInReader, mergeChanges: false)
        let (value, firing) = fixture.selects { annInReader.value(forKey: "salary") as? Int64 }
        #expect(value == 175)
        #expect(firing.count == 1, "a refreshed fault reads the store, not the cache")

        // Deleting drops the row from the cache.
        writer.delete(annInWriter)
        try writer.save()
        #expect(!fixture.store.rowCache.contains(annInWriter.objectID))
        #expect(try reader.fetch(request).isEmpty)
    }

    /// Rows whose objects are gone (with their context) are forgotten once 128 newer rows were
    /// cached, as Apple's row cache lets a row go with its last object; the rows of objects that
    /// live stay.
    @Test func rowsWhoseObjectsAreGoneAreForgottenAfterNewerRows() throws {
        let fixture = try SQLiteStatementFixture(standardData: false)
        let writer = fixture.context()
        for index in 0..<300 {
            let employee = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: writer)
            employee.setValue(String(format: "E%03d", index), forKey: "name")
            employee.setValue(Int64(index), forKey: "salary")
        }
        try writer.save()
        writer.reset()
        fixture.forgetCachedRows()

        // The first hundred rows, read by a context that then goes with its objects. Their IDs
        // are kept as URIs, which hold no ID.
        let gone = try Self.readAndLetGo(fixture, salaries: 0..<100)
        #expect(gone.count == 100 && fixture.store.rowCache.count == 100)

        // Two hundred more, whose objects stay: the first hundred are forgotten as these come in.
        let request = fixture.request("Employee")
        request.predicate = NSPredicate(format: "salary >= 100")
        let kept = try fixture.context().fetch(request)
        #expect(kept.count == 200)
        #expect(fixture.store.rowCache.count == 200)
        #expect(kept.allSatisfy { fixture.store.rowCache.contains($0.objectID) })
        let forgotten = gone.compactMap { fixture.coordinator.managedObjectID(forURIRepresentation: $0) }
        #expect(forgotten.count == 100 && !forgotten.contains { fixture.store.rowCache.contains($0) })
    }

    /// The URIs of the employees with `salaries`, fetched by a context that is gone on return.
    private static func readAndLetGo(_ fixture: SQLiteStatementFixture, salaries: Range<Int64>) throws -> [URL] {
        let context = fixture.context()
        let request = fixture.request("Employee")
        request.predicate = NSPredicate(format: "salary >= %lld AND salary < %lld", salaries.lowerBound, salaries.upperBound)
        return try context.fetch(request).map { $0.objectID.uriRepresentation() }
    }

    /// Re-fetching rows the cache holds at their current `Z_OPT` reuses the cached snapshots; a
    /// row another coordinator changed (its `Z_OPT` moved on) is decoded again.
    @Test func refetchingUnchangedRowsReusesTheirSnapshots() throws {
        let fixture = try SQLiteStatementFixture()
        let request = fixture.request("Employee")
        request.returnsObjectsAsFaults = false
        let first = fixture.context()
        #expect(try first.fetch(request).count == 5)

        let hits = fixture.store.rowCache.hits
        let second = fixture.context()
        #expect(try second.fetch(request).count == 5)
        #expect(fixture.store.rowCache.hits - hits == 5, "every row came from the cache")

        try fixture.changeElsewhere("Ann", setting: "salary", to: Int64(321))

        let before = fixture.store.rowCache.hits
        let third = fixture.context()
        let salaries = try third.fetch(request).compactMap { $0.value(forKey: "salary") as? Int64 }
        #expect(salaries.contains(321), "the changed row was read again")
        #expect(fixture.store.rowCache.hits - before == 4, "the four unchanged rows came from the cache")
    }

    /// The cache of `fixture`'s store past its capacity, for the three tests below: department Big
    /// with R (salary 1,000,000) and S(capacity + 2) ... S2 (their number as salary), in that
    /// primary-key order. The cache holds, in the order rows came in, S3 ... S(capacity + 2), then
    /// R in S3's place; `reader` holds their objects, so their rows stay. Then another
    /// coordinator sets R's salary to 2,000,000, which the cache does not see.
    ///
    /// A read of every row, R first and S2 last, passes R and S(capacity + 2) before the last
    /// `capacity` rows. The rows it then adds (S3 and S2, and the prefetch's department row,
    /// read first) evict the oldest rows, S4 onwards, each already read again: R's place stays,
    /// with the row the read gave it.
    ///
    /// `employees` are the employees' IDs in primary-key order, R's first.
    private static func cachePastCapacity(_ fixture: SQLiteStatementFixture) throws
        -> (reader: NSManagedObjectContext, held: [NSManagedObject], r: NSManagedObject, employees: [NSManagedObjectID]) {
        let capacity = fixture.store.rowCache.capacity
        let (_, employees) = try fixture.company.insertDepartment("Big", budget: 1, employees: [("R", 1_000_000)]
            + (2...(capacity + 2)).reversed().map { ("S\($0)", Int64($0)) })
        fixture.forgetCachedRows()

        let reader = fixture.context()
        let ascending = fixture.request("Employee", sortedBy: "salary")
        ascending.predicate = NSPredicate(format: "salary >= 3 AND salary < 1000000")
        let held = try reader.fetch(ascending)
        let onlyR = fixture.request("Employee")
        onlyR.predicate = NSPredicate(format: "name == 'R'")
        let r = try #require(try reader.fetch(onlyR).first)
        #expect(held.count == capacity && fixture.store.rowCache.count == capacity)

        try fixture.changeElsewhere("R", setting: "salary", to: Int64(2_000_000))
        return (reader, held, r, employees)
    }

    /// Fires the fault of `employee` (R, unless another) in a fresh context: it must answer from
    /// the cache, with the newer row, whose salary is `salary`.
    private static func expectNewerRowCached(_ employee: NSManagedObject, salary expected: Int64 = 2_000_000,
                                             in fixture: SQLiteStatementFixture) {
        let fresh = fixture.context()
        let (salary, statements) = fixture.selects { fresh.object(with: employee.objectID).value(forKey: "salary") as? Int64 }
        #expect(salary == expected, "the newer row, not the older one")
        #expect(statements.isEmpty, "fired from the cache")
    }

    /// A fetch of more rows than the cache holds still replaces the rows it holds of the first
    /// ones, so a fault fired after it sees what it read. (Only the last `capacity` rows went
    /// into the cache before: an older row of one of the first ones could stay.) In WAL mode the
    /// fetches run on the reader pool, outside the coordinator's lock; in rollback mode on the
    /// store's own connection: two ways into the cache.
    @Test(arguments: ["WAL", "DELETE"])
    func aFetchPastTheCapacityReplacesTheOlderRowsTheCacheHolds(journalMode: String) throws {
        let fixture = try SQLiteStatementFixture(standardData: false, options: [NSSQLitePragmasOption: ["journal_mode": journalMode]])
        #expect(fixture.store.fetchesOutsideCoordinatorLock == (journalMode == "WAL"))
        let (reader, held, r, _) = try Self.cachePastCapacity(fixture)

        let all = fixture.request("Employee", sortedBy: nil)
        all.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: false)]
        #expect(try reader.fetch(all).count == fixture.store.rowCache.capacity + 2)

        Self.expectNewerRowCached(r, in: fixture)
        withExtendedLifetime(held) {}
    }

    /// The same for a relationship's prefetch, the third read that puts its whole result into
    /// the cache (reads by ID put in only the rows the cache lacks or holds stale): its rows come
    /// in primary-key order, R first.
    @Test func aPrefetchPastTheCapacityReplacesTheOlderRowsTheCacheHolds() throws {
        let fixture = try SQLiteStatementFixture(standardData: false)
        let (reader, held, r, _) = try Self.cachePastCapacity(fixture)

        let departments = fixture.request("Department")
        departments.relationshipKeyPathsForPrefetching = ["employees"]
        let (fetched, statements) = try fixture.selects { try reader.fetch(departments) }
        #expect(fetched.count == 1)
        #expect(statements.count == 2, "the departments, then their employees: \(statements)")

        Self.expectNewerRowCached(r, in: fixture)
        withExtendedLifetime(held) {}
    }

    /// The same for a read by ID that finds every cached row stale (read before now, with a
    /// staleness interval of the least positive one): it reads them all again, R first, as a
    /// context whose `stalenessInterval` is short reads the rows of its faults.
    @Test func aReadByIDPastTheCapacityReplacesTheStaleRowsTheCacheHolds() throws {
        let fixture = try SQLiteStatementFixture(standardData: false)
        let (_, held, r, employees) = try Self.cachePastCapacity(fixture)
        #expect(employees.first == r.objectID)

        let read = try fixture.store.snapshots(for: employees, cachedWithin: .leastNonzeroMagnitude)
        #expect(read.count == fixture.store.rowCache.capacity + 2)
        #expect(read.first?.objectID == r.objectID, "rows come in primary-key order")

        Self.expectNewerRowCached(r, in: fixture)
        withExtendedLifetime(held) {}
    }

    /// Two fetches of one row on two readers, with another coordinator's write between their
    /// reads, may cache their rows in either order: the ``SQLiteRowCache/writeCount`` check sees
    /// this store's saves only. The older read, cached last, must not replace the newer row. The
    /// first fetch is held between its read and its caching (`SQLiteStore.rowsReadBeforeCaching`)
    /// while the write and the second fetch land.
    @Test func anOlderReadCachedLastKeepsTheNewerRow() throws {
        let fixture = try SQLiteStatementFixture()
        try #require(fixture.store.fetchesOutsideCoordinatorLock, "WAL mode: fetches run on the reader pool")
        // Only the first fetch is held: it says it read, and waits. (A semaphore as that gate
        // would trap when freed below its starting count.)
        let gateOpen = Locked(true), read = DispatchSemaphore(value: 0), resume = DispatchSemaphore(value: 0)
        let store = fixture.store
        store.lock.withLock {
            store.rowsReadBeforeCaching = {
                guard gateOpen.withLock({ isOpen in defer { isOpen = false }; return isOpen }) else { return }
                read.signal()
                resume.wait()
            }
        }
        // Whatever fails below, the held fetch is let go and the hook removed.
        defer {
            resume.signal()
            store.lock.withLock { store.rowsReadBeforeCaching = nil }
        }

        let outcome = Locked<(fetched: Int, error: (any Error)?)>((0, nil)), done = DispatchSemaphore(value: 0)
        let coordinator = fixture.coordinator
        DispatchQueue.global().async {
            let first = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            first.persistentStoreCoordinator = coordinator
            first.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
                request.predicate = NSPredicate(format: "name == 'Ann'")
                do {
                    let count = try first.fetch(request).count
                    outcome.withLock { $0.fetched = count }
                } catch {
                    outcome.withLock { $0.error = error }
                }
            }
            done.signal()
        }
        try #require(read.wait(timeout: .now() + 60) == .success, "the first fetch read Ann's row")

        try fixture.changeElsewhere("Ann", setting: "salary", to: Int64(175))
        let request = fixture.request("Employee")
        request.predicate = NSPredicate(format: "name == 'Ann'")
        let ann = try #require(try fixture.context().fetch(request).first)
        #expect(fixture.store.rowCache.lookUp([ann.objectID]).found.map(\.version) == [2], "the second fetch cached the newer row")

        resume.signal()
        try #require(done.wait(timeout: .now() + 60) == .success, "the first fetch finished")
        let (fetched, error) = outcome.withLock { $0 }
        #expect(error == nil && fetched == 1)
        Self.expectNewerRowCached(ann, salary: 175, in: fixture)
    }

    /// A save writes only the columns that changed, bumping `Z_OPT` with the version check; the
    /// other columns keep what is stored.
    @Test func anUpdateWritesOnlyTheChangedColumns() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let request = fixture.request("Employee")
        request.predicate = NSPredicate(format: "name == 'Bob'")
        let bob = try #require(try context.fetch(request).first)
        bob.setValue(Int64(999), forKey: "salary")
        let before = fixture.counter.all.count
        try context.save()
        let updates = fixture.counter.all.dropFirst(before).map(\.sql).filter { $0.hasPrefix("UPDATE ZEMPLOYEE") }
        #expect(updates.count == 1)
        #expect(updates.first.map { $0.contains("ZSALARY = ?") && !$0.contains("ZNAME") && $0.contains("Z_OPT = ?") } == true,
                "\(updates)")

        fixture.forgetCachedRows()
        let fresh = fixture.context()
        let reread = try #require(try fresh.fetch(request).first)
        #expect(reread.value(forKey: "salary") as? Int64 == 999)
        #expect(reread.value(forKey: "name") as? String == "Bob")
    }
}
