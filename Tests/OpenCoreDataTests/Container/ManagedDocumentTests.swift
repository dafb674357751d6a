import CoreDataTutorial
import Foundation
import Testing
@testable import OpenCoreData

/// `ManagedDocument`: one store per document, open, save, save-as, revert, close, undo and
/// metadata, over every file store type.
@Suite("Managed documents") struct ManagedDocumentTests {
    static let fileStoreTypes = [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType]

    static func className(_ object: NSManagedObject) -> String? { object.value(forKey: "name") as? String }

    static func classNames(_ document: ManagedDocument) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "ClassEntity")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try document.managedObjectContext.fetch(request).compactMap(className)
    }

    @discardableResult
    static func addClass(_ name: String, to document: ManagedDocument) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: "ClassEntity", into: document.managedObjectContext)
        object.setValue(name, forKey: "name")
        return object
    }

    @Test(arguments: fileStoreTypes, [true, false])
    func createsSavesClosesAndOpensAgain(storeType: String, isPackage: Bool) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent(isPackage ? "School.classes" : "School.store")
        let model = ClassesModel.make()

        let document = ManagedDocument(fileURL: url, managedObjectModel: model, storeType: storeType, isPackage: isPackage)
        #expect(document.documentState == .closed)
        Self.addClass("一班", to: document)
        document.metadata["Author"] = "Wei"
        try document.save(to: url, for: .forCreating)
        #expect(document.documentState == .normal)
        #expect(!document.hasUnsavedChanges)
        #expect(document.fileModificationDate != nil)
        if isPackage {
            #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("StoreContent/persistentStore").path))
            #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("DocumentMetadata.plist").path))
        }

        Self.addClass("二班", to: document)
        #expect(document.hasUnsavedChanges)
        try document.close()
        #expect(document.documentState == .closed)

        // The package remembers its store type: a document opened with another type reads it.
        let reopened = ManagedDocument(fileURL: url, managedObjectModel: model,
                                       storeType: isPackage ? NSBinaryStoreType : storeType, isPackage: isPackage)
        try reopened.open()
        #expect(reopened.fileType == storeType)
        #expect(try Self.classNames(reopened) == ["一班", "二班"], "close saved the unsaved change")
        #expect(reopened.metadata["Author"] as? String == "Wei")
        #expect(reopened.metadata[NSStoreUUIDKey] != nil)

        // Creating over an existing document is refused and writes nothing.
        let other = ManagedDocument(fileURL: url, managedObjectModel: model, storeType: storeType, isPackage: isPackage)
        #expect(throws: NSError.self) { try other.save(to: url, for: .forCreating) }
        var opened = true
        other.save(to: url, for: .forCreating) { opened = $0 }
        #expect(!opened)
        #expect((other.lastError as? NSError)?.code == NSFileWriteFileExistsError)
        #expect(try Self.classNames(reopened) == ["一班", "二班"])
    }

    @Test(arguments: fileStoreTypes)
    func saveAsMovesTheDocumentAndCanChangeTheStoreType(storeType: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = ClassesModel.make()
        let first = directory.appendingPathComponent("First.classes")
        let document = ManagedDocument(fileURL: first, managedObjectModel: model, storeType: storeType)
        Self.addClass("A", to: document)
        try document.save(to: first, for: .forCreating)
        Self.addClass("B", to: document)

        let newType = storeType == NSSQLiteStoreType ? NSXMLStoreType : NSSQLiteStoreType
        let second = directory.appendingPathComponent("Second.classes")
        try document.save(to: second, ofType: newType, for: .forCreating)
        #expect(document.fileURL == second && document.fileType == newType)
        #expect(try Self.classNames(document) == ["A", "B"])
        Self.addClass("C", to: document)
        try document.save(to: second, for: .forOverwriting)

        // Save-as never writes into an existing file, and leaves it as it was.
        let taken = directory.appendingPathComponent("Taken.classes")
        try FileManager.default.createDirectory(at: taken, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: taken.appendingPathComponent("notes.txt"))
        #expect(performing: { try document.save(to: taken, for: .forOverwriting) },
                throws: { ($0 as NSError).code == NSFileWriteFileExistsError })
        #expect(try Data(contentsOf: taken.appendingPathComponent("notes.txt")) == Data("mine".utf8))
        #expect(document.fileURL == second)
        try document.close()

        // The old document has what was saved before save-as (its unsaved change went with
        // the save); the new one has everything, in the new type.
        let old = ManagedDocument(fileURL: first, managedObjectModel: model)
        try old.open()
        #expect(old.fileType == storeType)
        #expect(try Self.classNames(old) == ["A", "B"])
        let new = ManagedDocument(fileURL: second, managedObjectModel: model)
        try new.open()
        #expect(new.fileType == newType)
        #expect(try Self.classNames(new) == ["A", "B", "C"])
    }

    @Test(arguments: fileStoreTypes)
    func revertDiscardsUnsavedChangesAndUndoWorksPerDocument(storeType: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Undo.classes")
        let document = ManagedDocument(fileURL: url, managedObjectModel: ClassesModel.make(), storeType: storeType)
        let a = Self.addClass("A", to: document)
        try document.save(to: url, for: .forCreating)

        // Undo takes back a change (each document has its own undo manager).
        let undoManager = try #require(document.undoManager)
        document.managedObjectContext.processPendingChanges()
        undoManager.beginUndoGrouping()
        a.setValue("Renamed", forKey: "name")
        undoManager.endUndoGrouping()
        #expect(undoManager.canUndo)
        undoManager.undo()
        #expect(Self.className(a) == "A")

        Self.addClass("Unsaved", to: document)
        var reverted = false
        document.revert(toContentsOf: url) { reverted = $0 }
        #expect(reverted)
        #expect(!document.hasUnsavedChanges)
        #expect(try Self.classNames(document) == ["A"])
        #expect(!undoManager.canUndo)
    }

    @Test func openingWhatIsNotADocumentFailsClearly() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = ClassesModel.make()

        let missing = ManagedDocument(fileURL: directory.appendingPathComponent("Missing.classes"), managedObjectModel: model)
        #expect(performing: { try missing.open() }, throws: { ($0 as NSError).code == NSFileReadNoSuchFileError })
        var opened = true
        missing.open { opened = $0 }
        #expect(!opened && missing.documentState == .closed)

        // A package whose metadata plist is garbage.
        let broken = directory.appendingPathComponent("Broken.classes")
        try FileManager.default.createDirectory(at: broken.appendingPathComponent("StoreContent"), withIntermediateDirectories: true)
        try Data("not a plist".utf8).write(to: broken.appendingPathComponent("DocumentMetadata.plist"))
        let garbled = ManagedDocument(fileURL: broken, managedObjectModel: model)
        #expect(performing: { try garbled.open() }, throws: { ($0 as NSError).code == NSFileReadCorruptFileError })

        // A store file that is not a store.
        let file = directory.appendingPathComponent("NotAStore.sqlite")
        try Data("SQLite format 3? no".utf8).write(to: file)
        let corrupt = ManagedDocument(fileURL: file, managedObjectModel: model, isPackage: false)
        #expect(throws: (any Error).self) { try corrupt.open() }
        #expect(corrupt.documentState == .closed)
        #expect(try Data(contentsOf: file) == Data("SQLite format 3? no".utf8), "a failed open changes nothing")
    }

    @Test func aFailedSaveKeepsTheChangesAndReportsTheState() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Invalid.classes")
        let model = RunModel.make()
        let document = ManagedDocument(fileURL: url, managedObjectModel: model)
        try document.save(to: url, for: .forCreating)
        let run = NSEntityDescription.insertNewObject(forEntityName: "Run", into: document.managedObjectContext)
        run.setValue(Int32(0), forKey: "processID")
        #expect(throws: (any Error).self) { try document.save(to: url, for: .forOverwriting) }
        #expect(document.documentState.contains(.savingError))
        #expect(document.hasUnsavedChanges)
        run.setValue(Int32(42), forKey: "processID")
        try document.save(to: url, for: .forOverwriting)
        #expect(!document.documentState.contains(.savingError))
    }

    @Test func anObjectSavedOnceIsChangedAndSavedAgain() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Twice.classes")
        let document = ManagedDocument(fileURL: url, managedObjectModel: ClassesModel.make())
        let a = Self.addClass("A", to: document)
        try document.save(to: url, for: .forCreating)
        #expect(!a.objectID.isTemporaryID, "saved objects have permanent IDs in the document's context")
        a.setValue("B", forKey: "name")
        try document.save(to: url, for: .forOverwriting)
        try document.close()
        let again = ManagedDocument(fileURL: url, managedObjectModel: ClassesModel.make())
        try again.open()
        #expect(try Self.classNames(again) == ["B"])
    }

    @Test func aSaveTheStoreRefusesKeepsTheChangesForTheNextSave() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Conflict.classes")
        let model = ClassesModel.make()
        let document = ManagedDocument(fileURL: url, managedObjectModel: model)
        let a = Self.addClass("A", to: document)
        try document.save(to: url, for: .forCreating)

        // Another writer changes the same class in the store.
        let (_, other) = try FetchedResultsFixture.stack(model: model, storeType: NSSQLiteStoreType, at: document.storeURL(in: url))
        let request = NSFetchRequest<NSManagedObject>(entityName: "ClassEntity")
        try #require(try other.fetch(request).first).setValue("Theirs", forKey: "name")
        try other.save()

        // The document's save conflicts in the store (the parent context's error policy).
        a.setValue("Mine", forKey: "name")
        #expect(throws: (any Error).self) { try document.save(to: url, for: .forOverwriting) }
        #expect(document.documentState.contains(.savingError))
        #expect(document.hasUnsavedChanges, "the refused changes are kept")
        #expect(Self.className(a) == "Mine")

        // With a policy that lets them win, the next save sends them.
        document.parentContext.performAndWait { document.parentContext.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy }
        try document.save(to: url, for: .forOverwriting)
        #expect(!document.hasUnsavedChanges && !document.documentState.contains(.savingError))
        other.refreshAllObjects()
        #expect(try other.fetch(request).compactMap(Self.className) == ["Mine"])
    }

    @Test func additionalContentIsWrittenAndReadBack() throws {
        final class NotesDocument: ManagedDocument {
            var notes = Data()
            override func additionalContent(for absoluteURL: URL) throws -> Any? { notes }
            override func readAdditionalContent(from absoluteURL: URL) throws { notes = try Data(contentsOf: absoluteURL) }
        }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Notes.classes")
        let document = NotesDocument(fileURL: url, managedObjectModel: ClassesModel.make())
        document.notes = Data("remember".utf8)
        try document.save(to: url, for: .forCreating)
        try document.close()
        let reopened = NotesDocument(fileURL: url, managedObjectModel: ClassesModel.make())
        try reopened.open()
        #expect(reopened.notes == Data("remember".utf8))
    }
}
