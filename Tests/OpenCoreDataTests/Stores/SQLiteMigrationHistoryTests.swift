import Foundation
import Testing
@testable import OpenCoreData

/// Persistent history through the SQLite store's in-place migration: the history written under
/// the source model reads back under the destination model (renumbered entities, renamed
/// properties, moved tombstones), and the migration is recorded as a transaction.
@Suite struct SQLiteMigrationHistoryTests {
    typealias S = LightweightMigrationSupport
    static var options: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true] }

    /// The library models of `SQLiteLightweightMigrationTests`, with the book's title (heading
    /// in version 2) kept in history when a book is deleted.
    static func library(version: Int) -> NSManagedObjectModel {
        let model = SQLiteLightweightMigrationTests.library(version: version)
        model.entitiesByName["Book"]?.attributesByName[version == 1 ? "title" : "heading"]?.preservesValueInHistoryOnDeletion = true
        return model
    }

    static func context(_ model: NSManagedObjectModel, at url: URL) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static func history(_ context: NSManagedObjectContext) throws -> [NSPersistentHistoryTransaction] {
        try context.performAndWait {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
            return (try context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
        }
    }

    @Test func historyReadsBackUnderTheDestinationModelAndTheMigrationIsRecorded() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Library.sqlite")
        let before = try Self.context(Self.library(version: 1), at: url)
        try before.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: before)
            author.setValue("Ann", forKey: "name")
            let books = (0..<3).map { index -> NSManagedObject in
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: before)
                book.setValue("Book \(index)", forKey: "title")
                book.setValue(author, forKey: "author")
                return book
            }
            try before.save()
            books[0].setValue("Book zero", forKey: "title")
            try before.save()
            before.delete(books[2])
            try before.save()
        }
        let written = try Self.history(before)
        #expect(written.count == 3)

        let result = try SQLiteStore.migrateInPlace(at: url, options: Self.options, sourceModel: Self.library(version: 1),
                                                    destinationModel: Self.library(version: 2),
                                                    mapping: SQLiteLightweightMigrationTests.libraryMapping(), progress: nil)
        #expect(result == .migrated)

        let after = try Self.context(Self.library(version: 2), at: url)
        let transactions = try Self.history(after)
        #expect(transactions.count == 4)
        let changes = transactions.map { $0.changes ?? [] }
        after.performAndWait {
            // The insertions name the renamed and renumbered entity.
            #expect(changes[0].map { $0.changedObjectID.entity.name ?? "?" }.sorted() == ["Book", "Book", "Book", "Writer"])
            // The update names the renamed attribute.
            #expect(changes[1].map(\.changeType) == [.update])
            #expect(changes[1].first?.updatedProperties?.map(\.name) == ["heading"])
            // The tombstone moved to the renamed attribute; the writer lost the book.
            let deletion = changes[2].first { $0.changeType == .delete }
            #expect(deletion?.tombstone?["heading"] as? String == "Book 2")
            let writer = changes[2].first { $0.changeType == .update }
            #expect(writer?.changedObjectID.entity.name == "Writer")
            #expect(writer?.updatedProperties?.map(\.name) == ["books"])
            // The migration: each remaining book gained `pages` (its default).
            #expect(transactions[3].author == SQLiteLightweightMigration.historyAuthor)
            #expect(changes[3].count == 2)
            #expect(changes[3].allSatisfy { $0.changeType == .update && $0.updatedProperties?.map(\.name) == ["pages"] })
        }
        // The migrated objects are the ones history names.
        let books = try S.fetch(after, "Book", sortedBy: "heading")
        after.performAndWait {
            #expect(Set(books.map(\.objectID)) == Set(changes[3].map(\.changedObjectID)))
        }
    }

    @Test func withoutTheOptionTheHistoryIsKeptButNothingIsRecorded() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Library.sqlite")
        let before = try Self.context(Self.library(version: 1), at: url)
        try before.performAndWait {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: before)
            book.setValue("Only", forKey: "title")
            try before.save()
        }
        _ = try SQLiteStore.migrateInPlace(at: url, options: nil, sourceModel: Self.library(version: 1),
                                           destinationModel: Self.library(version: 2),
                                           mapping: SQLiteLightweightMigrationTests.libraryMapping(), progress: nil)
        let transactions = try Self.history(try Self.context(Self.library(version: 2), at: url))
        #expect(transactions.count == 1)
        #expect(transactions.first?.changes?.first?.changedObjectID.entity.name == "Book")
    }
}
