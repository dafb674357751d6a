import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Fetches from an SQLite store in WAL mode run on the store's reader connections, outside the
/// coordinator's lock (`SQLiteReaderPool`), and see every save committed before they start.
@Suite struct SQLiteReaderPoolTests {
    /// The company fixture on SQLite with `options`, its store and the standard data.
    private func fixture(options: [AnyHashable: Any]? = nil) throws -> (CompanyFixture, SQLiteStore) {
        let company = CompanyFixture(storeType: NSSQLiteStoreType)
        let store = try #require(try company.addStore(options: options) as? SQLiteStore)
        try company.insertStandardData()
        return (company, store)
    }

    private func context(_ company: CompanyFixture) -> NSManagedObjectContext {
        Self.context(company.coordinator)
    }

    private static func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The employees' names and salaries fetched through a new context, by name.
    private func salaries(_ company: CompanyFixture) throws -> [String: Int64] {
        try Self.salaries(company.coordinator)
    }

    private static func salaries(_ coordinator: NSPersistentStoreCoordinator) throws -> [String: Int64] {
        let context = context(coordinator)
        return try context.performAndWait {
            var result: [String: Int64] = [:]
            for employee in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee")) {
                result[employee.value(forKey: "name") as? String ?? ""] = employee.value(forKey: "salary") as? Int64
            }
            return result
        }
    }

    @Test func fetchesRunOnAReaderAndSeeTheLastSave() throws {
        let (company, store) = try fixture()
        #expect(store.readers.isOpen)
        #expect(try salaries(company) == ["Ann": 100, "Bob": 200, "Cid": 300, "Dee": 400, "Eve": 50])
        #expect(store.readers.openCount == 1, "the fetch opened one reader")

        let writer = context(company)
        try writer.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            request.predicate = NSPredicate(format: "name == 'Ann'")
            try #require(try writer.fetch(request).first).setValue(Int64(150), forKey: "salary")
            try writer.save()
        }
        #expect(try salaries(company)["Ann"] == 150, "a fetch after a save sees it")
        #expect(store.readers.openCount == 1, "one fetch at a time reuses the reader")
    }

    @Test func aFetchDoesNotWaitForAThreadHoldingTheCoordinatorsLock() throws {
        let (company, _) = try fixture()
        let coordinator = company.coordinator
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), fetched = DispatchSemaphore(value: 0)
        let holder = Thread {
            coordinator.lock()
            held.signal()
            release.wait()
            coordinator.unlock()
        }
        holder.start()
        held.wait()
        let names = Captured<[String]>()
        let fetcher = Thread {
            names.value = try? Self.salaries(coordinator).keys.sorted()
            fetched.signal()
        }
        fetcher.start()
        // Waits for the fetch while the other thread holds the lock; a fetch that waited for the
        // lock would time out here (and then finish once the lock is released below).
        let finished = fetched.wait(timeout: .now() + 60)
        release.signal()
        if finished == .timedOut { fetched.wait() }
        #expect(finished == .success, "the fetch ran while another thread held the coordinator's lock")
        #expect(names.value == ["Ann", "Bob", "Cid", "Dee", "Eve"])
    }

    @Test func aPoolOfOneConnectionReadsOnTheStoresOwn() throws {
        let (company, store) = try fixture(options: [NSPersistentStoreConnectionPoolMaxSizeKey: 1])
        #expect(!store.readers.isOpen)
        #expect(try salaries(company).count == 5)
        #expect(store.readers.openCount == 0)
    }

    @Test func aRollbackJournalReadsOnTheStoresOwnConnection() throws {
        let (company, store) = try fixture(options: [NSSQLitePragmasOption: ["journal_mode": "DELETE"]])
        #expect(!store.readers.isOpen, "a reader would block the writer's commits")
        #expect(try salaries(company).count == 5)
        #expect(store.readers.openCount == 0)
    }

    @Test func readersSkipPragmasThatWriteTheFile() throws {
        // `user_version` writes the file: the store's own connection wrote it, readers can't.
        let (company, store) = try fixture(options: [NSSQLitePragmasOption: ["user_version": "7"]])
        #expect(try salaries(company) == ["Ann": 100, "Bob": 200, "Cid": 300, "Dee": 400, "Eve": 50])
        #expect(store.readers.isOpen)
        #expect(store.readers.openCount == 1)
        let version = try store.readers.withReader { reader in
            try reader.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        }
        #expect(version == 7)
    }

    @Test func aReaderThatCantOpenClosesThePool() {
        struct Refused: Error {}
        let pool = SQLiteReaderPool()
        #expect(pool.withReader { _ in 1 } == nil, "a pool that was never started gives no reader")
        pool.start(capacity: 2) { throw Refused() }
        #expect(pool.isOpen)
        #expect(pool.withReader { _ in 1 } == nil)
        #expect(!pool.isOpen, "the next fetch reads on the store's own connection without trying again")
        #expect(pool.openCount == 0)
    }

    /// `NSPersistentStoreConnectionPoolMaxSizeKey` bounds the readers: fetches past it wait for
    /// one to come back instead of opening more.
    @Test func concurrentFetchesNeverOpenMoreReadersThanTheCapacity() {
        let pool = SQLiteReaderPool()
        let opens = Locked(0), busy = Locked((now: 0, most: 0)), ran = Locked(0)
        pool.start(capacity: 2) {
            opens.withLock { $0 += 1 }
            return try DatabaseQueue()
        }
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let value = pool.withReader { reader -> Int? in
                busy.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                defer { busy.withLock { $0.now -= 1 } }
                return try? reader.inDatabase { db in try Int.fetchOne(db, sql: "SELECT 1") }
            }
            if value == 1 { ran.withLock { $0 += 1 } }
        }
        #expect(ran.withLock { $0 } == 16, "every fetch got a reader")
        #expect(opens.withLock { $0 } <= 2)
        #expect(busy.withLock { $0.most } <= 2)
        #expect(pool.openCount == opens.withLock { $0 })
    }

    @Test func readersApplyTheStoresPragmas() throws {
        let (company, store) = try fixture(options: [NSSQLitePragmasOption: ["cache_size": "-512"]])
        let size = try withExtendedLifetime(company) {
            try store.readers.withReader { reader in
                try reader.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
            }
        }
        #expect(size == -512)
    }

    @Test func removingTheStoreClosesItsReaders() throws {
        let (company, store) = try fixture()
        _ = try salaries(company)
        #expect(store.readers.openCount == 1)
        try company.coordinator.remove(store)
        #expect(!store.readers.isOpen)
        #expect(store.readers.openCount == 0)
        let none = store.readers.withReader { _ in 1 }
        #expect(none == nil, "a closed pool gives no reader")
    }

    /// The row cache keeps rows a fetch read outside the lock only if no save wrote it meanwhile:
    /// a save's newer row (or a deletion) is never replaced by an older one.
    @Test func rowsReadWhileASaveWroteTheCacheAreNotCached() throws {
        let (company, store) = try fixture()
        let cache = store.rowCache
        cache.removeAll()
        let ann = try company.coordinator.permanentObjectIDs(for: [(company.entity("Employee"), store)])[0]
        let before = cache.writeCount
        // A save that updated Ann from version 1: cached at version 2.
        cache.insertSaved(inserted: [], updated: [ObjectSnapshot(objectID: ann, values: ["name": "Ann"], version: 1)])
        #expect(!cache.insert(contentsOf: [ObjectSnapshot(objectID: ann, values: ["name": "Old"], version: 1)], ifNoWritesSince: before))
        #expect(cache.lookUp([ann]).found.first?.version == 2)

        let afterSave = cache.writeCount
        cache.remove([ann])
        #expect(!cache.insert(contentsOf: [ObjectSnapshot(objectID: ann, version: 1)], ifNoWritesSince: afterSave))
        #expect(!cache.contains(ann), "a deleted row is not cached again")

        let quiet = cache.writeCount
        #expect(cache.insert(contentsOf: [ObjectSnapshot(objectID: ann, version: 3)], ifNoWritesSince: quiet))
        #expect(cache.lookUp([ann]).found.first?.version == 3)
    }

    /// One context saves Ann's salary over and over while another fetches every employee in a
    /// loop (on a reader, filling the row cache). However the two interleave, the row cache ends
    /// with the last save's row: a fault fired from it afterwards reads the final salary.
    @Test func fetchesDuringSavesLeaveTheCacheWithTheLastSave() throws {
        let (company, store) = try fixture()
        let saves = 200
        let writer = context(company), reader = context(company)
        let errors = ErrorList()
        let done = DispatchGroup(), writing = DispatchGroup()
        done.enter()
        writing.enter()
        writer.perform {
            defer { writing.leave(); done.leave() }
            do {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
                request.predicate = NSPredicate(format: "name == 'Ann'")
                for _ in 0..<saves {
                    let ann = try #require(try writer.fetch(request).first)
                    ann.setValue((ann.value(forKey: "salary") as? Int64 ?? 0) + 1, forKey: "salary")
                    try writer.save()
                }
            } catch {
                errors.append(error)
            }
        }
        done.enter()
        reader.perform {
            defer { done.leave() }
            do {
                repeat {
                    reader.reset()
                    _ = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee"))
                } while writing.wait(timeout: .now()) == .timedOut
            } catch {
                errors.append(error)
            }
        }
        done.wait()
        #expect(errors.all.isEmpty, "\(errors.all)")

        let annID = try #require(try writer.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            request.predicate = NSPredicate(format: "name == 'Ann'")
            return try writer.fetch(request).first?.objectID
        })
        let found = store.rowCache.lookUp([annID]).found
        #expect(found.count == 1)
        let fresh = context(company)
        let salary = fresh.performAndWait { fresh.object(with: annID).value(forKey: "salary") as? Int64 }
        #expect(salary == 100 + Int64(saves))
    }

    /// Two contexts on two threads, each running transactions (fetch its own employees, raise
    /// their salaries, save), as W7 does: no save conflicts and none is lost.
    @Test func twoContextsFetchingAndSavingAtOnceLoseNothing() throws {
        let (company, _) = try fixture()
        let transactions = 100
        let groups = [["Ann", "Bob", "Cid"], ["Dee", "Eve"]]
        let errors = ErrorList()
        let done = DispatchGroup()
        for names in groups {
            let context = context(company)
            done.enter()
            context.perform {
                defer { done.leave() }
                do {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
                    request.predicate = NSPredicate(format: "name IN %@", names)
                    for _ in 0..<transactions {
                        context.reset()
                        for employee in try context.fetch(request) {
                            employee.setValue((employee.value(forKey: "salary") as? Int64 ?? 0) + 1, forKey: "salary")
                        }
                        try context.save()
                    }
                } catch {
                    errors.append(error)
                }
            }
        }
        done.wait()
        #expect(errors.all.isEmpty, "\(errors.all)")
        let raise = Int64(transactions)
        #expect(try salaries(company) == ["Ann": 100 + raise, "Bob": 200 + raise, "Cid": 300 + raise, "Dee": 400 + raise, "Eve": 50 + raise])
    }
}
