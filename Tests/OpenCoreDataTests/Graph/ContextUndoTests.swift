import Foundation
import Testing
@testable import OpenCoreData

@Suite("Context undo and redo")
struct ContextUndoTests {
    @Test func undoManagerIsNilByDefault() {
        #expect(NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType).undoManager == nil)
    }

    @Test func undoAndRedoAnInsert() {
        let context = GraphTestModel.context(undo: true)
        let run = GraphTestModel.insert("Run", context)
        context.processPendingChanges()
        context.undo()
        #expect(!run.isInserted && context.insertedObjects.isEmpty && !context.hasChanges)
        #expect(context.registeredObject(for: run.objectID) == nil)
        context.redo()
        #expect(run.isInserted && context.insertedObjects == [run])
        #expect(run.value(forKey: "processID") as? Int32 == -1)
    }

    @Test func undoAndRedoAnAttributeChange() throws {
        let context = GraphTestModel.context(undo: true)
        let run = GraphTestModel.insert("Run", context)
        try context.markAsSavedForTests([run])
        run.setValue(Int32(5), forKey: "processID")
        context.processPendingChanges()
        run.setValue(Int32(9), forKey: "processID")
        #expect(run.isUpdated)
        context.undo()
        #expect(run.value(forKey: "processID") as? Int32 == 5)
        context.undo()
        #expect(run.value(forKey: "processID") as? Int32 == -1)
        #expect(!run.isUpdated && !context.hasChanges)
        context.redo()
        #expect(run.value(forKey: "processID") as? Int32 == 5)
        #expect(run.isUpdated)
        context.redo()
        #expect(run.value(forKey: "processID") as? Int32 == 9)
    }

    @Test func undoAndRedoARelationshipChangeRestoresInverses() {
        let context = GraphTestModel.context(undo: true)
        let one = GraphTestModel.insert("ClassEntity", context)
        let two = GraphTestModel.insert("ClassEntity", context)
        let student = GraphTestModel.insert("StudentEntity", context, ["inClass": one])
        context.processPendingChanges()
        two.mutableSetValue(forKey: "students").add(student)
        context.undo()
        #expect(student.value(forKey: "inClass") as? NSManagedObject === one)
        #expect(one.value(forKey: "students") as? Set<NSManagedObject> == [student])
        #expect(two.value(forKey: "students") as? Set<NSManagedObject> == [])
        context.redo()
        #expect(student.value(forKey: "inClass") as? NSManagedObject === two)
        #expect(one.value(forKey: "students") as? Set<NSManagedObject> == [])
        #expect(two.value(forKey: "students") as? Set<NSManagedObject> == [student])
    }

    /// Several to-many changes in one event are undone together and redone together; every
    /// change registers its own inverse for undo.
    @Test func undoAndRedoSeveralToManyChangesOfOneEvent() {
        let context = GraphTestModel.context(undo: true)
        let owner = GraphTestModel.insert("Owner", context)
        let items = (0..<3).map { _ in GraphTestModel.insert("Item", context) }
        let set = owner.mutableSetValue(forKey: "nullifyItems")
        set.add(items[0])
        context.processPendingChanges()
        set.add(items[1])
        set.remove(items[0])
        set.add(items[2])
        context.processPendingChanges()
        #expect(owner.value(forKey: "nullifyItems") as? Set<NSManagedObject> == [items[1], items[2]])
        context.undo()
        #expect(owner.value(forKey: "nullifyItems") as? Set<NSManagedObject> == [items[0]])
        #expect(items[0].value(forKey: "nullifyOwner") as? NSManagedObject === owner)
        #expect(items[1].value(forKey: "nullifyOwner") == nil && items[2].value(forKey: "nullifyOwner") == nil)
        context.redo()
        #expect(owner.value(forKey: "nullifyItems") as? Set<NSManagedObject> == [items[1], items[2]])
        #expect(items[0].value(forKey: "nullifyOwner") == nil)
    }

    /// Undo puts back each change of an ordered relationship's list, not the list as it was: a
    /// removed member comes back at its position, an added one goes, over one event or more,
    /// and redo makes the changes again.
    @Test func undoAndRedoOrderedMembersChangedOneAtATimeKeepTheirPositions() {
        let context = GraphTestModel.context(undo: true)
        let list = GraphTestModel.insert("Playlist", context)
        let tracks = (0..<5).map { _ in GraphTestModel.insert("Track", context) }
        list.setValue(NSOrderedSet(array: tracks), forKey: "tracks")
        context.processPendingChanges()
        // One event: the middle track and the first leave (one through its to-one), a new one joins.
        let extra = GraphTestModel.insert("Track", context)
        tracks[2].setValue(nil, forKey: "playlist")
        list.mutableOrderedSetValue(forKey: "tracks").remove(tracks[0])
        extra.setValue(list, forKey: "playlist")
        context.processPendingChanges()
        // The next: the last leaves.
        tracks[4].setValue(nil, forKey: "playlist")
        context.processPendingChanges()
        let order = { list.mutableOrderedSetValue(forKey: "tracks").array as? [NSManagedObject] ?? [] }
        #expect(order() == [tracks[1], tracks[3], extra])
        context.undo()
        #expect(order() == [tracks[1], tracks[3], tracks[4], extra])
        #expect(tracks[4].value(forKey: "playlist") as? NSManagedObject === list)
        context.undo()
        #expect(order() == tracks)
        #expect(tracks.allSatisfy { $0.value(forKey: "playlist") as? NSManagedObject === list })
        #expect(!extra.isInserted && extra.value(forKey: "playlist") == nil)
        context.redo()
        #expect(order() == [tracks[1], tracks[3], tracks[4], extra])
        #expect(tracks[0].value(forKey: "playlist") == nil && tracks[2].value(forKey: "playlist") == nil)
        context.redo()
        #expect(order() == [tracks[1], tracks[3], extra])
        #expect(tracks[4].value(forKey: "playlist") == nil)
    }

    /// Undo puts back the to-many changes it recorded and no others: a member added while undo
    /// registration was off stays, on both sides, when the recorded change before it is undone.
    /// (Putting back the whole list as it was dropped it from the owner's list and left its
    /// to-one pointing at the owner.)
    @Test func undoOfAToManyChangeKeepsAnUnrecordedChangeAfterIt() {
        let context = GraphTestModel.context(undo: true)
        let owner = GraphTestModel.insert("Owner", context)
        let items = (0..<2).map { _ in GraphTestModel.insert("Item", context) }
        context.processPendingChanges()
        items[0].setValue(owner, forKey: "nullifyOwner")
        context.processPendingChanges()
        context.undoManager?.disableUndoRegistration()
        items[1].setValue(owner, forKey: "nullifyOwner")
        context.processPendingChanges()
        context.undoManager?.enableUndoRegistration()
        context.undo()
        #expect(owner.value(forKey: "nullifyItems") as? Set<NSManagedObject> == [items[1]])
        #expect(items[0].value(forKey: "nullifyOwner") == nil)
        #expect(items[1].value(forKey: "nullifyOwner") as? NSManagedObject === owner)
        context.redo()
        #expect(owner.value(forKey: "nullifyItems") as? Set<NSManagedObject> == [items[0], items[1]])
        #expect(items[0].value(forKey: "nullifyOwner") as? NSManagedObject === owner)
    }

    @Test func undoAndRedoManyToManyAndOrdered() {
        let context = GraphTestModel.context(undo: true)
        let author = GraphTestModel.insert("Author", context)
        let book = GraphTestModel.insert("Book", context)
        let list = GraphTestModel.insert("Playlist", context)
        let a = GraphTestModel.insert("Track", context)
        let b = GraphTestModel.insert("Track", context)
        list.setValue(NSOrderedSet(array: [a, b]), forKey: "tracks")
        context.processPendingChanges()
        author.mutableSetValue(forKey: "books").add(book)
        list.setValue(NSOrderedSet(array: [b, a]), forKey: "tracks")
        context.undo()
        #expect((book.value(forKey: "authors") as? Set<NSManagedObject>)?.isEmpty == true)
        #expect(list.mutableOrderedSetValue(forKey: "tracks").array == [a, b])
        context.redo()
        #expect(book.value(forKey: "authors") as? Set<NSManagedObject> == [author])
        #expect(list.mutableOrderedSetValue(forKey: "tracks").array == [b, a])
    }

    @Test func undoAndRedoADeleteWithItsRules() throws {
        let context = GraphTestModel.context(undo: true)
        let owner = GraphTestModel.insert("Owner", context)
        let nullified = GraphTestModel.insert("Item", context)
        let cascaded = GraphTestModel.insert("Item", context)
        owner.mutableSetValue(forKey: "nullifyItems").add(nullified)
        owner.mutableSetValue(forKey: "cascadeItems").add(cascaded)
        try context.markAsSavedForTests([owner, nullified, cascaded])
        context.processPendingChanges()
        context.delete(owner)
        context.processPendingChanges()
        #expect(context.deletedObjects == [owner, cascaded])
        #expect(nullified.value(forKey: "nullifyOwner") == nil)
        context.undo()
        #expect(context.deletedObjects.isEmpty)
        #expect(!owner.isDeleted && !cascaded.isDeleted)
        #expect(nullified.value(forKey: "nullifyOwner") as? NSManagedObject === owner)
        #expect(owner.value(forKey: "nullifyItems") as? Set<NSManagedObject> == [nullified])
        context.redo()
        #expect(context.deletedObjects == [owner, cascaded])
        #expect(nullified.value(forKey: "nullifyOwner") == nil)
    }

    @Test func undoOfInsertionAndDeletionWakesTheObject() {
        let model = GraphTestModel.make()
        model.register(RecordingRun.self, forEntityName: "Run")
        let context = GraphTestModel.context(undo: true, model: model)
        let run = GraphTestModel.insert("Run", context) as! RecordingRun
        context.processPendingChanges()
        context.undo()
        #expect(run.events.contains("snapshot(\(NSSnapshotEventType.undoInsertion.rawValue))"))
    }

    @Test func undoAndRedoTheDeletionOfANewObject() {
        let context = GraphTestModel.context(undo: true)
        let klass = GraphTestModel.insert("ClassEntity", context)
        let student = GraphTestModel.insert("StudentEntity", context, ["inClass": klass])
        context.processPendingChanges()
        context.delete(student)
        context.processPendingChanges()
        #expect(context.insertedObjects == [klass])
        context.undo()
        #expect(context.insertedObjects == [klass, student])
        #expect(student.value(forKey: "inClass") as? NSManagedObject === klass)
        #expect(klass.value(forKey: "students") as? Set<NSManagedObject> == [student])
        context.redo()
        #expect(context.insertedObjects == [klass] && context.registeredObject(for: student.objectID) == nil)
        #expect((klass.value(forKey: "students") as? Set<NSManagedObject>)?.isEmpty == true)
    }

    /// An ordered relationship emptied by the nullify delete rule, from either side: deleting
    /// its owner, or deleting every member. Undo puts the members back in their order; redo
    /// empties it again.
    @Test(arguments: [false, true])
    func undoAndRedoAnOrderedRelationshipEmptiedByADeleteRule(deletingTheMembers: Bool) throws {
        let context = GraphTestModel.context(undo: true)
        let list = GraphTestModel.insert("Playlist", context)
        let tracks = (0..<4).map { _ in GraphTestModel.insert("Track", context) }
        list.setValue(NSOrderedSet(array: tracks), forKey: "tracks")
        try context.markAsSavedForTests([list] + tracks)
        context.processPendingChanges()
        let order = { (list.value(forKey: "tracks") as? NSOrderedSet)?.array as? [NSManagedObject] ?? [] }
        if deletingTheMembers {
            for index in [2, 0, 3, 1] { context.delete(tracks[index]) }
        } else {
            context.delete(list)
        }
        context.processPendingChanges()
        #expect(order().isEmpty)
        #expect(tracks.allSatisfy { $0.value(forKey: "playlist") == nil })
        context.undo()
        #expect(context.deletedObjects.isEmpty)
        #expect(order() == tracks)
        #expect(tracks.allSatisfy { $0.value(forKey: "playlist") as? NSManagedObject === list })
        context.redo()
        #expect(order().isEmpty)
        #expect(tracks.allSatisfy { $0.value(forKey: "playlist") == nil })
        #expect(context.deletedObjects == (deletingTheMembers ? Set(tracks) : [list]))
    }

    /// Undo of a to-many change after the object was saved and refreshed: the object, and in a
    /// store whose rows carry no to-many destinations its relationship, is read from the store
    /// first, and the change is undone on what it read. Redo and a save then store the change.
    @Test(arguments: StoreTypesUnderTest.all)
    func undoAToManyChangeAfterARefresh(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let (ann, _, _) = try s.insertAuthorsAndBooks()
        let context = s.context
        let titles = { (author: NSManagedObject) in
            ((author.value(forKey: "books") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "title") as? String }.sorted()
        }
        try context.performAndWait {
            context.undoManager = UndoManager()
            let a1 = try #require((ann.value(forKey: "books") as? Set<NSManagedObject>)?.first { $0.value(forKey: "title") as? String == "a1" })
            a1.setValue(nil, forKey: "author")
            try context.save()
            context.refresh(ann, mergeChanges: false)
            #expect(ann.isFault)
            context.undo()
            #expect(titles(ann) == ["a1", "a2"])
            #expect(a1.value(forKey: "author") as? NSManagedObject === ann)
            context.redo()
            #expect(titles(ann) == ["a2"])
            #expect(a1.value(forKey: "author") == nil)
            context.undo()
            try context.save()
        }
        let other = CatalogScenario.newContext(on: s.coordinator)
        try other.performAndWait {
            let stored = try other.existingObject(with: ann.objectID)
            #expect(titles(stored) == ["a1", "a2"])
        }
    }

    @Test func eachEventIsOneUndoGroup() {
        let context = GraphTestModel.context(undo: true)
        let run = GraphTestModel.insert("Run", context)
        context.processPendingChanges()
        run.setValue(Int32(1), forKey: "processID")
        run.setValue(Date(timeIntervalSinceReferenceDate: 1), forKey: "date")
        context.processPendingChanges()
        #expect(context.undoManager?.undoCount == 2)
        context.undo()
        #expect(run.value(forKey: "processID") as? Int32 == -1 && run.value(forKey: "date") == nil)
        #expect(run.isInserted)
    }
}
