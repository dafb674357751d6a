import Foundation
import GRDB

/// The read-only connections an SQLite store in WAL mode runs fetches on, outside the
/// coordinator's lock, so that one context's fetch does not wait for another's save.
///
/// Apple's SQLite store keeps a pool of connections since iOS 10 (one writer, several readers;
/// `NSPersistentStoreConnectionPoolMaxSizeKey` bounds it). Here the store's own connection is
/// the writer and this pool holds the readers: connections are opened when a fetch finds none
/// idle, up to the capacity; past it a fetch waits for one to come back. In WAL mode a reader
/// never waits for the writer, and each statement sees the last transaction committed when it
/// started, so a fetch that follows a save sees it.
///
/// The pool is made with its store and stays closed (every fetch reads on the store's own
/// connection) until ``start(capacity:open:)``, once the store has opened its file in WAL mode.
///
/// `@unchecked Sendable`: every property is read and written only under `condition`; a
/// connection taken from the pool is used by one thread until it is given back (GRDB's queue
/// serializes its use in any case).
final class SQLiteReaderPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var capacity = 0
    private var open: (() throws -> DatabaseQueue)?
    private var idle: [DatabaseQueue] = []
    private var opened = 0
    private var isClosed = true

    /// Lets fetches use up to `capacity` readers, each made by `open` when first needed.
    func start(capacity: Int, open: @escaping () throws -> DatabaseQueue) {
        condition.withLock {
            self.capacity = max(capacity, 1)
            self.open = open
            isClosed = false
        }
    }

    /// Whether fetches run on the pool's readers (started and not closed).
    var isOpen: Bool { condition.withLock { !isClosed } }

    /// How many readers are open (idle or in use).
    var openCount: Int { condition.withLock { opened } }

    /// Runs `body` on an idle reader, opening one while fewer than the capacity are open, else
    /// waiting for one. Returns `nil` without running `body` when the pool is closed or a new
    /// reader can't be opened (the caller then reads on the store's own connection).
    func withReader<T>(_ body: (DatabaseQueue) throws -> T) rethrows -> T? {
        guard let reader = checkOut() else { return nil }
        defer { checkIn(reader) }
        return try body(reader)
    }

    private func checkOut() -> DatabaseQueue? {
        condition.lock()
        while !isClosed && idle.isEmpty && opened >= capacity { condition.wait() }
        guard !isClosed, let open else {
            condition.unlock()
            return nil
        }
        if let reader = idle.popLast() {
            condition.unlock()
            return reader
        }
        opened += 1
        condition.unlock()
        do {
            return try open()
        } catch {
            // A reader that can't be opened (no file descriptor left, a file the process may
            // not read any more) won't open at the next fetch either: the pool closes, and
            // fetches run on the store's own connection from now on.
            condition.withLock {
                opened -= 1
                isClosed = true
                condition.broadcast()
            }
            return nil
        }
    }

    private func checkIn(_ reader: DatabaseQueue) {
        let closeNow = condition.withLock {
            if isClosed {
                opened -= 1
                return true
            }
            idle.append(reader)
            condition.signal()
            return false
        }
        if closeNow { try? reader.close() }
    }

    /// Closes the idle readers; those in use close when they come back, and fetches waiting for
    /// one read on the store's own connection.
    func close() {
        let readers = condition.withLock {
            isClosed = true
            defer { idle = [] }
            opened -= idle.count
            condition.broadcast()
            return idle
        }
        for reader in readers { try? reader.close() }
    }
}
