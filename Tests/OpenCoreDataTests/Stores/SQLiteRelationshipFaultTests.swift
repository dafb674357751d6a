import Foundation
import Testing
@testable import OpenCoreData

/// To-many relationship faults over the SQLite store: loading an object reads no relationship;
/// the first read or change of a to-many reads it with one statement.
@Suite struct SQLiteRelationshipFaultTests {
    @Test func loadingAnObjectReadsNoToMany() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let request = fixture.request("Department")
        request.returnsObjectsAsFaults = false
        let (departments, fetchStatements) = try fixture.selects { try context.fetch(request) }
        #expect(fetchStatements.count == 1)
        #expect(departments.map { $0.value(forKey: "name") as? String } == ["Empty", "Sales", "Tech"])
        #expect(departments.allSatisfy { !$0.isFault && $0.hasFault(forRelationshipNamed: "employees") })

        let sales = departments[1]
        let (names, readStatements) = fixture.selects {
            ((sales.value(forKey: "employees") as? Set<NSManagedObject>) ?? []).compactMap { $0.objectID.primaryKey }.count
        }
        #expect(names == 3)
        #expect(readStatements.count == 1)
        #expect(!sales.hasFault(forRelationshipNamed: "employees"))
        #expect(fixture.selects { _ = sales.value(forKey: "employees") }.statements.isEmpty)
    }

    @Test func changingAFaultedToManyKeepsInversesAndSaves() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        context.undoManager = UndoManager()
        let departments = try context.fetch(fixture.request("Department"))
        let (sales, tech) = (departments[1], departments[2])
        let ann = try #require(try context.fetch(fixture.request("Employee")).first { $0.value(forKey: "name") as? String == "Ann" })
        #expect(tech.hasFault(forRelationshipNamed: "employees"))
        ann.setValue(tech, forKey: "department")
        #expect((tech.value(forKey: "employees") as? Set<NSManagedObject>)?.count == 3)
        #expect((sales.value(forKey: "employees") as? Set<NSManagedObject>)?.contains(ann) == false)
        #expect(!sales.changedValues().isEmpty)
        context.undo()
        #expect((sales.value(forKey: "employees") as? Set<NSManagedObject>)?.contains(ann) == true)
        #expect((tech.value(forKey: "employees") as? Set<NSManagedObject>)?.count == 2)
        context.redo()
        try context.save()

        let other = fixture.context()
        let techAgain = try #require(try other.fetch(fixture.request("Department")).last)
        let names = ((techAgain.value(forKey: "employees") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }
        #expect(names.sorted() == ["Ann", "Dee", "Eve"])
    }

    @Test func anUnreadToManyIsNotAChange() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let departments = try context.fetch(fixture.request("Department"))
        try #require(departments.count == 3)
        let sales = departments[1]
        sales.setValue(2000.0, forKey: "budget")
        #expect(Set(sales.changedValues().keys) == ["budget"])
        #expect(sales.hasFault(forRelationshipNamed: "employees"))
        try context.save()
        #expect((sales.value(forKey: "employees") as? Set<NSManagedObject>)?.count == 3)
    }
}
