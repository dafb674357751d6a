import Foundation
import OpenCoreData
import PostgresNIO

/// postgres-nio's async client, for Core Data's synchronous store calls.
///
/// Threading model:
/// - A store call runs on the thread of the context that made it (a context's queue). The
///   bridge starts the call's work as a task and blocks that thread on a semaphore until the
///   task finishes.
/// - The bridge's tasks, and the pool's own background task (``PostgresClient/run()``), run on
///   a Dispatch queue of the bridge's (a task executor preference), never on Swift's cooperative
///   pool; the pool's connections run on event loops of their own
///   (``PostgresConnectionBridge/eventLoopGroup``). So a store call completes even when every
///   cooperative thread, or every event loop of the app's server, is blocked waiting for one
///   (an async request handler calling `performAndWait`).
/// - Called on one of the bridge's own event-loop threads, where waiting would stop the work it
///   waits for, a call throws instead.
///
/// ``close()`` (or the bridge's end) cancels the background task, which closes the pool's
/// connections.
public final class PostgresConnectionBridge: Sendable {
    /// The event loops of every bridge's connections: apart from the app's own, so that no
    /// thread an app blocks is one the store's I/O needs.
    public static let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: max(1, min(4, System.coreCount)))

    /// The pool every call leases its connection from.
    public let client: PostgresClient
    private let executor = BridgeExecutor()
    private let runner: Task<Void, Never>

    /// A bridge to the server at `location`, with a pool of its own.
    public init(location: PostgresStoreLocation, logger: Logger = Logger(label: "OpenCoreData.PostgreSQL")) {
        let client = PostgresClient(configuration: location.clientConfiguration, eventLoopGroup: Self.eventLoopGroup, backgroundLogger: logger)
        self.client = client
        runner = Task(executorPreference: executor) { await client.run() }
    }

    deinit {
        runner.cancel()
    }

    /// Closes the pool; calls made afterwards fail.
    public func close() {
        runner.cancel()
    }

    /// Runs `body` with the pool and returns its result, blocking the calling thread until it
    /// finishes; rethrows what `body` throws. Throws `NSPersistentStoreOperationError` (134070)
    /// when called on one of the bridge's event-loop threads.
    public func wait<T: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> T) throws -> T {
        if let loop = MultiThreadedEventLoopGroup.currentEventLoop,
           Self.eventLoopGroup.makeIterator().contains(where: { $0 === loop }) {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError, userInfo: [
                NSLocalizedDescriptionKey: "The PostgreSQL store was called synchronously on one of its own event-loop threads, "
                    + "where waiting for the server would stop the work it waits for. Call Core Data's synchronous API on a "
                    + "context's queue (perform, performAndWait).",
            ])
        }
        let outcome = Outcome<T>()
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: executor) { [client] in
            do { outcome.set(.success(try await body(client))) } catch { outcome.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        return try outcome.get()
    }
}

/// Runs the bridge's tasks on a concurrent Dispatch queue of its own, outside Swift's
/// cooperative pool (whose threads an app may all block in synchronous Core Data calls).
private final class BridgeExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "OpenCoreData.PostgreSQL.bridge", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// The result a bridged task hands to the waiting thread.
// @unchecked Sendable: `result` is only touched under `lock`.
private final class Outcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ value: Result<T, any Error>) {
        lock.withLock { result = value }
    }

    func get() throws -> T {
        guard let result = lock.withLock({ result }) else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError, userInfo: [
                NSLocalizedDescriptionKey: "A PostgreSQL call ended without a result.",
            ])
        }
        return try result.get()
    }
}
