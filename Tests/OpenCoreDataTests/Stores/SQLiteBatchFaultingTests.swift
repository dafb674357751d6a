import Foundation
import Testing
@testable import OpenCoreData

/// Batch faulting: firing a fault whose row is not cached loads a batch of the context's unfired
/// faults of the same entity with one statement.
@Suite struct SQLiteBatchFaultingTests {
    @Test func oneStatementPerBatch() throws {
        let fixture = try SQLiteStatementFixture(standardData: false)
        let count = BatchFaulting.defaultBatchSize + BatchFaulting.defaultBatchSize / 2
        try fixture.company.insertDepartment("Big", budget: 1, employees: (0..<count).map { ("E\($0)", Int64($0)) })
        fixture.forgetCachedRows()
        let context = fixture.context()
        let big = try #require(try context.fetch(fixture.request("Department")).first)
        let (employees, relationship) = fixture.selects { (big.value(forKey: "employees") as? Set<NSManagedObject>) ?? [] }
        #expect(relationship.count == 1, "the department's row came with the fetch; its to-many is one statement")
        #expect(employees.count == count && employees.allSatisfy(\.isFault))

        let (total, firing) = fixture.selects { employees.reduce(Int64(0)) { $0 + ($1.value(forKey: "salary") as? Int64 ?? 0) } }
        #expect(total == Int64(count * (count - 1) / 2))
        #expect(firing.count == 2, "\(count) faults fire in batches of \(BatchFaulting.defaultBatchSize)")
        #expect(firing.allSatisfy { $0.contains("Z_PK IN") })
        #expect(employees.allSatisfy { !$0.isFault })
    }

    @Test func fetchedFaultsFireFromTheirRowsAndFaultsWithoutRowsInBatches() throws {
        let fixture = try SQLiteStatementFixture(standardData: false)
        let count = BatchFaulting.defaultBatchSize + 10
        try fixture.company.insertDepartment("Big", budget: 1, employees: (0..<count).map { ("E\($0)", Int64($0)) })
        fixture.forgetCachedRows()

        // With their rows (the default), the faults fire without a statement, whatever their number.
        let withRows = fixture.context()
        let fetched = try withRows.fetch(fixture.request("Employee"))
        #expect(fetched.count == count && fetched.allSatisfy(\.isFault))
        #expect(fixture.selects { fetched.map { $0.value(forKey: "salary") as? Int64 } }.statements.isEmpty)

        // Without them, the faults are batch-faulting candidates: they fire in batches.
        fixture.forgetCachedRows()
        let withoutRows = fixture.context()
        let request = fixture.request("Employee")
        request.includesPropertyValues = false
        let faults = try withoutRows.fetch(request)
        fixture.forgetCachedRows()   // whatever the fetch read
        let (salaries, statements) = fixture.selects { faults.compactMap { $0.value(forKey: "salary") as? Int64 } }
        #expect(salaries.count == count)
        #expect(statements.count == 2, "\(count) faults fire in batches of \(BatchFaulting.defaultBatchSize)")
    }

    @Test func refetchingRefreshesLoadedObjectsOnlyWhenAsked() throws {
        let fixture = try SQLiteStatementFixture()
        let reader = fixture.context()
        let loaded = try reader.fetch(fixture.request("Employee"))
        let salaries = loaded.map { $0.value(forKey: "salary") as? Int64 }
        // Another context raises every salary and saves.
        let writer = fixture.context()
        for employee in try writer.fetch(fixture.request("Employee")) {
            employee.setValue((employee.value(forKey: "salary") as? Int64 ?? 0) + 1000, forKey: "salary")
        }
        try writer.save()
        // One of the reader's objects has an unsaved change of its own.
        loaded[0].setValue("Changed", forKey: "name")

        // A plain refetch keeps the loaded objects' values.
        _ = try reader.fetch(fixture.request("Employee"))
        #expect(loaded.map { $0.value(forKey: "salary") as? Int64 } == salaries)

        // Asked to refresh, it loads the new rows into unchanged objects; a changed one keeps its values.
        let refreshing = fixture.request("Employee")
        refreshing.shouldRefreshRefetchedObjects = true
        let refetched = try reader.fetch(refreshing)
        #expect(Set(refetched.map(ObjectIdentifier.init)) == Set(loaded.map(ObjectIdentifier.init)), "the same objects")
        #expect(loaded[0].value(forKey: "name") as? String == "Changed")
        #expect(loaded[0].value(forKey: "salary") as? Int64 == salaries[0])
        for (employee, old) in zip(loaded.dropFirst(), salaries.dropFirst()) {
            #expect(employee.value(forKey: "salary") as? Int64 == (old ?? 0) + 1000)
            #expect(!employee.hasChanges && !employee.isFault)
        }
    }

    @Test func aBatchSkipsLoadedObjectsAndOtherEntities() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let ids = try fixture.company.snapshots(fixture.company.request("Employee", sort: [("name", true)])).map(\.objectID)
        let faults = ids.map { context.object(with: $0) }
        _ = context.object(with: try #require(try fixture.company.snapshots(fixture.company.request("Department")).first).objectID)
        fixture.forgetCachedRows()
        // Bob is a Manager: his fault is of another entity, read in a batch of its own.
        let (names, statements) = fixture.selects { faults.compactMap { $0.value(forKey: "name") as? String } }
        #expect(names == ["Ann", "Bob", "Cid", "Dee", "Eve"])
        #expect(statements.count == 2)
        #expect(statements.contains { $0.contains("IN (?, ?, ?, ?)") }, "Ann, Cid, Dee and Eve in one batch")
        #expect(fixture.selects { faults.map { $0.value(forKey: "salary") } }.statements.isEmpty)
    }
}
