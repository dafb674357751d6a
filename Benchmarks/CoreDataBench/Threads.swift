import Foundation

/// Runs the same job on `count` new threads at once (W7): each thread first runs `setup` (opening
/// its connection or context, not timed), then all wait until every thread is ready, and `watch`
/// times from the moment they are released together until the last `work` returns.
///
/// What `setup` makes stays on its thread (a context or a connection need not be `Sendable`).
/// The first error any thread throws is rethrown once all threads have finished.
func timedOnThreads<State>(_ count: Int, _ watch: inout Stopwatch,
                           setup: @escaping @Sendable (Int) throws -> State,
                           work: @escaping @Sendable (Int, State) throws -> Void) throws {
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    let errors = ErrorList()
    for index in 0..<count {
        done.enter()
        let thread = Thread {
            defer { done.leave() }
            let state: State
            do {
                state = try setup(index)
            } catch {
                errors.append(error)
                ready.signal()
                return
            }
            ready.signal()
            go.wait()
            do { try work(index, state) } catch { errors.append(error) }
        }
        thread.name = "coredata-bench \(index)"
        thread.start()
    }
    for _ in 0..<count { ready.wait() }
    watch.start()
    for _ in 0..<count { go.signal() }
    done.wait()
    watch.stop()
    if let error = errors.first { throw error }
}

/// Errors collected from several threads.
// @unchecked Sendable: `errors` is only read and written while holding `lock`.
private final class ErrorList: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []

    func append(_ error: any Error) {
        lock.lock()
        defer { lock.unlock() }
        errors.append(error)
    }

    var first: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return errors.first
    }
}
