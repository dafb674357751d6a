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
    /// The entity of the object.
    public let entity: NSEntityDescription

    /// The store the ID points to (shared by all its IDs), or the one shared temporary origin.
    let origin: ObjectIDOrigin

    /// The primary key's bits, or the low half of the temporary UUID: ``key`` without the
    /// numbers of the store and the entity name, which the origin and the entity hold.
    private let keyBits: UInt64

    /// The ID as a value: what ``isEqual(_:)``, ``hash`` and the context's registries and
    /// caches compare and hash.
    ///
    /// Put together when read, from ``keyBits`` and the numbers the origin and the entity hold
    /// (objects every ID of a store and entity shares, so they are in the cache), rather than
    /// kept: an ID is three words plus the object header, one 48-byte allocation, where a kept
    /// key made it five words and 64 bytes (16 MB more for a million faults).
    @inline(__always)
    var key: ObjectIDKey {
        ObjectIDKey(storeSpace: origin.keySpace, entityToken: entity.objectIDNameToken, bits: keyBits)
    }

    /// The identifier of the store the object lives in; `nil` for a temporary ID.
    var storeIdentifier: String? { origin.storeIdentifier }

    /// Creates a temporary ID for a newly inserted object.
    init(temporaryFor entity: NSEntityDescription) {
        self.entity = entity
        self.origin = ObjectIDOrigin.temporary
        self.keyBits = TemporaryKeys.nextLowHalf()
        entity.fixObjectIDNameToken()
        super.init()
    }

    /// Creates the permanent ID of row `primaryKey` of `entity` in `store`.
    ///
    /// Stores call this; the context never makes permanent IDs itself.
    public convenience init(entity: NSEntityDescription, store: NSPersistentStore, primaryKey: Int64) {
        self.init(entity: entity, origin: store.objectIDOrigin(), primaryKey: primaryKey)
        // Made outside a store's read, perhaps for an entity of no coordinator's model.
        entity.fixObjectIDNameToken()
    }

    /// The permanent ID of row `primaryKey` of `entity` in the store of `origin`
    /// (``NSPersistentStore/objectIDOrigin()``): what a store reading many rows uses, looking
    /// its origin up once (a lock and the identifier) rather than once per ID.
    ///
    /// Inlined into the row readers: called out of line, each call site retained the entity and
    /// the origin around the call and released them after, four atomic operations per row.
    @inline(__always)
    init(entity: NSEntityDescription, origin: ObjectIDOrigin, primaryKey: Int64) {
        self.entity = entity
        self.origin = origin
        self.keyBits = UInt64(bitPattern: primaryKey)
        super.init()
    }

    /// Whether the object has not been saved yet (and has no permanent ID).
    public var isTemporaryID: Bool { origin.isTemporary }

    /// The store the object lives in; `nil` for a temporary ID or a store that was removed.
    public var persistentStore: NSPersistentStore? { origin.store }

    /// The row's primary key in its store (`Z_PK` in SQLite); `nil` for a temporary ID.
    public var primaryKey: Int64? { isTemporaryID ? nil : Int64(bitPattern: keyBits) }

    /// The ID as a URI: `x-coredata://<store UUID>/<Entity>/p<key>`, or
    /// `x-coredata:///<Entity>/t<UUID>` while temporary.
    ///
    /// The store identifier and entity name come from files (a store's UUID, a model's entity
    /// names) and are percent-encoded, so any text gives a URI that reads back as the same ID
    /// (``NSPersistentStoreCoordinator/managedObjectID(forURIRepresentation:)`` decodes them);
    /// an Apple store's UUID and entity names need no encoding and are unchanged.
    public func uriRepresentation() -> URL {
        let entityName = Self.uriComponent(entity.name ?? "?")
        if let pk = key.primaryKey {
            return Self.uri("x-coredata://\(Self.uriComponent(storeIdentifier ?? ""))/\(entityName)/p\(pk)")
        }
        return Self.uri("x-coredata:///\(entityName)/t\(key.temporaryUUID.uuidString)")
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

    /// Equal IDs name the same row of the same entity in the same store, or are the same
    /// temporary ID. Entities are compared by name and stores by identifier (through
    /// `ObjectIDKey`), so IDs from different coordinators of one store file are equal.
    ///
    /// Sets and dictionaries of IDs compare through this, with the other ID boxed as an
    /// `NSObject` (`NSObject`'s `==`), on every bucket they probe that holds another ID: a set
    /// of n new IDs about 0.8 n times. Such a value is read from the words of its existential
    /// (`boxedReference(_:)`), and its class asked of the instance itself:
    /// copying the existential out and asking its dynamic type cost about 400 instructions a
    /// comparison, more than hashing the ID. Any other value is taken out of its box first.
    public override func isEqual(_ object: Any?) -> Bool {
        let (reference, boxedAs) = boxedReference(object)
        if isMetadata(boxedAs, of: NSObject.self) || isMetadata(boxedAs, of: NSManagedObjectID.self),
           let instance = UnsafeRawPointer(bitPattern: reference) {
            if instance == UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) { return true }
            // Unretained: the caller's box holds the instance for the call.
            return Unmanaged<AnyObject>.fromOpaque(instance)._withUnsafeGuaranteedRef { other in
                // The class is final: an ID is an instance of exactly this class.
                guard ObjectIdentifier(Swift.type(of: other)) == ObjectIdentifier(NSManagedObjectID.self) else { return false }
                return key == unsafeDowncast(other, to: NSManagedObjectID.self).key
            }
        }
        guard let object, let other = exactInstance(object, of: NSManagedObjectID.self) else { return false }
        return other === self || key == other.key
    }

    /// The key's bits, mixed without a hasher (`Hashable` runs it through one anyway).
    public override var hash: Int { Int(truncatingIfNeeded: key.mixedBits) }

    /// IDs are immutable: a copy is the ID itself.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override var description: String { uriRepresentation().absoluteString }
}

/// Where object IDs point: one shared instance per store (its identifier when the IDs were
/// made, and the store, unretained), or ``temporary``, shared by all temporary IDs.
// @unchecked Sendable: immutable once made (no lock needed); the store reference is only set in
// `init`, and its reads are atomic (`UnretainedReference`).
final class ObjectIDOrigin: @unchecked Sendable {
    /// The origin of temporary IDs (no store).
    static let temporary = ObjectIDOrigin()

    let storeIdentifier: String?
    /// The store (nil once it is freed).
    var store: NSPersistentStore? { storeReference.object }
    private let storeReference: UnretainedReference<NSPersistentStore>
    /// What the origin puts in its IDs' ``ObjectIDKey``s: the store identifier's number (held
    /// in ``ObjectIDTokens`` while the origin lives) in the high half, or 1 (the temporary bit)
    /// for ``temporary``.
    let keySpace: UInt64

    /// Whether this is ``temporary``.
    var isTemporary: Bool { keySpace & 1 != 0 }

    init(store: NSPersistentStore) {
        self.storeIdentifier = store.identifier
        self.storeReference = UnretainedReference(store)
        self.keySpace = UInt64(ObjectIDTokens.retainStore(store.identifier)) << 32
    }

    private init() {
        self.storeIdentifier = nil
        self.storeReference = UnretainedReference(nil)
        self.keySpace = 1
    }

    deinit {
        if !isTemporary { ObjectIDTokens.releaseStore(storeIdentifier) }
    }
}

/// The UUIDs of temporary IDs: a random 128-bit base drawn once per process, with a process-wide
/// counter added to its low half. Unique within the process and random across processes, like
/// `UUID()`, without reading the system's random source for every inserted object (on Linux,
/// Foundation's `UUID()` opens `/dev/urandom` on every call).
enum TemporaryKeys {
    private static let base = UUID().uuid
    private static let counter = Atomic<UInt64>(0)
    /// The base's low half, as ``nextLowHalf()`` and ``sequenceNumber(_:)`` read it.
    private static let baseLowHalf = withUnsafeBytes(of: base) { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) }

    /// The counter value a temporary UUID was made with, from its low half: the order the
    /// process made its temporary IDs in.
    static func sequenceNumber(_ lowHalf: UInt64) -> UInt64 {
        lowHalf &- baseLowHalf
    }

    /// The low half of a new temporary UUID: what a temporary ``ObjectIDKey`` holds.
    static func nextLowHalf() -> UInt64 {
        baseLowHalf &+ counter.add(1, ordering: .relaxed).newValue
    }

    /// The temporary UUID whose low half is `lowHalf` (its high half is the base's).
    static func uuid(lowHalf: UInt64) -> UUID {
        var bytes = base
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: lowHalf, toByteOffset: 8, as: UInt64.self)
        }
        return UUID(uuid: bytes)
    }
}
