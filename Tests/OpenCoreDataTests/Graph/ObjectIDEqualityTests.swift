import Foundation
import Testing
@testable import OpenCoreData

/// `NSManagedObjectID` equality through `isEqual(_:)`, which dictionaries and sets of IDs use.
@Suite struct ObjectIDEqualityTests {
    @Test func equalIDsInEveryWrapping() throws {
        let fixture = try SQLiteStatementFixture()
        let id = try #require(try fixture.company.snapshots(fixture.company.request("Department")).first?.objectID)
        let twin = NSManagedObjectID(entity: id.entity, store: fixture.store, primaryKey: try #require(id.primaryKey))
        #expect(twin !== id)
        #expect(id.isEqual(twin))
        #expect(id.isEqual(Optional(twin) as Any))
        #expect(id.isEqual(AnyHashable(twin)))
        #expect(id.isEqual(twin as NSObject))
        #expect(!id.isEqual(nil))
        #expect(!id.isEqual("x-coredata://"))
        #expect(!id.isEqual(NSObject()))
        let other = NSManagedObjectID(entity: id.entity, store: fixture.store, primaryKey: (id.primaryKey ?? 0) + 1)
        #expect(!id.isEqual(other))
        #expect(Set([id, twin, other]).count == 2)
        var byID: [NSManagedObjectID: Int] = [id: 1]
        byID[twin, default: 0] += 1
        #expect(byID[id] == 2)
    }

    /// Boxed as `NSObject`, as sets and dictionaries box it, an ID is read from the box: equal to
    /// itself and its twins, not to another ID, another kind of object or a temporary ID.
    @Test func idsBoxedAsNSObject() throws {
        let fixture = try SQLiteStatementFixture()
        let id = try #require(try fixture.company.snapshots(fixture.company.request("Department")).first?.objectID)
        let primaryKey = try #require(id.primaryKey)
        let twin = NSManagedObjectID(entity: id.entity, store: fixture.store, primaryKey: primaryKey)
        let other = NSManagedObjectID(entity: id.entity, store: fixture.store, primaryKey: primaryKey + 1)
        let boxed: [(NSObject, Bool)] = [
            (id, true), (twin, true), (other, false), (NSManagedObjectID(temporaryFor: id.entity), false),
            (NSNumber(value: primaryKey), false), (NSObject(), false), (id.entity, false),
        ]
        for (object, equal) in boxed {
            #expect(id.isEqual(object) == equal, "\(object)")
            #expect(((id as NSObject) == object) == equal, "\(object) through NSObject's ==")
        }

        // Sets and dictionaries of many IDs (colliding buckets compare through it): each ID once,
        // found by its twin.
        let ids = (1...2_000).map { NSManagedObjectID(entity: id.entity, store: fixture.store, primaryKey: Int64($0)) }
        let twins = ids.map { NSManagedObjectID(entity: $0.entity, store: fixture.store, primaryKey: $0.primaryKey ?? 0) }
        let set = Set(ids + twins)
        #expect(set.count == ids.count)
        #expect(twins.allSatisfy(set.contains))
        #expect(!set.contains(NSManagedObjectID(entity: id.entity, store: fixture.store, primaryKey: 2_001)))
        let byID = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        #expect(twins.enumerated().allSatisfy { byID[$1] == $0 })
    }
}

/// Taking a class instance out of an `Any` (``exactInstance(_:of:)``): read from the box when its
/// type is exactly the class, cast otherwise, with the cast's results in every case.
@Suite struct ExactInstanceTests {
    class Base {}
    final class Derived: Base {}

    @Test func sameResultsAsTheCast() {
        let base = Base()
        let derived = Derived()
        #expect(exactInstance(base as Any, of: Base.self) === base)
        #expect(exactInstance(derived as Any, of: Base.self) === derived, "a subclass goes through the cast")
        #expect(exactInstance(Optional(base) as Any, of: Base.self) === base, "an optional goes through the cast")
        #expect(exactInstance(base as Any, of: Derived.self) == nil)
        #expect(exactInstance(5 as Any, of: Base.self) == nil)
        #expect(exactInstance("Base" as Any, of: Base.self) == nil)
    }

    @Test func slotValuesGiveTheirObjectIDs() throws {
        let fixture = try SQLiteStatementFixture()
        let id = try #require(try fixture.company.snapshots(fixture.company.request("Department")).first?.objectID)
        #expect(SlotValue(id).objectID === id)
        #expect(SlotValue(Optional(id) as Any).objectID === id)
        #expect(SlotValue(Int64(4)).objectID == nil)
        #expect(SlotValue(nil).objectID == nil)
        #expect(SlotValue("x-coredata://").objectID == nil)
    }
}
