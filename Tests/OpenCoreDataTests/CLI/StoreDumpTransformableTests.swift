import Foundation
import GRDB
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData

/// Transformable attributes in a model file and in `coredata store dump`.
@Suite struct StoreDumpTransformableTests {
    init() {
        ValueTransformer.setValueTransformer(CommaListTransformer(), forName: TransformableModel.commaList)
    }

    /// An Xcode model: `Item` with `title`, `payload` (Transformable, no transformer: the secure
    /// default) and `tags` (Transformable through the comma-list transformer).
    static func writeModel(in directory: URL) throws -> URL {
        let model = directory.appendingPathComponent("Items.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Item" representedClassName="Item" syncable="YES" codeGenerationType="class">
                <attribute name="payload" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String: Any]"/>
                <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="\(TransformableModel.commaList.rawValue)" customClassName="[String]"/>
                <attribute name="title" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """
        try Data(contents.utf8).write(to: model.appendingPathComponent("contents"))
        return model
    }

    @Test func transformerNameAndValueClassSurviveTheModelFormats() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Self.writeModel(in: directory)
        let compiled = directory.appendingPathComponent("Items.momd")
        try CompiledModelFormat.compile(modelAt: source, to: compiled)
        for url in [source, compiled] {
            let attributes = try NSManagedObjectModel.load(contentsOf: url).entitiesByName["Item"]?.attributesByName ?? [:]
            #expect(attributes["payload"]?.valueTransformerName == "NSSecureUnarchiveFromData", "\(url.lastPathComponent)")
            #expect(attributes["payload"]?.attributeValueClassName == "[String: Any]", "\(url.lastPathComponent)")
            #expect(attributes["tags"]?.valueTransformerName == TransformableModel.commaList.rawValue, "\(url.lastPathComponent)")
            #expect(attributes["tags"]?.attributeValueClassName == "[String]", "\(url.lastPathComponent)")
        }
    }

    @Test func dumpShowsDecodedValuesAndUndecodableBytesWithANote() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let modelURL = try Self.writeModel(in: directory)
        let url = directory.appendingPathComponent("Items.sqlite")
        let model = try NSManagedObjectModel.load(contentsOf: modelURL)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let item = try #require(model.entitiesByName["Item"])
        let ids = try coordinator.permanentObjectIDs(for: [(item, nil), (item, nil)])
        try coordinator.save(StoreSaveChanges(inserted: [
            ObjectSnapshot(objectID: ids[0], values: ["title": "good", "tags": ["red", "green"],
                                                      "payload": ["list": [1, "two", true, NSNull()], "when": Date(timeIntervalSinceReferenceDate: 0)]]),
            ObjectSnapshot(objectID: ids[1], values: ["title": "bad", "payload": ["k": "v"]]),
        ]))
        let garbage = Data("not an archive".utf8)
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "UPDATE ZITEM SET ZPAYLOAD = ? WHERE ZTITLE = 'bad'", arguments: [garbage]) }
        try queue.close()

        let reader = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: modelURL))
        try reader.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        guard case .snapshots(let rows) = try reader.executeFetch(NSFetchRequest<NSFetchRequestResult>(entityName: "Item")) else {
            Issue.record("no snapshots")
            return
        }
        #expect(rows.first { $0.values["title"] as? String == "bad" }?.values["payload"] as? Data == garbage,
                "the store keeps bytes it can't decode (and logs why) rather than failing the fetch")

        let command = try #require(try CoreDataCommand.parseAsRoot(["store", "dump", url.path, "--model", modelURL.path, "--type", "sqlite"])
                                   as? StoreDumpCommand)
        let json = try command.dump()
        #expect(json.contains(#""payload": {"list": [1, "two", true, null], "when": "2001-01-01T00:00:00Z"}"#), "the decoded value: \(json)")
        #expect(json.contains(#""tags": ["red", "green"]"#), "through the named transformer: \(json)")
        #expect(json.contains(#""payload": {"undecoded": "\#(garbage.base64EncodedString())", "note": ""#), "raw bytes only when undecodable: \(json)")
        #expect(json.contains("not a keyed archive"), "the note says why: \(json)")
        #expect(json.components(separatedBy: "undecoded").count == 2, "only the bad value shows its bytes")
    }
}
