import Foundation
import Testing
@testable import OpenCoreData

/// `NSManagedObjectContext.changes(for:)`: the first element, one element per change (own
/// changes, merged saves, predicate enter/leave, sections), fetch errors, and the release of
/// the controller on cancellation and when the iterator is discarded.
@Suite struct FetchedResultsSequenceTests {
    /// A private-queue context over a fixture with a, b, c saved (groups A, A, B).
    private func standard() throws -> (FetchedResultsFixture, NSManagedObjectContext) {
        let fixture = try FetchedResultsFixture()
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = fixture.coordinator
        try context.performAndWait {
            fixture.insert("a", group: "A", rank: 1, in: context)
            fixture.insert("b", group: "A", rank: 2, in: context)
            fixture.insert("c", group: "B", rank: 3, in: context)
            try context.save()
        }
        return (fixture, context)
    }

    /// The names of a snapshot's objects, read on the context's queue.
    private func names(_ snapshot: FetchedResultsSnapshot?, in context: NSManagedObjectContext) throws -> [String] {
        let snapshot = try #require(snapshot)
        return try context.performAndWait {
            try snapshot.objects(in: context).map { $0.value(forKey: "name") as? String ?? "?" }
        }
    }

    /// A change as "type name old->new", names read on the context's queue.
    private func describe(_ snapshot: FetchedResultsSnapshot?, in context: NSManagedObjectContext) throws -> [String] {
        let snapshot = try #require(snapshot)
        return try context.performAndWait {
            try snapshot.changes.map { change in
                let name = try context.existingObject(with: change.objectID).value(forKey: "name") as? String ?? "?"
                return "\(RecordingFetchDelegate.word(change.type)) \(name) \(RecordingFetchDelegate.path(change.indexPath))->\(RecordingFetchDelegate.path(change.newIndexPath))"
            }
        }
    }

    private func object(named name: String, in context: NSManagedObjectContext) throws -> NSManagedObject {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.predicate = NSPredicate(format: "name == %@", name)
            return try #require(try context.fetch(request).first)
        }
    }

    @Test func firstElementIsTheCurrentResults() async throws {
        let (fixture, context) = try standard()
        var iterator = context.changes(for: fixture.request(sort: [("name", false)])).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(try names(first, in: context) == ["c", "b", "a"])
        #expect(first?.changes == [] && first?.sectionChanges == [])
        #expect(first?.sections.count == 1 && first?.sections.first?.name == "")
    }

    @Test func insertsUpdatesAndDeletesOnTheSameContext() async throws {
        let (fixture, context) = try standard()
        var iterator = context.changes(for: fixture.request(sort: [("name", true)])).makeAsyncIterator()
        _ = try await iterator.next()

        context.performAndWait {
            fixture.insert("bb", in: context)
            context.processPendingChanges()
        }
        let inserted = try await iterator.next()
        #expect(try names(inserted, in: context) == ["a", "b", "bb", "c"])
        #expect(try describe(inserted, in: context) == ["insert bb nil->0.2"])

        let b = try object(named: "b", in: context)
        context.performAndWait {
            b.setValue(Int64(9), forKey: "rank")
            context.processPendingChanges()
        }
        #expect(try describe(try await iterator.next(), in: context) == ["update b 0.1->0.1"])

        context.performAndWait {
            b.setValue("z", forKey: "name")
            context.processPendingChanges()
        }
        let moved = try await iterator.next()
        #expect(try names(moved, in: context) == ["a", "bb", "c", "z"])
        #expect(try describe(moved, in: context) == ["move z 0.1->0.3"])

        let a = try object(named: "a", in: context)
        let aID = a.objectID
        try context.performAndWait {
            context.delete(a)
            try context.save()
        }
        let deleted = try #require(try await iterator.next())
        #expect(deleted.changes.map(\.type) == [.delete] && deleted.changes.first?.objectID == aID)
        #expect(deleted.changes.first?.indexPath == IndexPath(item: 0, section: 0) && deleted.changes.first?.newIndexPath == nil)
        #expect(deleted.objectIDs.count == 3 && deleted.objectIDs[0].isTemporaryID) // bb, reported before the save
        // The save made bb's ID permanent: the results again, with no changes.
        let saved = try #require(try await iterator.next())
        #expect(saved.changes.isEmpty && saved.sectionChanges.isEmpty)
        #expect(saved.objectIDs.allSatisfy { !$0.isTemporaryID })
        #expect(try names(saved, in: context) == ["bb", "c", "z"])
    }

    @Test(arguments: [NSInMemoryStoreType, NSSQLiteStoreType])
    func changesMergedFromAnotherContext(storeType: String) async throws {
        let fixture = try FetchedResultsFixture(storeType: storeType)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = fixture.coordinator
        try context.performAndWait {
            fixture.insert("a", group: "A", in: context)
            fixture.insert("b", group: "B", in: context)
            try context.save()
        }
        var iterator = context.changes(for: fixture.request(), sectionNameKeyPath: "group").makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.sections.map(\.name) == ["A", "B"])

        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = fixture.coordinator
        let saved = NotificationRecorder([.NSManagedObjectContextDidSave], object: other)
        try other.performAndWait {
            fixture.insert("c", group: "C", in: other)
            let b = try #require(try other.fetch(fixture.request("name == 'b'")).first)
            other.delete(b)
            try other.save()
        }
        let note = try #require(saved.notifications.last)
        context.performAndWait { context.mergeChanges(fromContextDidSave: note) }
        let merged = try #require(try await iterator.next())
        #expect(merged.sections.map(\.name) == ["A", "C"])
        #expect(Set(merged.sectionChanges) == [.init(name: "B", index: 1, type: .delete), .init(name: "C", index: 1, type: .insert)])
        #expect(Set(merged.changes.map(\.type)) == [.delete, .insert])
        #expect(try names(merged, in: context) == ["a", "c"])
    }

    @Test func objectsEnteringAndLeavingThePredicate() async throws {
        let (fixture, context) = try standard()
        var iterator = context.changes(for: fixture.request("visible == YES", sort: [("name", true)])).makeAsyncIterator()
        #expect(try names(try await iterator.next(), in: context) == ["a", "b", "c"])

        let b = try object(named: "b", in: context)
        context.performAndWait {
            b.setValue(false, forKey: "visible")
            context.processPendingChanges()
        }
        let left = try await iterator.next()
        #expect(try names(left, in: context) == ["a", "c"])
        #expect(try describe(left, in: context) == ["delete b 0.1->nil"])

        context.performAndWait {
            b.setValue(true, forKey: "visible")
            fixture.insert("d", visible: false, in: context) // outside the predicate: no change
            context.processPendingChanges()
        }
        let entered = try await iterator.next()
        #expect(try names(entered, in: context) == ["a", "b", "c"])
        #expect(try describe(entered, in: context) == ["insert b nil->0.1"])
    }

    /// Holds a controller weakly, to see that the sequence released it.
    final class WeakController: @unchecked Sendable { // only read after the context's queue released it
        weak var controller: NSFetchedResultsController<NSFetchRequestResult>?
        init(_ controller: NSFetchedResultsController<NSFetchRequestResult>?) { self.controller = controller }
    }

    @Test func cancellingTheConsumingTaskEndsTheSequenceAndFreesTheController() async throws {
        let (fixture, context) = try standard()
        var iterator = context.changes(for: fixture.request()).makeAsyncIterator()
        _ = try await iterator.next()
        let observation = iterator.observation
        let probe = context.performAndWait { WeakController(observation.controller) }
        #expect(context.performAndWait { probe.controller != nil })

        let task = Task { [iterator] in
            var iterator = iterator
            return try await iterator.next()
        }
        task.cancel()
        #expect(try await task.value == nil)
        context.performAndWait {} // the release was enqueued on the context's queue at cancellation
        #expect(context.performAndWait { probe.controller == nil })

        // Changes after the end produce nothing and don't reach the released controller.
        context.performAndWait {
            fixture.insert("late", in: context)
            context.processPendingChanges()
        }
        #expect(context.performAndWait { observation.controller == nil })
    }

    @Test func discardingTheIteratorFreesTheController() async throws {
        let (fixture, context) = try standard()
        let probe: WeakController
        do {
            var iterator = context.changes(for: fixture.request()).makeAsyncIterator()
            _ = try await iterator.next()
            let observation = iterator.observation
            probe = context.performAndWait { WeakController(observation.controller) }
            #expect(context.performAndWait { probe.controller != nil })
        }
        context.performAndWait {}
        #expect(context.performAndWait { probe.controller == nil })
    }

    @Test func eachIteratorFollowsTheResultsOnItsOwn() async throws {
        let (fixture, context) = try standard()
        let sequence = context.changes(for: fixture.request(sort: [("name", true)]))
        var first = sequence.makeAsyncIterator()
        var second = sequence.makeAsyncIterator()
        _ = try await first.next()
        _ = try await second.next()
        context.performAndWait {
            fixture.insert("d", in: context)
            context.processPendingChanges()
        }
        #expect(try names(try await first.next(), in: context) == ["a", "b", "c", "d"])
        #expect(try names(try await second.next(), in: context) == ["a", "b", "c", "d"])
    }

    /// A main-queue context: the controller runs on the main queue, changes made there arrive.
    @MainActor @Test func mainQueueContext() async throws {
        let fixture = try FetchedResultsFixture()
        let context = fixture.context
        fixture.insert("a", in: context)
        try context.save()
        var iterator = context.changes(for: fixture.request(sort: [("name", true)])).makeAsyncIterator()
        #expect(try await iterator.next()?.objectIDs.count == 1)
        fixture.insert("b", in: context)
        context.processPendingChanges()
        let next = try #require(try await iterator.next())
        #expect(next.objectIDs.count == 2 && next.changes.map(\.type) == [.insert])
        #expect(try names(next, in: context) == ["a", "b"])
    }

    @Test func bufferingNewestKeepsOnlyTheLatestResults() async throws {
        let (fixture, context) = try standard()
        var iterator = context.changes(for: fixture.request(sort: [("name", true)]), bufferingPolicy: .bufferingNewest(1)).makeAsyncIterator()
        _ = try await iterator.next()
        for name in ["d", "e"] {
            context.performAndWait {
                fixture.insert(name, in: context)
                context.processPendingChanges()
            }
        }
        let latest = try await iterator.next() // the element for "d" was dropped
        #expect(try names(latest, in: context) == ["a", "b", "c", "d", "e"])
        #expect(try describe(latest, in: context) == ["insert e nil->0.4"])
    }

    /// The error `next()` throws; nil (a recorded issue) when it returns instead.
    private func nextError(_ iterator: inout FetchedResultsSequence.Iterator) async -> NSError? {
        do {
            let element = try await iterator.next()
            Issue.record("expected an error, got \(String(describing: element))")
            return nil
        } catch {
            return error as NSError
        }
    }

    @Test func aRequestWithoutSortDescriptorsThrows() async throws {
        let (fixture, context) = try standard()
        var iterator = context.changes(for: fixture.request(sort: [])).makeAsyncIterator()
        let error = await nextError(&iterator)
        #expect(error?.localizedDescription.contains("requires a fetch request with sort descriptors") == true)
        #expect(try await iterator.next() == nil) // finished after the error
    }

    @Test func nonObjectResultsThrow() async throws {
        let (_, context) = try standard()
        let request = NSFetchRequest<NSDictionary>(entityName: "Item")
        request.resultType = .dictionaryResultType
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        var iterator = context.changes(for: request).makeAsyncIterator()
        let error = await nextError(&iterator)
        #expect(error?.localizedDescription.contains("follows managed object results only") == true)
    }
}
