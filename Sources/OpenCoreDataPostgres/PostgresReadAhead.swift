import Foundation
import OpenCoreData

/// Reads started before they are asked for: the next batch of a `fetchBatchSize` walk
/// (``PostgresStore/readAhead(_:)``), so that the server and the event loop read it while the
/// context works on the batch before.
///
/// A read ahead is used only by a later ``PostgresStore/snapshots(for:)`` (or
/// `snapshots(for:cachedWithin:)` within its interval) for exactly the same IDs, in the same
/// order. That is the contract of a context's `stalenessInterval`: a fault may be fulfilled from
/// data read earlier, as Apple's Core Data fulfils one from its row cache. Fresh reads never use
/// it, and every save or remote change through the store drops what was read ahead, so a context
/// never sees rows older than a save it could know of.
///
/// Reads nobody takes (a walk that stopped) stay until newer ones push them out, at most
/// ``capacity`` of them, or until the next save drops them: at most eight batches of rows.
///
/// `@unchecked Sendable`: `pending` and `generation` are guarded by `lock`.
final class PostgresReadAhead: @unchecked Sendable {
    /// How many reads ahead are kept (two for each context walking at once, a few at most).
    static let capacity = 8

    private struct Pending {
        let ids: [NSManagedObjectID]
        let started: ContinuousClock.Instant
        let call: PostgresConnectionBridge.Call<[ObjectSnapshot]>
    }

    private let lock = NSLock()
    private var pending: [Pending] = []
    /// Counts the store's saves and remote changes: a read started before one is dropped.
    private var generation = 0

    /// The generation now, to pass to ``add(_:started:generation:call:)`` once the read is started.
    var currentGeneration: Int { lock.withLock { generation } }

    /// Whether a read of exactly `ids` is kept already.
    func contains(_ ids: [NSManagedObjectID]) -> Bool {
        lock.withLock { pending.contains { Self.same($0.ids, ids) } }
    }

    /// Keeps a started read of `ids`, unless a save or remote change came after `generation`.
    func add(_ ids: [NSManagedObjectID], started: ContinuousClock.Instant, generation: Int,
             call: PostgresConnectionBridge.Call<[ObjectSnapshot]>) {
        lock.withLock {
            guard generation == self.generation else { return }
            pending.removeAll { Self.same($0.ids, ids) }
            pending.append(Pending(ids: ids, started: started, call: call))
            if pending.count > Self.capacity { pending.removeFirst(pending.count - Self.capacity) }
        }
    }

    /// Takes the read of exactly `ids` when one is kept and was started no more than `maxAge`
    /// seconds ago (any age when negative).
    func take(_ ids: [NSManagedObjectID], maxAge: TimeInterval) -> PostgresConnectionBridge.Call<[ObjectSnapshot]>? {
        lock.withLock {
            guard let index = pending.firstIndex(where: { Self.same($0.ids, ids) }) else { return nil }
            let found = pending.remove(at: index)
            if maxAge >= 0, found.started.duration(to: .now) > .seconds(maxAge) { return nil }
            return found.call
        }
    }

    /// Waits until the read kept for exactly `ids`, if there is one, has finished, and keeps it;
    /// returns whether there is one (tests see through it what a walk read ahead).
    func waitForRead(of ids: [NSManagedObjectID]) -> Bool {
        guard let call = lock.withLock({ pending.first { Self.same($0.ids, ids) }?.call }) else { return false }
        _ = try? call.result()
        return true
    }

    /// Drops every read kept: the store saved, or heard of another coordinator's save.
    func invalidate() {
        lock.withLock {
            generation &+= 1
            pending.removeAll()
        }
    }

    /// Whether two ID lists hold the same instances in the same order.
    private static func same(_ a: [NSManagedObjectID], _ b: [NSManagedObjectID]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0 === $1 }
    }
}
