import Foundation
import Testing
@testable import OpenCoreData

/// A class as Xcode generates it (`Shelf+CoreDataProperties.swift`), ported by the one-word
/// change per line: `@NSManaged` → `@Managed` on properties and `@ManagedAccessor` on the
/// generated accessor functions, `@objc(…)` lines removed.
final class GeneratedShelf: NSManagedObject {}

extension GeneratedShelf {
    @Managed public var name: String?
    @Managed public var count: Int64
    @Managed public var books: NSSet?
    @Managed public var chapters: NSOrderedSet?
}

// MARK: Generated accessors for books
extension GeneratedShelf {
    @ManagedAccessor public func addToBooks(_ value: GeneratedBook)
    @ManagedAccessor public func removeFromBooks(_ value: GeneratedBook)
    @ManagedAccessor public func addToBooks(_ values: NSSet)
    @ManagedAccessor public func removeFromBooks(_ values: NSSet)
}

// MARK: Generated accessors for chapters
extension GeneratedShelf {
    @ManagedAccessor public func insertIntoChapters(_ value: GeneratedBook, at idx: Int)
    @ManagedAccessor public func removeFromChapters(at idx: Int)
    @ManagedAccessor public func insertIntoChapters(_ values: [GeneratedBook], at indexes: NSIndexSet)
    @ManagedAccessor public func removeFromChapters(at indexes: NSIndexSet)
    @ManagedAccessor public func replaceChapters(at idx: Int, with value: GeneratedBook)
    @ManagedAccessor public func replaceChapters(at indexes: NSIndexSet, with values: [GeneratedBook])
    @ManagedAccessor public func addToChapters(_ value: GeneratedBook)
    @ManagedAccessor public func removeFromChapters(_ value: GeneratedBook)
    @ManagedAccessor public func addToChapters(_ values: NSOrderedSet)
    @ManagedAccessor public func removeFromChapters(_ values: NSOrderedSet)
}

final class GeneratedBook: NSManagedObject {
    @Managed var title: String
    @Managed var pages: Int32
    @Managed var shelf: GeneratedShelf?
    @Managed var chapterOf: GeneratedShelf?
}

enum GeneratedShelfModel {
    static func context() throws -> NSManagedObjectContext {
        typealias M = GraphTestModel
        let shelf = M.entity("Shelf"), book = M.entity("Book")
        let books = M.relationship("books", to: book, toMany: true), shelfOfBook = M.relationship("shelf", to: shelf)
        let chapters = M.relationship("chapters", to: book, toMany: true, ordered: true)
        let chapterOf = M.relationship("chapterOf", to: shelf)
        M.pair(books, shelfOfBook)
        M.pair(chapters, chapterOf)
        shelf.properties = [M.attribute("name", .stringAttributeType), M.attribute("count", .integer64AttributeType), books, chapters]
        book.properties = [M.attribute("title", .stringAttributeType), M.attribute("pages", .integer32AttributeType), shelfOfBook, chapterOf]
        let model = NSManagedObjectModel()
        model.entities = [shelf, book]
        model.register(GeneratedShelf.self, forEntityName: "Shelf")
        model.register(GeneratedBook.self, forEntityName: "Book")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static func books(_ count: Int, in context: NSManagedObjectContext) -> [GeneratedBook] {
        (0..<count).map { index in
            let book = GeneratedBook(context: context)
            book.title = "b\(index)"
            return book
        }
    }
}

@Suite("Xcode's generated accessors and key paths through @Managed")
struct GeneratedAccessorTests {
    @Test("Unordered accessors add and remove one object or an NSSet, keeping the inverse")
    func unorderedAccessors() throws {
        let context = try GeneratedShelfModel.context()
        let shelf = GeneratedShelf(context: context)
        let books = GeneratedShelfModel.books(3, in: context)
        shelf.addToBooks(books[0])
        #expect(books[0].shelf === shelf)
        shelf.addToBooks(NSSet(array: [books[1], books[2]]))
        #expect(shelf.books?.count == 3)
        #expect(Set(shelf.mutableSetValue(forKey: "books").allObjects.map(ObjectIdentifier.init)) == Set(books.map(ObjectIdentifier.init)))
        shelf.removeFromBooks(books[0])
        #expect(books[0].shelf == nil)
        shelf.removeFromBooks(NSSet(array: [books[1]]))
        #expect(shelf.mutableSetValue(forKey: "books").allObjects.map(ObjectIdentifier.init) == [ObjectIdentifier(books[2])])
        #expect(shelf.changedValues().keys.contains("books"))
        try context.save()
        #expect(books[2].shelf === shelf)
    }

    @Test("Ordered accessors insert, remove and replace by index and index set, in order")
    func orderedAccessors() throws {
        let context = try GeneratedShelfModel.context()
        let shelf = GeneratedShelf(context: context)
        let b = GeneratedShelfModel.books(6, in: context)
        func titles() -> [String] { shelf.mutableOrderedSetValue(forKey: "chapters").array.map { ($0 as! GeneratedBook).title } }
        shelf.addToChapters(b[0])
        shelf.insertIntoChapters(b[1], at: 0)
        #expect(titles() == ["b1", "b0"])
        shelf.insertIntoChapters([b[2], b[3]], at: NSIndexSet(indexesIn: NSRange(location: 1, length: 2)))
        #expect(titles() == ["b1", "b2", "b3", "b0"])
        shelf.replaceChapters(at: 0, with: b[4])
        #expect(titles() == ["b4", "b2", "b3", "b0"])
        #expect(b[1].chapterOf == nil)
        #expect(b[4].chapterOf === shelf)
        shelf.replaceChapters(at: NSIndexSet(indexesIn: NSRange(location: 2, length: 2)), with: [b[5], b[1]])
        #expect(titles() == ["b4", "b2", "b5", "b1"])
        shelf.removeFromChapters(at: 1)
        #expect(titles() == ["b4", "b5", "b1"])
        shelf.removeFromChapters(at: NSIndexSet(indexesIn: NSRange(location: 0, length: 2)))
        #expect(titles() == ["b1"])
        shelf.addToChapters(NSOrderedSet(array: [b[2], b[3]]))
        shelf.removeFromChapters(b[1])
        #expect(titles() == ["b2", "b3"])
        shelf.removeFromChapters(NSOrderedSet(array: [b[3]]))
        #expect(titles() == ["b2"])
        #expect(shelf.chapters?.array.count == 1)
    }

    @Test("Key paths to @Managed properties give Core Data's key path strings")
    func keyPathStrings() {
        #expect(NSSortDescriptor(keyPath: \GeneratedBook.title, ascending: true).key == "title")
        #expect(NSSortDescriptor(keyPath: \GeneratedBook.pages, ascending: false).key == "pages")
        #expect(NSSortDescriptor(keyPath: \GeneratedShelf.books, ascending: true).key == "books")
        #expect(NSExpression(forKeyPath: \GeneratedBook.shelf?.name).keyPath == "shelf.name")
        #expect(NSExpression(forKeyPath: \GeneratedBook.shelf?.count).keyPath == "shelf.count")
        #expect(NSExpression(forKeyPath: \GeneratedShelf.name).keyPath == "name")
        let comparing = NSSortDescriptor(keyPath: \GeneratedBook.title, ascending: true) { _, _ in .orderedSame }
        #expect(comparing.key == "title")
    }

    @Test("A fetch sorted by a key-path descriptor sorts like the string key")
    func keyPathSortInAFetch() throws {
        let context = try GeneratedShelfModel.context()
        for (index, pages) in [30, 10, 20].enumerated() {
            let book = GeneratedBook(context: context)
            book.title = "t\(index)"
            book.pages = Int32(pages)
        }
        try context.save()
        let request = NSFetchRequest<GeneratedBook>(entityName: "Book")
        request.sortDescriptors = [NSSortDescriptor(keyPath: \GeneratedBook.pages, ascending: true)]
        #expect(try context.fetch(request).map(\.pages) == [10, 20, 30])
        request.predicate = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: \GeneratedBook.pages), rightExpression: NSExpression(forConstantValue: 15),
            modifier: .direct, type: .greaterThan)
        #expect(try context.fetch(request).map(\.title) == ["t2", "t0"])
    }
}
