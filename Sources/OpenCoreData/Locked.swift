import Foundation

/// A value shared across threads, read and changed only while holding its lock.
///
/// The lock is an `NSLock` (a pthread mutex), which ThreadSanitizer understands; the standard
/// library's `Synchronization.Mutex` locks through futexes on Linux, which ThreadSanitizer does
/// not see, so it reported the accesses it guards as races.
///
/// `@unchecked Sendable`: `value` is only touched inside `withLock`, while holding `lock`.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock; what `body` changes is kept.
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
