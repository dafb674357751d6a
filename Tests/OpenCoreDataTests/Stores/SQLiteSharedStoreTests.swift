import Foundation
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData

/// Many coordinators and processes on one SQLite file (issue 11): each sees the others'
/// committed saves at its next fetch or refresh, stale saves conflict through `Z_OPT`, and
/// concurrent read-modify-write saves with retry on 133020 lose no update.
@Suite struct SQLiteSharedStoreTests {
    /// A coordinator with ``CounterModel`` on the SQLite file at `url`.
    static func coordinator(at url: URL) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CounterModel.make())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        return coordinator
    }

    static func privateContext(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Inserts the one `Counter` (value 0) through `coordinator` and returns its ID.
    static func insertCounter(_ coordinator: NSPersistentStoreCoordinator) throws -> NSManagedObjectID {
        let context = privateContext(coordinator)
        return try context.performAndWait {
            let counter = NSEntityDescription.insertNewObject(forEntityName: "Counter", into: context)
            counter.setValue(Int64(0), forKey: "value")
            try context.save()
            return counter.objectID
        }
    }

    /// The counter's value read by a new context of `coordinator`.
    static func value(of id: NSManagedObjectID, _ coordinator: NSPersistentStoreCoordinator) throws -> Int64? {
        let context = privateContext(coordinator)
        return try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Counter")
            return try context.fetch(request).first { $0.objectID.uriRepresentation() == id.uriRepresentation() }?
                .value(forKey: "value") as? Int64
        }
    }

    /// Sets the counter's value through a new context of `coordinator`.
    static func set(_ id: NSManagedObjectID, to value: Int64, _ coordinator: NSPersistentStoreCoordinator) throws {
        let context = privateContext(coordinator)
        try context.performAndWait {
            let counter = try context.existingObject(with: id)
            counter.setValue(value, forKey: "value")
            try context.save()
        }
    }

    /// The same object's ID in another coordinator (same store identifier and key).
    static func id(_ id: NSManagedObjectID, in coordinator: NSPersistentStoreCoordinator) throws -> NSManagedObjectID {
        try #require(coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation()))
    }

    /// One store file, two coordinators on it, and the counter inserted through the first.
    struct TwoCoordinators {
        let directory: URL
        let first: NSPersistentStoreCoordinator
        let second: NSPersistentStoreCoordinator
        /// The counter's ID in `first` and in `second`.
        let idInFirst: NSManagedObjectID
        let idInSecond: NSManagedObjectID

        init() throws {
            directory = try Fixtures.temporaryDirectory()
            let url = directory.appendingPathComponent("Shared.sqlite")
            first = try SQLiteSharedStoreTests.coordinator(at: url)
            second = try SQLiteSharedStoreTests.coordinator(at: url)
            idInFirst = try SQLiteSharedStoreTests.insertCounter(first)
            idInSecond = try SQLiteSharedStoreTests.id(idInFirst, in: second)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    /// As Apple's: a fetch reads the rows again (the row cache is keyed by `Z_OPT`) and leaves
    /// them in the cache for later faults; a refresh reads past the cache when the context's
    /// `stalenessInterval` says so (0), else it may reuse the cached row (see
    /// `MergingChangesTests.stalenessIntervalZeroReadsAnotherCoordinatorsSave`).
    @Test func anotherCoordinatorsSaveIsSeenAtTheNextFetchAndAtAFreshRefresh() throws {
        let shared = try TwoCoordinators()
        defer { shared.remove() }
        let (first, second, idInFirst, idInSecond) = (shared.first, shared.second, shared.idInFirst, shared.idInSecond)

        // The second coordinator reads the row (its row cache now holds value 0).
        let reader = Self.privateContext(second)
        reader.performAndWait { reader.stalenessInterval = 0 }
        let counter = try reader.performAndWait { try reader.existingObject(with: idInSecond) }
        #expect(reader.performAndWait { counter.value(forKey: "value") as? Int64 } == 0)

        try Self.set(idInFirst, to: 7, first)

        // A fetch sees the other coordinator's save, and so does a fault fired after it.
        #expect(try Self.value(of: idInSecond, second) == 7)
        let faulting = Self.privateContext(second)
        #expect(try faulting.performAndWait { try faulting.existingObject(with: idInSecond).value(forKey: "value") as? Int64 } == 7)
        try Self.set(idInFirst, to: 8, first)
        reader.performAndWait { reader.refresh(counter, mergeChanges: true) }
        #expect(reader.performAndWait { counter.value(forKey: "value") as? Int64 } == 8)
        try Self.set(idInFirst, to: 9, first)
        reader.performAndWait { reader.refresh(counter, mergeChanges: false) }
        #expect(reader.performAndWait { counter.value(forKey: "value") as? Int64 } == 9)
    }

    @Test func aStaleSaveFromAnotherCoordinatorConflicts() throws {
        let shared = try TwoCoordinators()
        defer { shared.remove() }
        let (first, second, idInFirst, idInSecond) = (shared.first, shared.second, shared.idInFirst, shared.idInSecond)

        let stale = Self.privateContext(second)
        let counter = try stale.performAndWait {
            let counter = try stale.existingObject(with: idInSecond)
            _ = counter.value(forKey: "value")
            return counter
        }
        try Self.set(idInFirst, to: 5, first)

        let error = stale.performAndWait { () -> NSError? in
            counter.setValue(Int64(100), forKey: "value")
            do { try stale.save(); return nil } catch { return error as NSError }
        }
        #expect(error?.code == NSManagedObjectMergeError)
        let conflicts = error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
        #expect(conflicts?.first?.oldVersionNumber == 1)
        #expect(conflicts?.first?.newVersionNumber == 2)
        #expect(try Self.value(of: idInFirst, first) == 5)

        // After a refresh the save goes through.
        try stale.performAndWait {
            stale.rollback()
            stale.refresh(counter, mergeChanges: false)
            counter.setValue((counter.value(forKey: "value") as? Int64 ?? 0) + 1, forKey: "value")
            try stale.save()
        }
        #expect(try Self.value(of: idInFirst, first) == 6)
    }

    /// Runs `perContext` increments in each context at once (each on its own queue) and waits.
    static func incrementConcurrently(_ contexts: [(NSManagedObjectContext, NSManagedObjectID)], perContext: Int) -> [Error] {
        let group = DispatchGroup()
        let errors = ErrorList()
        for (context, id) in contexts {
            group.enter()
            context.perform {
                defer { group.leave() }
                do {
                    let counter = try context.existingObject(with: id)
                    for _ in 0..<perContext { try CounterModel.increment(counter, in: context) }
                } catch {
                    errors.append(error)
                }
            }
        }
        group.wait()
        return errors.all
    }

    @Test func eightContextsOnOneCoordinatorLoseNoIncrement() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = try Self.coordinator(at: directory.appendingPathComponent("Shared.sqlite"))
        let id = try Self.insertCounter(coordinator)
        let contexts = (0..<8).map { _ in (Self.privateContext(coordinator), id) }
        let errors = Self.incrementConcurrently(contexts, perContext: 15)
        #expect(errors.isEmpty, "\(errors)")
        #expect(try Self.value(of: id, coordinator) == 8 * 15)
    }

    @Test func eightContextsOnTwoCoordinatorsLoseNoIncrement() throws {
        let shared = try TwoCoordinators()
        defer { shared.remove() }
        let (first, second, id, idInSecond) = (shared.first, shared.second, shared.idInFirst, shared.idInSecond)
        let contexts = (0..<4).map { _ in (Self.privateContext(first), id) }
            + (0..<4).map { _ in (Self.privateContext(second), idInSecond) }
        let errors = Self.incrementConcurrently(contexts, perContext: 15)
        #expect(errors.isEmpty, "\(errors)")
        #expect(try Self.value(of: id, first) == 8 * 15)
        #expect(try Self.value(of: idInSecond, second) == 8 * 15)
    }

    @Test func twoProcessesAndThisOneLoseNoIncrement() throws {
        let executable = try #require(CrashSafetyTests.coredataExecutable, "the coredata executable is built")
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Shared.sqlite")
        let coordinator = try Self.coordinator(at: url)
        let id = try Self.insertCounter(coordinator)
        let times = 30
        let children = try (0..<2).map { _ in
            let process = Process()
            process.executableURL = executable
            process.arguments = ["store", "increment", url.path, "--times", "\(times)"]
            let output = Pipe()
            process.standardOutput = output
            let errorOutput = Pipe()
            process.standardError = errorOutput
            try process.run()
            return (process, output, errorOutput)
        }
        // This process increments at the same time, in two contexts.
        let errors = Self.incrementConcurrently([(Self.privateContext(coordinator), id), (Self.privateContext(coordinator), id)],
                                                perContext: times)
        #expect(errors.isEmpty, "\(errors)")
        for (process, output, errorOutput) in children {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let problems = String(decoding: errorOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "child failed: \(problems)")
            #expect(text.contains("done \(times)"), "child output: \(text) \(problems)")
        }
        #expect(try Self.value(of: id, coordinator) == Int64(4 * times))
    }
}

/// Errors collected from several queues.
final class ErrorList: @unchecked Sendable {
    // `@unchecked Sendable`: `errors` is only touched under `lock`.
    private let lock = NSLock()
    private var errors: [Error] = []

    func append(_ error: Error) { lock.withLock { errors.append(error) } }
    var all: [Error] { lock.withLock { errors } }
}
