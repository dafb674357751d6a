import CoreDataCLI
@testable import CoreDataModelTools
import Foundation
import Testing
@testable import OpenCoreData

/// `LibAuthor`'s Codegen is Category/Extension: its class is written by hand, as in Xcode.
final class LibAuthor: NSManagedObject {}

/// `coredata generate` on `Tests/Models/Library.xcdatamodeld` (every attribute type,
/// inheritance, ordered and unordered to-many relationships, every Codegen setting). Its output
/// is checked in under `Generated/` and compiled with these tests: the first test proves the
/// checked-in files are exactly what the generator writes now, the others use them.
@Suite("Class generation")
struct ClassGeneratorTests {
    static let modelURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Models/Library.xcdatamodeld")
    static let generatedFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Generated")

    static func model() throws -> NSManagedObjectModel {
        let model = try NSManagedObjectModel.load(contentsOf: modelURL)
        // `.LibBook` names the class in the current module, which Linux can't look up.
        for (type, name) in [(LibItem.self, "LibItem"), (LibBook.self, "LibBook"), (LibChapter.self, "LibChapter"),
                             (LibTag.self, "LibTag"), (LibAuthor.self, "LibAuthor")] as [(NSManagedObject.Type, String)] {
            model.register(type, forEntityName: name)
        }
        return model
    }

    @Test("The checked-in classes are what `coredata generate --access internal` writes")
    func checkedInOutputIsCurrent() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let status = CoreDataCommand.runAsTool(["generate", Self.modelURL.path, "--output", folder.path, "--access", "internal"])
        #expect(status == 0)
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let checkedIn = try FileManager.default.contentsOfDirectory(atPath: Self.generatedFolder.path).sorted()
        #expect(written == checkedIn)
        // Class: both files; Category: properties only; Manual/None (LibNote): nothing.
        #expect(written.contains("LibAuthor+CoreDataProperties.swift"))
        #expect(!written.contains("LibAuthor+CoreDataClass.swift"))
        #expect(!written.contains { $0.hasPrefix("LibNote") })
        for name in written {
            let fresh = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let old = try String(contentsOf: Self.generatedFolder.appendingPathComponent(name), encoding: .utf8)
            #expect(fresh == old, "\(name) is out of date: run coredata generate Tests/Models/Library.xcdatamodeld -o Tests/OpenCoreDataTests/Generation/Generated --access internal")
        }
    }

    @Test("Types follow optional and usesScalarValueType; public access and --entity")
    func typesAndAccess() throws {
        var generator = ClassGenerator(model: try Self.model())
        generator.access = .public
        let files = try generator.files(forEntityNames: ["LibNote", "LibAuthor"])
        #expect(files.map(\.name) == ["LibAuthor+CoreDataProperties.swift", "LibNote+CoreDataClass.swift", "LibNote+CoreDataProperties.swift"])
        let note = try #require(files.first { $0.name == "LibNote+CoreDataProperties.swift" }).contents
        #expect(note.contains("    @Managed public var text: String?\n"))
        #expect(note.contains("public class func fetchRequest() -> NSFetchRequest<LibNote>"))
        let book = generator.propertiesFile(try #require(generator.model.entitiesByName["LibBook"])).contents
        for line in ["var copies: Int16\n", "var edition: NSNumber?\n", "var signed: NSNumber?\n", "var `default`: String?\n",
                     "var keywords: [String]?\n", "var price: Decimal?\n", "var chapters: NSOrderedSet?\n"] {
            #expect(book.contains("@Managed public " + line), "\(line)")
        }
        #expect(!book.contains("var title"), "inherited properties are declared by the superentity's class only")
        #expect(!book.contains("Identifiable"))
        #expect(throws: ClassGenerator.Failure.self) { try generator.files(forEntityNames: ["Nope"]) }
        #expect(CoreDataCommand.runAsTool(["generate", Self.modelURL.path, "--access", "open"]) == CoreDataCommand.failureStatus)
    }

    @Test("Generated classes round-trip every attribute type and relationship through a SQLite store")
    func roundTrip() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Library.sqlite")
        let model = try Self.model()
        let uuid = UUID()
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let author = LibAuthor(context: context)
            author.name = "Ursula"
            let book = LibBook(context: context)
            book.title = "The Dispossessed"
            book.addedAt = Date(timeIntervalSinceReferenceDate: 12345.5)
            book.available = false
            book.copies = 3
            book.cover = Data([0xCA, 0xFE])
            book.default = "d"
            book.edition = NSNumber(value: Int64(2))
            book.identifier = uuid
            book.isbn = 9_780_061_054_884
            book.keywords = ["anarchy", "physics"]
            book.link = URL(string: "https://example.com/book")
            book.pages = 387
            book.price = Decimal(string: "12.99")
            book.rating = 4.5
            book.signed = NSNumber(value: true)
            book.weight = 0.25
            book.author = author
            for number in 1...3 {
                let chapter = LibChapter(context: context)
                chapter.number = Int32(number)
                book.addToChapters(chapter)
            }
            let first = LibChapter(context: context)
            first.number = 0
            book.insertIntoChapters(first, at: 0)
            let tag = LibTag(context: context)
            tag.name = "sf"
            book.addToTags(tag)
            try context.save()
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.model())
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let items = try context.fetch(LibItem.fetchRequest())
        #expect(items.count == 1)
        let book = try #require(try context.fetch(LibBook.fetchRequest()).first)
        #expect(book.title == "The Dispossessed")
        #expect(book.addedAt == Date(timeIntervalSinceReferenceDate: 12345.5))
        #expect(book.available == false)
        #expect(book.copies == 3)
        #expect(book.cover == Data([0xCA, 0xFE]))
        #expect(book.default == "d")
        #expect(book.edition?.int64Value == 2)
        #expect(book.identifier == uuid)
        #expect(book.isbn == 9_780_061_054_884)
        #expect(book.keywords == ["anarchy", "physics"])
        #expect(book.link == URL(string: "https://example.com/book"))
        #expect(book.pages == 387)
        #expect(book.price == Decimal(string: "12.99"))
        #expect(book.rating == 4.5)
        #expect(book.signed?.boolValue == true)
        #expect(book.weight == 0.25)
        #expect(book.author?.name == "Ursula")
        #expect(book.author?.books?.count == 1)
        #expect(book.chapters?.array.compactMap { ($0 as? LibChapter)?.number } == [0, 1, 2, 3])
        #expect((book.chapters?.firstObject as? LibChapter)?.book === book)
        #expect((book.tags?.anyObject() as? LibTag)?.name == "sf")
        #expect(book.id == ObjectIdentifier(book))
        let tag = try #require(try context.fetch(LibTag.fetchRequest()).first)
        book.removeFromTags(tag)
        #expect(tag.books?.count == 0)
    }

    @Test("The build plugin's files: one Swift file of Class and Category entities, a model with module-qualified classes")
    func pluginOutputs() throws {
        let source = ClassGenerator(model: try NSManagedObjectModel.load(contentsOf: Self.modelURL)).combinedSource(modelName: "Library")
        #expect(source.contains("public class LibBook: LibItem {"))
        #expect(source.contains("extension LibAuthor {"))
        #expect(!source.contains("class LibAuthor"), "Category: the class is hand-written")
        #expect(!source.contains("LibNote"), "Manual/None: nothing generated")
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let compiled = folder.appendingPathComponent("Library.momd")
        try CompiledModelFormat.compile(modelAt: Self.modelURL, to: compiled, moduleName: "LibraryApp", format: .apple)
        let names = try NSManagedObjectModel.load(contentsOf: compiled).entitiesByName.mapValues { $0.managedObjectClassName ?? "" }
        // `.LibBook` (Current Product Module) and `LibItem` (no module) both get the module.
        #expect(names["LibBook"] == "LibraryApp.LibBook")
        #expect(names["LibItem"] == "LibraryApp.LibItem")
    }
}
