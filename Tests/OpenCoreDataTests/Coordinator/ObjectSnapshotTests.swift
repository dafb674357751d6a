import Foundation
import Testing
@testable import OpenCoreData

/// ``ObjectSnapshot``'s value semantics: its to-many destinations and its values under keys
/// that are no property live in one box shared between copies, which a change must not leak
/// into another copy.
@Suite struct ObjectSnapshotTests {
    private let item: NSEntityDescription = {
        let entity = GraphTestModel.entity("Item")
        entity.properties = [GraphTestModel.attribute("title", .stringAttributeType)]
        return entity
    }()

    private func id(_ primaryKey: Int64) -> NSManagedObjectID {
        let store = NSPersistentStore(type: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        store.identifier = "snapshot-tests"
        return NSManagedObjectID(entity: item, store: store, primaryKey: primaryKey)
    }

    @Test func copiesKeepTheirOwnToManyAndExtras() {
        let tags = [id(2), id(3)]
        var original = ObjectSnapshot(objectID: id(1), values: ["title": "a", "note": "kept"], toMany: ["tags": tags], version: 4)
        var copy = original
        copy.toMany["tags"]?.append(id(9))
        copy.toMany["others"] = [id(5)]
        copy["note"] = "changed"
        #expect(original.toMany["tags"] == tags && original.toMany["others"] == nil)
        #expect(original["note"] as? String == "kept" && original.values["title"] as? String == "a")
        #expect(copy.toMany["tags"]?.count == 3 && copy.toMany["others"] == [id(5)])
        #expect(copy["note"] as? String == "changed")

        // Emptying one copy's to-many leaves the other's, and extras survive it.
        original.toMany = [:]
        #expect(original.toMany.isEmpty && original["note"] as? String == "kept")
        #expect(copy.toMany.count == 2)
        original["note"] = nil
        #expect(original.values.keys.sorted() == ["title"])
        #expect(copy.values.keys.sorted() == ["note", "title"])
    }

    @Test func aRowWithoutToManyOrExtrasReadsEmpty() {
        var snapshot = ObjectSnapshot(objectID: id(1), values: ["title": "row"], version: 1)
        #expect(snapshot.toMany.isEmpty && snapshot.values.count == 1)
        snapshot.toMany["tags", default: []].append(id(2))
        #expect(snapshot.toMany == ["tags": [id(2)]])
        snapshot.values = ["title": "new", "loose": 7]
        #expect(snapshot["loose"] as? Int == 7 && snapshot["title"] as? String == "new" && snapshot.toMany.count == 1)
    }
}
