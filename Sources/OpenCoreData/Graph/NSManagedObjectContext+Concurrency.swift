/// Running work on the context's queue and the concurrency debugging check. (The overridable
/// `perform(_:)`, `performAndWait(_:)` and Apple's deprecated `lock()`, `unlock()`, `tryLock()`
/// are declared in the class body and call in here.)
///
/// A `privateQueueConcurrencyType` context owns a serial `DispatchQueue`; a
/// `mainQueueConcurrencyType` context runs its blocks on `DispatchQueue.main`. Blocks of one
/// context never overlap and run in the order they were enqueued. ``performAndWait(_:)`` is
/// reentrant: called on the context's queue (inside one of its blocks, or on the main thread
/// for a main-queue context) it runs the block inline.
///
/// Differences from Apple:
/// - The confinement type has no queue: its blocks run inline, on the caller's thread, under
///   the context's lock (Apple raises for `perform` on such a context).
/// - The `async` ``perform(schedule:_:)`` and ``NSPersistentContainer``'s `async`
///   `performBackgroundTask` declare typed `throws(E)` where Apple writes `rethrows`: the same
///   at every call site (no `try` for a block that does not throw).
/// - Reentrancy is per context: a block of context A that waits for context B, whose block
///   then waits for A, deadlocks (A's queue is busy waiting). Likewise a main-queue context
///   waited for from a private context's block that a main-queue block is waiting for.
extension NSManagedObjectContext {
    // MARK: Performing blocks

    /// ``perform(_:)``'s body: `block` then ``processPendingChanges()``, enqueued.
    func enqueueBlock(_ block: @escaping @Sendable () -> Void) {
        executor.enqueue { [self] in
            runInline {
                block()
                processPendingChanges()
            }
        }
    }

    /// Runs `block` on the context's queue, waits for it and returns its result (or rethrows
    /// its error); inline when already on the queue.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        try executor.runAndWait { try runInline(block) }
    }

    /// Runs `block` on the context's queue and returns its result.
    ///
    /// With `.immediate` (the default), the block runs at once when the caller already runs on
    /// the context's queue (inside one of its blocks, or on the main actor for a main-queue
    /// context); else it is enqueued. With `.enqueued` it is always enqueued. An enqueued block
    /// is followed by ``processPendingChanges()``, as Apple's.
    ///
    /// It runs on the caller's actor (`nonisolated(nonsending)`) until it enqueues, so that a
    /// main-actor caller of a main-queue context runs the block inline.
    ///
    /// Differs from Apple: declared with typed `throws(E)` instead of `rethrows` (the same at
    /// every call site).
    nonisolated(nonsending)
    public func perform<T, E: Error>(schedule: ScheduledTaskType = .immediate,
                                     _ block: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        if schedule == .immediate, executor.isCurrent {
            return try runInline(block)
        }
        let outcome: QueueHandOver<Result<T, E>> = await withCheckedContinuation { continuation in
            executor.enqueue { [self] in
                let result = runInline { Result(catching: block) }
                processPendingChanges()
                continuation.resume(returning: QueueHandOver(value: result))
            }
        }
        return try outcome.value.get()
    }

    /// Runs `body` right here: under the context's lock for a context without a queue (as
    /// before queues existed), as it is otherwise (the queue confines it).
    func runInline<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        guard !executor.isQueue else { return try body() }
        apiLock.lock()
        defer { apiLock.unlock() }
        return try body()
    }

    // MARK: Concurrency debugging

    /// Whether `OPENCOREDATA_CONCURRENCY_DEBUG` is set to a positive number (read once, at the
    /// first use of a context). Our counterpart of `-com.apple.CoreData.ConcurrencyDebug 1`.
    static let concurrencyDebugging: Bool = {
        guard let value = ProcessInfo.processInfo.environment["OPENCOREDATA_CONCURRENCY_DEBUG"] else { return false }
        return (Int(value.trimmingCharacters(in: .whitespaces)) ?? 0) > 0
    }()

    /// The message for `call` made off the context's queue (naming the context and `object`),
    /// or `nil` when the caller is on the queue or the context has no queue.
    func concurrencyViolation(_ call: String, object: NSManagedObject? = nil) -> String? {
        guard executor.isQueue, !executor.isCurrent else { return nil }
        let context = "\(name.map { "'\($0)' " } ?? "")(\(executor.label))"
        let subject = object.map { " on object \($0.objectID) (\($0.entity.name ?? "?"))" } ?? ""
        return "CoreData concurrency violation: \(call)\(subject) of context \(context) called off the context's queue (thread \(Thread.current.name.flatMap { $0.isEmpty ? nil : $0 } ?? "unnamed")); use perform(_:) or performAndWait(_:)."
    }

    /// Traps with ``concurrencyViolation(_:object:)``'s message when concurrency debugging is on
    /// and the caller is off the context's queue. Does nothing (one flag test) otherwise.
    @inline(__always)
    func checkConcurrency(_ call: @autoclosure () -> String, object: NSManagedObject? = nil) {
        guard Self.concurrencyDebugging else { return }
        if let message = concurrencyViolation(call(), object: object) { fatalError(message) }
    }
}

extension NSManagedObject {
    /// ``NSManagedObjectContext/checkConcurrency(_:object:)`` for a use of this object: checks
    /// against its context, if it has one.
    @inline(__always)
    func checkConcurrency(_ call: @autoclosure () -> String) {
        guard NSManagedObjectContext.concurrencyDebugging, let context = managedObjectContext else { return }
        context.checkConcurrency(call(), object: self)
    }
}
