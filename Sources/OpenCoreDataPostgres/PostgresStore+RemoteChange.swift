import Dispatch
import Foundation
import OpenCoreData
import PostgresNIO

/// One notice of a save on the store's ``PostgresChangeChannel``: who saved, and the
/// inserted, updated and deleted rows as `[Z_ENT, Z_PK]` pairs.
///
/// A save sends as many notices as its IDs need (PostgreSQL caps a payload at 8,000 bytes);
/// the last one has `last` set. PostgreSQL delivers a transaction's notices together and in
/// commit order, so a listener gathers them until the last.
struct PostgresChangeNotice: Codable, Equatable {
    /// The saving store's ``PostgresStore/instanceToken``.
    var sender: String
    var inserted: [[Int64]] = []
    var updated: [[Int64]] = []
    var deleted: [[Int64]] = []
    var last = true

    /// How many IDs one notice holds: 250 pairs of two 19-digit numbers stay under 8,000 bytes.
    static let idsPerNotice = 250

    /// The JSON payloads describing `changes`, in order, the last marked as such.
    static func payloads(for changes: StoreSaveChanges, sender: String, schema: SQLiteSchema) -> [String] {
        func pairs(_ snapshots: [ObjectSnapshot]) -> [[Int64]] {
            snapshots.compactMap { snapshot in
                guard let key = snapshot.objectID.primaryKey, let number = schema.entity(named: snapshot.objectID.entity.name ?? "")?.number else { return nil }
                return [number, key]
            }
        }
        let lists = [pairs(changes.inserted), pairs(changes.updated), pairs(changes.deleted)]
        var notices: [PostgresChangeNotice] = []
        var current = PostgresChangeNotice(sender: sender)
        var count = 0
        for (kind, list) in lists.enumerated() {
            for pair in list {
                if count == idsPerNotice {
                    current.last = false
                    notices.append(current)
                    current = PostgresChangeNotice(sender: sender)
                    count = 0
                }
                switch kind {
                case 0: current.inserted.append(pair)
                case 1: current.updated.append(pair)
                default: current.deleted.append(pair)
                }
                count += 1
            }
        }
        notices.append(current)
        let encoder = JSONEncoder()
        return notices.compactMap { try? encoder.encode($0) }.compactMap { String(data: $0, encoding: .utf8) }
    }
}

/// Turns the notices other coordinators' saves send on a PostgreSQL store's channel into
/// `.NSPersistentStoreRemoteChange` notifications of this store's coordinator.
///
/// Notices arrive on a bridge thread and are handled, in order, on a serial queue of the
/// receiver's, so observers never run on a thread the store's I/O needs. The notification's
/// user info holds the store's UUID (`NSStoreUUIDKey`), its URL (`NSPersistentStoreURLKey`),
/// the newest history token when the store records history (`NSPersistentHistoryTokenKey`)
/// and the saved objects' IDs (``NSInsertedObjectIDsKey``, ``NSUpdatedObjectIDsKey``,
/// ``NSDeletedObjectIDsKey``, sets of `NSManagedObjectID`), which contexts that merge
/// automatically bring in. The store's own saves are not reported (as on Apple's stores).
// @unchecked Sendable: `gathered` is touched only on `queue`; `listener` is set once by
// `start()` before any notice is handled and is itself Sendable; store and coordinator are unretained references
// (`UnretainedReference`), whose reads are atomic.
final class PostgresRemoteChangeReceiver: @unchecked Sendable {
    private let queue = DispatchQueue(label: "OpenCoreData.PostgreSQL.remoteChange")
    private let storeReference: UnretainedReference<PostgresStore>
    private let coordinatorReference: UnretainedReference<NSPersistentStoreCoordinator>
    private var store: PostgresStore? { storeReference.object }
    private var coordinator: NSPersistentStoreCoordinator? { coordinatorReference.object }
    private var gathered: [String: PostgresChangeNotice] = [:]
    private var listener: PostgresChangeListener?

    init(store: PostgresStore, coordinator: NSPersistentStoreCoordinator) {
        storeReference = UnretainedReference(store)
        coordinatorReference = UnretainedReference(coordinator)
    }

    /// Listens; returns once the server listens, so that no save committed afterwards is missed.
    func start(opened: PostgresStore.Opened) throws {
        listener = try PostgresChangeChannel(schema: opened.location.schema).listen(with: opened.bridge) { [weak self] payload in
            guard let self else { return }
            self.queue.async { self.receive(payload) }
        }
    }

    func stop() {
        listener?.stop()
    }

    private func receive(_ payload: String) {
        guard let store, let opened = try? store.open(),
              let notice = try? JSONDecoder().decode(PostgresChangeNotice.self, from: Data(payload.utf8)),
              notice.sender != store.instanceToken else { return }
        store.readAheads.invalidate()
        var whole = gathered.removeValue(forKey: notice.sender) ?? PostgresChangeNotice(sender: notice.sender)
        whole.inserted += notice.inserted
        whole.updated += notice.updated
        whole.deleted += notice.deleted
        guard notice.last else {
            gathered[notice.sender] = whole
            return
        }
        func ids(_ pairs: [[Int64]]) -> Set<NSManagedObjectID> {
            Set(pairs.compactMap { pair in
                guard pair.count == 2, pair[1] > 0, let entity = opened.reading.entity(number: pair[0]) else { return nil }
                return NSManagedObjectID(entity: entity, store: store, primaryKey: pair[1])
            })
        }
        guard let coordinator else { return }
        var info: [AnyHashable: Any] = [NSStoreUUIDKey: store.identifier ?? "", NSInsertedObjectIDsKey: ids(whole.inserted),
                                        NSUpdatedObjectIDsKey: ids(whole.updated), NSDeletedObjectIDsKey: ids(whole.deleted)]
        if let url = store.url { info[NSPersistentStoreURLKey] = url }
        if store.recordsPersistentHistory, let token = coordinator.currentPersistentHistoryToken(fromStores: [store]) {
            info[NSPersistentHistoryTokenKey] = token
        }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: info)
    }
}

extension PostgresStore {
    /// Starts the receiver when the store was added with
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`.
    func startReceivingRemoteChanges(from coordinator: NSPersistentStoreCoordinator) throws {
        guard storeOptionIsTrue(NSPersistentStoreRemoteChangeNotificationPostOptionKey) else { return }
        let receiver = PostgresRemoteChangeReceiver(store: self, coordinator: coordinator)
        try receiver.start(opened: try open())
        setRemoteChangeReceiver(receiver)
    }
}
