import Dispatch
import Foundation
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData

/// `.NSPersistentStoreRemoteChange` for writes by another coordinator and another process.
@Suite("Remote change notifications")
struct RemoteChangeNotificationTests {
    /// Counts the notifications `coordinator` posts and signals a semaphore for each.
    final class Listener: @unchecked Sendable {
        // @unchecked Sendable: `received` is guarded by `lock`.
        let semaphore = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var received: [[AnyHashable: Any]] = []
        private var observer: NSObjectProtocol?

        init(_ coordinator: NSPersistentStoreCoordinator) {
            observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { [weak self] note in
                guard let self else { return }
                self.lock.withLock { self.received.append(note.userInfo ?? [:]) }
                self.semaphore.signal()
            }
        }

        deinit { if let observer { NotificationCenter.default.removeObserver(observer) } }

        var last: [AnyHashable: Any]? { lock.withLock { received.last } }

        /// Waits for the next notification (a minute at most, so that a broken watcher fails
        /// the test instead of hanging it).
        func next() -> Bool { semaphore.wait(timeout: .now() + 60) == .success }
    }

    static func watched(_ url: URL, history: Bool = true) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CounterModel.make())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [
            NSPersistentStoreRemoteChangeNotificationPostOptionKey: true, NSPersistentHistoryTrackingKey: history,
        ])
        return coordinator
    }

    @Test func anotherCoordinatorsSaveIsPostedWithTheHistoryToken() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Shared.sqlite")
        let watched = try Self.watched(url)
        let listener = Listener(watched)
        let other = NSPersistentStoreCoordinator(managedObjectModel: CounterModel.make())
        try other.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                     options: [NSPersistentHistoryTrackingKey: true])
        _ = try SQLiteSharedStoreTests.insertCounter(other)
        // What the other coordinator wrote: one transaction in all.
        let context = SQLiteSharedStoreTests.privateContext(watched)
        let all = try context.performAndWait {
            (try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult)?.result
                as? [NSPersistentHistoryTransaction]
        }
        #expect(all?.count == 1)
        let saved = try #require(all?.first?.token)
        // A notification carries that transaction's token. An earlier one may come first, for the
        // other coordinator's opening of the file (a loaded machine can see the two apart).
        var info: [AnyHashable: Any]?
        while listener.next() {
            if let last = listener.last, last[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken == saved {
                info = last
                break
            }
        }
        let posted = try #require(info, "no notification carried the save's history token")
        #expect(posted[NSStoreUUIDKey] as? String == watched.persistentStores.first?.identifier)
        #expect((posted[NSPersistentStoreURLKey] as? URL)?.standardizedFileURL == url.standardizedFileURL)
    }

    @Test func anotherProcesssSaveIsPosted() throws {
        let executable = try #require(CrashSafetyTests.coredataExecutable, "the coredata executable is built")
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Shared.sqlite")
        let watched = try Self.watched(url, history: false)
        let id = try SQLiteSharedStoreTests.insertCounter(watched)
        let listener = Listener(watched)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["store", "increment", url.path, "--times", "1"]
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(listener.next(), "the other process's increment is noticed")
        #expect(listener.last?[NSPersistentHistoryTokenKey] == nil, "no token without history")
        #expect(try SQLiteSharedStoreTests.value(of: id, watched) == 1)
    }
}
