import Foundation

/// Values appended from several threads.
// @unchecked Sendable: `values` is only touched under `lock`.
final class LockedList<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value] = []

    func append(_ value: Value) {
        lock.withLock { values.append(value) }
    }

    /// The values, in the order `areInIncreasingOrder` gives.
    func sorted(by areInIncreasingOrder: (Value, Value) -> Bool) -> [Value] {
        lock.withLock { values.sorted(by: areInIncreasingOrder) }
    }
}
