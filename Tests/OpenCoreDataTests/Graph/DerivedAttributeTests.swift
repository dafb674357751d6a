import Foundation
import Testing
@testable import OpenCoreData

@Suite("Derived attributes at save")
struct DerivedAttributeTests {
    /// The catalog with `Tag.postCount = posts.@count`, `Tag.searchName = canonical:(name)`,
    /// `Book.authorName = author.name` and `Post.touched = now()`.
    static func scenario(_ storeType: String) throws -> CatalogScenario {
        try CatalogScenario(storeType: storeType) { model in
            func derived(_ name: String, _ type: NSAttributeType, _ format: String) -> NSDerivedAttributeDescription {
                let attribute = NSDerivedAttributeDescription()
                attribute.name = name
                attribute.attributeType = type
                attribute.derivationExpression = NSExpression(format: format)
                return attribute
            }
            model.entitiesByName["Tag"]?.properties += [derived("postCount", .integer64AttributeType, "posts.@count"),
                                                        derived("searchName", .stringAttributeType, "canonical:(name)")]
            model.entitiesByName["Book"]?.properties += [derived("authorName", .stringAttributeType, "author.name")]
            model.entitiesByName["Post"]?.properties += [derived("touched", .dateAttributeType, "now()")]
        }
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func valuesAreComputedAtSaveAndFollowTheirSources(storeType: String) throws {
        let s = try Self.scenario(storeType)
        let tag = s.insert("Tag", ["name": "Crème Brûlée"])
        let posts = ["a", "b"].map { s.insert("Post", ["title": $0]) }
        s.context.performAndWait { tag.setValue(Set(posts), forKey: "posts") }
        let before = Date()
        try s.save()
        var row = try #require(try s.storedObject("Tag", "name == 'Crème Brûlée'"))
        #expect(row["postCount"] as? Int64 == 2)
        #expect(row["searchName"] as? String == "creme brulee")
        #expect(s.context.performAndWait { tag.value(forKey: "postCount") as? Int64 } == 2, "the saved object shows the value")
        let touched = try #require(try s.storedObject("Post", "title == 'a'")?["touched"] as? Date)
        #expect(touched >= before.addingTimeInterval(-1))

        // A post joining through the post's side recounts the tag.
        let third = s.insert("Post", ["title": "c"])
        s.context.performAndWait { third.setValue(Set([tag]), forKey: "tags") }
        try s.save()
        row = try #require(try s.storedObject("Tag", "name == 'Crème Brûlée'"))
        #expect(row["postCount"] as? Int64 == 3)
        // And a deleted post too.
        s.context.performAndWait { s.context.delete(posts[0]) }
        try s.save()
        #expect(try s.storedObject("Tag", "name == 'Crème Brûlée'")?["postCount"] as? Int64 == 2)
    }

    /// Saves the author "Ann" with the book "b"; returns the author.
    @discardableResult
    static func authorWithBook(_ s: CatalogScenario) throws -> NSManagedObject {
        let author = s.insert("Author", ["name": "Ann"])
        let book = s.insert("Book", ["title": "b"])
        s.context.performAndWait { book.setValue(author, forKey: "author") }
        try s.save()
        return author
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func aValueReadThroughAToOneFollowsTheDestination(storeType: String) throws {
        let s = try Self.scenario(storeType)
        let author = try Self.authorWithBook(s)
        #expect(try s.storedObject("Book", "title == 'b'")?["authorName"] as? String == "Ann")
        // Renaming the author alone rewrites the book's derived value.
        s.context.performAndWait { author.setValue("Anne", forKey: "name") }
        try s.save()
        #expect(try s.storedObject("Book", "title == 'b'")?["authorName"] as? String == "Anne")
        // Another context that never loaded the book does the same.
        let other = CatalogScenario.newContext(on: s.coordinator)
        try other.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
            let fetched = try #require(try other.fetch(request).first)
            fetched.setValue("Annie", forKey: "name")
            try other.save()
        }
        #expect(try s.storedObject("Book", "title == 'b'")?["authorName"] as? String == "Annie")
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func batchRequestsRecomputeWhatTheirRowsDerive(storeType: String) throws {
        let s = try Self.scenario(storeType)
        try Self.authorWithBook(s)

        // A batch insert computes its rows' own derivations.
        let insert = NSBatchInsertRequest(entityName: "Tag", objects: [["name": "Über"], ["name": "ÉTÉ"]])
        _ = try s.context.performAndWait { try s.context.execute(insert) }
        #expect(try s.stored("Tag", "searchName") == ["ete", "uber"])

        // A batch update of authors recomputes the books that read their names.
        let update = NSBatchUpdateRequest(entityName: "Author")
        update.propertiesToUpdate = ["name": "Annabel"]
        _ = try s.context.performAndWait { try s.context.execute(update) }
        #expect(try s.storedObject("Book", "title == 'b'")?["authorName"] as? String == "Annabel")

        // A batch delete recomputes the objects its nullify rule rewrote.
        let tag = s.insert("Tag", ["name": "swift"])
        let posts = (0..<3).map { s.insert("Post", ["title": "p\($0)"]) }
        s.context.performAndWait { tag.setValue(NSSet(array: posts), forKey: "posts") }
        try s.save()
        #expect(try s.storedObject("Tag", "name == 'swift'")?["postCount"] as? Int64 == 3)
        let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Post"))
        delete.fetchRequest.predicate = NSPredicate(format: "title != 'p0'")
        _ = try s.context.performAndWait { try s.context.execute(delete) }
        #expect(try s.storedObject("Tag", "name == 'swift'")?["postCount"] as? Int64 == 1)
    }
}
