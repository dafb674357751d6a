import Foundation
import Testing
@testable import OpenCoreData

/// The old value of a to-many relationship in the current event
/// (`changedValuesForCurrentEvent()`) when the event logs the list's changes instead of copying
/// the list (``ListChangeLog``): every way the list can change after the log starts.
@Suite("The event's old value of a to-many relationship, from its logged changes")
struct ListChangeLogTests {
    private static func items(_ object: NSManagedObject) -> Set<NSManagedObject>? {
        object.changedValuesForCurrentEvent()["nullifyItems"] as? Set<NSManagedObject>
    }

    /// An owner in `context` and `count` items, the first `linked` of them its `nullifyItems`,
    /// in an event that ended.
    private static func owner(withItems count: Int, linked: Int, in context: NSManagedObjectContext) -> (NSManagedObject, [NSManagedObject]) {
        let owner = GraphTestModel.insert("Owner", context)
        let items = (0..<count).map { _ in GraphTestModel.insert("Item", context) }
        owner.setValue(Set(items.prefix(linked)), forKey: "nullifyItems")
        context.processPendingChanges()
        return (owner, items)
    }

    private static func sameObjects(_ set: NSOrderedSet?, _ objects: [NSManagedObject]) -> Bool {
        set?.array.elementsEqual(objects, by: { $0 as AnyObject === $1 }) == true
    }

    /// Many changes of an ordered relationship in one event, through the destinations' to-one
    /// (more than the log keeps before it becomes the list): removals, additions, and members
    /// removed and added again (at the end). The old value is the order before the event, and
    /// the current value the order they made. Read at the end only (the log is read back once,
    /// or becomes the list when it grows past half the list), or after every step (the log
    /// becomes the list at the first read, and the changes after it are not logged).
    @Test(arguments: [false, true])
    func manyOrderedChangesGiveTheOrderFromBeforeTheEvent(readingEveryStep: Bool) {
        let context = GraphTestModel.context()
        let playlist = GraphTestModel.insert("Playlist", context)
        let tracks = (0..<40).map { _ in GraphTestModel.insert("Track", context) }
        let original = Array(tracks.prefix(30))
        playlist.setValue(NSOrderedSet(array: original), forKey: "tracks")
        context.processPendingChanges()

        var expected = original
        func link(_ track: NSManagedObject) {
            track.setValue(playlist, forKey: "playlist")
            if !expected.contains(where: { $0 === track }) { expected.append(track) }
        }
        func unlink(_ track: NSManagedObject) {
            track.setValue(nil, forKey: "playlist")
            expected.removeAll { $0 === track }
        }
        for step in 0..<10 {
            unlink(tracks[3 * step + 1])
            link(tracks[30 + step])
            if step % 2 == 1 { link(tracks[3 * step - 2]) }
            if readingEveryStep {
                #expect(Self.sameObjects(playlist.changedValuesForCurrentEvent()["tracks"] as? NSOrderedSet, original), "after step \(step)")
            }
        }
        #expect(Self.sameObjects(playlist.changedValuesForCurrentEvent()["tracks"] as? NSOrderedSet, original))
        #expect(Self.sameObjects(playlist.value(forKey: "tracks") as? NSOrderedSet, expected))
        context.processPendingChanges()
        #expect(playlist.changedValuesForCurrentEvent().isEmpty)
    }

    /// The same for an unordered relationship, read only at the end of the event (so the log
    /// is read back once, from the list as the event left it).
    @Test func unorderedChangesReadAtTheEndGiveTheSetFromBeforeTheEvent() {
        let context = GraphTestModel.context()
        let (owner, items) = Self.owner(withItems: 12, linked: 6, in: context)
        items[6].setValue(owner, forKey: "nullifyOwner")
        items[0].setValue(nil, forKey: "nullifyOwner")
        items[7].setValue(owner, forKey: "nullifyOwner")
        items[6].setValue(nil, forKey: "nullifyOwner")
        items[0].setValue(owner, forKey: "nullifyOwner")
        items[1].setValue(nil, forKey: "nullifyOwner")
        #expect(Self.items(owner) == Set(items.prefix(6)))
        #expect(owner.value(forKey: "nullifyItems") as? Set<NSManagedObject> == Set([items[0], items[2], items[3], items[4], items[5], items[7]]))
        // More changes than the log keeps (8, or half the list) before it becomes the list.
        for item in items[8...] { item.setValue(owner, forKey: "nullifyOwner") }
        for item in items[2...4] { item.setValue(nil, forKey: "nullifyOwner") }
        #expect(Self.items(owner) == Set(items.prefix(6)))
        #expect(owner.value(forKey: "nullifyItems") as? Set<NSManagedObject> == Set([items[0], items[5], items[7]] + items[8...]))
    }

    /// Linking many objects to one that had none, in one event (as an import does): the old
    /// value is the empty set however long the event gets. Read at the end only (the log grows
    /// past half the list and becomes it), or after every link (the log becomes the list at the
    /// first read).
    @Test(arguments: [false, true])
    func linkingManyInOneEventKeepsTheEmptySetFromBeforeIt(readingEveryLink: Bool) {
        let context = GraphTestModel.context()
        let owner = GraphTestModel.insert("Owner", context)
        context.processPendingChanges()
        let items = (0..<50).map { _ in GraphTestModel.insert("Item", context) }
        for item in items {
            item.setValue(owner, forKey: "nullifyOwner")
            if readingEveryLink { #expect(Self.items(owner) == []) }
        }
        #expect(Self.items(owner) == [])
        #expect(owner.value(forKey: "nullifyItems") as? Set<NSManagedObject> == Set(items))
    }

    /// A whole new value set after logged changes: the old value is still the list from before
    /// the event's first change, not the list the logged changes made.
    @Test func aWholeValueAfterLoggedChangesKeepsTheListFromBeforeTheEvent() {
        let context = GraphTestModel.context()
        let (owner, items) = Self.owner(withItems: 4, linked: 2, in: context)
        items[2].setValue(owner, forKey: "nullifyOwner")
        owner.setValue(Set([items[3]]), forKey: "nullifyItems")
        #expect(Self.items(owner) == Set(items.prefix(2)))
        #expect(owner.value(forKey: "nullifyItems") as? Set<NSManagedObject> == [items[3]])
        items[1].setValue(owner, forKey: "nullifyOwner")
        #expect(Self.items(owner) == Set(items.prefix(2)))
    }

    /// A change the context does not record (one made while it merges, refreshes or awakes a
    /// fetched object) after a logged one: the old value is still the list from before the
    /// event's first recorded change, as when the event kept a copy of it.
    @Test func aChangeMadeWhileRecordingIsSuspendedEntersTheLog() {
        let context = GraphTestModel.context()
        let (owner, items) = Self.owner(withItems: 4, linked: 2, in: context)
        items[2].setValue(owner, forKey: "nullifyOwner")
        context.recordingSuspended += 1
        items[3].setValue(owner, forKey: "nullifyOwner")
        items[0].setValue(nil, forKey: "nullifyOwner")
        context.recordingSuspended -= 1
        #expect(Self.items(owner) == Set(items.prefix(2)))
        #expect(owner.value(forKey: "nullifyItems") as? Set<NSManagedObject> == Set([items[1], items[2], items[3]]))
    }

    /// An object refreshed with its changes merged after a logged change of a to-many
    /// relationship, when another context changed the relationship in the store: the reload
    /// replaces the list, and the old value stays the list from before the event, not one
    /// worked out from the list the store has now.
    @Test func refreshingWithMergedChangesKeepsTheListFromBeforeTheEvent() throws {
        let context = try GraphTestModel.storedContext()
        let (owner, items) = Self.owner(withItems: 3, linked: 2, in: context)
        try context.save()
        let other = GraphTestModel.sibling(of: context)
        let elsewhere = GraphTestModel.insert("Item", other)
        elsewhere.setValue(other.object(with: owner.objectID), forKey: "nullifyOwner")
        try other.save()

        items[2].setValue(owner, forKey: "nullifyOwner")
        items[0].setValue(nil, forKey: "nullifyOwner")
        context.refresh(owner, mergeChanges: true)
        #expect(Self.items(owner) == Set(items.prefix(2)))
        #expect(owner.value(forKey: "nullifyItems") as? Set<NSManagedObject> == Set([items[1], items[2]]))
    }

    /// The event's first change of a to-many relationship that is still a fault (the object
    /// refreshed, so in a SQL store its relationship is read from the store first): the old
    /// value is the store's list, worked out from the list the change made, in every store type.
    @Test(arguments: StoreTypesUnderTest.all)
    func aFirstChangeOfAFaultedRelationshipReportsTheStoresList(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let (ann, bob, _) = try s.insertAuthorsAndBooks()
        let context = s.context
        let titles = { (books: Set<NSManagedObject>?) in (books ?? []).compactMap { $0.value(forKey: "title") as? String }.sorted() }
        try context.performAndWait {
            let b1 = try #require((bob.value(forKey: "books") as? Set<NSManagedObject>)?.first)
            context.refresh(ann, mergeChanges: false)
            #expect(ann.isFault)
            b1.setValue(ann, forKey: "author")
            #expect(titles(ann.changedValuesForCurrentEvent()["books"] as? Set<NSManagedObject>) == ["a1", "a2"])
            #expect(titles(ann.value(forKey: "books") as? Set<NSManagedObject>) == ["a1", "a2", "b1"])
            #expect(titles(bob.changedValuesForCurrentEvent()["books"] as? Set<NSManagedObject>) == ["b1"])
        }
    }

    /// Whole lists written after a logged change, not through the changes the log records: a
    /// primitive value, and an ordered relationship's new order (which its mutable ordered set
    /// writes as one value). The old value is still the list from before the event.
    @Test func wholeListsWrittenAfterALoggedChangeKeepTheListFromBeforeTheEvent() {
        let context = GraphTestModel.context()
        let (owner, items) = Self.owner(withItems: 4, linked: 2, in: context)
        let playlist = GraphTestModel.insert("Playlist", context)
        let tracks = (0..<4).map { _ in GraphTestModel.insert("Track", context) }
        playlist.setValue(NSOrderedSet(array: Array(tracks.prefix(3))), forKey: "tracks")
        context.processPendingChanges()

        items[2].setValue(owner, forKey: "nullifyOwner")
        owner.setPrimitiveValue(Set([items[3]]), forKey: "nullifyItems")
        #expect(Self.items(owner) == Set(items.prefix(2)))

        tracks[3].setValue(playlist, forKey: "playlist")
        playlist.mutableOrderedSetValue(forKey: "tracks").moveObjects(at: [2], to: 0)
        #expect(Self.sameObjects(playlist.value(forKey: "tracks") as? NSOrderedSet, [tracks[2], tracks[0], tracks[1], tracks[3]]))
        #expect(Self.sameObjects(playlist.changedValuesForCurrentEvent()["tracks"] as? NSOrderedSet, Array(tracks.prefix(3))))
    }

    /// Undo, inside the event it makes (the undo manager called directly, so that no pending
    /// changes are processed after it), logs the changes it makes: the old value is the list
    /// before the undo, worked out through the positional insertion that undid a removal.
    @Test func anUndoneRemovalFromAnOrderedRelationshipIsLoggedInTheUndoEvent() throws {
        let context = GraphTestModel.context(undo: true)
        let playlist = GraphTestModel.insert("Playlist", context)
        let tracks = (0..<4).map { _ in GraphTestModel.insert("Track", context) }
        playlist.setValue(NSOrderedSet(array: tracks), forKey: "tracks")
        context.processPendingChanges()
        tracks[1].setValue(nil, forKey: "playlist")
        tracks[2].setValue(nil, forKey: "playlist")
        context.processPendingChanges()
        let undoManager = try #require(context.undoManager)
        undoManager.undo()
        #expect(Self.sameObjects(playlist.value(forKey: "tracks") as? NSOrderedSet, tracks))
        #expect(Self.sameObjects(playlist.changedValuesForCurrentEvent()["tracks"] as? NSOrderedSet, [tracks[0], tracks[3]]))
    }

    /// Undo of an event whose list changes were logged puts back the list from before it, and
    /// redo the list it made.
    @Test func undoOfALoggedEventPutsBackTheListFromBeforeIt() {
        let context = GraphTestModel.context(undo: true)
        let playlist = GraphTestModel.insert("Playlist", context)
        let tracks = (0..<4).map { _ in GraphTestModel.insert("Track", context) }
        playlist.setValue(NSOrderedSet(array: Array(tracks.prefix(3))), forKey: "tracks")
        context.processPendingChanges()
        tracks[1].setValue(nil, forKey: "playlist")
        playlist.mutableOrderedSetValue(forKey: "tracks").insert(tracks[3], at: 0)
        let changed = [tracks[3], tracks[0], tracks[2]]
        #expect(Self.sameObjects(playlist.value(forKey: "tracks") as? NSOrderedSet, changed))
        context.undo()
        #expect(Self.sameObjects(playlist.value(forKey: "tracks") as? NSOrderedSet, Array(tracks.prefix(3))))
        context.redo()
        #expect(Self.sameObjects(playlist.value(forKey: "tracks") as? NSOrderedSet, changed))
    }
}
