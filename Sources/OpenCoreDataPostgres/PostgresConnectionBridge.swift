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
/// - Rows read as snapshots are decoded on the connection's event loop as they arrive
///   (postgres-nio's `onRow`; ``PostgresSnapshotReader``), which spares a hand-off between
///   threads for each row. Decoding never waits: no lock held there is held across I/O.
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
    /// Where the server is.
    public let location: PostgresStoreLocation
    private let logger: Logger
    fileprivate let executor = BridgeExecutor()
    private let runner: Task<Void, Never>

    /// A bridge to the server at `location`, with a pool of its own.
    public init(location: PostgresStoreLocation, logger: Logger = Logger(label: "OpenCoreData.PostgreSQL")) {
        let client = PostgresClient(configuration: location.clientConfiguration, eventLoopGroup: Self.eventLoopGroup, backgroundLogger: logger)
        self.client = client
        self.location = location
        self.logger = logger
        // Returns once the pool's task has begun (`run()` marks the pool running before it
        // first suspends): a lease before that works but logs a warning on the app's logger.
        let started = DispatchSemaphore(value: 0)
        runner = Task(executorPreference: executor) {
            started.signal()
            await client.run()
        }
        started.wait()
    }

    /// Connects once, directly, and closes the connection: a wrong host, socket, database, user
    /// or password fails here at once with `NSPersistentStoreOpenError` (134080) and the
    /// server's reason, where the pool would retry for a minute before giving up.
    public func checkServer() throws {
        do {
            let connection = try PostgresConnection.connect(on: Self.eventLoopGroup.next(), configuration: try location.connectionConfiguration(),
                                                            id: 0, logger: logger).wait()
            try? connection.close().wait()
        } catch {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOpenError, userInfo: [
                NSLocalizedDescriptionKey: "Could not connect to the PostgreSQL server for database '\(location.database)' as '\(location.username)': "
                    + String(reflecting: error),
                NSUnderlyingErrorKey: error,
            ])
        }
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
        try begin(body).result()
    }

    /// Starts `body` with the pool and returns at once; ``Call/result()`` waits for its result.
    func begin<T: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> T) -> Call<T> {
        let call = Call<T>()
        Task(executorPreference: executor) { [client] in
            do { call.finish(.success(try await body(client))) } catch { call.finish(.failure(error)) }
        }
        return call
    }

    /// A call started by ``begin(_:)``: its result, once it has one.
    final class Call<T: Sendable>: Sendable {
        private let outcome = LockedValue<Result<T, any Error>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        fileprivate init() {}

        fileprivate func finish(_ result: Result<T, any Error>) {
            outcome.set(result)
            done.signal()
        }

        /// Blocks the calling thread until the call has finished, then returns its result or
        /// rethrows its error (again on every later call). Throws `NSPersistentStoreOperationError`
        /// (134070) when called on one of the bridge's event-loop threads, where waiting would
        /// stop the work it waits for.
        func result() throws -> T {
            if let loop = MultiThreadedEventLoopGroup.currentEventLoop,
               PostgresConnectionBridge.eventLoopGroup.makeIterator().contains(where: { $0 === loop }) {
                throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError, userInfo: [
                    NSLocalizedDescriptionKey: "The PostgreSQL store was called synchronously on one of its own event-loop threads, "
                        + "where waiting for the server would stop the work it waits for. Call Core Data's synchronous API on a "
                        + "context's queue (perform, performAndWait).",
                ])
            }
            done.wait()
            // Lets any later call through as well.
            done.signal()
            guard let result = outcome.get() else {
                throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError, userInfo: [
                    NSLocalizedDescriptionKey: "A PostgreSQL call ended without a result.",
                ])
            }
            return try result.get()
        }
    }
}

extension PostgresConnectionBridge {
    /// Starts `body` as a long-running task on the bridge's executor (a listener), not waiting
    /// for it; cancel the task to stop it.
    func start(_ body: @escaping @Sendable (PostgresClient) async -> Void) -> Task<Void, Never> {
        Task(executorPreference: executor) { [client] in await body(client) }
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
