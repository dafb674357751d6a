import Foundation
import Testing
@testable import OpenCoreData

/// Reading rows by primary key (what firing a batch of faults asks the SQLite store for):
/// consecutive keys are one range, other keys `IN (…)` chunks, each key once; rows come back
/// under the IDs asked for when their entity is the ID's.
@Suite struct SQLiteKeyReadTests {
    /// A store with `count` employees in one department, their IDs in key order.
    private func employees(_ count: Int) throws -> (SQLiteStatementFixture, [NSManagedObjectID]) {
        let fixture = try SQLiteStatementFixture(standardData: false)
        try fixture.company.insertDepartment("Big", budget: 1, employees: (0..<count).map { ("E\($0)", Int64($0)) })
        let ids = try fixture.company.snapshots(fixture.company.request("Employee")).map(\.objectID)
            .sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
        fixture.forgetCachedRows()
        return (fixture, ids)
    }

    @Test func consecutiveKeysAreOneRangeUnderTheGivenIDs() throws {
        let (fixture, ids) = try employees(700)
        var generator = SeededGenerator(state: 13)
        let asked = ids.shuffled(using: &generator)
        let (read, statements) = try fixture.selects { try fixture.store.snapshots(for: asked) }
        #expect(statements.count == 1)
        #expect(statements.allSatisfy { $0.contains("BETWEEN") }, "700 consecutive keys, more than one IN list holds")
        #expect(Set(read.map(\.objectID)) == Set(ids))
        let askedByKey = Dictionary(uniqueKeysWithValues: asked.map { ($0.primaryKey ?? 0, $0) })
        #expect(read.allSatisfy { $0.objectID === askedByKey[$0.objectID.primaryKey ?? 0] }, "no new IDs for the faults' rows")
        #expect(Set(read.compactMap { $0["name"] as? String }) == Set((0..<700).map { "E\($0)" }))
    }

    @Test func scatteredKeysAreInListsAndDuplicatesAreReadOnce() throws {
        let (fixture, ids) = try employees(40)
        let asked = [ids[30], ids[2], ids[9], ids[2], ids[17], ids[30]]
        let (read, statements) = try fixture.selects { try fixture.store.snapshots(for: asked) }
        #expect(statements.count == 1)
        #expect(statements.allSatisfy { $0.contains("Z_PK IN (?, ?, ?, ?)") })
        // `Employee` has a subentity, so the store answers each ID asked for, in that order.
        #expect(read.map(\.objectID) == asked)
        #expect(read.map { $0["name"] as? String } == ["E30", "E2", "E9", "E2", "E17", "E30"])
    }

    @Test func aKeyWithNoRowIsLeftOutOfARange() throws {
        let (fixture, ids) = try employees(10)
        let context = fixture.context()
        context.delete(try context.existingObject(with: ids[4]))
        try context.save()
        fixture.forgetCachedRows()
        let read = try fixture.store.snapshots(for: ids)
        #expect(read.map(\.objectID) == ids.filter { $0 != ids[4] })
    }

    /// An ID of the superentity naming a subentity's row is answered with the row's own ID (a
    /// `Manager`), not the one asked for.
    @Test func aSubentityRowGetsAnIDOfItsEntity() throws {
        let fixture = try SQLiteStatementFixture()
        let bob = try #require(try fixture.company.snapshots(fixture.company.request("Manager")).first?.objectID)
        let asEmployee = NSManagedObjectID(entity: fixture.company.entity("Employee"), store: fixture.store,
                                           primaryKey: try #require(bob.primaryKey))
        fixture.forgetCachedRows()
        let read = try fixture.store.snapshots(for: [asEmployee])
        #expect(read.count == 1)
        #expect(read.first?.objectID.entity.name == "Manager")
        #expect(read.first?.objectID == bob)
        #expect(read.first?["name"] as? String == "Bob")
    }

    /// IDs of two entities of one table in alternating runs are all read (the table's runs
    /// joined), and so is an ID made by another store object with this store's identifier (no
    /// shared origin); an ID of another store is not.
    @Test func runsOfTwoEntitiesAndIDsOfAnEqualStoreAreRead() throws {
        let fixture = try SQLiteStatementFixture()
        let all = try fixture.company.snapshots(fixture.company.request("Employee")).map(\.objectID)
            .sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
        let managers = all.filter { $0.entity.name == "Manager" }, plain = all.filter { $0.entity.name == "Employee" }
        try #require(!managers.isEmpty && plain.count >= 3)
        let twin = NSPersistentStore(type: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        twin.identifier = fixture.store.identifier
        let other = NSPersistentStore(type: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let viaTwin = NSManagedObjectID(entity: plain[2].entity, store: twin, primaryKey: try #require(plain[2].primaryKey))
        let ofOther = NSManagedObjectID(entity: plain[1].entity, store: other, primaryKey: try #require(plain[1].primaryKey))
        fixture.forgetCachedRows()
        let asked = [plain[0], managers[0], plain[1], ofOther, viaTwin]
        let read = try withExtendedLifetime((twin, other)) { try fixture.store.snapshots(for: asked) }
        #expect(read.map(\.objectID) == [plain[0], managers[0], plain[1], plain[2]])
        #expect(read.allSatisfy { $0["name"] is String })
    }

    /// A batched fetch's IDs, read without their rows, name each row's own entity where the
    /// entities of one table change from row to row.
    @Test func idsOfABatchedFetchNameEachRowsEntity() throws {
        let fixture = try SQLiteStatementFixture()
        let expected = try fixture.company.snapshots(fixture.company.request("Employee")).map(\.objectID)
            .sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
        try #require(Set(expected.map(\.entity.name)).count == 2, "employees and managers")
        let request = fixture.request("Employee", sortedBy: nil)
        request.fetchBatchSize = 2
        let results = try fixture.context().fetch(request)
        #expect(results.map(\.objectID) == expected)
        #expect(results.map(\.objectID.entity.name) == expected.map(\.entity.name))
        #expect(results.map(\.entity.name) == expected.map(\.entity.name))
    }

    /// Walking a batched fetch of a whole table in key order loads each batch with one range,
    /// but a batch no larger than a batch of faults with an `IN` list.
    @Test func aBatchedWalkReadsRanges() throws {
        let (fixture, ids) = try employees(550)
        let context = fixture.context()
        let request = fixture.request("Employee", sortedBy: nil)
        request.fetchBatchSize = 250
        let results = try context.fetch(request)
        #expect(results.map(\.objectID) == ids)
        let (names, statements) = fixture.selects { results.compactMap { $0.value(forKey: "name") as? String } }
        #expect(names == (0..<550).map { "E\($0)" })
        #expect(statements.count == 3)
        #expect(statements.prefix(2).allSatisfy { $0.contains("Z_PK BETWEEN ? AND ?") })
        #expect(statements.last?.contains("Z_PK IN (") == true, "the last 50")
    }

    /// Consecutive rows naming the same to-one destination share its ID; each row's destination
    /// is still its own.
    @Test func rowsWithOneDestinationShareItsID() throws {
        let fixture = try SQLiteStatementFixture(standardData: false)
        let (big, _) = try fixture.company.insertDepartment("Big", budget: 1, employees: (0..<20).map { ("B\($0)", Int64($0)) })
        let (small, _) = try fixture.company.insertDepartment("Small", budget: 1, employees: (0..<3).map { ("S\($0)", Int64($0)) })
        fixture.forgetCachedRows()
        let rows = try fixture.company.snapshots(fixture.company.request("Employee", sort: [("name", true)]))
        #expect(rows.count == 23)
        for row in rows {
            let department = try #require(row["department"] as? NSManagedObjectID)
            let name = try #require(row["name"] as? String)
            #expect(department == (name.hasPrefix("B") ? big : small))
        }
        let bigIDs = rows.compactMap { $0["department"] as? NSManagedObjectID }.filter { $0 == big }
        #expect(bigIDs.count == 20)
        #expect(bigIDs.allSatisfy { $0 === bigIDs[0] }, "one ID for the Big rows read in a run")
    }
}
