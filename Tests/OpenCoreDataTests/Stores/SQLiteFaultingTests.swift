import Foundation
import Testing
@testable import OpenCoreData

@Suite("SQLite faulting building blocks: batch faulting, row cache")
struct SQLiteFaultingTests {
    // MARK: Batch faulting

    private func ids(_ count: Int, entityName: String = "Employee") -> (NSPersistentStore, [NSManagedObjectID], NSEntityDescription) {
        let model = CompanyModel.make()
        let entity = model.entitiesByName[entityName]!
        let store = NSPersistentStore(type: "SQLite", configurationName: nil, at: nil, options: nil)
        return (store, (1...count).map { NSManagedObjectID(entity: entity, store: store, primaryKey: Int64($0)) }, entity)
    }

    @Test("Firing one fault batches other unloaded faults of the same entity and store, bounded")
    func batchOfFaults() {
        let (store, employees, _) = ids(300)
        let model = CompanyModel.make()
        let other = NSManagedObjectID(entity: model.entitiesByName["Department"]!, store: store, primaryKey: 9)
        let elsewhere = NSManagedObjectID(entity: employees[0].entity,
                                          store: NSPersistentStore(type: "SQLite", configurationName: nil, at: nil, options: nil),
                                          primaryKey: 7)
        let loaded: Set<NSManagedObjectID> = [employees[1], employees[2]]
        let batch = BatchFaulting.batch(firing: employees[10], candidates: [other, elsewhere] + employees,
                                        isLoaded: { loaded.contains($0) })
        #expect(batch.count == BatchFaulting.defaultBatchSize)
        #expect(batch.first == employees[10])
        #expect(!batch.contains(other) && !batch.contains(elsewhere))
        #expect(!batch.contains(employees[1]) && !batch.contains(employees[2]))
        #expect(Set(batch).count == batch.count)
        #expect(Array(batch.dropFirst().prefix(3)) == [employees[0], employees[3], employees[4]])
    }

    @Test("A batch of one when the limit is one or nothing else is a fault")
    func batchOfOne() {
        let (_, employees, _) = ids(5)
        #expect(BatchFaulting.batch(firing: employees[0], candidates: employees, limit: 1, isLoaded: { _ in false }) == [employees[0]])
        #expect(BatchFaulting.batch(firing: employees[0], candidates: employees, isLoaded: { _ in true }) == [employees[0]])
    }

    @Test("Z_PK IN lists are chunked under the parameter limit", arguments: [0, 1, 499, 500, 501, 1_234])
    func chunks(count: Int) {
        let keys = (0..<count).map(Int64.init)
        let chunks = BatchFaulting.chunks(keys)
        #expect(chunks.allSatisfy { $0.count <= BatchFaulting.maximumParameters && !$0.isEmpty })
        #expect(chunks.flatMap { $0 } == keys)
        #expect(chunks.count == (count + BatchFaulting.maximumParameters - 1) / BatchFaulting.maximumParameters)
    }

    // MARK: Row cache

    @Test("The row cache answers only for the version it read (Z_OPT), and counts hits")
    func rowCacheVersions() {
        let (_, employees, _) = ids(3)
        let cache = SQLiteRowCache(capacity: 10)
        cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[0], values: ["name": "Ann"], version: 2)])
        #expect(cache.snapshot(for: employees[0], version: 2)?.values["name"] as? String == "Ann")
        #expect(cache.snapshot(for: employees[0], version: 3) == nil)
        #expect(cache.snapshot(for: employees[1], version: 1) == nil)
        #expect(cache.hits == 1 && cache.misses == 2)

        cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[0], values: ["name": "Ann B"], version: 3)])
        #expect(cache.snapshot(for: employees[0], version: 3)?.values["name"] as? String == "Ann B")
        #expect(cache.count == 1)
        cache.remove([employees[0]])
        #expect(cache.lookUp([employees[0]]).found.isEmpty)
    }

    @Test("The row cache is bounded and evicts the oldest rows first")
    func rowCacheBound() {
        let (_, employees, _) = ids(1_000)
        let cache = SQLiteRowCache(capacity: 100)
        for id in employees { cache.insert(contentsOf: [ObjectSnapshot(objectID: id, version: 1)]) }
        #expect(cache.count == 100)
        #expect(!cache.contains(employees[0]))
        #expect(!cache.contains(employees[899]))
        #expect(cache.contains(employees[900]) && cache.contains(employees[999]))
        let (found, missing) = cache.lookUp(employees)
        #expect(found.map(\.objectID) == Array(employees[900...]) && missing == Array(employees[..<900]))
        // Re-inserting an existing row does not grow the cache or evict anything.
        cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[950], version: 2)])
        #expect(cache.count == 100 && cache.contains(employees[900]))
        cache.removeAll()
        #expect(cache.count == 0)
    }

    @Test("Rows of a read before its last `capacity` only replace rows the row cache holds")
    func rowCacheReadPastItsCapacity() {
        let (_, employees, _) = ids(5)
        let cache = SQLiteRowCache(capacity: 3)
        for id in [employees[1], employees[2], employees[0]] { cache.insert(contentsOf: [ObjectSnapshot(objectID: id, version: 1)]) }
        // Employee 0 read newer first (replaced in place), then 1 and 2 (in place) and 3 (new:
        // evicts 1, the oldest).
        cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[0], version: 2)] + employees[1...3].map { ObjectSnapshot(objectID: $0, version: 1) })
        #expect(cache.lookUp([employees[0]]).found.map(\.version) == [2])
        #expect(cache.contains(employees[2]) && cache.contains(employees[3]) && !cache.contains(employees[1]))
        // Employee 4, not cached and before the last three, is left out: added, it would have
        // evicted employee 2, which the read then added again in employee 0's place.
        cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[4], version: 1)]
                     + [employees[0], employees[2], employees[3]].map { ObjectSnapshot(objectID: $0, version: 2) })
        #expect(cache.count == 3 && !cache.contains(employees[4]))
        #expect(cache.lookUp([employees[0], employees[2], employees[3]]).found.map(\.version) == [2, 2, 2])
    }

    @Test("A read older than the row the row cache holds does not replace it")
    func rowCacheKeepsTheNewerRow() {
        let (_, employees, _) = ids(2)
        let cache = SQLiteRowCache(capacity: 10)
        cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[0], values: ["name": "new"], version: 3)])
        // A fetch that read before another process wrote version 3, kept after it.
        #expect(cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[0], values: ["name": "old"], version: 2),
                                          ObjectSnapshot(objectID: employees[1], version: 1)], ifNoWritesSince: cache.writeCount))
        cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[0], values: ["name": "old"], version: 2)])
        #expect(cache.lookUp(employees).found.map { $0["name"] as? String } == ["new", nil])
        #expect(cache.lookUp(employees).found.map(\.version) == [3, 1])
        // The same version replaces: a row read again.
        cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[0], values: ["name": "again"], version: 3)])
        #expect(cache.lookUp([employees[0]]).found.first?["name"] as? String == "again")
    }

    @Test("A save's rows enter the row cache at their new versions, without to-many relationships")
    func rowCacheKeepsSavedRows() {
        let (store, employees, _) = ids(2)
        let department = NSManagedObjectID(entity: CompanyModel.make().entitiesByName["Department"]!, store: store, primaryKey: 1)
        let cache = SQLiteRowCache(capacity: 10)
        cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[1], values: ["name": "Bob"], version: 4)])
        cache.insertSaved(inserted: [ObjectSnapshot(objectID: department, values: ["name": "R&D"], toMany: ["employees": employees])],
                          updated: [ObjectSnapshot(objectID: employees[1], values: ["name": "Bob B"], version: 4)])
        let saved = cache.lookUp([department, employees[1]]).found
        #expect(saved.map(\.version) == [1, 5])
        #expect(saved.map { $0["name"] as? String } == ["R&D", "Bob B"])
        #expect(saved[0].toMany.isEmpty, "rows don't carry to-many relationships")
        #expect(cache.writeCount == 1, "the save is one write")
    }

    @Test("A save of more rows than the row cache holds keeps the last ones and forgets older snapshots of the others")
    func rowCacheKeepsTheLastSavedRows() {
        let (_, employees, _) = ids(10)
        let cache = SQLiteRowCache(capacity: 4)
        for id in employees[..<3] { cache.insert(contentsOf: [ObjectSnapshot(objectID: id, version: 1)]) }
        // Employees 1 and 2 are updated with 3 to 7 inserted: 7 rows, 3 more than the cache holds.
        cache.insertSaved(inserted: employees[3..<8].map { ObjectSnapshot(objectID: $0) },
                          updated: employees[1..<3].map { ObjectSnapshot(objectID: $0, version: 1) })
        #expect(cache.count == 4)
        let (found, missing) = cache.lookUp(employees)
        #expect(found.map(\.objectID) == [employees[1], employees[2], employees[6], employees[7]])
        #expect(found.map(\.version) == [2, 2, 1, 1])
        #expect(missing == [employees[0], employees[3], employees[4], employees[5], employees[8], employees[9]])

        // The older snapshot of a row the save wrote is not kept when the new one is not.
        let small = SQLiteRowCache(capacity: 1)
        small.insert(contentsOf: [ObjectSnapshot(objectID: employees[0], version: 3)])
        small.insertSaved(inserted: [], updated: [ObjectSnapshot(objectID: employees[0], version: 3),
                                                  ObjectSnapshot(objectID: employees[1], version: 1)])
        #expect(!small.contains(employees[0]))
        #expect(small.snapshot(for: employees[1], version: 2) != nil)
    }

    @Test("A row cache look-up splits the IDs into the cached rows and the missing IDs, in order")
    func rowCacheLookUpSplitsInOrder() {
        let (_, employees, _) = ids(6)
        let cache = SQLiteRowCache(capacity: 10)
        for index in [1, 2, 4] { cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[index], version: 1)]) }
        let (found, missing) = cache.lookUp(employees)
        #expect(found.map(\.objectID) == [employees[1], employees[2], employees[4]])
        #expect(missing == [employees[0], employees[3], employees[5]])
        let none = cache.lookUp([employees[0], employees[3]])
        #expect(none.found.isEmpty && none.missing == [employees[0], employees[3]])
        let all = cache.lookUp([employees[4], employees[1]])
        #expect(all.found.map(\.objectID) == [employees[4], employees[1]] && all.missing.isEmpty)
        #expect(cache.hits == 5 && cache.misses == 5)
    }

    @Test("Keeping rows without adding new ones replaces the rows the cache holds and adds no other")
    func rowCacheRefreshAddsNothing() {
        let (_, employees, _) = ids(3)
        let cache = SQLiteRowCache(capacity: 10)
        cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[0], values: ["name": "Ann"], version: 1)], addingNew: false)
        #expect(cache.count == 0, "an empty cache stays empty")

        cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[0], values: ["name": "Ann"], version: 1)])
        cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[0], values: ["name": "Ann B"], version: 2),
                                  ObjectSnapshot(objectID: employees[1], values: ["name": "Bob"], version: 1)], addingNew: false)
        #expect(cache.count == 1)
        #expect(cache.snapshot(for: employees[0], version: 2)?.values["name"] as? String == "Ann B")
        #expect(cache.snapshot(for: employees[0], version: 1) == nil)
        #expect(!cache.contains(employees[1]))
    }

    @Test("A removed row's place stays empty until the ring of the row cache comes round to it")
    func rowCacheRemovalLeavesAPlace() {
        let (_, employees, _) = ids(5)
        let cache = SQLiteRowCache(capacity: 3)
        for id in employees[..<3] { cache.insert(contentsOf: [ObjectSnapshot(objectID: id, version: 1)]) }
        cache.remove([employees[1]])
        #expect(cache.count == 2 && !cache.contains(employees[1]))
        // The ring is full: the next row takes the oldest place (employee 0's), not the empty one.
        cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[3], version: 1)])
        #expect(cache.count == 2 && !cache.contains(employees[0]) && cache.contains(employees[2]))
        // The one after takes the empty place, evicting nothing.
        cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[4], version: 1)])
        #expect(cache.count == 3)
        #expect(cache.lookUp(employees).found.map(\.objectID) == [employees[2], employees[3], employees[4]])
    }

    /// A row whose ID nothing else holds (no object, registry entry, fault or other row) is
    /// forgotten once `keptUnheld` newer rows were cached; a row whose ID is held, also by
    /// another cached row as its to-one destination, stays until the ring comes round to it.
    /// The forgotten rows' places stay empty.
    @Test("The row cache forgets a row no one holds once enough newer rows were cached")
    func rowCacheForgetsUnheldRows() throws {
        let (store, held, entity) = ids(16)
        let cache = SQLiteRowCache(capacity: 40, keptUnheld: 4)
        // Rows 101...110 with IDs only the cache holds, each followed by a held row.
        for index in 0..<10 {
            cache.insert(contentsOf: [ObjectSnapshot(objectID: NSManagedObjectID(entity: entity, store: store, primaryKey: Int64(101 + index)), version: 1)])
            cache.insert(contentsOf: [ObjectSnapshot(objectID: held[index], version: 1)])
        }
        // Each unheld row was forgotten four rows after it: 101...108 are gone; 109 and 110
        // are among the last four rows and stay. Every held row stays.
        let unheld = (101...110).map { NSManagedObjectID(entity: entity, store: store, primaryKey: Int64($0)) }
        // (Read in one expression: snapshots kept in a variable would hold 109 and 110.)
        #expect(cache.lookUp(unheld).found.map(\.objectID) == Array(unheld[8...]))
        #expect(cache.lookUp(Array(held[..<10])).found.count == 10)
        #expect(cache.count == 12)

        // A department only a cached employee row refers to (its `department`) stays.
        let model = CompanyModel.make()
        let departmentEntity = try #require(model.entitiesByName["Department"])
        do {
            let department = NSManagedObjectID(entity: departmentEntity, store: store, primaryKey: 1)
            cache.insert(contentsOf: [ObjectSnapshot(objectID: department, version: 1)])
            cache.insert(contentsOf: [ObjectSnapshot(objectID: held[10], values: ["department": department], version: 1)])
        }
        for index in 11..<16 { cache.insert(contentsOf: [ObjectSnapshot(objectID: held[index], version: 1)]) }
        let department = NSManagedObjectID(entity: departmentEntity, store: store, primaryKey: 1)
        #expect(cache.contains(department), "the employee row's destination is held")
        #expect(cache.lookUp(unheld).found.isEmpty, "109 and 110 went as the newer rows came")
        #expect(cache.count == 17)
    }

    /// The ring and its index against a plain model of them, over a long run of insertions,
    /// re-insertions and removals: every key the model holds is found at its latest version, and
    /// no other. (Evictions leave removed buckets in the index and rebuild it: a key lost or kept
    /// in either would show.)
    @Test("The row cache's index stays consistent with its ring under churn")
    func rowCacheChurn() {
        let (_, employees, _) = ids(64)
        let capacity = 16
        let cache = SQLiteRowCache(capacity: capacity)
        var ring: [Int?] = []
        var next = 0
        var versions: [Int: Int64] = [:]
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        for step in 0..<5_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let employee = Int(seed >> 33) % employees.count
            if seed & 0xF == 0 {
                cache.remove([employees[employee]])
                if let place = ring.firstIndex(of: employee) { ring[place] = nil }
                versions[employee] = nil
            } else {
                let version = Int64(step)
                cache.insert(contentsOf: [ObjectSnapshot(objectID: employees[employee], version: version)])
                if versions[employee] == nil {
                    if ring.count < capacity {
                        ring.append(employee)
                    } else {
                        if let evicted = ring[next] { versions[evicted] = nil }
                        ring[next] = employee
                        next = (next + 1) % capacity
                    }
                }
                versions[employee] = version
            }
        }
        #expect(cache.count == versions.count)
        let (found, missing) = cache.lookUp(employees)
        #expect(Set(found.map(\.objectID)) == Set(versions.keys.map { employees[$0] }))
        #expect(missing.count == employees.count - versions.count)
        for snapshot in found {
            let employee = employees.firstIndex(of: snapshot.objectID) ?? -1
            #expect(snapshot.version == versions[employee], "employee \(employee)")
        }
    }
}
