import Dispatch
import Foundation
import GRDB

/// The notification a coordinator posts when another coordinator or process changed one of its
/// stores (the store was added with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`).
extension Notification.Name {
    public static let NSPersistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

/// The remote-change notification's user-info key for the store's newest history token (when
/// the store records history).
public let NSPersistentHistoryTokenKey = "historyToken"
/// The remote-change notification's user-info key for the store's URL.
public let NSPersistentStoreURLKey = "storeURL"

/// Remote-change notifications across coordinators and processes.
///
/// How they are detected on Linux (Apple uses Darwin notifications): SQLite's
/// `PRAGMA data_version` on the store's own connection changes whenever *another* connection
/// commits to the file (another coordinator, another process, another machine on a shared
/// file system), never for the store's own writes. A timer reads it every tenth of a second on
/// the store's connection (an instant query) and, when it moved, the coordinator posts
/// `.NSPersistentStoreRemoteChange` with the store's UUID (`NSStoreUUIDKey`), its URL
/// (`NSPersistentStoreURLKey`) and, when the store records history, the newest history token
/// (`NSPersistentHistoryTokenKey`). Differs from Apple: the notification is also posted for a
/// change another coordinator of this process made (Apple posts those too when history is on).
final class RemoteChangeWatcher: @unchecked Sendable {
    // @unchecked Sendable: `timer` and `lastVersion` are touched only on `queue` (after
    // `start()`, which runs before the first poll); the store and coordinator are
    // unretained references (`UnretainedReference`), whose reads are atomic.
    private let queue = DispatchQueue(label: "OpenCoreData.SQLiteStore.remoteChange")
    private var timer: DispatchSourceTimer?
    private var lastVersion: Int64?
    private let storeReference: UnretainedReference<SQLiteStore>
    private let coordinatorReference: UnretainedReference<NSPersistentStoreCoordinator>
    private var store: SQLiteStore? { storeReference.object }
    private var coordinator: NSPersistentStoreCoordinator? { coordinatorReference.object }

    init(store: SQLiteStore, coordinator: NSPersistentStoreCoordinator) {
        storeReference = UnretainedReference(store)
        coordinatorReference = UnretainedReference(coordinator)
    }

    /// The polling interval.
    static let interval: DispatchTimeInterval = .milliseconds(100)

    /// Starts polling. The version it compares with is read here, before this returns: a
    /// commit another connection makes right after the store was added is noticed even when
    /// the first poll runs late (the timer fires on a busy queue).
    func start() {
        queue.sync {
            lastVersion = currentVersion()
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now(), repeating: Self.interval, leeway: .milliseconds(20))
            timer.setEventHandler { [weak self] in self?.poll() }
            self.timer = timer
            timer.resume()
        }
    }

    /// Stops polling; when it returns, no poll is running or will run.
    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
        }
    }

    /// The store connection's `PRAGMA data_version`; nil when the store is gone or closed.
    private func currentVersion() -> Int64? {
        guard let database = store?.database else { return nil }
        return try? database.inDatabase { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") }
    }

    private func poll() {
        guard let store, let version = currentVersion() else { return }
        defer { lastVersion = version }
        guard let last = lastVersion, last != version, let coordinator else { return }
        var info: [AnyHashable: Any] = [NSStoreUUIDKey: store.identifier ?? ""]
        if let url = store.url { info[NSPersistentStoreURLKey] = url }
        if store.recordsPersistentHistory, let token = coordinator.currentPersistentHistoryToken(fromStores: [store]) {
            info[NSPersistentHistoryTokenKey] = token
        }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: info)
    }
}
