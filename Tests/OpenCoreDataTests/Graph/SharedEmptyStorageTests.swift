import Foundation
import Testing
@testable import OpenCoreData

/// Empty arrays share one storage in the whole process, which nothing may write: the standard
/// library's `init(unsafeUninitializedCapacity:initializingWith:)` stores its count there for
/// a zero capacity, and a mutable access to an empty array reads it. Under ThreadSanitizer
/// (`scripts/tsan.sh`) the two on different threads are reported as a race, which failed CI
/// once (a save's empty batch of snapshots on one test's thread, a relationship list's first
/// removal on another's). Here each thread does both, with nothing ordering the threads.
@Suite struct SharedEmptyStorageTests {
    @Test func emptyBatchesAndFirstGrowthOnTwoThreadsWriteNoSharedStorage() {
        let ready = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let results = Locked<[Int]>([])
        let threads = (0..<2).map { _ in
            Thread {
                var found = 0
                // Both threads run their rounds at once, so that each finds the other's last
                // access to the shared storage still in ThreadSanitizer's shadow memory.
                ready.signal()
                go.wait()
                for round in 0..<1_000 {
                    // An empty batch of snapshots: the moved-in array has no elements.
                    var snapshots = SnapshotsByID()
                    snapshots.update(contentsOf: [])
                    found += snapshots.isEmpty ? 0 : 1
                    let none = [Int](count: 0) { _ in found += 1 }
                    found += none.count
                    // A table's first buckets (an object list's positions at its first removal).
                    var positions = IdentityPositions()
                    let member = ObjectIdentifier(NSObject())
                    positions.insert(member, position: round)
                    found += positions.position(of: member) == round ? 0 : 1
                    var members = IdentitySet()
                    members.insert(member)
                    found += members.contains(member) ? 0 : 1
                }
                results.withLock { $0.append(found) }
                done.signal()
            }
        }
        threads.forEach { $0.start() }
        threads.forEach { _ in ready.wait() }
        threads.forEach { _ in go.signal() }
        threads.forEach { _ in done.wait() }
        // Nothing unexpected on either thread; ThreadSanitizer fails the run on a race.
        #expect(results.withLock { $0 } == [0, 0])
    }
}
