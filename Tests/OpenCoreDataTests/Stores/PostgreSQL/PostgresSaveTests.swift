import Foundation
import Testing
@testable import OpenCoreData
@testable import OpenCoreDataPostgres

/// Saves on the PostgreSQL store write the updated rows of one entity in one statement (as many
/// as its parameters allow); every row is still guarded by its `Z_OPT`. (What every store does
/// alike at save is in the shared store tests.)
@Suite("PostgreSQL saves", .enabled(if: PostgresTestServer.unavailableReason == nil,
                                    Comment(rawValue: PostgresTestServer.unavailableReason ?? "")))
struct PostgresSaveTests {
    /// More posts than one statement updates: a post binds its 6 columns, `Z_PK` and `Z_OPT`.
    static let postCount = PostgresRowWriter.parameterLimit / 8 + 5

    private func scenarioWithPosts() throws -> CatalogScenario {
        PostgresStore.registerStoreClass()
        let s = try CatalogScenario(storeType: NSPostgreSQLStoreType)
        for index in 0..<Self.postCount { s.insert("Post", ["title": "p\(index)", "views": Int64(index)]) }
        try s.save()
        return s
    }

    private func posts(in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Post")
            request.sortDescriptors = [NSSortDescriptor(key: "views", ascending: true)]
            return try context.fetch(request)
        }
    }

    private func storedViews(_ s: CatalogScenario) throws -> [Int64] {
        let fresh = CatalogScenario.newContext(on: s.coordinator)
        return try posts(in: fresh).map { ($0.value(forKey: "views") as? Int64) ?? -1 }
    }

    @Test func conflictsInEveryStatementOfAnUpdateAreReportedTogetherAndNothingIsWritten() throws {
        let s = try scenarioWithPosts()
        let mine = try posts(in: s.context)
        try #require(mine.count == Self.postCount)
        // Another context changes one post in the first statement's rows and one in the last's.
        let other = CatalogScenario.newContext(on: s.coordinator)
        let theirs = try posts(in: other)
        let changed = [theirs[3].objectID, theirs[Self.postCount - 2].objectID]
        try other.performAndWait {
            for id in changed { other.object(with: id).setValue("theirs", forKey: "title") }
            try other.save()
        }

        let error = try s.context.performAndWait {
            for post in mine { post.setValue(((post.value(forKey: "views") as? Int64) ?? 0) + 1_000_000, forKey: "views") }
            return try #require(throws: NSError.self) { try s.context.save() }
        }
        #expect(error.code == NSManagedObjectMergeError)
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        #expect(Set(conflicts.map(\.sourceObjectID)) == Set(changed))
        #expect(try storedViews(s) == (0..<Int64(Self.postCount)).map { $0 }, "the refused save wrote no row")

        // Resolved by property, the save writes every row of every statement.
        try s.context.performAndWait {
            s.context.mergePolicy = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
            try s.context.save()
        }
        #expect(try storedViews(s) == (0..<Int64(Self.postCount)).map { $0 + 1_000_000 })
        #expect(try s.stored("Post", "title", "title == 'theirs'").count == 2, "their change to another property stays")
    }

    @Test func updatesOfAnEntityAndItsSubentityInOneTableKeepTheirOwnColumns() throws {
        PostgresStore.registerStoreClass()
        let s = try CatalogScenario(storeType: NSPostgreSQLStoreType)
        let person = s.insert("Person", ["email": "p@x", "company": "c", "nick": "p"])
        let staff = s.insert("Staff", ["email": "s@x", "company": "c", "nick": "s", "level": Int16(2)])
        try s.save()
        try s.context.performAndWait {
            person.setValue("person", forKey: "nick")
            staff.setValue("staff", forKey: "nick")
            staff.setValue(Int16(3), forKey: "level")
            try s.context.save()
        }
        #expect(try s.stored("Person", "nick") == ["person", "staff"])
        #expect((try s.storedObject("Staff", "TRUEPREDICATE")?["level"] as? NSNumber)?.intValue == 3)
    }

    /// An entity with one attribute of every type the value coding tests cover, and a
    /// transformable.
    private static func everyTypeModel() -> NSManagedObjectModel {
        let entity = NSEntityDescription()
        entity.name = "Every"
        entity.properties = PostgresValueCodingTests.cases.indices.map { GraphTestModel.attribute("a\($0)", PostgresValueCodingTests.cases[$0].0) }
            + [GraphTestModel.attribute("blob", .transformableAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        return model
    }

    /// The stored values of the one `Every` object, read by a new coordinator.
    private func storedEvery(_ url: URL) throws -> [String] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.everyTypeModel())
        try coordinator.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: url, options: nil)
        let context = CatalogScenario.newContext(on: coordinator)
        return try context.performAndWait {
            let object = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Every")).first)
            return PostgresValueCodingTests.cases.indices.map { PostgresValueCodingTests.describe(object.value(forKey: "a\($0)")) }
                + ["\((object.value(forKey: "blob") as? [String]) ?? [])"]
        }
    }

    /// Updated values are cast to their columns' types in the statement's `VALUES` list: every
    /// type, and NULL, reads back equal.
    @Test func updatesOfEveryAttributeTypeReadBackEqual() throws {
        PostgresStore.registerStoreClass()
        let url = try PostgresRemoteChangeTests.freshURL()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.everyTypeModel())
        try coordinator.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: url, options: nil)
        let context = CatalogScenario.newContext(on: coordinator)
        // Text can't hold NUL in PostgreSQL.
        let values = PostgresValueCodingTests.cases.map { $0.1.filter { ($0 as? String)?.contains("\u{0}") != true } }
        let object = try context.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Every", into: context)
            for (index, list) in values.enumerated() { object.setValue(list[0], forKey: "a\(index)") }
            object.setValue(["a"], forKey: "blob")
            try context.save()
            return object
        }
        for round in [1, -1] {
            let expected = try context.performAndWait {
                for (index, list) in values.enumerated() {
                    object.setValue(round < 0 ? nil : list[round % list.count], forKey: "a\(index)")
                }
                object.setValue(round < 0 ? nil : ["b", "c"], forKey: "blob")
                try context.save()
                return values.indices.map { PostgresValueCodingTests.describe(object.value(forKey: "a\($0)")) }
                    + ["\((object.value(forKey: "blob") as? [String]) ?? [])"]
            }
            #expect(try storedEvery(url) == expected)
            #expect(round < 0 || expected.filter { $0 == "nil" }.isEmpty, "every value set")
        }
    }
}
