/// What a store returns when it prefetches one relationship for many source objects
/// (``NSPersistentStore/prefetch(_:for:sourcesCoverEntity:)``): each source's destinations, and the destinations'
/// snapshots.
public struct RelationshipPrefetch: @unchecked Sendable {
    /// The destination IDs of each source (in order for an ordered relationship); a source
    /// without destinations has an empty list (to-many) or no entry (to-one).
    public var destinations: [NSManagedObjectID: [NSManagedObjectID]]
    /// The snapshots of every destination, each once.
    public var snapshots: [ObjectSnapshot]

    public init(destinations: [NSManagedObjectID: [NSManagedObjectID]] = [:], snapshots: [ObjectSnapshot] = []) {
        self.destinations = destinations
        self.snapshots = snapshots
    }
}
