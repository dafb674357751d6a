import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Query generations (issue 11): a context pinned with `setQueryGenerationFrom(_:)` reads the
/// stores as they were when it pinned, while other contexts and coordinators save; it advances
/// on its own save, reset and merges; tokens pin other contexts to the same generation; the
/// generation's read transaction ends when nothing refers to it any more.
@Suite struct QueryGenerationTests {
    /// A SQLite file of ``GraphTestModel`` holding class "C1" with students "s1" and "s2".
    struct Store {
        let directory: URL
        let url: URL
        let coordinator: NSPersistentStoreCoordinator
        let classID: NSManagedObjectID
        let s1: NSManagedObjectID
        let s2: NSManagedObjectID

        init(options: [AnyHashable: Any]? = nil) throws {
            directory = try Fixtures.temporaryDirectory()
            url = directory.appendingPathComponent("Generations.sqlite")
            coordinator = try Self.coordinator(at: url, options: options)
            let context = QueryGenerationTests.context(coordinator)
            (classID, s1, s2) = try context.performAndWait { () throws -> (NSManagedObjectID, NSManagedObjectID, NSManagedObjectID) in
                let klass = GraphTestModel.insert("ClassEntity", context, ["name": "C1"])
                let s1 = GraphTestModel.insert("StudentEntity", context, ["name": "s1", "inClass": klass])
                let s2 = GraphTestModel.insert("StudentEntity", context, ["name": "s2", "inClass": klass])
                try context.save()
                return (klass.objectID, s1.objectID, s2.objectID)
            }
        }

        static func coordinator(at url: URL, options: [AnyHashable: Any]? = nil) throws -> NSPersistentStoreCoordinator {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: GraphTestModel.make())
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
            return coordinator
        }

        /// Through `coordinator` (this store's, or another on the same file): renames s1, deletes
        /// s2, inserts s3 and s4 into C1. Afterwards the newest data is s1-new, s3, s4.
        func change(through coordinator: NSPersistentStoreCoordinator) throws {
            let context = QueryGenerationTests.context(coordinator)
            try context.performAndWait { () throws -> Void in
                let id = { (id: NSManagedObjectID) throws -> NSManagedObjectID in
                    try #require(coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation()))
                }
                let klass = try context.existingObject(with: id(classID))
                try context.existingObject(with: id(s1)).setValue("s1-new", forKey: "name")
                context.delete(try context.existingObject(with: id(s2)))
                for name in ["s3", "s4"] { GraphTestModel.insert("StudentEntity", context, ["name": name, "inClass": klass]) }
                try context.save()
            }
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    static let oldNames = ["s1", "s2"]
    static let newNames = ["s1-new", "s3", "s4"]

    static func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// A private context pinned to `token` (the newest generation by default) that has read once.
    static func pinnedContext(_ coordinator: NSPersistentStoreCoordinator,
                              to token: NSQueryGenerationToken = .current) throws -> NSManagedObjectContext {
        let context = context(coordinator)
        try context.performAndWait { () throws -> Void in
            try context.setQueryGenerationFrom(token)
            _ = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "ClassEntity"))
        }
        return context
    }

    /// The names of the students `context` fetches.
    static func studentNames(_ context: NSManagedObjectContext) throws -> [String] {
        try context.performAndWait { () throws -> [String] in
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "StudentEntity"))
                .compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
    }

    static func token(_ context: NSManagedObjectContext) -> NSQueryGenerationToken? {
        context.performAndWait { context.queryGenerationToken }
    }

    // MARK: Reading a stable generation

    /// Fetches, counts, dictionaries, faults fired late and relationship faults all read the
    /// generation, through the same coordinator (whose row cache holds the newer rows) and
    /// through a second coordinator on the file.
    @Test(arguments: [false, true])
    func pinnedContextReadsItsGenerationWhileOthersSave(throughSecondCoordinator: Bool) throws {
        let store = try Store()
        defer { store.remove() }
        let pinned = try Self.pinnedContext(store.coordinator)
        // Objects registered before the change, not read yet: a fault and a to-many relationship.
        let (s1, s2, klass) = pinned.performAndWait {
            (pinned.object(with: store.s1), pinned.object(with: store.s2), pinned.object(with: store.classID))
        }
        let writer = throughSecondCoordinator ? try Store.coordinator(at: store.url) : store.coordinator
        try store.change(through: writer)
        #expect(try Self.studentNames(Self.context(store.coordinator)) == Self.newNames)

        try pinned.performAndWait { () throws -> Void in
            #expect(s1.isFault && s2.isFault)
            #expect(s1.value(forKey: "name") as? String == "s1")
            #expect(s2.value(forKey: "name") as? String == "s2")
            let students = klass.value(forKey: "students") as? Set<NSManagedObject>
            #expect(students?.compactMap { $0.value(forKey: "name") as? String }.sorted() == Self.oldNames)
            let request = NSFetchRequest<NSManagedObject>(entityName: "StudentEntity")
            #expect(try pinned.count(for: request) == 2)
            request.predicate = NSPredicate(format: "name BEGINSWITH 's'")
            #expect(try pinned.count(for: request) == 2)
            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "StudentEntity")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["name"]
            #expect(try pinned.fetch(dictionaries).compactMap { $0["name"] as? String }.sorted() == Self.oldNames)
            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "StudentEntity")
            ids.resultType = .managedObjectIDResultType
            #expect(Set(try pinned.fetch(ids)) == [store.s1, store.s2])
        }
        #expect(try Self.studentNames(pinned) == Self.oldNames)
        #expect(try Self.studentNames(Self.pinnedContext(store.coordinator)) == Self.newNames)
    }

    /// A fetch with `fetchBatchSize` in a pinned context lists and loads its batches at the
    /// generation: each batch is read as the generation holds it, not as the newest data does.
    @Test func pinnedContextWalksBatchesAtItsGeneration() throws {
        let store = try Store()
        defer { store.remove() }
        let pinned = try Self.pinnedContext(store.coordinator)
        try store.change(through: store.coordinator)

        nonisolated(unsafe) var faults = 0
        let names = try pinned.performAndWait { () throws -> [String] in
            let request = NSFetchRequest<NSManagedObject>(entityName: "StudentEntity")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            request.fetchBatchSize = 1
            let students = try pinned.fetch(request)
            faults = students.filter { $0.isFault }.count
            return students.compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(faults == 2, "the fetch listed both students as faults")
        #expect(names == Self.oldNames)
    }

    /// A token pins another context to the same generation; relationships prefetched there are
    /// read at it too.
    @Test func tokenPinsAnotherContextToTheSameGeneration() throws {
        let store = try Store()
        defer { store.remove() }
        let first = try Self.pinnedContext(store.coordinator)
        let token = try #require(Self.token(first))
        try store.change(through: store.coordinator)

        let second = try Self.pinnedContext(store.coordinator, to: token)
        #expect(Self.token(second) == token)
        try second.performAndWait { () throws -> Void in
            let request = NSFetchRequest<NSManagedObject>(entityName: "ClassEntity")
            request.relationshipKeyPathsForPrefetching = ["students"]
            let klass = try #require(try second.fetch(request).first)
            let students = try #require(klass.value(forKey: "students") as? Set<NSManagedObject>)
            #expect(students.allSatisfy { !$0.isFault })
            #expect(students.compactMap { $0.value(forKey: "name") as? String }.sorted() == Self.oldNames)
        }
        // Pinned to `current` after the change, a context reads the newest data.
        let third = try Self.pinnedContext(store.coordinator)
        #expect(try Self.studentNames(third) == Self.newNames)
        #expect(Self.token(third) != token)
    }

    /// `current` pins lazily: no token before the first read; then one, kept across reads.
    @Test func currentPinsAtTheNextRead() throws {
        let store = try Store()
        defer { store.remove() }
        let context = Self.context(store.coordinator)
        try context.performAndWait { () throws -> Void in
            #expect(context.queryGenerationToken == nil)
            try context.setQueryGenerationFrom(.current)
            #expect(context.queryGenerationToken == nil)
        }
        // The change lands before the first read: the generation pinned includes it.
        try store.change(through: store.coordinator)
        #expect(try Self.studentNames(context) == Self.newNames)
        let token = try #require(Self.token(context))
        #expect(try Self.studentNames(context) == Self.newNames)
        #expect(Self.token(context) == token)
        #expect(NSQueryGenerationToken.current == NSQueryGenerationToken.current)
        #expect(token != NSQueryGenerationToken.current)
    }

    /// Unpinning returns the context to the newest data.
    @Test func unpinningReadsTheNewestData() throws {
        let store = try Store()
        defer { store.remove() }
        let pinned = try Self.pinnedContext(store.coordinator)
        try store.change(through: store.coordinator)
        #expect(try Self.studentNames(pinned) == Self.oldNames)
        try pinned.performAndWait { try pinned.setQueryGenerationFrom(nil) }
        #expect(Self.token(pinned) == nil)
        #expect(try Self.studentNames(pinned) == Self.newNames)
    }

    // MARK: Advancing

    enum Advance: String, CaseIterable, Sendable { case save, reset, merge, remoteMerge, automaticMerge }

    /// Apple: a pinned context moves to the newest generation when it saves, on `reset()`, and
    /// when it merges changes; it is pinned again (to the generation of its next read).
    @Test(arguments: Advance.allCases)
    func pinnedContextAdvances(on advance: Advance) throws {
        let store = try Store()
        defer { store.remove() }
        let pinned = try Self.pinnedContext(store.coordinator)
        let before = try #require(Self.token(pinned))
        let s1 = pinned.performAndWait { () -> NSManagedObject in
            let s1 = pinned.object(with: store.s1)
            _ = s1.value(forKey: "name")
            return s1
        }
        if advance == .automaticMerge {
            pinned.performAndWait { pinned.automaticallyMergesChangesFromParent = true }
        }
        // The change, saved by another context of the coordinator; its did-save notification.
        let saver = Self.context(store.coordinator)
        let recorder = NotificationRecorder([.NSManagedObjectContextDidSave], object: saver)
        try saver.performAndWait { () throws -> Void in
            saver.object(with: store.s1).setValue("s1-new", forKey: "name")
            saver.delete(saver.object(with: store.s2))
            try saver.save()
        }
        let saved = try #require(recorder.notifications.first)
        if advance != .automaticMerge { #expect(try Self.studentNames(pinned) == Self.oldNames) }

        try pinned.performAndWait { () throws -> Void in
            switch advance {
            case .save:
                GraphTestModel.insert("StudentEntity", pinned, ["name": "s5"])
                try pinned.save()
            case .reset:
                pinned.reset()
            case .merge:
                pinned.mergeChanges(fromContextDidSave: saved)
                #expect(s1.value(forKey: "name") as? String == "s1-new")
            case .remoteMerge:
                NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectIDsKey: [store.s1]], into: [pinned])
                #expect(s1.value(forKey: "name") as? String == "s1-new")
            case .automaticMerge:
                break   // merged on the context's queue when the saver posted (enqueued before this block)
            }
            // Merges refresh objects, which reads (and pins) at once; save and reset leave the
            // context unpinned until its next read.
            if advance == .save || advance == .reset { #expect(pinned.queryGenerationToken == nil) }
        }
        // After the save, s2 is gone; s1 keeps the values it loaded (as Apple's, objects are not
        // refreshed when the generation changes). The merges refreshed it; reset forgot it.
        let expected = advance == .save ? ["s1", "s5"] : ["s1-new"]
        #expect(try Self.studentNames(pinned) == expected)
        let after = try #require(Self.token(pinned))
        #expect(after != before)
    }

    /// Saving is never done at the generation (Apple: "Query generations are for fetched data
    /// only"): a pinned context's conflict is resolved with the newest rows, to-many
    /// relationships included, and its save succeeds.
    @Test func pinnedContextResolvesConflictsWithTheNewestData() throws {
        let store = try Store()
        defer { store.remove() }
        let pinned = try Self.pinnedContext(store.coordinator)
        let klass = pinned.performAndWait { () -> NSManagedObject in
            pinned.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
            let klass = pinned.object(with: store.classID)
            _ = klass.value(forKey: "name")
            return klass
        }
        try store.change(through: store.coordinator)   // C1 gains s3 and s4, loses s2
        try pinned.performAndWait { () throws -> Void in
            klass.setValue("C1-renamed", forKey: "name")
            try pinned.save()
            let students = klass.value(forKey: "students") as? Set<NSManagedObject>
            #expect(students?.compactMap { $0.value(forKey: "name") as? String }.sorted() == Self.newNames)
        }
        let reader = Self.context(store.coordinator)
        let names = try reader.performAndWait { () throws -> [String] in
            try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "ClassEntity")).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(names == ["C1-renamed"])
    }

    // MARK: Children, other stores, bad tokens

    /// A child reads through its parent, so at the parent's generation; it has no token and
    /// can't be pinned itself (Apple: a programmer error; here NSCoreDataError).
    @Test func childContextReadsItsParentsGeneration() throws {
        let store = try Store()
        defer { store.remove() }
        let parent = try Self.pinnedContext(store.coordinator)
        try store.change(through: store.coordinator)
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        #expect(try Self.studentNames(child) == Self.oldNames)
        try child.performAndWait { () throws -> Void in
            #expect(child.queryGenerationToken == nil)
            #expect(child.object(with: store.s2).value(forKey: "name") as? String == "s2")
            let error = #expect(throws: NSError.self) { try child.setQueryGenerationFrom(.current) }
            #expect(error?.code == NSCoreDataError)
        }
    }

    /// Apple: "If you try to use query generations with a store that's not an
    /// NSSQLiteStoreType in WAL journal mode, your contexts gracefully revert to unpinned
    /// behavior": no error, no token, the newest data.
    @Test(arguments: ["InMemory", "SQLite-DELETE"])
    func storesThatCantPinAreReadUnpinned(kind: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: GraphTestModel.make())
        if kind == "InMemory" {
            try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        } else {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
                                               at: directory.appendingPathComponent("Rollback.sqlite"),
                                               options: [NSSQLitePragmasOption: ["journal_mode": "DELETE"]])
        }
        let pinned = try Self.pinnedContext(coordinator)
        #expect(Self.token(pinned) == nil)
        let writer = Self.context(coordinator)
        try writer.performAndWait { () throws -> Void in
            GraphTestModel.insert("StudentEntity", writer, ["name": "new"])
            try writer.save()
        }
        #expect(try Self.studentNames(pinned) == ["new"])
        #expect(Self.token(pinned) == nil)
    }

    /// Tokens belong to their coordinator's stores: one of another coordinator (even on the same
    /// file) or one whose store was removed is refused with NSPersistentStoreOperationError, and
    /// the context keeps its generation.
    @Test func foreignAndStaleTokensAreRefused() throws {
        let store = try Store()
        defer { store.remove() }
        let pinned = try Self.pinnedContext(store.coordinator)
        let token = try #require(Self.token(pinned))

        let other = Self.context(try Store.coordinator(at: store.url))
        try other.performAndWait { () throws -> Void in
            let error = #expect(throws: NSError.self) { try other.setQueryGenerationFrom(token) }
            #expect(error?.code == NSPersistentStoreOperationError)
            #expect(other.queryGenerationToken == nil)
        }

        let sqlite = try #require(store.coordinator.persistentStores.first)
        let bystander = Self.context(store.coordinator)
        try store.coordinator.remove(sqlite)
        try bystander.performAndWait { () throws -> Void in
            let error = #expect(throws: NSError.self) { try bystander.setQueryGenerationFrom(token) }
            #expect(error?.code == NSPersistentStoreOperationError)
        }
        // Reading after the store is gone fails with an error, never a crash.
        try pinned.performAndWait { () throws -> Void in
            #expect(throws: NSError.self) { try pinned.fetch(NSFetchRequest<NSManagedObject>(entityName: "StudentEntity")) }
        }
    }

    /// A token archives (`NSSecureCoding`) and, unarchived in the same process while its
    /// generation lives, pins to that generation.
    @Test func archivedTokenPinsWhileItsGenerationLives() throws {
        let store = try Store()
        defer { store.remove() }
        let pinned = try Self.pinnedContext(store.coordinator)
        let token = try #require(Self.token(pinned))
        try store.change(through: store.coordinator)
        let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSQueryGenerationToken.self, from: data))
        #expect(decoded == token)
        let other = try Self.pinnedContext(store.coordinator, to: decoded)
        #expect(try Self.studentNames(other) == Self.oldNames)
    }

    // MARK: Releasing the generation

    /// `PRAGMA wal_checkpoint(TRUNCATE)` on a connection of its own: whether a reader blocked it.
    static func checkpointIsBlocked(_ url: URL) throws -> Bool {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.writeWithoutTransaction { db in
            let row = try #require(try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)"))
            return (row[0] as Int) != 0
        }
    }

    /// The generation's read transaction holds the WAL; it ends when the last context unpins or
    /// goes away and the last token is gone, and then the WAL checkpoints fully (to 0 bytes).
    @Test func generationIsReleasedWhenNothingRefersToIt() throws {
        let store = try Store()
        defer { store.remove() }
        let wal = URL(fileURLWithPath: store.url.path + "-wal")
        var token: NSQueryGenerationToken?
        var first: NSManagedObjectContext? = try Self.pinnedContext(store.coordinator)
        token = Self.token(try #require(first))
        let second = try Self.pinnedContext(store.coordinator, to: try #require(token))
        try store.change(through: store.coordinator)
        #expect(try Self.checkpointIsBlocked(store.url))

        try second.performAndWait { try second.setQueryGenerationFrom(nil) }
        #expect(try Self.checkpointIsBlocked(store.url))    // `first` and `token` still refer to it
        first?.performAndWait { first?.reset() }            // advances; pins again only when it reads
        first = nil
        #expect(try Self.checkpointIsBlocked(store.url))    // `token` still refers to it
        token = nil
        #expect(try !Self.checkpointIsBlocked(store.url))
        let size = try FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int
        #expect(size == 0)
        #expect(try Self.studentNames(second) == Self.newNames)
    }
}
