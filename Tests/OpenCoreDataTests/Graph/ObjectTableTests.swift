import Foundation
import Testing
@testable import OpenCoreData

/// The open-addressing tables (``LinearProbingTable``): the registry's ``ObjectTable`` (lookups
/// by equal, not identical, IDs, replacement, growth, removal that shifts entries back) and the
/// object lists' ``IdentitySet``, each checked against the standard library's collections.
@Suite struct ObjectTableTests {
    /// A bare store with a fresh identifier (no coordinator needed to make IDs).
    private func store() -> NSPersistentStore {
        let store = NSPersistentStore(type: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        store.identifier = "table-tests-\(UUID().uuidString)"
        return store
    }

    @Test func findsObjectsByEqualIDsAndReplacesThem() {
        let store = store()
        let entity = GraphTestModel.entity("Item")
        var table = ObjectTable()
        let first = NSManagedObject(entity: entity, insertInto: nil)
        let second = NSManagedObject(entity: entity, insertInto: nil)
        let id = NSManagedObjectID(entity: entity, store: store, primaryKey: 42)
        table.set(Unmanaged.passUnretained(first), for: id)
        // Another instance of the same ID finds it.
        let equal = NSManagedObjectID(entity: entity, store: store, primaryKey: 42)
        #expect(table[equal]?.toOpaque() == Unmanaged.passUnretained(first).toOpaque())
        #expect(table[NSManagedObjectID(entity: entity, store: store, primaryKey: 43)] == nil)
        table.set(Unmanaged.passUnretained(second), for: equal)
        #expect(table.count == 1 && table[id]?.toOpaque() == Unmanaged.passUnretained(second).toOpaque())
        // Removal only takes the object registered there.
        let removedOther = table.remove(id, ifObject: Unmanaged.passUnretained(first))
        let removedOwn = table.remove(id, ifObject: Unmanaged.passUnretained(second))
        #expect(!removedOther && removedOwn)
        #expect(table.count == 0 && table[id] == nil)
    }

    /// Thousands of permanent and temporary IDs, inserted, removed in a shuffled order and
    /// inserted again: after every step the table agrees with a dictionary keyed by the IDs.
    @Test func agreesWithADictionaryThroughGrowthAndRemovals() {
        let store = store()
        let entities = [GraphTestModel.entity("Item"), GraphTestModel.entity("Other")]
        let objects = (0..<8).map { NSManagedObject(entity: entities[$0 % 2], insertInto: nil) }
        var ids: [NSManagedObjectID] = []
        for pk in 1...3_000 { ids.append(NSManagedObjectID(entity: entities[pk % 2], store: store, primaryKey: Int64(pk))) }
        for index in 0..<1_000 { ids.append(NSManagedObjectID(temporaryFor: entities[index % 2])) }
        var generator = SeededGenerator(state: 0x5EED)
        var table = ObjectTable()
        var expected: [NSManagedObjectID: Int] = [:]

        func check() {
            #expect(table.count == expected.count)
            for id in ids {
                let found = table[id].map { found in objects.firstIndex { Unmanaged.passUnretained($0).toOpaque() == found.toOpaque() } }
                guard found == expected[id].map(Optional.some) else {
                    Issue.record("\(id) maps to \(String(describing: found)), expected \(String(describing: expected[id]))")
                    return
                }
            }
        }

        for (index, id) in ids.enumerated() {
            table.set(Unmanaged.passUnretained(objects[index % objects.count]), for: id)
            expected[id] = index % objects.count
        }
        check()
        for (step, id) in ids.shuffled(using: &generator).enumerated() where step % 3 != 0 {
            guard let kept = expected[id] else { continue }
            let removed = table.remove(id, ifObject: Unmanaged.passUnretained(objects[kept]))
            #expect(removed)
            expected[id] = nil
            if step % 500 == 1 { check() }
        }
        check()
        for (index, id) in ids.enumerated() where index % 5 == 0 {
            table.update(id) { existing in existing ?? Unmanaged.passUnretained(objects[0]) }
            if expected[id] == nil { expected[id] = 0 }
        }
        check()
        #expect(table.objects.count == expected.count)
        withExtendedLifetime(store) {}
    }

    /// Objects added and removed in a shuffled order: the identity set agrees with a
    /// `Set<ObjectIdentifier>` after every step, and equal sets compare equal.
    @Test func identitySetAgreesWithASet() {
        let entity = GraphTestModel.entity("Item")
        let objects = (0..<2_000).map { _ in NSManagedObject(entity: entity, insertInto: nil) }
        var generator = SeededGenerator(state: 0x1D)
        var set = IdentitySet()
        var expected = Set<ObjectIdentifier>()
        #expect(set.remove(ObjectIdentifier(objects[0])) == false && set.count == 0)
        for object in objects {
            let id = ObjectIdentifier(object)
            #expect(set.insert(id) == expected.insert(id).inserted)
        }
        #expect(set.insert(ObjectIdentifier(objects[7])) == false)
        for (step, object) in objects.shuffled(using: &generator).enumerated() where step % 4 != 0 {
            let id = ObjectIdentifier(object)
            #expect(set.remove(id) == (expected.remove(id) != nil))
        }
        #expect(set.count == expected.count)
        #expect(objects.allSatisfy { set.contains(ObjectIdentifier($0)) == expected.contains(ObjectIdentifier($0)) })
        var rebuilt = IdentitySet()
        for id in expected.shuffled(using: &generator) { rebuilt.insert(id) }
        #expect(rebuilt == set)
        rebuilt.remove(expected.first!)
        #expect(rebuilt != set)
        set.removeAll()
        #expect(set.count == 0 && !set.contains(ObjectIdentifier(objects[1])))
    }

    /// The registry's keys keep runs of eight consecutive primary keys together: their home
    /// buckets follow each other, so a batch of rows in key order reads consecutive memory.
    @Test func consecutivePrimaryKeysGetConsecutiveBuckets() {
        struct KeyBucket: ProbingBucket {
            var key: ObjectIDKey?
            init() {}
            init(_ key: ObjectIDKey) { self.key = key }
            var hashBits: UInt64 { key?.runBits ?? 0 }
            func holds(_ key: ObjectIDKey) -> Bool { self.key == key }
            static func hashBits(of key: ObjectIDKey) -> UInt64 { key.runBits }
            static var runBits: UInt64 { 3 }
        }
        var table = LinearProbingTable<KeyBucket>()
        table.reserveCapacity(1 << 16)
        let keys = (800..<808).map { ObjectIDKey(storeToken: 1, entityToken: 2, primaryKey: $0) }
        for key in keys {
            let (index, found) = table.insertionIndex(for: key)
            #expect(!found)
            table.occupy(index, with: KeyBucket(key))
        }
        let indices = keys.compactMap { table.index(of: $0) }
        #expect(indices.count == 8)
        #expect(zip(indices, indices.dropFirst()).allSatisfy { ($1 - $0) & (table.buckets.count - 1) == 1 }, "\(indices)")
        // The next run of eight, and another entity's, start elsewhere.
        let next = ObjectIDKey(storeToken: 1, entityToken: 2, primaryKey: 808), other = ObjectIDKey(storeToken: 1, entityToken: 3, primaryKey: 800)
        #expect(next.runBits >> 3 != keys[0].runBits >> 3 && other.runBits >> 3 != keys[0].runBits >> 3)
    }
}
