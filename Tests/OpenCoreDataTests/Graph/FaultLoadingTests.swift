import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataPostgres

/// A fault that holds nothing yet (fetched without property values, or made by a relationship)
/// loads its row into a state made for it: attributes, destinations as the context's objects,
/// transient defaults.
@Suite("Faults loading their rows")
struct FaultLoadingTests {
    /// The catalog with a transient `Book.shelf` defaulting to "new".
    static func scenario(_ storeType: String) throws -> CatalogScenario {
        try CatalogScenario(storeType: storeType) { model in
            let shelf = NSAttributeDescription()
            shelf.name = "shelf"
            shelf.attributeType = .stringAttributeType
            shelf.isTransient = true
            shelf.defaultValue = "new"
            model.entitiesByName["Book"]?.properties.append(shelf)
        }
    }

    /// Saves the authors and books of ``CatalogScenario/insertAuthorsAndBooks()`` in a store of
    /// `storeType`, then runs `body` on the queue of a new context, which holds none of them.
    /// Returns the scenario.
    @discardableResult
    static func withSavedCatalog(_ storeType: String, _ body: (NSManagedObjectContext) throws -> Void) throws -> CatalogScenario {
        let s = try scenario(storeType)
        try s.insertAuthorsAndBooks()
        let fresh = CatalogScenario.newContext(on: s.coordinator)
        try fresh.performAndWait { try body(fresh) }
        return s
    }

    /// Every book, by title, fetched by `context` (on its queue) as loaded objects: a run of loads.
    static func loadedBooksByTitle(in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        request.returnsObjectsAsFaults = false
        return try context.fetch(request)
    }

    /// The author named `name`, fetched by `context` (on its queue).
    static func author(_ name: String, in context: NSManagedObjectContext) throws -> NSManagedObject {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
        request.predicate = NSPredicate(format: "name == %@", name)
        return try #require(try context.fetch(request).first)
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func aFaultFetchedWithoutValuesLoadsItsDestinationsAsTheContextsObjects(storeType: String) throws {
        try Self.withSavedCatalog(storeType) { fresh in
            let ann = try Self.author("Ann", in: fresh)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.includesPropertyValues = false
            let books = try fresh.fetch(request)
            #expect(books.count == 3)
            #expect(books.allSatisfy { $0.isFault })
            for book in books {
                let title = try #require(book.value(forKey: "title") as? String)
                #expect(!book.isFault)
                let author = try #require(book.value(forKey: "author") as? NSManagedObject)
                #expect(fresh.registeredObject(for: author.objectID) === author)
                #expect((author === ann) == title.hasPrefix("a"), "\(title)'s author is the context's Ann exactly when it is hers")
                #expect(book.value(forKey: "shelf") as? String == "new")
                #expect(!book.hasChanges)
            }
            let annsBooks = try #require(ann.value(forKey: "books") as? Set<NSManagedObject>)
            #expect(Set(annsBooks.compactMap { $0.value(forKey: "title") as? String }) == ["a1", "a2"])
            #expect(annsBooks.allSatisfy { book in books.contains { $0 === book } }, "the destinations are the fetched objects")
        }
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func aDestinationFaultLoadsItsOwnDestinationsAndTransientDefaults(storeType: String) throws {
        try Self.withSavedCatalog(storeType) { fresh in
            let bob = try Self.author("Bob", in: fresh)
            let books = try #require(bob.value(forKey: "books") as? Set<NSManagedObject>)
            let book = try #require(books.first)
            #expect(books.count == 1)
            #expect(book.value(forKey: "title") as? String == "b1")
            #expect(book.value(forKey: "author") as? NSManagedObject === bob)
            let house = try #require(book.value(forKey: "publisher") as? NSManagedObject)
            #expect(house.value(forKey: "name") as? String == "House")
            #expect(book.value(forKey: "shelf") as? String == "new")
            // The loaded values are the committed ones, and nothing counts as changed until a change.
            #expect(book.changedValues().isEmpty)
            book.setValue("b1, second edition", forKey: "title")
            #expect(Set(book.changedValues().keys) == ["title"])
            #expect(book.committedValues(forKeys: ["title", "author"])["title"] as? String == "b1")
            #expect(book.committedValues(forKeys: ["title", "author"])["author"] as? NSManagedObject === bob)
        }
    }

    /// Rows naming their destinations in runs (Ann, Ann, Bob, Ann) through each path that loads
    /// a run of rows: a fetch returning loaded objects, and a prefetch from the destinations.
    @Test(arguments: StoreTypesUnderTest.all)
    func aRunOfRowsLoadsEachDestinationAsTheContextsObject(storeType: String) throws {
        let s = try Self.scenario(storeType)
        let (ann, _, _) = try s.insertAuthorsAndBooks()
        let c1 = s.insert("Book", ["title": "c1"])
        s.context.performAndWait { c1.setValue(ann, forKey: "author") }
        try s.save()
        let expected = ["a1": "Ann", "a2": "Ann", "b1": "Bob", "c1": "Ann"]

        let fresh = CatalogScenario.newContext(on: s.coordinator)
        try fresh.performAndWait {
            let books = try Self.loadedBooksByTitle(in: fresh)
            #expect(books.map { $0.value(forKey: "title") as? String } == ["a1", "a2", "b1", "c1"])
            var authors: [String: NSManagedObject] = [:]
            for book in books {
                #expect(!book.isFault)
                let title = try #require(book.value(forKey: "title") as? String)
                let author = try #require(book.value(forKey: "author") as? NSManagedObject)
                #expect(fresh.registeredObject(for: author.objectID) === author)
                #expect(author.value(forKey: "name") as? String == expected[title], "\(title)")
                #expect(book.value(forKey: "shelf") as? String == "new")
                if let seen = authors[expected[title] ?? ""] { #expect(seen === author, "one object per author") }
                authors[expected[title] ?? ""] = author
            }
            #expect(authors.count == 2)
        }

        let prefetching = CatalogScenario.newContext(on: s.coordinator)
        try prefetching.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
            request.relationshipKeyPathsForPrefetching = ["books"]
            for author in try prefetching.fetch(request) {
                let books = try #require(author.value(forKey: "books") as? Set<NSManagedObject>)
                let name = try #require(author.value(forKey: "name") as? String)
                #expect(books.count == (name == "Ann" ? 3 : 1))
                for book in books {
                    #expect(!book.isFault, "prefetched")
                    #expect(book.value(forKey: "author") as? NSManagedObject === author)
                    #expect(book.value(forKey: "shelf") as? String == "new")
                }
            }
        }
    }

    /// An object refreshed into a fault drops its state, which the context keeps for the next
    /// fault it loads: that fault starts as a fresh one, with its own row, no changes and no
    /// event, and its changes save.
    @Test(arguments: StoreTypesUnderTest.all)
    func aStateDroppedByARefreshServesTheNextFaultLoadedAsNew(storeType: String) throws {
        let s = try Self.withSavedCatalog(storeType) { fresh in
            let ann = try Self.author("Ann", in: fresh)
            ann.setValue("Ann (draft)", forKey: "name")
            #expect(ann.changedValuesForCurrentEvent()["name"] as? String == "Ann")
            fresh.refresh(ann, mergeChanges: false)
            #expect(ann.isFault && !ann.hasChanges)
            #expect(fresh.spareStates.count == 1, "Ann's state, kept")

            // Bob, a fault holding nothing, loads into the kept state.
            let books = NSFetchRequest<NSManagedObject>(entityName: "Book")
            books.predicate = NSPredicate(format: "title == 'b1'")
            let b1 = try #require(try fresh.fetch(books).first)
            let bob = try #require(b1.value(forKey: "author") as? NSManagedObject)
            #expect(bob.isFault)
            #expect(bob.value(forKey: "name") as? String == "Bob")
            #expect(fresh.spareStates.isEmpty, "taken by Bob")
            #expect(!bob.hasChanges)
            #expect(bob.changedValues().isEmpty)
            #expect(bob.changedValuesForCurrentEvent().isEmpty)
            #expect(bob.committedValues(forKeys: ["name"])["name"] as? String == "Bob")
            #expect((bob.value(forKey: "books") as? Set<NSManagedObject>)?.count == 1)
            #expect(ann.value(forKey: "name") as? String == "Ann", "Ann's row again, not her draft")

            bob.setValue("Robert", forKey: "name")
            #expect(bob.isUpdated)
            #expect(bob.changedValuesForCurrentEvent()["name"] as? String == "Bob", "the event's old value, recorded afresh")
            try fresh.save()
        }
        #expect(try s.stored("Author", "name") == ["Ann", "Robert"])
    }

    /// A book whose `awakeFromFetch()` resets its context when it is "a1".
    final class ResettingBook: NSManagedObject {
        override func awakeFromFetch() {
            super.awakeFromFetch()
            if primitiveValue(forKey: "title") as? String == "a1" { managedObjectContext?.reset() }
        }
    }

    /// Saves the catalog with its books of class ``ResettingBook`` in a store of `storeType`,
    /// then runs `body` on the queue of a new context, which holds none of them.
    static func withResettingCatalog(_ storeType: String, _ body: (NSManagedObjectContext) throws -> Void) throws {
        let s = try CatalogScenario(storeType: storeType) { model in
            model.register(ResettingBook.self, forEntityName: "Book")
        }
        try s.insertAuthorsAndBooks()
        let fresh = CatalogScenario.newContext(on: s.coordinator)
        try fresh.performAndWait { try body(fresh) }
    }

    /// A context reset by `awakeFromFetch()` in the middle of a run of loads: the rows after it
    /// get their destinations from the context as it is now, not the objects it let go.
    @Test(arguments: StoreTypesUnderTest.all)
    func aDestinationLetGoDuringARunIsLookedUpAgain(storeType: String) throws {
        try Self.withResettingCatalog(storeType) { fresh in
            let books = try Self.loadedBooksByTitle(in: fresh)
            #expect(books.map { $0.primitiveValue(forKey: "title") as? String } == ["a1", "a2", "b1"])
            let first = try #require(books[0].value(forKey: "author") as? NSManagedObject)
            let second = try #require(books[1].value(forKey: "author") as? NSManagedObject)
            #expect(first.managedObjectContext == nil, "a1's author was let go by the reset")
            #expect(second !== first)
            #expect(second.managedObjectContext === fresh)
            #expect(fresh.registeredObject(for: second.objectID) === second)
            #expect(second.value(forKey: "name") as? String == "Ann")
        }
    }

    /// The stores whose rows carry no to-many destinations (SQL tables): a prefetch fills their
    /// sources' lists. (An atomic store's snapshots carry them, so its sources' lists are filled
    /// as the sources load, before the prefetch reads the destinations.)
    static let sqlStoreTypes = StoreTypesUnderTest.all.filter { $0 == NSSQLiteStoreType || $0 == NSPostgreSQLStoreType }

    /// A prefetch whose `awakeFromFetch()` resets the context while the destinations load: the
    /// sources' lists hold the context's objects as it is now, not the destinations it let go.
    @Test(arguments: sqlStoreTypes)
    func aPrefetchedListAfterAResetHoldsTheContextsObjects(storeType: String) throws {
        try Self.withResettingCatalog(storeType) { fresh in
            let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            request.returnsObjectsAsFaults = false
            request.relationshipKeyPathsForPrefetching = ["books"]
            let authors = try fresh.fetch(request)
            #expect(authors.count == 2)
            let lists = authors.map { $0.primitiveValue(forKey: "books") as? Set<NSManagedObject> }
            #expect(lists.map { $0?.count } == [2, 1])
            for book in lists.compactMap({ $0 }).joined() {
                #expect(book.managedObjectContext === fresh, "a book the reset let go: \(book.objectID)")
                #expect(fresh.registeredObject(for: book.objectID) === book)
            }
        }
    }

    /// The states a context keeps for later faults are bounded, and a reset drops them.
    @Test func theKeptStatesAreBoundedAndDroppedByAReset() throws {
        let s = try Self.scenario(NSInMemoryStoreType)
        let count = NSManagedObjectContext.spareStateLimit + 10
        for index in 0..<count { s.insert("Author", ["name": "A\(index)"]) }
        try s.save()
        let fresh = CatalogScenario.newContext(on: s.coordinator)
        try fresh.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
            request.returnsObjectsAsFaults = false
            let authors = try fresh.fetch(request)
            #expect(authors.count == count)
            #expect(authors.allSatisfy { !$0.isFault })
            for author in authors { fresh.refresh(author, mergeChanges: false) }
            #expect(authors.allSatisfy { $0.isFault })
            #expect(fresh.spareStates.count == NSManagedObjectContext.spareStateLimit)
            fresh.reset()
            #expect(fresh.spareStates.isEmpty)
        }
    }

    /// A child's inserted object becomes, in its parent, a fault loaded from the child's row:
    /// into a state the parent kept, it is still an inserted object with no committed values.
    @Test(arguments: StoreTypesUnderTest.all)
    func aChildsInsertedObjectTakesAKeptStateAsANewObject(storeType: String) throws {
        let s = try Self.scenario(storeType)
        try s.insertAuthorsAndBooks()
        let parent = CatalogScenario.newContext(on: s.coordinator)
        try parent.performAndWait {
            let ann = try Self.author("Ann", in: parent)
            _ = ann.value(forKey: "name")
            parent.refresh(ann, mergeChanges: false)
            #expect(parent.spareStates.count == 1)
        }
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        try child.performAndWait {
            let cy = NSEntityDescription.insertNewObject(forEntityName: "Author", into: child)
            cy.setValue("Cy", forKey: "name")
            try child.save()
        }
        try parent.performAndWait {
            #expect(parent.spareStates.isEmpty, "taken by Cy")
            let cy = try #require(parent.insertedObjects.first)
            #expect(parent.insertedObjects.count == 1)
            #expect(cy.isInserted && !cy.isFault)
            #expect(cy.value(forKey: "name") as? String == "Cy")
            #expect(cy.committedValues(forKeys: nil).isEmpty, "a new object has no committed values")
            #expect(cy.changedValues()["name"] as? String == "Cy")
            try parent.save()
        }
        #expect(try s.stored("Author", "name") == ["Ann", "Bob", "Cy"])
    }
}

