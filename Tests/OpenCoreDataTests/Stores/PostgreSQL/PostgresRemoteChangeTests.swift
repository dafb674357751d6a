import Foundation
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData
@testable import OpenCoreDataPostgres

/// `.NSPersistentStoreRemoteChange` on the PostgreSQL store: another coordinator's saves are
/// posted with the saved objects' IDs, and contexts that merge automatically stay current.
@Suite("PostgreSQL remote-change notifications", .enabled(if: PostgresTestServer.unavailableReason == nil,
                                                        Comment(rawValue: PostgresTestServer.unavailableReason ?? "")))
struct PostgresRemoteChangeTests {
    static func coordinator(_ url: URL, watched: Bool) throws -> NSPersistentStoreCoordinator {
        PostgresStore.registerStoreClass()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CounterModel.make())
        try coordinator.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: url,
                                           options: watched ? [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true] : nil)
        return coordinator
    }

    static func freshURL() throws -> URL {
        try PostgresTestServer.server().url(schema: "remote_" + UUID().uuidString.prefix(8).lowercased())
    }

    /// Inserts `count` counters with values 1… through `coordinator` in one save; returns their IDs' URIs.
    static func insertCounters(_ count: Int, _ coordinator: NSPersistentStoreCoordinator) throws -> Set<URL> {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            let counters = (1...count).map { value in
                let counter = NSEntityDescription.insertNewObject(forEntityName: "Counter", into: context)
                counter.setValue(Int64(value), forKey: "value")
                return counter
            }
            try context.save()
            return Set(counters.map { $0.objectID.uriRepresentation() })
        }
    }

    @Test func anotherCoordinatorsSaveIsPostedWithItsIDsAndOwnSavesAreNot() throws {
        let url = try Self.freshURL()
        let watched = try Self.coordinator(url, watched: true)
        let other = try Self.coordinator(url, watched: false)
        let listener = RemoteChangeNotificationTests.Listener(watched)
        _ = try Self.insertCounters(1, watched)
        // 600 IDs take three notices on the channel; they arrive as one notification.
        let inserted = try Self.insertCounters(600, other)
        #expect(listener.next())
        let info = try #require(listener.last)
        // Notices come in commit order: had the watched coordinator's own save been posted,
        // it would have come first.
        let ids = try #require(info[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID>)
        #expect(Set(ids.map { $0.uriRepresentation() }) == inserted)
        #expect(ids.allSatisfy { $0.persistentStore === watched.persistentStores.first })
        #expect((info[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID>)?.isEmpty == true)
        #expect(info[NSStoreUUIDKey] as? String == watched.persistentStores.first?.identifier)
        #expect(info[NSPersistentStoreURLKey] as? URL == url)
    }

    @Test func aContextThatMergesAutomaticallySeesAnotherCoordinatorsUpdate() throws {
        let url = try Self.freshURL()
        let watched = try Self.coordinator(url, watched: true)
        let other = try Self.coordinator(url, watched: false)
        let id = try #require(Self.insertCounters(1, other).first.flatMap { watched.managedObjectID(forURIRepresentation: $0) })
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = watched
        context.automaticallyMergesChangesFromParent = true
        let counter = try context.performAndWait {
            let counter = try context.existingObject(with: id)
            #expect(counter.value(forKey: "value") as? Int64 == 1)
            return counter
        }
        let merged = DispatchSemaphore(value: 0)
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { note in
            if (note.userInfo?[NSRefreshedObjectsKey] as? Set<NSManagedObject>)?.isEmpty == false { merged.signal() }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let otherContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        otherContext.persistentStoreCoordinator = other
        try otherContext.performAndWait {
            let mine = try otherContext.existingObject(with: try #require(other.managedObjectID(forURIRepresentation: id.uriRepresentation())))
            try CounterModel.increment(mine, in: otherContext)
        }
        #expect(merged.wait(timeout: .now() + 60) == .success, "the other coordinator's save is merged")
        #expect(context.performAndWait { counter.value(forKey: "value") as? Int64 } == 2)
    }

    @Test func aSavesNoticesStayUnderPostgreSQLsPayloadLimit() throws {
        let model = CounterModel.make()
        let schema = PostgresSchemaDefinition(model: model, configurationName: nil, schema: "s").layout
        let store = NSPersistentStore(persistentStoreCoordinator: nil, configurationName: nil, at: URL(fileURLWithPath: "/dev/null"), options: nil)
        var changes = StoreSaveChanges()
        let entity = try #require(model.entitiesByName["Counter"])
        changes.inserted = (1...600).map { ObjectSnapshot(objectID: NSManagedObjectID(entity: entity, store: store, primaryKey: Int64.max - Int64($0))) }
        changes.deleted = [ObjectSnapshot(objectID: NSManagedObjectID(entity: entity, store: store, primaryKey: 7))]
        let payloads = PostgresChangeNotice.payloads(for: changes, sender: "me", schema: schema)
        #expect(payloads.count == 3)
        #expect(payloads.allSatisfy { $0.utf8.count < 8000 })
        let notices = try payloads.map { try JSONDecoder().decode(PostgresChangeNotice.self, from: Data($0.utf8)) }
        #expect(notices.map(\.last) == [false, false, true])
        #expect(notices.flatMap(\.inserted).count == 600 && notices.flatMap(\.deleted) == [[1, 7]])
    }
}
