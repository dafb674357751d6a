/// What a store returns when it prefetches one relationship for many source objects
/// (``NSPersistentStore/prefetch(_:for:sourcesCoverEntity:)``): each source's destinations, and the destinations'
/// snapshots.
public struct RelationshipPrefetch: @unchecked Sendable {
    /// The destination IDs of each source (in order for an ordered relationship); a source
    /// without destinations has an empty list (to-many) or no entry (to-one).
    public var destinations: [NSManagedObjectID: [NSManagedObjectID]] { didSet { destinationPositions = nil } }
    /// The snapshots of every destination, each once.
    public var snapshots: [ObjectSnapshot] { didSet { destinationPositions = nil } }
    /// The same lists as ``destinations``, as positions in ``snapshots``, when the store gave
    /// them (the SQLite and PostgreSQL stores do, for a to-many relationship, through
    /// ``RelationshipPrefetchBuilder``): the context then takes each destination from the
    /// objects it made for the snapshots, where looking its ID up in the registry again cost
    /// about a twentieth of W4. Any change to the lists or the snapshots drops them (a store
    /// subclass may filter what its superclass read), and so does joining the parts of several
    /// stores: the context then looks ``destinations`` up.
    package var destinationPositions: [NSManagedObjectID: [Int]]?

    public init(destinations: [NSManagedObjectID: [NSManagedObjectID]] = [:], snapshots: [ObjectSnapshot] = []) {
        self.destinations = destinations
        self.snapshots = snapshots
    }

    /// Joins `part`, another store's answer for other sources: its lists and snapshots are
    /// added (a source already listed keeps its list), which drops the positions.
    mutating func append(_ part: RelationshipPrefetch) {
        // The first part (usually the only one) is taken whole: appending copied each snapshot
        // (a retain of each of its references) and then dropped the part's.
        if snapshots.isEmpty && destinations.isEmpty {
            self = part
            return
        }
        if part.snapshots.isEmpty && part.destinations.isEmpty { return }
        destinations.merge(part.destinations) { old, _ in old }
        snapshots += part.snapshots
    }
}
