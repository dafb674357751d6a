import Foundation
import Testing
@testable import OpenCoreData

/// `OPENCOREDATA_CONCURRENCY_DEBUG`: uses of a context off its queue are caught.
@Suite("Contexts on queues: the concurrency debugging check")
struct ConcurrencyDebugTests {
    @Test func offTheQueueNamesContextObjectAndCall() throws {
        let context = try ContextQueueSupport.privateContext(name: "importer")
        let run = context.performAndWait { GraphTestModel.insert("Run", context) }
        let message = try #require(context.concurrencyViolation("setValue(_:forKey: \"date\")", object: run))
        #expect(message.contains("concurrency violation"))
        #expect(message.contains("setValue(_:forKey: \"date\")"))
        #expect(message.contains("'importer'"))
        #expect(message.contains("private queue"))
        #expect(message.contains(run.objectID.description))
        #expect(message.contains("(Run)"))
        // On the queue, there is nothing to report.
        let inside = context.performAndWait { context.concurrencyViolation("fetch(_:)", object: run) }
        #expect(inside == nil)
        let enqueued = Captured<String>()
        let done = DispatchSemaphore(value: 0)
        context.perform {
            enqueued.value = context.concurrencyViolation("save()") ?? "none"
            done.signal()
        }
        done.wait()
        #expect(enqueued.value == "none")
    }

    @Test func mainQueueContextsBelongToTheMainThread() throws {
        let context = GraphTestModel.context()
        try #require(!ContextExecutor.isOnMainQueue)
        let message = try #require(context.concurrencyViolation("fetch(_:)"))
        #expect(message.contains("main queue"))
        #expect(message.contains("fetch(_:)"))
        let onMain = context.performAndWait { context.concurrencyViolation("fetch(_:)") }
        #expect(onMain == nil)
    }

    @Test func theFlagIsOffByDefaultSoDirectCallsWork() throws {
        try #require(ProcessInfo.processInfo.environment["OPENCOREDATA_CONCURRENCY_DEBUG"] == nil)
        #expect(!NSManagedObjectContext.concurrencyDebugging)
        // A private context used directly from one thread, as Apple allows for such code.
        let context = try ContextQueueSupport.privateContext()
        let run = GraphTestModel.insert("Run", context, ["processID": Int32(3)])
        try context.save()
        #expect(run.value(forKey: "processID") as? Int32 == 3)
    }

    @Test func withTheVariableSetAnOffQueueFetchTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // Read once, at the first use of a context: this child process has not used one yet.
            setenv("OPENCOREDATA_CONCURRENCY_DEBUG", "1", 1)
            let context = try ContextQueueSupport.privateContext(name: "worker")
            _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Run"))
        }
        let output = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(output.contains("CoreData concurrency violation: fetch(_:) of Run of context 'worker'"))
    }
}
