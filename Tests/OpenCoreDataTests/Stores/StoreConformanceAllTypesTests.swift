import Foundation
import Testing
@testable import OpenCoreData

/// A model with every attribute type and every relationship kind, for the conformance body.
///
/// - `Sample`: one attribute of each type (`int16` … `transformable`), `owner` one-to-one ↔
///   `Node.sample`.
/// - `Node` (`name`) with subentity `Leaf` (`weight`): `parent` to-one ↔ `children` ordered
///   to-many (inside the inheritance tree), `tags` many-to-many ↔ `Tag.nodes`.
/// - `Tag` (`label`).
enum AllTypesModel {
    static let attributeTypes: [(String, NSAttributeType)] = [
        ("int16", .integer16AttributeType), ("int32", .integer32AttributeType), ("int64", .integer64AttributeType),
        ("decimal", .decimalAttributeType), ("double", .doubleAttributeType), ("float", .floatAttributeType),
        ("string", .stringAttributeType), ("flag", .booleanAttributeType), ("date", .dateAttributeType),
        ("binary", .binaryDataAttributeType), ("uuid", .UUIDAttributeType), ("uri", .URIAttributeType),
        ("transformable", .transformableAttributeType), ("reference", .objectIDAttributeType),
    ]

    static func make() -> NSManagedObjectModel {
        let sample = entity("Sample", attributeTypes.map { attribute($0.0, $0.1) })
        let node = entity("Node", [attribute("name", .stringAttributeType)])
        let leaf = entity("Leaf", [attribute("weight", .doubleAttributeType)])
        let tag = entity("Tag", [attribute("label", .stringAttributeType)])
        node.subentities = [leaf]
        let owner = relationship("owner", to: node, max: 1), sampleOf = relationship("sample", to: sample, max: 1)
        let parent = relationship("parent", to: node, max: 1), children = relationship("children", to: node, max: 0)
        children.isOrdered = true
        let tags = relationship("tags", to: tag, max: 0), nodes = relationship("nodes", to: node, max: 0)
        for (a, b) in [(owner, sampleOf), (parent, children), (tags, nodes)] {
            a.inverseRelationship = b
            b.inverseRelationship = a
        }
        sample.properties += [owner]
        node.properties += [sampleOf, parent, children, tags]
        tag.properties += [nodes]
        let model = NSManagedObjectModel()
        model.entities = [sample, node, leaf, tag]
        return model
    }

    /// One value of every attribute type, chosen to catch lossy encodings.
    static var values: [String: Any] { [
        "int16": Int16.min, "int32": Int32.max, "int64": Int64.max - 7,
        "decimal": Decimal(string: "12345678901234567890.123456789")!,
        "double": 0.1 + 0.2, "float": Float(3.1415927), "string": "<a & b> \"quoted\" 'single' ünïcödé\nsecond line\ttab",
        "flag": true, "date": Date(timeIntervalSinceReferenceDate: 445103622.123456789),
        "binary": Data([0, 1, 2, 254, 255, 60, 38]), "uuid": UUID(uuidString: "8F0B5E5C-9A36-4E4B-9D2E-0E8A4C7D1B11")!,
        "uri": URL(string: "https://example.com/a?b=c&d=e#f")!, "transformable": ["one", "two"],
    ] }

    private static func entity(_ name: String, _ properties: [NSPropertyDescription]) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.properties = properties
        return entity
    }

    private static func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        return attribute
    }

    private static func relationship(_ name: String, to destination: NSEntityDescription, max: Int) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        relationship.maxCount = max
        relationship.destinationEntity = destination
        return relationship
    }
}

extension StoreConformanceTests {
    /// Every attribute type and every relationship kind survive a save (and reopening, for file
    /// stores), including relationships between entities of one inheritance tree. (The
    /// property-list test store only holds the company model's attribute types.)
    @Test(arguments: StoreTypesUnderTest.all.filter { $0 != PlistTestStore.storeType })
    func everyAttributeTypeAndRelationshipKindRoundTrips(storeType: String) throws {
        let model = AllTypesModel.make()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = StoreTypesUnderTest.location(storeType, directory.appendingPathComponent("AllTypes.\(storeType.lowercased())"))
        let store = try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
        let entities = model.entitiesByName
        let ids = try coordinator.permanentObjectIDs(for: [
            (entities["Sample"]!, store), (entities["Sample"]!, store), (entities["Node"]!, store), (entities["Leaf"]!, store),
            (entities["Leaf"]!, store), (entities["Tag"]!, store), (entities["Tag"]!, store),
        ])
        let (full, empty, root, leafA, leafB, red, blue) = (ids[0], ids[1], ids[2], ids[3], ids[4], ids[5], ids[6])
        var sampleValues = AllTypesModel.values
        sampleValues["owner"] = root
        sampleValues["reference"] = red
        try coordinator.save(StoreSaveChanges(inserted: [
            ObjectSnapshot(objectID: full, values: sampleValues),
            ObjectSnapshot(objectID: empty, values: [:]),
            ObjectSnapshot(objectID: root, values: ["name": "root", "sample": full], toMany: ["children": [leafB, leafA], "tags": [red, blue]]),
            ObjectSnapshot(objectID: leafA, values: ["name": "a", "weight": 1.5, "parent": root], toMany: ["children": [], "tags": [red]]),
            ObjectSnapshot(objectID: leafB, values: ["name": "b", "weight": -2.25, "parent": root], toMany: ["children": [], "tags": []]),
            ObjectSnapshot(objectID: red, values: ["label": "red"], toMany: ["nodes": [root, leafA]]),
            ObjectSnapshot(objectID: blue, values: ["label": "blue"], toMany: ["nodes": [root]]),
        ]))

        var reader = coordinator
        if let url {
            reader = NSPersistentStoreCoordinator(managedObjectModel: model)
            try reader.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
        }
        func fetch(_ entity: String, _ format: String) throws -> ObjectSnapshot {
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity)
            request.predicate = NSPredicate(format: format)
            guard case .snapshots(let rows) = try reader.executeFetch(request), rows.count == 1 else {
                throw NSError(domain: "test", code: 1, userInfo: [NSLocalizedDescriptionKey: "expected one \(entity) for \(format)"])
            }
            return rows[0]
        }
        let sample = try fetch("Sample", "int16 != nil")
        #expect(sample.values["int16"] as? Int16 == Int16.min)
        #expect(sample.values["int32"] as? Int32 == Int32.max)
        #expect(sample.values["int64"] as? Int64 == Int64.max - 7)
        #expect(sample.values["decimal"] as? Decimal == Decimal(string: "12345678901234567890.123456789")!)
        #expect(sample.values["double"] as? Double == 0.1 + 0.2)
        #expect(sample.values["float"] as? Float == Float(3.1415927))
        #expect(sample.values["string"] as? String == AllTypesModel.values["string"] as? String)
        #expect(sample.values["flag"] as? Bool == true)
        #expect(sample.values["date"] as? Date == AllTypesModel.values["date"] as? Date, "dates keep every bit")
        #expect(sample.values["binary"] as? Data == Data([0, 1, 2, 254, 255, 60, 38]))
        #expect(sample.values["uuid"] as? UUID == AllTypesModel.values["uuid"] as? UUID)
        #expect(sample.values["uri"] as? URL == AllTypesModel.values["uri"] as? URL)
        #expect((sample.values["transformable"] as? [Any])?.compactMap { $0 as? String } == ["one", "two"])
        let tagRow = try fetch("Tag", "label == 'red'")
        #expect((sample.values["reference"] as? NSManagedObjectID)?.uriRepresentation() == tagRow.objectID.uriRepresentation(),
                "object ID attributes")
        let blank = try fetch("Sample", "int16 == nil")
        #expect(blank.values.isEmpty, "nil attributes and an empty to-one stay nil")

        let rootRow = try fetch("Node", "name == 'root'")
        #expect((sample.values["owner"] as? NSManagedObjectID)?.uriRepresentation() == rootRow.objectID.uriRepresentation(), "one-to-one")
        #expect((rootRow.values["sample"] as? NSManagedObjectID)?.uriRepresentation() == sample.objectID.uriRepresentation())
        let leafRowA = try fetch("Leaf", "name == 'a'"), leafRowB = try fetch("Node", "name == 'b'")
        #expect(leafRowA.objectID.entity.name == "Leaf" && leafRowB.objectID.entity.name == "Leaf", "subentity rows keep their entity")
        #expect(leafRowA.values["weight"] as? Double == 1.5)
        let children = try reader.relatedObjectIDs(for: model.entitiesByName["Node"]!.relationshipsByName["children"]!, of: rootRow.objectID)
        #expect(children.map { $0.uriRepresentation() } == [leafRowB.objectID, leafRowA.objectID].map { $0.uriRepresentation() },
                "ordered to-many keeps its order")
        #expect((leafRowA.values["parent"] as? NSManagedObjectID)?.uriRepresentation() == rootRow.objectID.uriRepresentation(),
                "to-one between entities of one tree")
        let tagRed = try fetch("Tag", "label == 'red'")
        let redNodes = try reader.relatedObjectIDs(for: model.entitiesByName["Tag"]!.relationshipsByName["nodes"]!, of: tagRed.objectID)
        #expect(Set(redNodes.map { $0.uriRepresentation() }) == Set([rootRow.objectID, leafRowA.objectID].map { $0.uriRepresentation() }),
                "many-to-many")
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Node")
        request.predicate = NSPredicate(format: "ANY tags.label == 'red' AND parent.name == 'root'")
        guard case .snapshots(let matched) = try reader.executeFetch(request) else { Issue.record("no snapshots"); return }
        #expect(matched.map { $0.values["name"] as? String } == ["a"], "predicates traverse reloaded relationships")
    }
}
