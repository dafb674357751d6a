import Foundation
import Testing
@testable import OpenCoreData

/// `NSFetchedResultsController`: sections, index paths and titles, fetch errors, delegate
/// callbacks for the context's changes, merged changes, the difference callback.
@Suite struct FetchedResultsControllerTests {
    /// a, b in A; c in B.
    private func standard() throws -> FetchedResultsFixture {
        let fixture = try FetchedResultsFixture()
        fixture.insert("a", group: "A")
        fixture.insert("b", group: "A")
        fixture.insert("c", group: "B")
        try fixture.context.save()
        return fixture
    }

    @Test func sectionsAndIndexPaths() throws {
        let fixture = try standard()
        let controller = fixture.controller()
        #expect(controller.sections == nil && controller.fetchedObjects == nil)
        try controller.performFetch()
        #expect(sectionNames(controller) == ["A", "B"])
        #expect(controller.sections?.map(\.numberOfObjects) == [2, 1])
        #expect(names(controller.fetchedObjects) == ["a", "b", "c"])
        #expect(arrangement(controller) == ["A": ["a", "b"], "B": ["c"]])
        let c = controller.object(at: IndexPath(row: 0, section: 1))
        #expect(c.value(forKey: "name") as? String == "c")
        #expect(controller.indexPath(forObject: c) == IndexPath(item: 0, section: 1))
        let path = try #require(controller.indexPath(forObject: controller.object(at: IndexPath(row: 1, section: 0))))
        #expect(path.section == 0 && path.row == 1 && path.item == 1)
        let outsider = fixture.insert("x", group: "A")
        #expect(controller.indexPath(forObject: outsider) == nil) // no delegate: not tracked
        #expect(controller.managedObjectContext === fixture.context && controller.sectionNameKeyPath == "group" && controller.cacheName == nil)
    }

    @Test func withoutSectionKeyPathOneSectionEvenWhenEmpty() throws {
        let fixture = try FetchedResultsFixture()
        let controller = fixture.controller(sort: [("name", true)], sectionNameKeyPath: nil)
        try controller.performFetch()
        #expect(controller.sections?.count == 1 && controller.sections?.first?.numberOfObjects == 0)
        #expect(controller.sections?.first?.name == "")
        let keyed = fixture.controller()
        try keyed.performFetch()
        #expect(keyed.sections?.count == 0)
    }

    @Test func sectionIndexTitles() throws {
        let fixture = try FetchedResultsFixture()
        for (name, group) in [("1", "apple"), ("2", "avocado"), ("3", "banana"), ("4", nil)] { fixture.insert(name, group: group) }
        let controller = fixture.controller()
        try controller.performFetch()
        #expect(sectionNames(controller) == ["", "apple", "avocado", "banana"])
        #expect(controller.sections?.map(\.indexTitle) == [nil, "A", "A", "B"])
        #expect(controller.sectionIndexTitles == ["A", "B"])
        #expect(controller.sectionIndexTitle(forSectionName: "zebra") == "Z")
        #expect(controller.sectionIndexTitle(forSectionName: "") == nil)
        #expect(controller.section(forSectionIndexTitle: "B", at: 1) == 3)
        #expect(controller.section(forSectionIndexTitle: "A", at: 0) == 1)
    }

    @Test func fetchErrors() throws {
        let fixture = try FetchedResultsFixture()
        fixture.insert("a", group: "B")
        fixture.insert("b", group: "A")
        fixture.insert("c", group: "B")
        // Sorted by name, sectioned by group: B, A, B.
        let mismatched = fixture.controller(sort: [("name", true)])
        let error = try #require(throws: NSError.self) { try mismatched.performFetch() }
        #expect(error.code == NSCoreDataError)
        #expect(error.localizedDescription.contains("The fetched object at index 2 has an out of order section name 'B'"))
        let unsorted = fixture.controller(sort: [])
        let noSort = try #require(throws: NSError.self) { try unsorted.performFetch() }
        #expect(noSort.localizedDescription.contains("requires a fetch request with sort descriptors"))
        let unknown = fixture.controller(sort: [("name", true)], sectionNameKeyPath: "nope")
        #expect(throws: NSError.self) { try unknown.performFetch() }
    }

    @Test func changeTypeRawValuesAreApples() {
        #expect([NSFetchedResultsChangeType.insert, .delete, .move, .update].map(\.rawValue) == [1, 2, 3, 4])
    }

    @Test func delegateCallbacksForObjectAndSectionChanges() throws {
        let fixture = try standard()
        let controller = fixture.controller()
        let delegate = RecordingFetchDelegate()
        controller.delegate = delegate
        try controller.performFetch()
        let objects = try #require(controller.fetchedObjects)
        let (a, b, c) = (objects[0], objects[1], objects[2])
        let context = fixture.context

        fixture.insert("d", group: "A")
        context.processPendingChanges()
        #expect(delegate.events == ["will", "insert d nil->0.2", "did"])

        delegate.reset()
        context.delete(b)
        context.processPendingChanges()
        #expect(delegate.events == ["will", "delete b 0.1->nil", "did"])

        delegate.reset()
        a.setValue(Int64(7), forKey: "rank") // not a sort key: an update in place
        context.processPendingChanges()
        #expect(delegate.events == ["will", "update a 0.0->0.0", "did"])

        delegate.reset()
        a.setValue("z", forKey: "name") // moves within A: [d, z]
        context.processPendingChanges()
        #expect(delegate.events == ["will", "move z 0.0->0.1", "did"])
        #expect(arrangement(controller) == ["A": ["d", "z"], "B": ["c"]])

        delegate.reset()
        c.setValue("A", forKey: "group") // into A; B empties
        context.processPendingChanges()
        #expect(delegate.events == ["will", "section delete B 1", "move c 1.0->0.0", "did"])
        #expect(sectionNames(controller) == ["A"] && names(controller.fetchedObjects) == ["c", "d", "z"])

        delegate.reset()
        fixture.insert("e", group: "C")
        context.processPendingChanges()
        #expect(delegate.events == ["will", "section insert C 1", "insert e nil->1.0", "did"])

        delegate.reset()
        context.processPendingChanges() // nothing changed: no callbacks
        #expect(delegate.events.isEmpty)
        #expect(delegate.controllers.allSatisfy { $0 == controller })
    }

    @Test func objectsEnterAndLeaveThePredicate() throws {
        let fixture = try standard()
        let controller = fixture.controller("visible == YES")
        let delegate = RecordingFetchDelegate()
        controller.delegate = delegate
        try controller.performFetch()
        let b = try #require(controller.fetchedObjects?[1])
        b.setValue(false, forKey: "visible")
        fixture.context.processPendingChanges()
        #expect(delegate.events == ["will", "delete b 0.1->nil", "did"])
        #expect(names(controller.fetchedObjects) == ["a", "c"])
        delegate.reset()
        b.setValue(true, forKey: "visible")
        fixture.context.processPendingChanges()
        #expect(delegate.events == ["will", "insert b nil->0.1", "did"])
        delegate.reset()
        fixture.insert("hidden", group: "A", visible: false)
        fixture.context.processPendingChanges()
        #expect(delegate.events.isEmpty)
    }

    @Test func withoutDelegateChangesAreNotTracked() throws {
        let fixture = try standard()
        let controller = fixture.controller()
        try controller.performFetch()
        fixture.insert("d", group: "A")
        try fixture.context.save()
        #expect(names(controller.fetchedObjects) == ["a", "b", "c"])
        try controller.performFetch()
        #expect(names(controller.fetchedObjects) == ["a", "b", "d", "c"])
    }

    @Test(arguments: [NSInMemoryStoreType, NSSQLiteStoreType])
    func changesMergedFromAnotherContext(storeType: String) throws {
        let fixture = try FetchedResultsFixture(storeType: storeType)
        fixture.insert("a", group: "A")
        fixture.insert("b", group: "B")
        try fixture.context.save()
        let controller = fixture.controller()
        let delegate = RecordingFetchDelegate()
        controller.delegate = delegate
        try controller.performFetch()

        let other = fixture.newContext()
        let request = fixture.request("name == 'b'")
        let theirB = try #require(try other.fetch(request).first)
        theirB.setValue("A", forKey: "group")
        fixture.insert("c", group: "C", in: other)
        let saved = NotificationRecorder([.NSManagedObjectContextDidSave], object: other)
        try other.save()
        let note = try #require(saved.notifications.last)
        fixture.context.mergeChanges(fromContextDidSave: note)
        #expect(arrangement(controller) == ["A": ["a", "b"], "C": ["c"]])
        #expect(Set(delegate.events) == ["will", "section delete B 1", "section insert C 1", "move b 1.0->0.1", "insert c nil->1.0", "did"])
        #expect(delegate.events.first == "will" && delegate.events.last == "did")
    }

    @Test func childContextFollowsParentSaves() throws {
        let fixture = try standard()
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = fixture.context
        child.automaticallyMergesChangesFromParent = true
        let delegate = RecordingFetchDelegate()
        let controller = NSFetchedResultsController(fetchRequest: fixture.request(), managedObjectContext: child,
                                                    sectionNameKeyPath: "group", cacheName: nil)
        try child.performAndWait {
            controller.delegate = delegate
            try controller.performFetch()
        }
        fixture.insert("d", group: "B")
        try fixture.context.save()
        child.performAndWait {} // the merge was enqueued on the child's queue before this
        child.performAndWait {
            #expect(arrangement(controller) == ["A": ["a", "b"], "B": ["c", "d"]])
            #expect(delegate.events == ["will", "insert d nil->1.1", "did"])
        }
    }

    /// Implements the difference callback (and will/did, which must then not be called).
    final class DifferenceDelegate: NSObject, NSFetchedResultsControllerDelegate {
        var differences: [CollectionDifference<NSManagedObjectID>] = []
        var otherCalls = 0
        func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
            differences.append(diff)
        }
        func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { otherCalls += 1 }
        func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { otherCalls += 1 }
    }

    @Test func differenceCallbackReplacesTheOthers() throws {
        let fixture = try standard()
        let controller = fixture.controller(sort: [("name", true)], sectionNameKeyPath: nil)
        let delegate = DifferenceDelegate()
        controller.delegate = delegate
        try controller.performFetch()
        let before = try #require(controller.fetchedObjects).map(\.objectID)
        let objects = try #require(controller.fetchedObjects)
        objects[0].setValue("y", forKey: "name") // a -> y moves to the end
        fixture.context.delete(objects[1])       // b
        fixture.insert("bb", group: "A")
        fixture.context.processPendingChanges()
        #expect(delegate.otherCalls == 0)
        let diff = try #require(delegate.differences.last)
        let after = try #require(controller.fetchedObjects).map(\.objectID)
        #expect(before.applying(diff) == after)
        #expect(diff.removals.count == 2 && diff.insertions.count == 2)
        #expect(diff.contains { if case .insert(_, _, let associated) = $0 { associated != nil } else { false } })

        // With sections the difference is not sent: the per-object callbacks are.
        let sectioned = fixture.controller()
        let sectionDelegate = DifferenceDelegate()
        sectioned.delegate = sectionDelegate
        try sectioned.performFetch()
        fixture.insert("cc", group: "B")
        fixture.context.processPendingChanges()
        #expect(sectionDelegate.differences.isEmpty && sectionDelegate.otherCalls == 2)
    }
}
