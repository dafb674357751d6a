import Foundation
import Testing
@testable import OpenCoreData

@Suite("Batch insert, update and delete requests")
struct BatchRequestTests {
    private func execute(_ s: CatalogScenario, _ request: NSPersistentStoreRequest) throws -> Any? {
        try s.context.performAndWait {
            let result = try s.context.execute(request)
            switch result {
            case let insert as NSBatchInsertResult: return insert.result
            case let update as NSBatchUpdateResult: return update.result
            case let delete as NSBatchDeleteResult: return delete.result
            default: return nil
            }
        }
    }

    private func code(_ body: () throws -> Any?) -> Int? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as NSError).code
        }
    }

    // MARK: Insert

    @Test(arguments: StoreTypesUnderTest.all)
    func batchInsertWritesRowsAndReportsThem(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let created = Date(timeIntervalSinceReferenceDate: 1_000)
        let insert = NSBatchInsertRequest(entityName: "Post", objects: [
            ["title": "One", "views": 1, "score": 1.5, "published": true, "created": created, "longDescriptionText": "long"],
            ["title": "Two", "views": Int64(2)],
            ["title": "Three", "views": NSNumber(value: 3)],
        ])
        insert.resultType = .objectIDs
        let ids = try #require(try execute(s, insert) as? [NSManagedObjectID])
        #expect(ids.count == 3 && ids.allSatisfy { !$0.isTemporaryID && $0.entity.name == "Post" })
        #expect(try s.stored("Post", "title") == ["One", "Three", "Two"])
        let one = try #require(try s.storedObject("Post", "title == 'One'"))
        #expect(one["views"] as? Int64 == 1 && one["score"] as? Double == 1.5 && one["published"] as? Bool == true)
        #expect(one["created"] as? Date == created)
        #expect(one["longDescriptionText"] as? String == "long")
        #expect(try s.stored("Post", "views") == ["1", "2", "3"], "integers of any Swift type are stored as Int64")

        let counted = NSBatchInsertRequest(entityName: "Post", objects: [["title": "Four"]])
        counted.resultType = .count
        #expect(try execute(s, counted) as? Int == 1)
        #expect(try execute(s, NSBatchInsertRequest(entityName: "Post", objects: [["title": "Five"]])) as? Bool == true)
        #expect(try s.stored("Post", "title").count == 5)
        // The IDs name the objects: a context reads them.
        let title = try s.context.performAndWait { try s.context.existingObject(with: ids[1]).value(forKey: "title") as? String }
        #expect(title == "Two")
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func batchInsertUpsertsOnUniquenessConstraints(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let stored = s.insert("Tag", ["name": "swift", "note": "old", "uses": Int64(1)])
        try s.save()
        let storedID = s.context.performAndWait { stored.objectID }
        let insert = NSBatchInsertRequest(entityName: "Tag", objects: [
            ["name": "swift", "note": "new"],
            ["name": "go", "uses": 1],
            ["name": "go", "uses": 3],
        ])
        insert.resultType = .objectIDs
        let ids = try #require(try execute(s, insert) as? [NSManagedObjectID])
        #expect(ids.count == 2)
        #expect(ids.first == storedID, "the stored row is updated in place")
        #expect(try s.stored("Tag", "name") == ["go", "swift"])
        let swift = try #require(try s.storedObject("Tag", "name == 'swift'"))
        #expect(swift["note"] as? String == "new" && swift["uses"] as? Int64 == 1)
        #expect(try s.storedObject("Tag", "name == 'go'")?["uses"] as? Int64 == 3, "a later row of the batch wins")
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func batchInsertHandlersProduceRowsUntilTheyStop(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let entity = try #require(s.model.entitiesByName["Post"])
        var next = 0
        let byDictionary = NSBatchInsertRequest(entity: entity, dictionaryHandler: { row in
            guard next < 3 else { return true }
            row["title"] = "d\(next)"
            row["views"] = next
            next += 1
            return false
        })
        var made = 0
        let byObject = NSBatchInsertRequest(entity: entity, managedObjectHandler: { object in
            guard made < 2 else { return true }
            object.setValue("m\(made)", forKey: "title")
            made += 1
            return false
        })
        byObject.resultType = .count
        _ = try execute(s, byDictionary)
        #expect(try execute(s, byObject) as? Int == 2)
        #expect(try s.stored("Post", "title") == ["d0", "d1", "d2", "m0", "m1"])
        #expect(try s.stored("Post", "views", "title BEGINSWITH 'd'") == ["0", "1", "2"])
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func batchInsertRefusesBadRowsAndWritesNothing(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let wrongType = NSBatchInsertRequest(entityName: "Post", objects: [["title": "ok"], ["title": "bad", "views": "many"]])
        #expect(code { try execute(s, wrongType) } == NSManagedObjectValidationError)
        let unknown = NSBatchInsertRequest(entityName: "Post", objects: [["title": "x", "color": "red"]])
        #expect(code { try execute(s, unknown) } == NSManagedObjectValidationError)
        let relationship = NSBatchInsertRequest(entityName: "Post", objects: [["title": "x", "tags": []]])
        #expect(code { try execute(s, relationship) } == NSManagedObjectValidationError)
        #expect(code { try execute(s, NSBatchInsertRequest(entityName: "Nothing", objects: [[:]])) } == NSCoreDataError)
        #expect(try s.stored("Post", "title").isEmpty)
    }

    // MARK: Update

    @Test(arguments: StoreTypesUnderTest.all)
    func batchUpdateSetsConstantsAndExpressions(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        for (title, views) in [("a", 1), ("b", 5), ("c", 10)] { s.insert("Post", ["title": title, "views": Int64(views)]) }
        try s.save()
        let update = NSBatchUpdateRequest(entityName: "Post")
        update.predicate = NSPredicate(format: "views >= 5")
        update.propertiesToUpdate = ["views": NSExpression(format: "views + 1"), "published": true, "score": NSNull()]
        update.resultType = .updatedObjectsCountResultType
        #expect(try execute(s, update) as? Int == 2)
        #expect(try s.stored("Post", "views") == ["1", "11", "6"])
        #expect(try s.stored("Post", "published", "published == YES").count == 2)

        let ids = NSBatchUpdateRequest(entityName: "Post")
        ids.propertiesToUpdate = ["title": "z"]
        ids.resultType = .updatedObjectIDsResultType
        #expect((try execute(s, ids) as? [NSManagedObjectID])?.count == 3)
        #expect(try s.stored("Post", "title") == ["z", "z", "z"])
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func batchUpdateHonoursSubentitiesAndRefusesRelationships(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        s.insert("Person", ["email": "p", "nick": "n"])
        s.insert("Staff", ["email": "s", "nick": "n"])
        try s.save()
        let update = NSBatchUpdateRequest(entityName: "Person")
        update.includesSubentities = false
        update.propertiesToUpdate = ["nick": "changed"]
        _ = try execute(s, update)
        #expect(try s.stored("Person", "nick") == ["changed", "n"])
        #expect(try s.stored("Staff", "nick") == ["n"])

        let relationship = NSBatchUpdateRequest(entityName: "Post")
        relationship.propertiesToUpdate = ["tags": NSNull()]
        #expect(code { try execute(s, relationship) } == NSCoreDataError)
        let wrongType = NSBatchUpdateRequest(entityName: "Person")
        wrongType.propertiesToUpdate = ["nick": 12]
        #expect(code { try execute(s, wrongType) } == NSManagedObjectValidationError)
        #expect(try s.stored("Person", "nick") == ["changed", "n"])
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func batchUpdateArithmeticKeepsNullsAndRefusesOverflow(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        s.insert("Post", ["title": "a", "views": Int64(2), "score": 1.5])
        s.insert("Post", ["title": "b", "views": Int64(3)])
        s.insert("Staff", ["email": "s", "level": Int16(32_000)])
        s.insert("Staff", ["email": "t", "level": Int16(1)])
        try s.save()
        let arithmetic = NSBatchUpdateRequest(entityName: "Post")
        arithmetic.propertiesToUpdate = ["score": NSExpression(format: "score * views"), "views": NSExpression(format: "views - 1")]
        _ = try execute(s, arithmetic)
        #expect(try s.stored("Post", "score") == ["3.0", "nil"])
        #expect(try s.stored("Post", "views") == ["1", "2"])

        // 32,000 + 1,000 does not fit an Integer 16: nothing is written, not even the row that fits.
        let overflow = NSBatchUpdateRequest(entityName: "Staff")
        overflow.propertiesToUpdate = ["level": NSExpression(format: "level + 1000")]
        #expect(code { try execute(s, overflow) } == NSManagedObjectValidationError)
        #expect(try s.stored("Staff", "level") == ["1", "32000"])
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func aBatchUpdateRaisesVersionsAndMergesIntoContexts(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let post = s.insert("Post", ["title": "a", "views": Int64(1)])
        try s.save()
        let update = NSBatchUpdateRequest(entityName: "Post")
        update.propertiesToUpdate = ["views": Int64(7)]
        update.resultType = .updatedObjectIDsResultType
        let ids = try #require(try execute(s, update) as? [NSManagedObjectID])
        // The context still holds the old value, and saving over it conflicts.
        s.context.performAndWait { post.setValue("b", forKey: "title") }
        #expect(code { try s.save() } == NSManagedObjectMergeError)
        s.context.performAndWait { s.context.rollback() }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [s.context])
        #expect(s.context.performAndWait { post.value(forKey: "views") as? Int64 } == 7)
    }

    // MARK: Delete

    @Test(arguments: StoreTypesUnderTest.all)
    func batchDeleteByFetchAndByIDs(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let posts = (1...5).map { s.insert("Post", ["title": "p\($0)", "views": Int64($0)]) }
        try s.save()
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Post")
        fetch.predicate = NSPredicate(format: "views > 3")
        let byFetch = NSBatchDeleteRequest(fetchRequest: fetch)
        byFetch.resultType = .resultTypeCount
        #expect(try execute(s, byFetch) as? Int == 2)
        #expect(try s.stored("Post", "title") == ["p1", "p2", "p3"])

        let first = s.context.performAndWait { posts[0].objectID }
        let byIDs = NSBatchDeleteRequest(objectIDs: [first])
        byIDs.resultType = .resultTypeObjectIDs
        let deleted = try #require(try execute(s, byIDs) as? [NSManagedObjectID])
        #expect(deleted == [first])
        #expect(try s.stored("Post", "title") == ["p2", "p3"])
        // Merged, the deletion leaves the context.
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: deleted], into: [s.context])
        #expect(s.context.performAndWait { posts[0].managedObjectContext == nil || !s.context.registeredObjects.contains(posts[0]) })

        let tag = s.insert("Tag", ["name": "t"])
        try s.save()
        let mixed = NSBatchDeleteRequest(objectIDs: [s.context.performAndWait { posts[1].objectID }, s.context.performAndWait { tag.objectID }])
        #expect(code { try execute(s, mixed) } == NSCoreDataError)
        #expect(try s.stored("Post", "title") == ["p2", "p3"])
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func batchDeleteAppliesCascadeAndNullify(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let author = s.insert("Author", ["name": "Ann"])
        let other = s.insert("Author", ["name": "Bob"])
        let publisher = s.insert("Publisher", ["name": "Pub"])
        let books = ["b1", "b2", "b3"].map { s.insert("Book", ["title": $0]) }
        s.context.performAndWait {
            books[0].setValue(author, forKey: "author")
            books[1].setValue(author, forKey: "author")
            books[2].setValue(other, forKey: "author")
            for book in books { book.setValue(publisher, forKey: "publisher") }
        }
        try s.save()

        // Cascade: Ann's books go with her; the publisher (nullify on Book.publisher) loses them.
        let deleteAnn = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Author"))
        deleteAnn.fetchRequest.predicate = NSPredicate(format: "name == 'Ann'")
        deleteAnn.resultType = .resultTypeCount
        #expect(try execute(s, deleteAnn) as? Int == 3, "the cascaded books are counted")
        #expect(try s.stored("Book", "title") == ["b3"])
        #expect(try s.storedObject("Publisher", "name == 'Pub'")?["books"] as? [String] == ["b3"])

        // Nullify: deleting the publisher keeps the book, without a publisher.
        let deletePublisher = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Publisher"))
        _ = try execute(s, deletePublisher)
        let b3 = try #require(try s.storedObject("Book", "title == 'b3'"))
        #expect(b3["publisher"] == nil && b3["author"] as? String == "Bob")
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func batchDeleteRefusesDenyAndMandatoryInverses(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType, adjust: { model in
            model.entitiesByName["Publisher"]?.relationshipsByName["books"]?.deleteRule = .denyDeleteRule
            model.entitiesByName["Author"]?.relationshipsByName["books"]?.deleteRule = .nullifyDeleteRule
            model.entitiesByName["Book"]?.relationshipsByName["author"]?.isOptional = false
        })
        let author = s.insert("Author", ["name": "Ann"])
        let publisher = s.insert("Publisher", ["name": "Pub"])
        let book = s.insert("Book", ["title": "b"])
        s.context.performAndWait {
            book.setValue(author, forKey: "author")
            book.setValue(publisher, forKey: "publisher")
        }
        try s.save()
        #expect(code { try execute(s, NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Publisher"))) } == NSCoreDataError)
        // Author.books nullifies, and the book's author is mandatory.
        #expect(code { try execute(s, NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Author"))) } == NSPersistentStoreSaveError)
        #expect(try s.stored("Author", "name") == ["Ann"])
        #expect(try s.stored("Publisher", "name") == ["Pub"])
    }
}
