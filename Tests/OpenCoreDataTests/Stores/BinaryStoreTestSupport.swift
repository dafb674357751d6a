import Foundation
@testable import OpenCoreData

/// A model with every attribute type and every relationship kind, for the file-store tests.
///
/// - `Item`: one attribute of each type (`i16`, `i32`, `i64`, `dec`, `dbl`, `flt`, `str`,
///   `flag`, `when`, `blob`, `uid`, `link`, `info` (transformable), `ref` (object ID),
///   `scratch` (transient)); `owner` ↔ `Box.items` (to-one/to-many), `tags` ↔ `Tag.items`
///   (many-to-many), `parts` (ordered to-many, no inverse), `next` (to-one to itself).
/// - `SpecialItem` (subentity of `Item`): `grade`.
/// - `Box`: `label`; `items`.
/// - `Tag`: `name`; `items`.
enum EveryKindModel {
    static func make() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, transient: Bool = false) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isTransient = transient
            return attribute
        }
        func relationship(_ name: String, to destination: NSEntityDescription, toMany: Bool, ordered: Bool = false) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            relationship.name = name
            relationship.destinationEntity = destination
            relationship.maxCount = toMany ? 0 : 1
            relationship.isOrdered = ordered
            return relationship
        }
        let item = NSEntityDescription(), special = NSEntityDescription(), box = NSEntityDescription(), tag = NSEntityDescription()
        item.name = "Item"
        special.name = "SpecialItem"
        box.name = "Box"
        tag.name = "Tag"
        let owner = relationship("owner", to: box, toMany: false)
        let items = relationship("items", to: item, toMany: true)
        owner.inverseRelationship = items
        items.inverseRelationship = owner
        let tags = relationship("tags", to: tag, toMany: true)
        let tagItems = relationship("items", to: item, toMany: true)
        tags.inverseRelationship = tagItems
        tagItems.inverseRelationship = tags
        item.properties = [
            attribute("i16", .integer16AttributeType), attribute("i32", .integer32AttributeType),
            attribute("i64", .integer64AttributeType), attribute("dec", .decimalAttributeType),
            attribute("dbl", .doubleAttributeType), attribute("flt", .floatAttributeType),
            attribute("str", .stringAttributeType), attribute("flag", .booleanAttributeType),
            attribute("when", .dateAttributeType), attribute("blob", .binaryDataAttributeType),
            attribute("uid", .UUIDAttributeType), attribute("link", .URIAttributeType),
            attribute("info", .transformableAttributeType), attribute("ref", .objectIDAttributeType),
            attribute("scratch", .stringAttributeType, transient: true),
            owner, tags, relationship("parts", to: item, toMany: true, ordered: true), relationship("next", to: item, toMany: false),
        ]
        special.properties = [attribute("grade", .integer16AttributeType)]
        item.subentities = [special]
        box.properties = [attribute("label", .stringAttributeType), items]
        tag.properties = [attribute("name", .stringAttributeType), tagItems]
        let model = NSManagedObjectModel()
        model.entities = [box, item, special, tag]
        return model
    }

    /// Values of every attribute type that are hard to round-trip: sub-microsecond dates,
    /// Decimals beyond Double's precision, extreme integers, non-ASCII text, empty data.
    static func hardValues(index: Int) -> [String: Any] {
        [
            "i16": Int16.min + Int16(index), "i32": Int32.max - Int32(index), "i64": Int64.min + 1 + Int64(index),
            "dec": Decimal(string: "12345678901234567890.123456789\(index)")!, "dbl": Double.pi * Double(index + 1),
            "flt": Float(1) / 3, "str": "Ünïcødé \(index) 学生甲 \u{1F600}", "flag": index % 2 == 0,
            "when": Date(timeIntervalSinceReferenceDate: 445_103_622.123_456_7 + Double(index)),
            "blob": Data((0..<(index * 7 % 300)).map { UInt8($0 & 0xFF) }), "uid": UUID(),
            "link": URL(string: "https://example.com/a?b=\(index)#c")!,
            "info": ["list": [1, 2.5, "three"] as [Any], "nested": ["deep": true]] as [String: Any],
        ]
    }
}

/// A coordinator with ``EveryKindModel`` over a store file, plus save helpers.
final class EveryKindFixture {
    let model: NSManagedObjectModel
    let coordinator: NSPersistentStoreCoordinator
    let url: URL
    let storeType: String

    init(storeType: String, url: URL, model: NSManagedObjectModel = EveryKindModel.make(), options: [AnyHashable: Any]? = nil) throws {
        self.model = model
        self.storeType = storeType
        self.url = url
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url, options: options)
    }

    var store: NSPersistentStore { coordinator.persistentStores[0] }

    func entity(_ name: String) -> NSEntityDescription { model.entitiesByName[name]! }

    func newIDs(_ entityName: String, _ count: Int) throws -> [NSManagedObjectID] {
        try coordinator.permanentObjectIDs(for: Array(repeating: (entity(entityName), nil), count: count))
    }

    func all(_ entityName: String) throws -> [ObjectSnapshot] {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
        request.includesSubentities = false
        guard case .snapshots(let rows) = try coordinator.executeFetch(request) else { return [] }
        return rows
    }
}
