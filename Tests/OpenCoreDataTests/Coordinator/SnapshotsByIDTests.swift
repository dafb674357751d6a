import Foundation
import Testing
@testable import OpenCoreData

/// The snapshots a context's backing answers when faults fire, looked up by ID.
@Suite struct SnapshotsByIDTests {
    private let store: NSPersistentStore = {
        let store = NSPersistentStore(type: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        store.identifier = "snapshots-by-id-\(UUID().uuidString)"
        return store
    }()

    private func id(_ key: Int64, _ entity: String = "Person") -> NSManagedObjectID {
        NSManagedObjectID(entity: GraphTestModel.entity(entity), store: store, primaryKey: key)
    }

    @Test func findsEachSnapshotUnderAnEqualIDAndNothingElse() {
        var snapshots = SnapshotsByID(minimumCapacity: 2)
        // More snapshots than reserved: the table grows on the way.
        for key in 1...1_000 { snapshots.update(ObjectSnapshot(objectID: id(Int64(key)), values: ["name": "p\(key)"])) }
        snapshots.update(ObjectSnapshot(objectID: id(5, "Animal"), values: ["name": "cat"]))
        withExtendedLifetime(store) {
            for key in 1...1_000 {
                // An equal ID made anew, not the instance the snapshot holds.
                #expect(snapshots[id(Int64(key))]?.values["name"] as? String == "p\(key)")
            }
            #expect(snapshots[id(5, "Animal")]?.values["name"] as? String == "cat")
            #expect(snapshots[id(1_001)] == nil && snapshots[id(6, "Animal")] == nil)
            #expect(snapshots[NSManagedObjectID(temporaryFor: GraphTestModel.entity("Person"))] == nil)
            #expect(!snapshots.isEmpty && SnapshotsByID().isEmpty)
            #expect(Array(snapshots).count == 1_001)
            #expect(Set(snapshots.map(\.objectID.key)) == Set((1...1_000).map { id(Int64($0)).key } + [id(5, "Animal").key]))
        }
    }

    @Test func updateReplacesAndInsertIfAbsentKeepsTheFirst() {
        var snapshots = SnapshotsByID()
        let person = id(7)
        let first = snapshots.insertIfAbsent(ObjectSnapshot(objectID: person, values: ["name": "first"]))
        let second = snapshots.insertIfAbsent(ObjectSnapshot(objectID: id(7), values: ["name": "second"]))
        #expect(first && !second)
        #expect(snapshots[person]?.values["name"] as? String == "first")
        snapshots.update(ObjectSnapshot(objectID: id(7), values: ["name": "third"]))
        #expect(snapshots[person]?.values["name"] as? String == "third")
        #expect(Array(snapshots).count == 1)
    }

    @Test func updateWithContentsOfKeepsTheLastSnapshotOfEachID() {
        let read = [
            ObjectSnapshot(objectID: id(1), values: ["name": "one"]),
            ObjectSnapshot(objectID: id(2), values: ["name": "two"]),
            ObjectSnapshot(objectID: id(1), values: ["name": "one again"]),
        ]
        // Into an empty value (the array taken as it is unless an ID comes twice, as here).
        var taken = SnapshotsByID()
        taken.update(contentsOf: Array(read.prefix(2)))
        #expect(taken[id(1)]?.values["name"] as? String == "one" && taken[id(2)]?.values["name"] as? String == "two")
        #expect(taken.map(\.objectID.key) == [id(1).key, id(2).key])
        var twice = SnapshotsByID()
        twice.update(contentsOf: read)
        #expect(twice[id(1)]?.values["name"] as? String == "one again")
        #expect(Array(twice).count == 2)
        // Into a value holding snapshots already.
        var more = SnapshotsByID()
        more.update(ObjectSnapshot(objectID: id(2), values: ["name": "old two"]))
        more.update(ObjectSnapshot(objectID: id(3), values: ["name": "three"]))
        more.update(contentsOf: read)
        #expect(more[id(1)]?.values["name"] as? String == "one again")
        #expect(more[id(2)]?.values["name"] as? String == "two" && more[id(3)]?.values["name"] as? String == "three")
        #expect(Array(more).count == 3)
    }

    /// A snapshot taken is handed over whole and leaves the value: looked up or iterated, it
    /// is gone; the others stay, in order.
    @Test func takeMovesASnapshotOut() {
        var snapshots = SnapshotsByID()
        snapshots.update(contentsOf: (1...3).map { ObjectSnapshot(objectID: id(Int64($0)), values: ["name": "p\($0)"]) })
        let taken = snapshots.take(id(2))
        #expect(taken?.values["name"] as? String == "p2")
        #expect(taken?.objectID.key == id(2).key)
        #expect(snapshots[id(2)] == nil && snapshots.take(id(2)) == nil)
        #expect(snapshots.take(id(9)) == nil)
        #expect(snapshots.map(\.objectID.key) == [id(1).key, id(3).key])
        #expect(snapshots[id(3)]?.values["name"] as? String == "p3")
        // Taking one built by update(_:) as well.
        snapshots.update(ObjectSnapshot(objectID: id(4), values: ["name": "p4"]))
        #expect(snapshots.take(id(4))?.values["name"] as? String == "p4")
        #expect(Array(snapshots).count == 2)
        // A taken ID counts as absent again.
        let again = snapshots.insertIfAbsent(ObjectSnapshot(objectID: id(2), values: ["name": "p2 again"]))
        let thrice = snapshots.insertIfAbsent(ObjectSnapshot(objectID: id(2), values: ["name": "p2 thrice"]))
        #expect(again && !thrice)
        #expect(snapshots[id(2)]?.values["name"] as? String == "p2 again")
    }
}
