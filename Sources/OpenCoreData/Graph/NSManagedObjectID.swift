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

    /// Creates a temporary ID for a newly inserted object.
    init(temporaryFor entity: NSEntityDescription) {
        self.entity = entity
        self.storeIdentifier = nil
        self.key = .temporary(UUID())
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
            || (key == other.key && storeIdentifier == other.storeIdentifier && entity.name == other.entity.name)
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(key)
        hasher.combine(storeIdentifier)
        hasher.combine(entity.name)
        return hasher.finalize()
    }

    /// IDs are immutable: a copy is the ID itself.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override var description: String { uriRepresentation().absoluteString }
}
