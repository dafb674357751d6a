import Foundation
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData

/// Models that used to trap or take super-linear time: compiled models with missing or
/// out-of-range enumerations and negative counts, deep inheritance chains, thousands of
/// subentities.
@Suite struct ModelHostileInputTests {
    // MARK: Compiled models

    /// A compiled model tree with one entity `E` whose one property is `property`.
    static func compiledTree(property: [String: Any]) -> [String: Any] {
        var property = property
        property["name"] = property["name"] ?? "p"
        return ["format": CompiledModelFormat.formatName, "formatVersion": CompiledModelFormat.formatVersion,
                "entities": [["name": "E", "properties": [property]], ["name": "F", "properties": [[String: Any]]()]]]
    }

    static func badProperties() -> [(property: [String: Any], expected: String)] { [
        (["kind": "attribute"], "type is missing"),
        (["kind": "attribute", "type": -1], "type -1 is not an NSAttributeType"),
        (["kind": "attribute", "type": 123_456], "type 123456 is not an NSAttributeType"),
        (["kind": "attribute", "type": "String"], "type String is not an NSAttributeType"),
        (["kind": "relationship", "destination": "F", "deleteRule": -3], "deleteRule -3 is not an NSDeleteRule"),
        (["kind": "relationship", "destination": "F", "deleteRule": 9], "deleteRule 9 is not an NSDeleteRule"),
        (["kind": "relationship", "destination": "F", "minCount": -1], "minCount -1 is not a non-negative integer"),
        (["kind": "relationship", "destination": "F", "maxCount": -5], "maxCount -5 is not a non-negative integer"),
        (["kind": "expression", "resultType": -2], "resultType -2 is not an NSAttributeType"),
        (["kind": "fetchedProperty", "request": ["entity": "F", "fetchLimit": -1]], "fetchLimit -1 is not a non-negative integer"),
        (["kind": "fetchedProperty", "request": ["entity": "F", "resultType": -1]], "resultType -1 is not a non-negative integer"),
        (["kind": "fetchedProperty", "request": ["entity": "F", "resultType": 3]], "resultType 3 is not an NSFetchRequestResultType"),
    ] }

    @Test(arguments: badProperties().indices)
    func compiledModelWithABadEnumerationOrCountThrowsNamingTheElement(index: Int) throws {
        let (property, expected) = Self.badProperties()[index]
        let error = try #require(throws: ManagedObjectModelError.self) {
            try CompiledModelDecoder().decode(Self.compiledTree(property: property))
        }
        #expect(error.kind == .invalidCompiledModel)
        #expect("\(error)".contains(expected), "\(error)")
        #expect("\(error)".contains("property 'p' of entity 'E'"), "\(error)")
    }

    @Test func compiledIndexWithABadCollationThrows() throws {
        let tree: [String: Any] = [
            "entities": [["name": "E", "properties": [["name": "a", "kind": "attribute", "type": 700]],
                          "indexes": [["name": "byA", "elements": [["property": "a", "collation": -1]]]]]],
        ]
        let error = try #require(throws: ManagedObjectModelError.self) { try CompiledModelDecoder().decode(tree) }
        #expect("\(error)".contains("collation -1 is not an NSFetchIndexElementType"), "\(error)")
        #expect("\(error)".contains("index 'byA' of entity 'E'"), "\(error)")
    }

    // MARK: Load time

    /// The `contents` XML of a model: `entities` as (name, parent, inner XML).
    static func contentsXML(_ entities: [(name: String, parent: String?, body: String)]) -> Data {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<model type=\"com.apple.IDECoreDataModeler.DataModel\">\n"
        for entity in entities {
            let parent = entity.parent.map { " parentEntity=\"\($0)\"" } ?? ""
            xml += "<entity name=\"\(entity.name)\"\(parent)>\(entity.body)</entity>\n"
        }
        return Data((xml + "</model>\n").utf8)
    }

    /// Reads `contents` from a temporary `.xcdatamodel` folder.
    static func load(_ contents: Data) throws -> NSManagedObjectModel {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = directory.appendingPathComponent("M.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try contents.write(to: version.appendingPathComponent("contents"))
        return try NSManagedObjectModel.load(contentsOf: version)
    }

    /// 110 entities in one inheritance chain, each declaring one attribute: every version hash
    /// is computed once per entity (it was recomputed up the chain for every entity: cubic).
    @Test func deepInheritanceChainHashesEachEntityOnce() throws {
        let depth = 110
        let entities = (0..<depth).map { level in
            (name: "E\(level)", parent: level == 0 ? nil : "E\(level - 1)",
             body: "<attribute name=\"a\(level)\" optional=\"YES\" attributeType=\"String\"/>")
        }
        let model = try Self.load(Self.contentsXML(entities))
        #expect(model.entitiesByName["E\(depth - 1)"]?.properties.count == depth)

        let counter = ModelWorkCounter()
        let (hashes, inspection) = ModelWorkCounter.$current.withValue(counter) {
            (model.entityVersionHashesByName, ModelInspection.json(for: model))
        }
        #expect(hashes.count == depth)
        #expect(counter.count(.entityVersionHash) == 2 * depth, "once per entity for the hashes, once for the inspection")
        #expect(inspection.contains(try #require(hashes["E\(depth - 1)"]).base64EncodedString()))

        // The last entity's hash alone hashes each ancestor once.
        let single = ModelWorkCounter()
        let last = ModelWorkCounter.$current.withValue(single) { model.entitiesByName["E\(depth - 1)"]?.versionHash }
        #expect(last == hashes["E\(depth - 1)"])
        #expect(single.count(.entityVersionHash) == depth)

        // A model in use computes them once, when it becomes immutable, and keeps them.
        let frozen = ModelWorkCounter()
        ModelWorkCounter.$current.withValue(frozen) {
            _ = NSPersistentStoreCoordinator(managedObjectModel: model)
            #expect(model.entityVersionHashesByName == hashes)
            #expect(model.entities.map(\.versionHash) == model.entities.map { hashes[$0.name ?? ""] })
        }
        #expect(frozen.count(.entityVersionHash) == depth)
    }

    /// 3,000 subentities of one entity with a relationship: the entities-by-name index is built
    /// a bounded number of times, not once per destination lookup (quadratic).
    @Test func thousandsOfSubentitiesBuildTheNameIndexOnce() throws {
        let count = 3_000
        var entities: [(name: String, parent: String?, body: String)] = [
            ("Base", nil, """
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Owner" inverseName="things" inverseEntity="Owner"/>
                """),
            ("Owner", nil, """
                <relationship name="things" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Base" inverseName="owner" inverseEntity="Base"/>
                """),
        ]
        entities += (0..<count).map { (name: "Sub\($0)", parent: "Base", body: "<attribute name=\"s\($0)\" optional=\"YES\" attributeType=\"Integer 64\"/>") }
        let counter = ModelWorkCounter()
        let hashes = try ModelWorkCounter.$current.withValue(counter) {
            let model = try Self.load(Self.contentsXML(entities))
            #expect(model.entitiesByName["Base"]?.subentities.count == count)
            #expect(model.entitiesByName["Sub7"]?.relationshipsByName["owner"]?.destinationEntity?.name == "Owner")
            return model.entityVersionHashesByName
        }
        #expect(hashes.count == count + 2)
        #expect(counter.count(.entityVersionHash) == count + 2)
        #expect(counter.count(.entitiesByNameIndex) <= 2, "built after the entities are set (and again only after a change)")
    }

    @Test func renamingAnEntityOfAnEditableModelUpdatesTheNameIndex() {
        let model = NSManagedObjectModel()
        let entity = GraphTestModel.entity("Old")
        model.entities = [entity]
        #expect(model.entitiesByName["Old"] === entity)
        entity.name = "New"
        #expect(model.entitiesByName["Old"] == nil)
        #expect(model.entitiesByName["New"] === entity)
        let other = GraphTestModel.entity("Other")
        model.entities = [entity, other]
        #expect(model.entitiesByName["Other"] === other)
    }
}
