import Foundation
import Synchronization

/// A compact, universal identifier for a managed object.
///
/// An ID is temporary until the object is first saved (or ``NSManagedObjectContext/obtainPermanentIDs(for:)``
/// runs); then it names a store and a primary key. Every store identifies rows by an integer key,
/// as Core Data's SQLite store does with `Z_PK`, so URIs have Apple's form:
/// `x-coredata://<store UUID>/<Entity>/p<key>` for permanent IDs and
/// `x-coredata:///<Entity>/t<UUID>` for temporary ones.
///
/// IDs are immutable, `Hashable` and `Sendable`: pass them between contexts and threads, never
/// the objects themselves.
// @unchecked Sendable: immutable once made (no lock needed): every stored property is a `let`,
// the entity belongs to a frozen model, and the origin is immutable too.
public final class NSManagedObjectID: NSObject, NSCopying, @unchecked Sendable {
    /// What distinguishes the row within its entity's store.
    enum Key: Hashable, Sendable {
        case temporary(UUID)
        case primaryKey(Int64)
    }

    /// The entity of the object.
    public let entity: NSEntityDescription

    /// The store (shared by all its IDs) or, for a temporary ID, its UUID: with the key, an ID
    /// is three words plus the object header (one 48-byte allocation).
    private let origin: ObjectIDOrigin

    /// The primary key; 0 for a temporary ID.
    private let rowKey: Int64

    /// The identifier of the store the object lives in; `nil` for a temporary ID.
    var storeIdentifier: String? { origin.storeIdentifier }

    var key: Key {
        if let uuid = origin.temporaryUUID { return .temporary(uuid) }
        return .primaryKey(rowKey)
    }

    /// Creates a temporary ID for a newly inserted object.
    init(temporaryFor entity: NSEntityDescription) {
        self.entity = entity
        let uuid = TemporaryKeys.next()
        self.origin = ObjectIDOrigin(temporaryUUID: uuid)
        self.rowKey = 0
        super.init()
    }

    /// Creates the permanent ID of row `primaryKey` of `entity` in `store`.
    ///
    /// Stores call this; the context never makes permanent IDs itself.
    public init(entity: NSEntityDescription, store: NSPersistentStore, primaryKey: Int64) {
        self.entity = entity
        self.origin = store.objectIDOrigin()
        self.rowKey = primaryKey
        super.init()
    }

    /// Whether the object has not been saved yet (and has no permanent ID).
    public var isTemporaryID: Bool { origin.temporaryUUID != nil }

    /// The store the object lives in; `nil` for a temporary ID or a store that was removed.
    public var persistentStore: NSPersistentStore? { origin.store }

    /// The row's primary key in its store (`Z_PK` in SQLite); `nil` for a temporary ID.
    public var primaryKey: Int64? { isTemporaryID ? nil : rowKey }

    /// The ID as a URI: `x-coredata://<store UUID>/<Entity>/p<key>`, or
    /// `x-coredata:///<Entity>/t<UUID>` while temporary.
    ///
    /// The store identifier and entity name come from files (a store's UUID, a model's entity
    /// names) and are percent-encoded, so any text gives a URI that reads back as the same ID
    /// (``NSPersistentStoreCoordinator/managedObjectID(forURIRepresentation:)`` decodes them);
    /// an Apple store's UUID and entity names need no encoding and are unchanged.
    public func uriRepresentation() -> URL {
        let entityName = Self.uriComponent(entity.name ?? "?")
        switch key {
        case .temporary(let uuid):
            return Self.uri("x-coredata:///\(entityName)/t\(uuid.uuidString)")
        case .primaryKey(let pk):
            return Self.uri("x-coredata://\(Self.uriComponent(storeIdentifier ?? ""))/\(entityName)/p\(pk)")
        }
    }

    /// Letters, digits and `-._~` as they are, every other byte percent-encoded.
    private static let uriAllowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `text` percent-encoded for a URI host or path component.
    private static func uriComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: uriAllowed) ?? ""
    }

    /// The URL of `text`, made only of encoded components (always a valid URL; the fallback,
    /// an empty `x-coredata` URI, can't happen).
    private static func uri(_ text: String) -> URL {
        URL(string: text) ?? URL(string: "x-coredata:") ?? URL(fileURLWithPath: "/")
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectID else { return false }
        if other === self { return true }
        guard rowKey == other.rowKey, entity === other.entity || entity.name == other.entity.name else { return false }
        return origin === other.origin
            || (origin.temporaryUUID == other.origin.temporaryUUID && origin.storeIdentifier == other.origin.storeIdentifier)
    }

    /// The key alone, unmixed (equal IDs have equal keys): `Hashable` runs it through the
    /// hasher anyway, and registries and row caches hash millions of IDs, so hashing the store's
    /// UUID string and the entity name each time cost more than the rare collisions between
    /// entities' keys.
    public override var hash: Int {
        guard let uuid = origin.temporaryUUID else { return Int(truncatingIfNeeded: rowKey) }
        return withUnsafeBytes(of: uuid.uuid) { bytes in
            Int(truncatingIfNeeded: bytes.loadUnaligned(as: UInt64.self) ^ bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
    }

    /// IDs are immutable: a copy is the ID itself.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override var description: String { uriRepresentation().absoluteString }
}

/// Where object IDs point: one shared instance per store (its identifier when the IDs were
/// made, and the store, weakly), or one per temporary ID holding its UUID.
// @unchecked Sendable: immutable once made (no lock needed); the weak `store` is only set in
// `init`, and weak loads are atomic.
final class ObjectIDOrigin: @unchecked Sendable {
    let storeIdentifier: String?
    private(set) weak var store: NSPersistentStore?
    let temporaryUUID: UUID?

    init(store: NSPersistentStore) {
        self.storeIdentifier = store.identifier
        self.store = store
        self.temporaryUUID = nil
    }

    init(temporaryUUID: UUID) {
        self.storeIdentifier = nil
        self.temporaryUUID = temporaryUUID
    }
}

/// The UUIDs of temporary IDs: a random 128-bit base drawn once per process, with a process-wide
/// counter added to its low half. Unique within the process and random across processes, like
/// `UUID()`, without reading the system's random source for every inserted object (on Linux,
/// Foundation's `UUID()` opens `/dev/urandom` on every call).
enum TemporaryKeys {
    private static let base = UUID().uuid
    private static let counter = Atomic<UInt64>(0)

    static func next() -> UUID {
        let count = counter.add(1, ordering: .relaxed).newValue
        var bytes = base
        withUnsafeMutableBytes(of: &bytes) { raw in
            let low = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) &+ count
            raw.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
        }
        return UUID(uuid: bytes)
    }
}
