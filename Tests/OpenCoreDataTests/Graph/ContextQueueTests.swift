import Foundation
import Testing
@testable import OpenCoreData

/// What blocks of a context did, recorded from whichever thread they ran on.
// @unchecked Sendable: every property is read and written under `lock`.
final class QueueLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [Int] = []
    private var running = 0
    private var overlaps = 0

    /// Records `index`, and whether another block was running at the same time.
    func run(_ index: Int, _ body: () -> Void = {}) {
        lock.withLock {
            running += 1
            if running > 1 { overlaps += 1 }
            entries.append(index)
        }
        body()
        lock.withLock { running -= 1 }
    }

    func append(_ index: Int) { lock.withLock { entries.append(index) } }
    var recorded: [Int] { lock.withLock { entries } }
    var overlapCount: Int { lock.withLock { overlaps } }
}

/// A value passed back from a context's block to the test (the test waits for the block).
// @unchecked Sendable: written inside the block, read after the test waited for it.
final class Captured<Value>: @unchecked Sendable {
    var value: Value?
}

enum ContextQueueSupport {
    /// A private-queue context over an in-memory store of the graph test model.
    static func privateContext(name: String? = nil) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: GraphTestModel.make())
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.name = name
        return context
    }

    struct Failure: Error, Equatable { let code: Int }
}

@Suite("Contexts on queues: perform, performAndWait, async perform")
struct ContextQueueTests {
    @Test func privateBlocksRunInEnqueueOrderOnTheQueue() throws {
        let context = try ContextQueueSupport.privateContext()
        let log = QueueLog()
        let onQueue = QueueLog()
        let group = DispatchGroup()
        for index in 0..<200 {
            group.enter()
            context.perform {
                log.run(index)
                if context.executor.isCurrent { onQueue.append(index) }
                group.leave()
            }
        }
        group.wait()
        #expect(log.recorded == Array(0..<200))
        #expect(onQueue.recorded.count == 200)
        #expect(log.overlapCount == 0)
        #expect(!context.executor.isCurrent)
    }

    @Test func blocksEnqueuedFromManyThreadsNeverOverlap() throws {
        let context = try ContextQueueSupport.privateContext()
        let log = QueueLog()
        let group = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<25 {
                group.enter()
                if index.isMultiple(of: 2) {
                    context.perform {
                        log.run(thread * 100 + index) { _ = GraphTestModel.insert("Run", context, ["processID": Int32(index)]) }
                        group.leave()
                    }
                } else {
                    context.performAndWait { log.run(thread * 100 + index) }
                    group.leave()
                }
            }
        }
        group.wait()
        #expect(log.recorded.count == 200)
        #expect(log.overlapCount == 0)
        // Per enqueuing thread, blocks ran in the order they were enqueued.
        for thread in 0..<8 {
            let mine = log.recorded.filter { $0 / 100 == thread }
            #expect(mine == mine.sorted())
        }
        let inserted = context.performAndWait { context.insertedObjects.count }
        #expect(inserted == 8 * 13)
    }

    @Test func performReturnsBeforeItsBlockRuns() throws {
        let context = try ContextQueueSupport.privateContext()
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let log = QueueLog()
        context.perform {
            // Inline execution would wait here for a signal that comes only after perform returns.
            let opened = gate.wait(timeout: .now() + 30) == .success
            log.append(opened ? 1 : -1)
            done.signal()
        }
        #expect(log.recorded.isEmpty)
        gate.signal()
        done.wait()
        #expect(log.recorded == [1])
    }

    @Test func performAndWaitIsReentrantAndRunsOnTheQueue() throws {
        let context = try ContextQueueSupport.privateContext()
        #expect(!context.executor.isCurrent)
        let depth = context.performAndWait { () -> Int in
            #expect(context.executor.isCurrent)
            return context.performAndWait { () -> Int in
                context.performAndWait { context.executor.isCurrent ? 3 : 0 }
            }
        }
        #expect(depth == 3)

        // Inside an asynchronous block too.
        let done = DispatchSemaphore(value: 0)
        let nested = Captured<Bool>()
        context.perform {
            context.performAndWait { nested.value = context.executor.isCurrent }
            done.signal()
        }
        done.wait()
        #expect(nested.value == true)
    }

    @Test func performAndWaitRethrowsAndReturns() throws {
        let context = try ContextQueueSupport.privateContext()
        #expect(throws: ContextQueueSupport.Failure(code: 7)) {
            try context.performAndWait { () throws -> Int in throw ContextQueueSupport.Failure(code: 7) }
        }
        // No `try` for a block that does not throw.
        let name = context.performAndWait { GraphTestModel.insert("Run", context).entity.name }
        #expect(name == "Run")
        let count = try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Run")) }
        #expect(count == 1)
    }

    @Test func asyncPerformRunsOnTheQueueInOrder() async throws {
        let context = try ContextQueueSupport.privateContext()
        let log = QueueLog()
        context.enqueue { log.append(1) }
        let immediate = await context.perform(schedule: .immediate) { () -> Bool in
            log.append(2)
            return context.executor.isCurrent
        }
        #expect(immediate)
        context.enqueue { log.append(3) }
        let enqueued = await context.perform(schedule: .enqueued) { () -> Bool in
            log.append(4)
            return context.executor.isCurrent
        }
        #expect(enqueued)
        #expect(log.recorded == [1, 2, 3, 4])

        await #expect(throws: ContextQueueSupport.Failure(code: 3)) {
            try await context.perform { () throws -> Int in throw ContextQueueSupport.Failure(code: 3) }
        }
        // An enqueued block is followed by processPendingChanges (delete rules applied).
        let pending = try await context.perform(schedule: .enqueued) { () throws -> NSManagedObjectID in
            let run = GraphTestModel.insert("Run", context)
            try context.save()
            context.delete(run)
            return run.objectID
        }
        let deleted = await context.perform { context.deletedObjects.map(\.objectID) }
        #expect(deleted == [pending])
    }

    @Test func freedObjectsLeaveTheRegistryFromAnyThread() throws {
        let context = try ContextQueueSupport.privateContext()
        let ids = try context.performAndWait { () throws -> [NSManagedObjectID] in
            let runs = (0..<50).map { GraphTestModel.insert("Run", context, ["processID": Int32($0)]) }
            try context.save()
            return runs.map(\.objectID)
        }
        // Faults made on the queue, then freed on other threads while the queue looks objects up.
        let parts = context.performAndWait {
            (0..<5).map { part in
                let holder = Captured<[NSManagedObject]>()
                holder.value = ids[(part * 10)..<(part * 10 + 10)].map { context.object(with: $0) }
                return holder
            }
        }
        let group = DispatchGroup()
        for part in parts {
            DispatchQueue.global().async(group: group) { part.value = nil }
        }
        for _ in 0..<20 {
            context.perform(group: group) { _ = ids.compactMap { context.registeredObject(for: $0) }.count }
        }
        group.wait()
        let left = context.performAndWait { ids.filter { context.registeredObject(for: $0) != nil }.count }
        #expect(left == 0)
        let fetched = try context.performAndWait { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Run")).count }
        #expect(fetched == 50)
    }
}

extension NSManagedObjectContext {
    /// The synchronous ``perform(_:)``, for async tests (where `perform { }` means the async one,
    /// as with Apple's overloads).
    func enqueue(_ block: @escaping @Sendable () -> Void) {
        perform(block)
    }

    /// ``perform(_:)`` inside `group` (the group is left when the block is done).
    func perform(group: DispatchGroup, _ block: @escaping @Sendable () -> Void) {
        group.enter()
        perform {
            block()
            group.leave()
        }
    }
}

@Suite("Contexts on queues: the main queue")
struct MainQueueContextTests {
    @Test func performAndWaitOffTheMainThreadRunsOnIt() throws {
        let context = GraphTestModel.context()
        try #require(!ContextExecutor.isOnMainQueue)
        let onMain = context.performAndWait { ContextExecutor.isOnMainQueue && context.executor.isCurrent }
        #expect(onMain)
    }

    @MainActor
    @Test func onTheMainActorPerformAndWaitAndImmediateRunInline() async throws {
        let context = GraphTestModel.context()
        let log = QueueLog()
        context.enqueue { log.append(1) }
        // Inline: the block enqueued first has not run yet.
        context.performAndWait { log.append(2) }
        await context.perform(schedule: .immediate) { log.append(3) }
        #expect(log.recorded == [2, 3])
        // Enqueued: after the block enqueued before it.
        await context.perform(schedule: .enqueued) { log.append(4) }
        #expect(log.recorded == [2, 3, 1, 4])
    }

    @Test func asyncPerformFromElsewhereRunsOnTheMainThread() async throws {
        let context = GraphTestModel.context()
        let onMain = await context.perform { ContextExecutor.isOnMainQueue }
        #expect(onMain)
    }
}

@Suite("Contexts on queues: container background tasks")
struct ContainerBackgroundTaskTests {
    private static func container() -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Queues", managedObjectModel: GraphTestModel.make())
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        container.loadPersistentStores { _, error in #expect(error == nil) }
        return container
    }

    @Test func performBackgroundTaskReturnsAtOnceAndRunsOnAPrivateQueue() throws {
        let container = Self.container()
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let seen = Captured<(opened: Bool, type: NSManagedObjectContext.ConcurrencyType, onQueue: Bool)>()
        container.performBackgroundTask { context in
            let opened = gate.wait(timeout: .now() + 30) == .success
            _ = GraphTestModel.insert("Run", context, ["processID": Int32(5)])
            #expect(throws: Never.self) { try context.save() }
            seen.value = (opened, context.concurrencyType, context.executor.isCurrent)
            done.signal()
        }
        gate.signal()
        done.wait()
        #expect(seen.value?.opened == true)
        #expect(seen.value?.type == .privateQueueConcurrencyType)
        #expect(seen.value?.onQueue == true)
        #expect(container.viewContext.concurrencyType == .mainQueueConcurrencyType)
        let reader = container.newBackgroundContext()
        let count = try reader.performAndWait { try reader.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Run")) }
        #expect(count == 1)
    }

    @Test func asyncPerformBackgroundTaskReturnsAndRethrows() async throws {
        let container = Self.container()
        let onQueue = await container.performBackgroundTask { context in context.executor.isCurrent && !ContextExecutor.isOnMainQueue }
        #expect(onQueue)
        let count = try await container.performBackgroundTask { context in
            _ = GraphTestModel.insert("Run", context)
            try context.save()
            return try context.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Run"))
        }
        #expect(count == 1)
        await #expect(throws: ContextQueueSupport.Failure(code: 9)) {
            try await container.performBackgroundTask { _ throws -> Int in throw ContextQueueSupport.Failure(code: 9) }
        }
    }
}
