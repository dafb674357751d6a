import Foundation

/// The array a fetch with `fetchBatchSize` returns: it holds only the matching keys (object IDs
/// or primary keys, 8–16 bytes a row) and loads elements a batch at a time as it is walked.
///
/// At most ``retainedBatches`` batches are held at once (the one being read and the previous,
/// so that walking back one step does not reload), which bounds memory whatever the row count.
/// Reading an element of a batch that is not held calls the loader once for the whole batch.
/// The loader must return one element per key, in key order.
///
/// Differs from Apple: Apple returns an `NSArray` subclass bridged to `[T]`; Swift arrays on
/// Linux cannot be lazy, so this is a `RandomAccessCollection` of its own. A loader error traps,
/// as Apple raises "CoreData could not fulfill a fault".
final class FetchBatchedArray<Key, Element>: RandomAccessCollection {
    typealias Index = Int
    typealias Loader = (ArraySlice<Key>) throws -> [Element]

    /// The keys of every element, in fetch order.
    let keys: [Key]
    /// Elements per batch (the request's `fetchBatchSize`).
    let batchSize: Int
    /// How many batches are held at most.
    let retainedBatches: Int

    private let loader: Loader
    /// Held batches, most recently used last.
    private var held: [(index: Int, elements: [Element])] = []
    /// How many times the loader ran (one statement per batch, for tests and the debug log).
    private(set) var loads = 0

    init(keys: [Key], batchSize: Int, retainedBatches: Int = 2, loader: @escaping Loader) {
        self.keys = keys
        self.batchSize = Swift.max(batchSize, 1)
        self.retainedBatches = Swift.max(retainedBatches, 1)
        self.loader = loader
    }

    var startIndex: Int { 0 }
    var endIndex: Int { keys.count }

    subscript(position: Int) -> Element {
        precondition(position >= 0 && position < keys.count, "Index \(position) out of range 0..<\(keys.count)")
        let batch = position / batchSize
        return elements(ofBatch: batch)[position - batch * batchSize]
    }

    /// The number of elements currently held in memory.
    var heldElementCount: Int { held.reduce(0) { $0 + $1.elements.count } }

    private func elements(ofBatch batch: Int) -> [Element] {
        if let slot = held.lastIndex(where: { $0.index == batch }) {
            if slot != held.count - 1 { held.append(held.remove(at: slot)) }
            return held[held.count - 1].elements
        }
        let start = batch * batchSize
        let slice = keys[start..<Swift.min(start + batchSize, keys.count)]
        let loaded: [Element]
        do {
            loaded = try loader(slice)
        } catch {
            preconditionFailure("CoreData could not fulfill a fault for batch \(batch) of a fetch with fetchBatchSize \(batchSize): \(error)")
        }
        precondition(loaded.count == slice.count, "The batch loader returned \(loaded.count) elements for \(slice.count) keys")
        loads += 1
        held.append((batch, loaded))
        if held.count > retainedBatches { held.removeFirst(held.count - retainedBatches) }
        return loaded
    }
}
