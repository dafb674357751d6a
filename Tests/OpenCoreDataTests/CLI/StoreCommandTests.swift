import ArgumentParser
import Foundation
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData

/// `coredata store dump` and `coredata store migrate`.
@Suite struct StoreCommandTests {
    /// The registered file store types (XML joins when its store is registered).
    static let fileTypes: [(spelling: String, type: String)] = [("binary", NSBinaryStoreType), ("xml", NSXMLStoreType)]
        .filter { StoreTypeRegistry.shared.storeClass(for: $0.1) != nil }

    @Test func parsesTheStableForms() throws {
        let dump = try #require(try CoreDataCommand.parseAsRoot(["store", "dump", "S.bin", "--model", "M.momd", "--type", "binary"])
                                as? StoreDumpCommand)
        #expect(dump.store == "S.bin" && dump.model == "M.momd" && dump.storeType == "binary")
        let migrate = try #require(try CoreDataCommand.parseAsRoot(
            ["store", "migrate", "S.xml", "--model", "M.momd", "--from-type", "xml", "--to", "D.bin", "--to-type", "binary"])
            as? StoreMigrateCommand)
        #expect(migrate.source == "S.xml" && migrate.fromType == "xml" && migrate.destination == "D.bin" && migrate.toType == "binary")
        #expect(throws: (any Error).self) { try CoreDataCommand.parseAsRoot(["store", "dump", "S.bin", "--type", "binary"]) }
        #expect(StoreCommand.storeType("sqlite") == NSSQLiteStoreType && StoreCommand.storeType("XML") == NSXMLStoreType
                && StoreCommand.storeType("Custom") == "Custom")
    }

    /// A store of SampleModel3 v2 (User ↔ Pet) with two users, one with a pet.
    static func makePetStore(at url: URL, type: String) throws -> (model: URL, uuid: String, uris: [String]) {
        let modelURL = Fixtures.sampleModel3.appendingPathComponent("SampleModel3_v2.xcdatamodel")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: modelURL))
        let store = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let ann = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
        ann.setValue("Ann", forKey: "name")
        let bob = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
        bob.setValue("Bob \"B\"", forKey: "name")
        bob.setValue("Rex", forKey: "petName")
        let rex = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
        rex.setValue("Rex", forKey: "name")
        rex.setValue(bob, forKey: "owner")
        try context.save()
        return (modelURL, store.identifier, [ann, bob, rex].map { $0.objectID.uriRepresentation().absoluteString })
    }

    @Test(arguments: fileTypes.map(\.spelling))
    func dumpPrintsTheDocumentedJSONAndChangesNoByte(spelling: String) throws {
        let type = StoreCommand.storeType(spelling)
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Pets.\(spelling)")
        let (model, uuid, uris) = try Self.makePetStore(at: url, type: type)
        let before = try Data(contentsOf: url)
        let modified = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
        let command = try #require(try CoreDataCommand.parseAsRoot(["store", "dump", url.path, "--model", model.path, "--type", spelling])
                                   as? StoreDumpCommand)
        let json = try command.dump()
        let users = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)[NSStoreUUIDKey] as? String
        #expect(users == uuid)
        let (ann, bob, pet) = (uris[0], uris[1], uris[2])
        #expect(ann.hasPrefix("x-coredata://\(uuid)/User/p"))
        let expected = """
        {"entities": {"Pet": {"count": 1, "objects": [{"uri": "\(pet)", "attributes": {"name": "Rex"}, \
        "relationships": {"owner": "\(bob)"}}]}, \
        "User": {"count": 2, "objects": [{"uri": "\(ann)", "attributes": {"name": "Ann", "petName": null}, \
        "relationships": {"pet": null}}, {"uri": "\(bob)", "attributes": {"name": "Bob \\"B\\"", "petName": "Rex"}, \
        "relationships": {"pet": "\(pet)"}}]}}}
        """
        #expect(json == expected)
        #expect(try Data(contentsOf: url) == before, "dump changes no byte")
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date == modified)
        #expect(try JSONSerialization.jsonObject(with: Data(json.utf8)) is [String: Any])
    }

    @Test func dumpListsExactEntitiesOrderedAndSortedRelationshipsAndValueForms() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let modelFolder = directory.appendingPathComponent("Every.momd")
        try CompiledModelFormat.write(versions: [("Every", EveryKindModel.make())], currentVersion: "Every", to: modelFolder)
        let url = directory.appendingPathComponent("Every.binary")
        let fixture = try EveryKindFixture(storeType: NSBinaryStoreType, url: url, model: try NSManagedObjectModel.load(contentsOf: modelFolder))
        let saved = try BinaryStoreTests.saveGraph(fixture)
        let command = try #require(try CoreDataCommand.parseAsRoot(["store", "dump", url.path, "--model", modelFolder.path, "--type", "binary"])
                                   as? StoreDumpCommand)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(command.dump().utf8)) as? [String: Any])
        let entities = try #require(object["entities"] as? [String: [String: Any]])
        #expect(Set(entities.keys) == ["Box", "Item", "SpecialItem", "Tag"])
        #expect(entities["Item"]?["count"] as? Int == 3, "subentity objects are not listed under Item")
        #expect(entities["SpecialItem"]?["count"] as? Int == 1)
        let items = try #require(entities["Item"]?["objects"] as? [[String: Any]])
        let first = try #require(items.first)
        let uri = { (id: NSManagedObjectID) in id.uriRepresentation().absoluteString }
        let firstSaved = try #require(saved.first { $0.objectID.entity.name == "Item" })
        #expect(first["uri"] as? String == uri(firstSaved.objectID))
        let relationships = try #require(first["relationships"] as? [String: Any])
        #expect(relationships["parts"] as? [String] == firstSaved.toMany["parts"]!.map(uri), "ordered to-many in order")
        #expect(relationships["tags"] as? [String] == firstSaved.toMany["tags"]!.map(uri).sorted(), "unordered to-many sorted")
        #expect(relationships["owner"] as? String == uri(firstSaved.values["owner"] as! NSManagedObjectID))
        let attributes = try #require(first["attributes"] as? [String: Any])
        #expect(attributes["when"] as? String == "2015-02-08T15:53:42.123Z")
        #expect(attributes["blob"] as? String == "")
        #expect(attributes["i16"] as? Int == Int(Int16.min))
        #expect(attributes["flag"] as? Bool == true)
        #expect(attributes["ref"] as? String == uri(firstSaved.values["ref"] as! NSManagedObjectID))
        #expect(attributes["scratch"] == nil, "transient attributes are not dumped")
        let third = try #require(items.last?["relationships"] as? [String: Any])
        #expect(third["owner"] is NSNull, "a to-one without destination is null")
        #expect(third["tags"] as? [String] == [])
    }

    @Test(arguments: fileTypes.flatMap { from in fileTypes.map { (from.spelling, $0.spelling) } })
    func migrateCopiesEveryObjectAndLeavesTheSourceAlone(from: String, to: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("Source.\(from)")
        let (model, uuid, _) = try Self.makePetStore(at: source, type: StoreCommand.storeType(from))
        let before = try Data(contentsOf: source)
        let destination = directory.appendingPathComponent("Destination.\(to)")
        let command = try #require(try CoreDataCommand.parseAsRoot(
            ["store", "migrate", source.path, "--model", model.path, "--from-type", from, "--to", destination.path, "--to-type", to])
            as? StoreMigrateCommand)
        #expect(try command.migrate().hasPrefix("Migrated 3 objects"))
        #expect(try Data(contentsOf: source) == before, "the source is not changed")
        let dumpSource = try StoreDumpCommand.parseAsRoot([source.path, "--model", model.path, "--type", from]) as! StoreDumpCommand
        let dumpDestination = try StoreDumpCommand.parseAsRoot([destination.path, "--model", model.path, "--type", to]) as! StoreDumpCommand
        let newUUID = try #require(try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: StoreCommand.storeType(to), at: destination)[NSStoreUUIDKey] as? String)
        #expect(newUUID != uuid)
        #expect(try Self.namingObjects(dumpDestination.dump(), uuid: newUUID) == Self.namingObjects(dumpSource.dump(), uuid: uuid),
                "the same objects and relationships, under new IDs")
        #expect(throws: (any Error).self, "an existing destination is refused") { try command.migrate() }
    }

    /// A dump with every URI replaced by `Entity:name` of the object it names, so that dumps of
    /// stores with different keys compare; checks that every URI names `uuid`'s store.
    static func namingObjects(_ json: String, uuid: String) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        var names: [String: String] = [:]
        for (entity, entry) in object["entities"] as? [String: [String: Any]] ?? [:] {
            for item in entry["objects"] as? [[String: Any]] ?? [] {
                let uri = try #require(item["uri"] as? String)
                #expect(uri.hasPrefix("x-coredata://\(uuid)/\(entity)/p"))
                names[uri] = "\(entity):\((item["attributes"] as? [String: Any])?["name"] ?? "?")"
            }
        }
        var result = json
        for (uri, name) in names { result = result.replacingOccurrences(of: "\"\(uri)\"", with: "\"\(name)\"") }
        return result
    }

    @Test func errorsNameTheFileAndCode() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Broken.binary")
        try Data("not a store".utf8).write(to: url)
        let model = Fixtures.sampleModel3.appendingPathComponent("SampleModel3_v2.xcdatamodel")
        let command = try StoreDumpCommand.parseAsRoot([url.path, "--model", model.path, "--type", "binary"]) as! StoreDumpCommand
        let error = try #require(throws: StoreCommandError.self) { try command.run() }
        #expect(error.error.code == NSPersistentStoreInvalidTypeError)
        #expect(error.description.contains(url.path) && error.description.contains("134000"))
    }
}
