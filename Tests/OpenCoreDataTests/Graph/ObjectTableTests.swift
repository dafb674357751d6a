import Foundation
import Testing
@testable import OpenCoreData

/// The open-addressing tables (``LinearProbingTable``): the registry's ``ObjectTable`` (lookups
/// by equal, not identical, IDs, replacement, growth, removal through tombstones) and the
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
        // The table reads each object's ID: an object is registered under its own.
        let first = NSManagedObject(entity: entity, insertInto: nil)
        let second = NSManagedObject(entity: entity, insertInto: nil)
        let id = NSManagedObjectID(entity: entity, store: store, primaryKey: 42)
        first.objectID = id
        table.set(Unmanaged.passUnretained(first), for: id)
        // Another instance of the same ID finds it.
        let equal = NSManagedObjectID(entity: entity, store: store, primaryKey: 42)
        second.objectID = equal
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
        var ids: [NSManagedObjectID] = []
        for pk in 1...3_000 { ids.append(NSManagedObjectID(entity: entities[pk % 2], store: store, primaryKey: Int64(pk))) }
        for index in 0..<1_000 { ids.append(NSManagedObjectID(temporaryFor: entities[index % 2])) }
        // Two objects of each ID (the table reads an object's ID: it is registered under its own).
        let objects = (0..<2).flatMap { _ in
            ids.map { id in
                let object = NSManagedObject(entity: id.entity, insertInto: nil)
                object.objectID = id
                return object
            }
        }
        let indexOfObject = Dictionary(uniqueKeysWithValues: objects.enumerated().map { (Unmanaged.passUnretained($1).toOpaque(), $0) })
        var generator = SeededGenerator(state: 0x5EED)
        var table = ObjectTable()
        var expected: [NSManagedObjectID: Int] = [:]

        func check() {
            #expect(table.count == expected.count)
            for id in ids {
                let found = table[id].map { found in indexOfObject[found.toOpaque()] }
                guard found == expected[id].map(Optional.some) else {
                    Issue.record("\(id) maps to \(String(describing: found)), expected \(String(describing: expected[id]))")
                    return
                }
            }
        }

        for (index, id) in ids.enumerated() {
            table.set(Unmanaged.passUnretained(objects[index]), for: id)
            expected[id] = index
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
            table.update(id) { existing in existing ?? Unmanaged.passUnretained(objects[ids.count + index]) }
            if expected[id] == nil { expected[id] = ids.count + index }
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

    /// Objects added, moved and removed in a shuffled order: the positions agree with a
    /// `[ObjectIdentifier: Int]` after every step.
    @Test func identityPositionsAgreeWithADictionary() {
        let entity = GraphTestModel.entity("Item")
        let objects = (0..<2_000).map { _ in NSManagedObject(entity: entity, insertInto: nil) }
        var generator = SeededGenerator(state: 0x1D)
        var positions = IdentityPositions()
        var expected: [ObjectIdentifier: Int] = [:]
        #expect(positions.remove(ObjectIdentifier(objects[0])) == nil && positions.count == 0)
        for (position, object) in objects.enumerated() {
            let id = ObjectIdentifier(object)
            #expect(positions.insert(id, position: position) == (expected.updateValue(position, forKey: id) == nil))
        }
        #expect(positions.insert(ObjectIdentifier(objects[7]), position: 99) == false)
        #expect(positions.position(of: ObjectIdentifier(objects[7])) == 7)
        for (step, object) in objects.shuffled(using: &generator).enumerated() where step % 4 != 0 {
            let id = ObjectIdentifier(object)
            if step % 4 == 1 {
                positions.move(id, to: step)
                expected[id] = step
            } else {
                #expect(positions.remove(id) == expected.removeValue(forKey: id))
            }
        }
        #expect(positions.count == expected.count)
        #expect(objects.allSatisfy { positions.position(of: ObjectIdentifier($0)) == expected[ObjectIdentifier($0)] })
        positions.removeAll()
        #expect(positions.count == 0 && positions.position(of: ObjectIdentifier(objects[1])) == nil)
    }

    /// A bucket of bare keys, kept in runs as the registry keeps them.
    private struct KeyBucket: ProbingBucket {
        var key: ObjectIDKey?
        init() {}
        init(_ key: ObjectIDKey) { self.key = key }
        var hashBits: UInt64 { key?.runBits ?? 0 }
        func holds(_ key: ObjectIDKey) -> Bool { self.key == key }
        static func hashBits(of key: ObjectIDKey) -> UInt64 { key.runBits }
        static var runBits: UInt64 { 3 }
    }

    private func key(_ primaryKey: Int64, entity: UInt32 = 2) -> ObjectIDKey {
        ObjectIDKey(storeToken: 1, entityToken: entity, primaryKey: primaryKey)
    }

    private func insert(_ key: ObjectIDKey, into table: inout LinearProbingTable<KeyBucket>) -> Bool {
        let (index, found) = table.insertionIndex(for: key)
        if !found { table.occupy(index, with: KeyBucket(key)) }
        return !found
    }

    /// Keys removed in key order (objects freed as a fetch's array goes) leave no tombstones
    /// behind: each removal either leaves one before a key still there or empties its run.
    /// Keys past removed ones are still found, and a removed key can come back.
    @Test func removalInKeyOrderLeavesNoTombstones() {
        var table = LinearProbingTable<KeyBucket>()
        let keys = (1...5_000).map { key(Int64($0)) }
        for key in keys { #expect(insert(key, into: &table)) }
        for (position, key) in keys.enumerated() {
            guard let index = table.index(of: key) else {
                Issue.record("key \(position + 1) is lost")
                return
            }
            table.remove(at: index)
            if position % 997 == 0 {
                #expect(keys[(position + 1)...].allSatisfy { table.index(of: $0) != nil })
                #expect(table.index(of: key) == nil)
            }
        }
        #expect(table.count == 0 && table.tombstones == 0)
        #expect(insert(keys[10], into: &table) && table.index(of: keys[10]) != nil && table.count == 1)
    }

    /// Insertions and removals of ever new keys with few live at a time (a registry over a long
    /// walk): tombstones are reused or swept by a rebuild at the same size, so the table doesn't
    /// grow with the number of keys it ever held, and it agrees with a set throughout.
    @Test func churnDoesNotGrowTheTable() {
        var table = LinearProbingTable<KeyBucket>()
        var live: [ObjectIDKey] = []
        var expected = Set<ObjectIDKey>()
        var generator = SeededGenerator(state: 0xC4A2)
        for step in 0..<40_000 {
            // Keys of two entities, neither in key order, so runs fill and empty unevenly.
            let new = key(Int64(step * 7 % 40_009), entity: UInt32(2 + step % 2))
            if insert(new, into: &table) { live.append(new) }
            expected.insert(new)
            if live.count > 40 {
                let victim = live.remove(at: Int.random(in: 0..<live.count, using: &generator))
                guard let index = table.index(of: victim) else {
                    Issue.record("step \(step): \(victim) is lost")
                    return
                }
                table.remove(at: index)
                expected.remove(victim)
            }
        }
        #expect(table.count == expected.count && expected.allSatisfy { table.index(of: $0) != nil })
        #expect(table.buckets.count <= 128, "\(table.buckets.count) buckets for \(table.count) keys")
        #expect((table.count + table.tombstones) * 4 <= table.buckets.count * 3)
    }

    /// A bucket of bare keys, placed by their probe bits (as the snapshots of a batch and the
    /// row cache's index place them).
    private struct PlainKeyBucket: ProbingBucket {
        var key: ObjectIDKey?
        init() {}
        init(_ key: ObjectIDKey) { self.key = key }
        var hashBits: UInt64 { key?.probeBits ?? 0 }
        func holds(_ key: ObjectIDKey) -> Bool { self.key == key }
        static func hashBits(of key: ObjectIDKey) -> UInt64 { key.probeBits }
    }

    /// The mean number of buckets a lookup of each of `keys` reads, inserted in order.
    private func meanProbeLength<B: ProbingBucket>(_ keys: [ObjectIDKey], _ make: (ObjectIDKey) -> B) -> Double
    where B.Key == ObjectIDKey {
        var table = LinearProbingTable<B>()
        for key in keys {
            let (index, found) = table.insertionIndex(for: key)
            if !found { table.occupy(index, with: make(key)) }
        }
        let lengths = keys.compactMap { table.index(of: $0) }.map { table.distanceFromHome($0) + 1 }
        #expect(lengths.count == keys.count)
        return Double(lengths.reduce(0, +)) / Double(lengths.count)
    }

    /// Consecutive primary keys spread evenly whatever the store and entity: a lookup reads
    /// about one bucket (runs of eight, the registry's, a few more). Keys folded by multiplying
    /// by the tables' own constant and XORing the store in took 17 to 46 buckets a lookup for
    /// some store numbers.
    @Test func consecutivePrimaryKeysSpreadEvenlyInEveryStore() {
        for store in UInt32(1)...8 {
            for entity in UInt32(1)...3 {
                let keys = (1...5_000).map { ObjectIDKey(storeToken: store, entityToken: entity, primaryKey: Int64($0)) }
                let plain = meanProbeLength(keys, PlainKeyBucket.init)
                let runs = meanProbeLength(keys, KeyBucket.init)
                #expect(plain < 1.5, "store \(store), entity \(entity): \(plain) buckets a lookup")
                #expect(runs < 2, "store \(store), entity \(entity), in runs: \(runs) buckets a lookup")
            }
        }
    }

    /// The registry's keys keep runs of eight consecutive primary keys together: their home
    /// buckets follow each other, so a batch of rows in key order reads consecutive memory.
    @Test func consecutivePrimaryKeysGetConsecutiveBuckets() {
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

extension ObjectIDKey {
    /// The key of row `primaryKey` of an entity (name number `entityToken`) in the store whose
    /// identifier's number is `storeToken`, as an ID of it would make it.
    init(storeToken: UInt32, entityToken: UInt32, primaryKey: Int64) {
        self.init(storeSpace: UInt64(storeToken) << 32, entityToken: entityToken, bits: UInt64(bitPattern: primaryKey))
    }
}
