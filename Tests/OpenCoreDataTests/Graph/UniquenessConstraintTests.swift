import Foundation
import Testing
@testable import OpenCoreData

@Suite("Uniqueness constraints at save")
struct UniquenessConstraintTests {
    /// The conflicts of a save that failed with 133021.
    private func constraintConflicts(_ body: () throws -> Void) -> [NSConstraintConflict]? {
        do {
            try body()
            return nil
        } catch let error as NSError {
            guard error.domain == NSCocoaErrorDomain, error.code == NSManagedObjectConstraintMergeError else {
                Issue.record("expected 133021, got \(error)")
                return nil
            }
            return error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict]
        }
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func aDuplicateOfAStoredRowFailsWithTheStoredObject(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        s.insert("Tag", ["name": "swift", "note": "first"])
        try s.save()
        s.insert("Tag", ["name": "swift", "note": "second"])
        s.insert("Tag", ["name": "linux"])
        let conflicts = try #require(constraintConflicts { try s.save() })
        #expect(conflicts.count == 1)
        let conflict = try #require(conflicts.first)
        #expect(conflict.constraint == ["name"])
        #expect(conflict.constraintValues["name"] as? String == "swift")
        #expect(s.context.performAndWait { conflict.databaseObject?.value(forKey: "note") as? String } == "first")
        #expect(conflict.databaseSnapshot?["note"] as? String == "first")
        #expect(conflict.conflictingObjects.count == 1)
        #expect(conflict.conflictingSnapshots.first?["note"] as? String == "second")
        // Nothing was written, and the context keeps its changes.
        #expect(try s.stored("Tag", "name") == ["swift"])
        #expect(s.context.performAndWait { s.context.insertedObjects.count } == 2)
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func duplicatesInOneSaveConflictWithEachOther(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let a = s.insert("Person", ["email": "a@x", "company": "X", "nick": "one"])
        let b = s.insert("Staff", ["email": "a@x", "company": "X", "nick": "two"])  // subentity: same scope
        s.insert("Person", ["email": "a@x", "company": "Y"])                        // another company: fine
        s.insert("Person", ["email": "a@x"])                                         // nil company: never conflicts
        s.insert("Person", ["email": "a@x"])
        let conflicts = try #require(constraintConflicts { try s.save() })
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.databaseObject == nil)
        #expect(conflicts.first.map { Set($0.conflictingObjects.map(ObjectIdentifier.init)) } == [ObjectIdentifier(a), ObjectIdentifier(b)])
        #expect(try s.stored("Person", "email").isEmpty)
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func anUpdateOntoAStoredValueConflictsAndASwapThroughDeletionDoesNot(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let swift = s.insert("Tag", ["name": "swift"])
        let linux = s.insert("Tag", ["name": "linux"])
        try s.save()
        s.context.performAndWait { linux.setValue("swift", forKey: "name") }
        #expect(constraintConflicts { try s.save() }?.first?.databaseObject === swift)
        // Deleting the stored holder of the value in the same save frees it.
        s.context.performAndWait { s.context.delete(swift) }
        try s.save()
        #expect(try s.stored("Tag", "name") == ["swift"])
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func objectTrumpUpdatesTheStoredRowInOneSave(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let stored = s.insert("Tag", ["name": "swift", "note": "old", "uses": Int64(1)])
        try s.save()
        let storedID = s.context.performAndWait { stored.objectID }

        // Another context, which never read the row, imports the same tag with a post.
        let importer = CatalogScenario.newContext(on: s.coordinator)
        importer.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        let incoming = s.insert("Tag", ["name": "swift", "note": "new"], in: importer)
        let post = s.insert("Post", ["title": "Hello"], in: importer)
        importer.performAndWait { post.setValue(Set([incoming]), forKey: "tags") }
        try s.save(importer)

        #expect(try s.stored("Tag", "name") == ["swift"])
        let row = try #require(try s.storedObject("Tag", "name == 'swift'"))
        #expect(row["note"] as? String == "new", "the object's changed value wins")
        #expect(row["uses"] as? Int64 == 1, "values the object did not set stay")
        #expect(row["posts"] as? [String] == ["Hello"], "the survivor takes the relationships")
        let survivorID = try s.context.performAndWait {
            try s.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag")).first?.objectID
        }
        #expect(survivorID == storedID, "the stored row is updated in place")
        #expect(importer.performAndWait { !importer.registeredObjects.contains(incoming) && importer.insertedObjects.isEmpty })
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func storeTrumpKeepsTheStoredValues(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        s.insert("Tag", ["name": "swift", "note": "old"])
        try s.save()
        s.context.performAndWait { s.context.mergePolicy = NSMergePolicy.mergeByPropertyStoreTrump }
        s.insert("Tag", ["name": "swift", "note": "new"])
        s.insert("Tag", ["name": "swift", "note": "newer"])
        try s.save()
        #expect(try s.stored("Tag", "note") == ["old"])
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func overwriteTakesEveryValueAndRollbackNone(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        s.insert("Tag", ["name": "a", "note": "old", "uses": Int64(1)])
        s.insert("Tag", ["name": "b", "note": "old", "uses": Int64(1)])
        try s.save()
        // Overwrite: the new object's whole state, its nil `uses` included, replaces the row's.
        s.context.performAndWait { s.context.mergePolicy = NSMergePolicy.overwrite }
        s.insert("Tag", ["name": "a", "note": "new"])
        try s.save()
        let a = try #require(try s.storedObject("Tag", "name == 'a'"))
        #expect(a["note"] as? String == "new" && a["uses"] == nil)
        // Rollback: the stored row keeps its values.
        s.context.performAndWait { s.context.mergePolicy = NSMergePolicy.rollback }
        s.insert("Tag", ["name": "b", "note": "new", "uses": Int64(9)])
        try s.save()
        let b = try #require(try s.storedObject("Tag", "name == 'b'"))
        #expect(b["note"] as? String == "old" && b["uses"] as? Int64 == 1)
        #expect(try s.stored("Tag", "name") == ["a", "b"])
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func objectTrumpAmongNewObjectsKeepsOneWithTheLastValues(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        s.context.performAndWait { s.context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump }
        s.insert("Person", ["email": "a@x", "company": "X", "nick": "one"])
        s.insert("Person", ["email": "a@x", "company": "X", "nick": "two"])
        try s.save()
        #expect(try s.stored("Person", "nick") == ["two"])
    }

    @Test func aCustomPolicySeesTheConflicts() throws {
        final class Recording: NSMergePolicy, @unchecked Sendable {
            var seen: [[String]] = []
            override func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
                seen += list.map(\.constraint)
                try super.resolve(constraintConflicts: list)
            }
        }
        let s = try CatalogScenario(storeType: NSInMemoryStoreType)
        let policy = Recording(merge: .mergeByPropertyStoreTrumpMergePolicyType)
        s.context.performAndWait { s.context.mergePolicy = policy }
        s.insert("Tag", ["name": "a"])
        s.insert("Tag", ["name": "a"])
        try s.save()
        #expect(policy.seen == [["name"]])
        #expect(try s.stored("Tag", "name") == ["a"])
    }

    @Test func theSQLiteIndexRefusesARowWrittenBehindTheContextsBack() throws {
        // A second coordinator writes the value between the check and the write: the store's
        // unique index refuses it, still as 133021.
        let s = try CatalogScenario(storeType: NSSQLiteStoreType)
        let other = NSPersistentStoreCoordinator(managedObjectModel: s.model)
        try other.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: s.store.url, options: nil)
        let tag = try #require(s.model.entitiesByName["Tag"])
        let id = try other.permanentObjectIDs(for: [(tag, nil)])[0]
        try other.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: id, values: ["name": "swift"])]))
        let direct = try s.coordinator.permanentObjectIDs(for: [(tag, nil)])[0]
        #expect(throws: (any Error).self) {
            try s.coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: direct, values: ["name": "swift"])]))
        }
        do {
            try s.coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: direct, values: ["name": "swift"])]))
        } catch let error as NSError {
            #expect(error.code == NSManagedObjectConstraintMergeError)
        }
    }
}
