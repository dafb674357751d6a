import Foundation
import Testing
@testable import OpenCoreData

/// The on-disk section cache of `NSFetchedResultsController` (`cacheName`). Serialized:
/// `deleteCache(withName: nil)` removes every cache.
@Suite(.serialized) struct FetchedResultsCacheTests {
    private func fetch(_ fixture: FetchedResultsFixture, cacheName: String, predicate: String? = nil,
                       sort: [(String, Bool)] = [("group", true), ("name", true)], sectionNameKeyPath: String = "group")
        throws -> (NSFetchedResultsController<NSManagedObject>, RecordingFetchDelegate) {
        let controller = fixture.controller(predicate, sort: sort, sectionNameKeyPath: sectionNameKeyPath, cacheName: cacheName)
        let delegate = RecordingFetchDelegate()
        controller.delegate = delegate
        try controller.performFetch()
        return (controller, delegate)
    }

    @Test func reusedWhenUnchangedAndIgnoredWhenTheRequestOrDataChange() throws {
        let fixture = try FetchedResultsFixture(storeType: NSSQLiteStoreType)
        for (name, group) in [("a", "apple"), ("b", "apple"), ("c", "banana"), ("d", "cherry")] { fixture.insert(name, group: group) }
        try fixture.context.save()
        let name = "frc-test-\(UUID().uuidString)"
        defer { NSFetchedResultsController<NSManagedObject>.deleteCache(withName: name) }

        let (first, firstDelegate) = try fetch(fixture, cacheName: name)
        #expect(!first.state.lastFetchUsedCache && firstDelegate.titleRequests == 3)
        #expect(FileManager.default.fileExists(atPath: FetchedResultsCache.file(named: name).path))

        // Same request, same store: the sections come from the cache (no index titles asked).
        let (second, secondDelegate) = try fetch(fixture, cacheName: name)
        #expect(second.state.lastFetchUsedCache && secondDelegate.titleRequests == 0)
        #expect(arrangement(second) == arrangement(first) && second.sectionIndexTitles == ["A", "B", "C"])
        #expect(names(second.fetchedObjects) == ["a", "b", "c", "d"])

        // Another predicate, sort or section key path: not used (and rewritten).
        let (filtered, _) = try fetch(fixture, cacheName: name, predicate: "name != 'a'")
        #expect(!filtered.state.lastFetchUsedCache && names(filtered.fetchedObjects) == ["b", "c", "d"])
        let (sorted, _) = try fetch(fixture, cacheName: name, sort: [("group", false), ("name", true)])
        #expect(!sorted.state.lastFetchUsedCache && sectionNames(sorted) == ["cherry", "banana", "apple"])
        let (bySort, _) = try fetch(fixture, cacheName: name, sort: [("name", true)], sectionNameKeyPath: "name")
        #expect(!bySort.state.lastFetchUsedCache)
        let (again, _) = try fetch(fixture, cacheName: name, sort: [("name", true)], sectionNameKeyPath: "name")
        #expect(again.state.lastFetchUsedCache)

        // Changed data (a save since): not used.
        fixture.insert("e", group: "apple")
        try fixture.context.save()
        let (afterSave, _) = try fetch(fixture, cacheName: name, sort: [("name", true)], sectionNameKeyPath: "name")
        #expect(!afterSave.state.lastFetchUsedCache && sectionNames(afterSave) == ["a", "b", "c", "d", "e"])

        // deleteCache(withName:) removes it.
        NSFetchedResultsController<NSManagedObject>.deleteCache(withName: name)
        #expect(!FileManager.default.fileExists(atPath: FetchedResultsCache.file(named: name).path))
        let (afterDelete, _) = try fetch(fixture, cacheName: name, sort: [("name", true)], sectionNameKeyPath: "name")
        #expect(!afterDelete.state.lastFetchUsedCache)
    }

    @Test func trackedChangesUpdateTheCacheAndDeleteAllRemovesEveryCache() throws {
        let fixture = try FetchedResultsFixture(storeType: NSSQLiteStoreType)
        fixture.insert("a", group: "apple")
        try fixture.context.save()
        let name = "frc-test-\(UUID().uuidString)"
        let otherName = "frc-test-\(UUID().uuidString)/odd name"
        defer {
            NSFetchedResultsController<NSManagedObject>.deleteCache(withName: name)
            NSFetchedResultsController<NSManagedObject>.deleteCache(withName: otherName)
        }
        let (tracking, trackingDelegate) = try fetch(fixture, cacheName: name)
        fixture.insert("b", group: "banana")
        try fixture.context.save()
        #expect(sectionNames(tracking) == ["apple", "banana"] && trackingDelegate.events.contains("section insert banana 1"))
        let (reader, readerDelegate) = try fetch(fixture, cacheName: name)
        #expect(reader.state.lastFetchUsedCache && readerDelegate.titleRequests == 0 && sectionNames(reader) == ["apple", "banana"])

        _ = try fetch(fixture, cacheName: otherName)
        #expect(FileManager.default.fileExists(atPath: FetchedResultsCache.file(named: otherName).path))
        NSFetchedResultsController<NSManagedObject>.deleteCache(withName: nil)
        #expect(!FileManager.default.fileExists(atPath: FetchedResultsCache.file(named: name).path))
        #expect(!FileManager.default.fileExists(atPath: FetchedResultsCache.file(named: otherName).path))
    }

    @Test func notKeptForInMemoryStores() throws {
        let fixture = try FetchedResultsFixture()
        fixture.insert("a", group: "apple")
        let name = "frc-test-\(UUID().uuidString)"
        defer { NSFetchedResultsController<NSManagedObject>.deleteCache(withName: name) }
        _ = try fetch(fixture, cacheName: name)
        let (second, _) = try fetch(fixture, cacheName: name)
        #expect(!second.state.lastFetchUsedCache)
        #expect(!FileManager.default.fileExists(atPath: FetchedResultsCache.file(named: name).path))
    }
}
