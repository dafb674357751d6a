import Foundation
import Testing
@testable import OpenCoreData

/// File stores and model files given hostile input: nesting deep enough to exhaust a recursive
/// reader's stack, and the temporaries of writes killed mid-way.
@Suite struct FileStoreHostileInputTests {
    /// `depth` nested elements inside an object of the sample store.
    static func deeplyNested(_ depth: Int) -> String {
        XMLStoreTests.appleSample.replacingOccurrences(
            of: "<attribute name=\"title\" type=\"string\">Launch</attribute>",
            with: String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth))
    }

    @Test func xmlStoreNestedDeeperThanTheLimitIsACorruptFileNotAStackOverflow() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Deep.xml")
        try Data(Self.deeplyNested(2_500).utf8).write(to: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        let error = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSXMLStoreType, configurationName: nil, at: url)
        }
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains("nest deeper than \(XMLStoreDocument.maximumDepth) levels"), "\(error)")
        // At the limit it still parses (the sample's object is at depth 2).
        let atLimit = try XMLStoreDocument.parse(Data(Self.deeplyNested(XMLStoreDocument.maximumDepth - 2).utf8))
        #expect(atLimit.name == "database")
        #expect(throws: XMLStoreSyntaxError.self) {
            try XMLStoreDocument.parse(Data(Self.deeplyNested(XMLStoreDocument.maximumDepth - 1).utf8))
        }
    }

    @Test(arguments: ["NaN", "inf", "yesterday"])
    func xmlStoreDateThatIsNoDateIsACorruptFileNamingTheAttribute(text: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Dates.xml")
        try Data(XMLStoreTests.appleSample.replacingOccurrences(of: "445103622.25000000000000000000", with: text).utf8).write(to: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        let error = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSXMLStoreType, configurationName: nil, at: url)
        }
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains("'\(text)' is not a valid Date value for attribute 'hired'"), "\(error)")
    }

    @Test func modelContentsNestedDeeplyIsMalformedXMLNotAStackOverflow() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = directory.appendingPathComponent("Deep.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        let nested = String(repeating: "<userInfo>", count: 5_000) + String(repeating: "</userInfo>", count: 5_000)
        try Data("<?xml version=\"1.0\"?><model><entity name=\"E\">\(nested)</entity></model>".utf8)
            .write(to: version.appendingPathComponent("contents"))
        let error = try #require(throws: ManagedObjectModelError.self) { try NSManagedObjectModel.load(contentsOf: version) }
        #expect(error.kind == .malformedXML, "libxml2 refuses nesting past its depth limit: \(error)")
    }

    /// A killed write's temporary (our exact naming) goes when the store next opens; a file
    /// of similar but foreign naming stays, as does another store's temporary.
    @Test(arguments: [NSXMLStoreType, NSBinaryStoreType])
    func staleTemporariesOfOurNamingAreRemovedOnOpen(storeType: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Store.db")
        do {
            let fixture = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
            try fixture.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = fixture
            NSEntityDescription.insertNewObject(forEntityName: "Department", into: context).setValue("Sales", forKey: "name")
            try context.save()
        }
        let stale = ".Store.db.\(UUID().uuidString).tmp"
        let foreign = [
            ".Store.db.\(UUID().uuidString.lowercased()).tmp",   // not UUID().uuidString's form
            ".Store.db.not-a-uuid.tmp",
            "Store.db.\(UUID().uuidString).tmp",                // no leading dot
            ".Other.db.\(UUID().uuidString).tmp",               // another file's temporary
            ".Store.db.\(UUID().uuidString).tmp.keep",
        ]
        for name in [stale] + foreign { try Data("partial".utf8).write(to: directory.appendingPathComponent(name)) }

        let readOnly = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        try readOnly.addPersistentStore(ofType: storeType, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: true])
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(stale).path), "a read-only open deletes nothing")

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(left == Set(["Store.db"] + foreign))
    }

    @Test func aTemporaryHeldByALiveWriteIsNotRemoved() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Store.xml")
        let live = directory.appendingPathComponent(".Store.xml.\(UUID().uuidString).tmp")
        let dead = directory.appendingPathComponent(".Store.xml.\(UUID().uuidString).tmp")
        for file in [live, dead] { try Data("partial".utf8).write(to: file) }
        // A write in progress holds its temporary locked (see AtomicFile.write).
        let handle = try FileHandle(forWritingTo: live)
        defer { try? handle.close() }
        #expect(flock(handle.fileDescriptor, LOCK_EX) == 0)
        #expect(AtomicFile.removeStaleTemporaries(of: url) == [dead.lastPathComponent])
        #expect(FileManager.default.fileExists(atPath: live.path))
        #expect(!FileManager.default.fileExists(atPath: dead.path))
    }
}
