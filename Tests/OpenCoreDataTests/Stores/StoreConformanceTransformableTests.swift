import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// A model with Transformable attributes: `Item` with `title` (string), `payload` (no transformer
/// name: the secure default), `secured` (`NSSecureUnarchiveFromData` named), `tags` (a custom
/// reversible transformer) and `broken` (a transformer nobody registers).
enum TransformableModel {
    static let commaList = NSValueTransformerName("TransformableModel.CommaList")
    static let unregistered = "TransformableModel.NeverRegistered"

    static func make() -> NSManagedObjectModel {
        let item = NSEntityDescription()
        item.name = "Item"
        func attribute(_ name: String, _ type: NSAttributeType, transformer: String? = nil) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.valueTransformerName = transformer
            return attribute
        }
        item.properties = [
            attribute("title", .stringAttributeType), attribute("payload", .transformableAttributeType),
            attribute("secured", .transformableAttributeType, transformer: NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue),
            attribute("tags", .transformableAttributeType, transformer: commaList.rawValue),
            attribute("broken", .transformableAttributeType, transformer: unregistered),
        ]
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    static let date = Date(timeIntervalSinceReferenceDate: 445103622.123456789)
    static var payload: [String: Any] {
        ["list": [1, "two", 2.5, true, NSNull()], "when": date, "link": URL(string: "https://example.com/a?b=c")!,
         "bytes": Data([0, 1, 255]), "set": Set<AnyHashable>(["x"])]
    }
}

/// One test body over every store type: transformable values are saved through their value
/// transformer and read back as the value (after reopening, for file stores).
@Suite struct StoreConformanceTransformableTests {
    init() {
        // Registered where a library suite registers it: in the suite's initializer.
        ValueTransformer.setValueTransformer(CommaListTransformer(), forName: TransformableModel.commaList)
    }

    static let storeTypes = StoreTypesUnderTest.all.filter { $0 != PlistTestStore.storeType }

    /// Adds a store of `storeType` to a new coordinator (at a file in `directory` unless in-memory).
    static func open(_ storeType: String, in directory: URL, model: NSManagedObjectModel) throws -> (NSPersistentStoreCoordinator, URL?) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = StoreTypesUnderTest.location(storeType, directory.appendingPathComponent("Transformable.\(storeType.lowercased())"))
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
        return (coordinator, url)
    }

    static func items(_ coordinator: NSPersistentStoreCoordinator) throws -> [ObjectSnapshot] {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        guard case .snapshots(let rows) = try coordinator.executeFetch(request) else { return [] }
        return rows
    }

    @Test(arguments: storeTypes)
    func transformableValuesRoundTripThroughTheirTransformers(storeType: String) throws {
        let model = TransformableModel.make()
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (coordinator, url) = try Self.open(storeType, in: directory, model: model)
        let ids = try coordinator.permanentObjectIDs(for: [(model.entitiesByName["Item"]!, nil), (model.entitiesByName["Item"]!, nil)])
        try coordinator.save(StoreSaveChanges(inserted: [
            ObjectSnapshot(objectID: ids[0], values: ["title": "a", "payload": TransformableModel.payload,
                                                      "secured": ["ActiveScheme": ["IDENameString": "CalculatorApp"]],
                                                      "tags": ["red", "green"]]),
            ObjectSnapshot(objectID: ids[1], values: ["title": "b", "payload": "just a string", "secured": 42]),
        ]))

        var reader = coordinator
        if let url {
            reader = NSPersistentStoreCoordinator(managedObjectModel: model)
            try reader.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
        }
        let rows = try Self.items(reader)
        try #require(rows.count == 2)
        let payload = try #require(rows[0].values["payload"] as? [String: Any], "the value, not Data")
        let list = try #require(payload["list"] as? [Any])
        #expect(list.count == 5 && list[0] as? Int == 1 && list[1] as? String == "two" && list[2] as? Double == 2.5)
        #expect(list[3] as? Bool == true && list[4] is NSNull)
        #expect(payload["when"] as? Date == TransformableModel.date, "dates keep every bit")
        #expect(payload["link"] as? URL == URL(string: "https://example.com/a?b=c"))
        #expect(payload["bytes"] as? Data == Data([0, 1, 255]))
        #expect(payload["set"] as? Set<AnyHashable> == ["x"])
        #expect(rows[0].values["secured"] as? [String: [String: String]] == ["ActiveScheme": ["IDENameString": "CalculatorApp"]])
        #expect(rows[0].values["tags"] as? [String] == ["red", "green"], "the custom transformer, both ways")
        #expect(rows[0].values["broken"] == nil)
        #expect(rows[1].values["payload"] as? String == "just a string")
        #expect(rows[1].values["secured"] as? Int == 42)
        #expect(rows[1].values["tags"] == nil)
    }

    @Test(arguments: storeTypes)
    func anUnregisteredTransformerFailsTheSaveNamingAttributeAndTransformer(storeType: String) throws {
        let model = TransformableModel.make()
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (coordinator, _) = try Self.open(storeType, in: directory, model: model)
        let id = try coordinator.permanentObjectIDs(for: [(model.entitiesByName["Item"]!, nil)])[0]
        let error = #expect(throws: NSError.self) {
            try coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: id, values: ["title": "x", "broken": ["v"]])]))
        }
        let message = error?.localizedDescription ?? ""
        #expect(message.contains("broken"), "names the attribute: \(message)")
        #expect(message.contains(TransformableModel.unregistered), "names the transformer: \(message)")
        #expect(try Self.items(coordinator).isEmpty, "nothing was saved")

        let unarchivable = #expect(throws: NSError.self) {
            try coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: id, values: ["title": "x", "payload": NSObject()])]))
        }
        #expect(unarchivable?.localizedDescription.contains("payload") == true)
    }

    /// Our archive of this value is byte for byte Apple's (see ``KeyedArchiveValueTests``), so the
    /// stored bytes are what Apple's Core Data writes; and bytes Apple wrote read back.
    @Test func sqliteStoresApplesArchiveBytesAndReadsThem() throws {
        let model = TransformableModel.make()
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (coordinator, url) = try Self.open(NSSQLiteStoreType, in: directory, model: model)
        let ids = try coordinator.permanentObjectIDs(for: [(model.entitiesByName["Item"]!, nil), (model.entitiesByName["Item"]!, nil)])
        try coordinator.save(StoreSaveChanges(inserted: [
            ObjectSnapshot(objectID: ids[0], values: ["title": "ours", "payload": ["ActiveScheme": ["IDENameString": "CalculatorApp"]]]),
            ObjectSnapshot(objectID: ids[1], values: ["title": "apple"]),
        ]))
        let queue = try DatabaseQueue(path: try #require(url).path)
        let stored = try queue.read { db in try Data.fetchOne(db, sql: "SELECT ZPAYLOAD FROM ZITEM WHERE ZTITLE = 'ours'") }
        #expect(stored == KeyedArchiveValueTests.appleDictionary)
        try queue.write { db in
            try db.execute(sql: "UPDATE ZITEM SET ZPAYLOAD = ? WHERE ZTITLE = 'apple'", arguments: [KeyedArchiveValueTests.appleMutableArrayAsRoot])
        }
        try queue.close()

        let reader = NSPersistentStoreCoordinator(managedObjectModel: model)
        try reader.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let rows = try Self.items(reader)
        let array = try #require(rows.first { $0.values["title"] as? String == "apple" }?.values["payload"] as? [[String: Any]])
        #expect(array.map { $0["Width"] as? Double } == [198.0, 322.101])
    }

    /// Binary files store the archive; files written before transformables were archived hold the
    /// value self-described, and still read.
    @Test func binaryFilesStoreArchivesAndOlderFilesStillRead() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Items.binary")
        let fixture = try EveryKindFixture(storeType: NSBinaryStoreType, url: url)
        let id = try fixture.newIDs("Item", 1)[0]
        try fixture.coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: id, values: ["str": "old", "info": ["k": [1, "two"]]])]))
        #expect(try Data(contentsOf: url).range(of: Data("NSKeyedArchiver".utf8)) != nil, "the value is stored as a keyed archive")

        let store = try #require(fixture.store as? BinaryStore)
        var encoder = BinaryStoreEncoder(storeIdentifier: store.identifier)  // keeps values as they are: the older form
        try encoder.encode(store.contents, entities: fixture.model.entities).write(to: url)
        #expect(try Data(contentsOf: url).range(of: Data("NSKeyedArchiver".utf8)) == nil)
        let reader = NSPersistentStoreCoordinator(managedObjectModel: fixture.model)
        try reader.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: url)
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        guard case .snapshots(let rows) = try reader.executeFetch(request) else { Issue.record("no snapshots"); return }
        let info = try #require(rows.first?.values["info"] as? [String: Any])
        let list = try #require(info["k"] as? [Any])
        #expect(list.count == 2 && list[1] as? String == "two")
    }

    @Test func xmlStoresApplesArchiveBytes() throws {
        let model = TransformableModel.make()
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (coordinator, url) = try Self.open(NSXMLStoreType, in: directory, model: model)
        let id = try coordinator.permanentObjectIDs(for: [(model.entitiesByName["Item"]!, nil)])[0]
        try coordinator.save(StoreSaveChanges(inserted: [
            ObjectSnapshot(objectID: id, values: ["title": "ours", "payload": ["ActiveScheme": ["IDENameString": "CalculatorApp"]]]),
        ]))
        let text = try String(contentsOf: try #require(url), encoding: .utf8)
        #expect(text.contains(KeyedArchiveValueTests.appleDictionary.base64EncodedString()))
    }
}

extension KeyedArchiveValueTests {
    /// ``appleMutableArray``'s object table (Apple's) with its `$top` key renamed "root", as Core
    /// Data's transformer reads it (re-serialized with Python's `plistlib`).
    static let appleMutableArrayAsRoot = Data(base64Encoded: """
        YnBsaXN0MDDUAQIDBAUGMTJYJHZlcnNpb25YJG9iamVjdHNZJGFyY2hpdmVyVCR0b3ASAAGGoK4HCA8aGxwdHh8gJissLVUkbnVsbNIJCgsOWk5TLm9iamVjdHNWJGNsYXNz\
        ogwNgAKACoAN0xAJChEVGVdOUy5rZXlzoxITFIADgASABaMWFxiABoAHgAiACVpJZGVudGlmaWVyVVdpZHRoVkhpZGRlblEwI0BowAAAAAAACNIhIiMkWiRjbGFzc25hbWVY\
        JGNsYXNzZXNcTlNEaWN0aW9uYXJ5oiMlWE5TT2JqZWN00xAJCicoGaMSExSjKSoYgAuADFExI0B0IZ2yLQ5W0iEiLi9eTlNNdXRhYmxlQXJyYXmjLjAlV05TQXJyYXlfEA9O\
        U0tleWVkQXJjaGl2ZXLRMzRUcm9vdIABAAgAEQAaACMALQAyADcARgBMAFEAXABjAGYAaABqAGwAcwB7AH8AgQCDAIUAiQCLAI0AjwCRAJwAogCpAKsAtAC1ALoAxQDOANsA\
        3gDnAO4A8gD2APgA+gD8AQUBCgEZAR0BJQE3AToBPwAAAAAAAAIBAAAAAAAAADUAAAAAAAAAAAAAAAAAAAFB
        """)!
}
