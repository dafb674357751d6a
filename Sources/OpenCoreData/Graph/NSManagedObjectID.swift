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
public final class NSManagedObjectID: NSObject, NSCopying, @unchecked Sendable {
    /// What distinguishes the row within its entity's store.
    enum Key: Hashable, Sendable {
        case temporary(UUID)
        case primaryKey(Int64)
    }

    /// The entity of the object.
    public let entity: NSEntityDescription

    /// The identifier of the store the object lives in; `nil` for a temporary ID.
    let storeIdentifier: String?

    private weak var store: NSPersistentStore?

    let key: Key

    /// ``hash``, computed once: IDs are dictionary keys on every hot path (the registry, the
    /// change lists, the row caches). The store identifier is left out (equal IDs still hash
    /// equal; IDs of two stores with the same entity and key merely share a bucket).
    private let hashCache: Int

    private static func hash(_ key: Key, _ entity: NSEntityDescription) -> Int {
        var hasher = Hasher()
        hasher.combine(key)
        hasher.combine(entity.name)
        return hasher.finalize()
    }

    /// Creates a temporary ID for a newly inserted object.
    init(temporaryFor entity: NSEntityDescription) {
        self.entity = entity
        self.storeIdentifier = nil
        self.key = .temporary(TemporaryKeys.next())
        self.hashCache = Self.hash(key, entity)
        super.init()
    }

    /// Creates the permanent ID of row `primaryKey` of `entity` in `store`.
    ///
    /// Stores call this; the context never makes permanent IDs itself.
    public init(entity: NSEntityDescription, store: NSPersistentStore, primaryKey: Int64) {
        self.entity = entity
        self.storeIdentifier = store.identifier
        self.store = store
        self.key = .primaryKey(primaryKey)
        self.hashCache = Self.hash(key, entity)
        super.init()
    }

    /// Whether the object has not been saved yet (and has no permanent ID).
    public var isTemporaryID: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The store the object lives in; `nil` for a temporary ID or a store that was removed.
    public var persistentStore: NSPersistentStore? { store }

    /// The row's primary key in its store (`Z_PK` in SQLite); `nil` for a temporary ID.
    public var primaryKey: Int64? {
        if case .primaryKey(let value) = key { return value }
        return nil
    }

    /// The ID as a URI: `x-coredata://<store UUID>/<Entity>/p<key>`, or
    /// `x-coredata:///<Entity>/t<UUID>` while temporary.
    public func uriRepresentation() -> URL {
        let entityName = entity.name ?? "?"
        switch key {
        case .temporary(let uuid):
            return URL(string: "x-coredata:///\(entityName)/t\(uuid.uuidString)")!
        case .primaryKey(let pk):
            return URL(string: "x-coredata://\(storeIdentifier ?? "")/\(entityName)/p\(pk)")!
        }
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectID else { return false }
        return other === self
            || (hashCache == other.hashCache && key == other.key && storeIdentifier == other.storeIdentifier
                && (entity === other.entity || entity.name == other.entity.name))
    }

    public override var hash: Int { hashCache }

    /// IDs are immutable: a copy is the ID itself.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override var description: String { uriRepresentation().absoluteString }
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
