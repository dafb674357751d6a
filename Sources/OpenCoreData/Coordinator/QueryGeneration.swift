import Foundation

/// The reads a context's fetches and faults make of one store: the store itself (its newest
/// data) or a query generation's reader of it (the store's data as the generation pinned it).
protocol StoreReading: AnyObject, Sendable {
    func executeFetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult
    func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [ObjectSnapshot]
    func relatedObjectIDs(for relationship: NSRelationshipDescription, of objectID: NSManagedObjectID) throws -> [NSManagedObjectID]
    func prefetch(_ relationship: NSRelationshipDescription, for sourceIDs: [NSManagedObjectID],
                  sourcesCoverEntity: Bool) throws -> RelationshipPrefetch
}

extension NSPersistentStore: StoreReading {}

/// One query generation of a coordinator: the data of its stores as of the moment it was
/// pinned, for every context pinned to it (Apple's `NSQueryGenerationToken`s name it).
///
/// It holds one reader per store that could pin (SQLite in WAL mode), and frees them (ending
/// their read transactions) when the last context and token referring to it are gone. Stores
/// added to the coordinator later, and stores that can't pin, are read unpinned.
final class QueryGeneration: Sendable {
    /// The coordinator whose stores the generation pinned (not retained: nil once it is freed).
    var coordinator: NSPersistentStoreCoordinator? { coordinatorReference.object }
    private let coordinatorReference: UnretainedReference<NSPersistentStoreCoordinator>
    /// The readers of the pinned stores, by store.
    private let readers: [ObjectIdentifier: any StoreReading]
    /// The stores pinned (the readers keep them alive, so their identifiers stay theirs).
    let stores: [NSPersistentStore]
    /// Names the generation in an archived token.
    let identifier = UUID()

    init(coordinator: NSPersistentStoreCoordinator, readers: [(NSPersistentStore, any StoreReading)]) {
        self.coordinatorReference = UnretainedReference(coordinator)
        self.readers = Dictionary(readers.map { (ObjectIdentifier($0.0), $0.1) }, uniquingKeysWith: { first, _ in first })
        stores = readers.map(\.0)
        Self.live.add(self)
    }

    /// How the coordinator reads `store` at this generation: through the generation's reader
    /// when it pinned the store, else the store itself (unpinned).
    func reader(of store: NSPersistentStore) -> any StoreReading {
        readers[ObjectIdentifier(store)] ?? store
    }

    /// Whether any store was pinned: a generation of stores that can't pin is no generation
    /// (the context reads unpinned and reports no token).
    var pinsAnyStore: Bool { !readers.isEmpty }

    /// The live generations by identifier, not retained: what an archived token names.
    private static let live = LiveGenerations()

    /// The live generation named `identifier`, if it still exists.
    static func named(_ identifier: UUID) -> QueryGeneration? {
        live.generation(named: identifier)
    }
}

/// The live query generations by identifier, held weakly.
///
/// An `NSLock` rather than `Synchronization.Mutex`: ThreadSanitizer sees through pthread locks
/// but not through `Mutex`'s futex, and reported this table as racing.
private final class LiveGenerations: @unchecked Sendable {
    // @unchecked Sendable: `entries` is only touched while holding `lock`.
    private struct Entry { weak var generation: QueryGeneration? }
    private let lock = NSLock()
    private var entries: [UUID: Entry] = [:]

    /// Remembers `generation`, forgetting generations that were freed.
    func add(_ generation: QueryGeneration) {
        lock.withLock {
            entries = entries.filter { $0.value.generation != nil }
            entries[generation.identifier] = Entry(generation: generation)
        }
    }

    func generation(named identifier: UUID) -> QueryGeneration? {
        lock.withLock { entries[identifier]?.generation }
    }
}

extension NSPersistentStoreCoordinator {
    /// Pins a new generation: each store that can opens its reader now, under the
    /// coordinator's lock (so no save of this coordinator falls between two stores).
    func newQueryGeneration() throws -> QueryGeneration {
        try withLock {
            var readers: [(NSPersistentStore, any StoreReading)] = []
            for store in persistentStores {
                if let reader = try store.openGenerationReader() { readers.append((store, reader)) }
            }
            return QueryGeneration(coordinator: self, readers: readers)
        }
    }
}
