import Synchronization

/// Where a context runs its blocks: its own serial queue, the main queue, or inline on the
/// caller's thread (the deprecated confinement type, and any type without a queue).
enum ContextExecutor: Sendable {
    /// A private serial queue, marked with `token` under ``queueKey`` so the context knows
    /// when it runs on it.
    case privateQueue(DispatchQueue, token: QueueToken)
    /// `DispatchQueue.main`. Being on it means running a block of the main queue, or running
    /// on the main thread: after `dispatchMain()` (and under an `async` main, whose main actor
    /// is the main queue) libdispatch parks the main thread and drains the main queue on
    /// worker threads, so the thread alone does not tell.
    case mainQueue
    /// No queue: blocks run inline, on the caller's thread.
    case inline

    /// The identity of one private queue, stored on it with `setSpecific`.
    final class QueueToken: Sendable {}

    /// The queue-specific key under which a private context's queue carries its token.
    static let queueKey = DispatchSpecificKey<QueueToken>()

    /// The token set on `DispatchQueue.main` (once, when the first main-queue context is made).
    static let mainQueueToken: QueueToken = {
        let token = QueueToken()
        DispatchQueue.main.setSpecific(key: queueKey, value: token)
        return token
    }()

    /// Whether the caller runs a block of the main queue, or on the main thread.
    static var isOnMainQueue: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: queueKey) === mainQueueToken
    }

    /// Numbers the private queues, for their labels.
    private static let queueCount = Atomic<Int>(0)

    /// The executor for a context of `type`. A private queue is labelled
    /// "NSManagedObjectContext <n> (private queue)", numbered in creation order.
    init(for type: NSManagedObjectContext.ConcurrencyType) {
        switch type {
        case .privateQueueConcurrencyType:
            let number = Self.queueCount.add(1, ordering: .relaxed).newValue
            let queue = DispatchQueue(label: "NSManagedObjectContext \(number) (private queue)")
            let token = QueueToken()
            queue.setSpecific(key: Self.queueKey, value: token)
            self = .privateQueue(queue, token: token)
        case .mainQueueConcurrencyType:
            _ = Self.mainQueueToken
            self = .mainQueue
        default:
            self = .inline
        }
    }

    /// Whether the caller runs on this executor: inside a block of the private queue, inside a
    /// block of the main queue or on the main thread; always for inline execution.
    var isCurrent: Bool {
        switch self {
        case .privateQueue(_, let token): DispatchQueue.getSpecific(key: Self.queueKey) === token
        case .mainQueue: Self.isOnMainQueue
        case .inline: true
        }
    }

    /// The queue's name for messages: the private queue's label, "main queue" or "no queue".
    var label: String {
        switch self {
        case .privateQueue(let queue, _): queue.label
        case .mainQueue: "main queue"
        case .inline: "no queue"
        }
    }

    /// Whether the executor has a queue (private or main) that confines the context.
    var isQueue: Bool {
        if case .inline = self { return false }
        return true
    }

    /// Runs `body` on the executor and waits for it; inline when already on it (reentrancy).
    func runAndWait<T>(_ body: () throws -> T) rethrows -> T {
        switch self {
        case .privateQueue(let queue, let token):
            if DispatchQueue.getSpecific(key: Self.queueKey) === token { return try body() }
            return try queue.sync(execute: body)
        case .mainQueue:
            if Self.isOnMainQueue { return try body() }
            return try DispatchQueue.main.sync(execute: body)
        case .inline:
            return try body()
        }
    }

    /// Enqueues `work` and returns at once (inline execution runs it before returning).
    func enqueue(_ work: @escaping @Sendable () -> Void) {
        switch self {
        case .privateQueue(let queue, _): queue.async(execute: work)
        case .mainQueue: DispatchQueue.main.async(execute: work)
        case .inline: work()
        }
    }
}

/// Carries a value that is not `Sendable` from one queue to another, where the hand-over itself
/// orders the accesses: a block given to a context runs once, on the context's queue, and its
/// result is read only by the caller that waited for it.
struct QueueHandOver<Value>: @unchecked Sendable {
    let value: Value
}
