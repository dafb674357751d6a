import Foundation

/// One element of ``FetchedResultsSequence``: the fetched results' object IDs in sections, and
/// the changes since the previous element, as a `Sendable` value.
///
/// Beyond Apple (Core Data has no `AsyncSequence` of fetch results). Managed objects are not
/// `Sendable`, so only their IDs cross the isolation boundary; get the objects on the
/// context's queue with ``objects(in:)`` (inside `perform`/`performAndWait`). Objects inserted
/// and not yet saved are identified by their temporary IDs, which only their own context
/// knows until it saves them; the sequence then yields an element with the permanent IDs.
public struct FetchedResultsSnapshot: Sendable, Hashable {
    /// One section of the results (one section named "" without a `sectionNameKeyPath`).
    public struct Section: Sendable, Hashable {
        public var name: String
        public var indexTitle: String?
        public var objectIDs: [NSManagedObjectID]
    }

    /// An object inserted, deleted, moved or updated, with the index paths the
    /// ``NSFetchedResultsControllerDelegate`` receives: `indexPath` in the previous element's
    /// arrangement (nil for an insert), `newIndexPath` in this one (nil for a delete).
    public struct Change: Sendable, Hashable {
        public var objectID: NSManagedObjectID
        public var type: NSFetchedResultsChangeType
        public var indexPath: IndexPath?
        public var newIndexPath: IndexPath?
    }

    /// A section inserted (`index` in this element's sections) or deleted (`index` in the
    /// previous element's).
    public struct SectionChange: Sendable, Hashable {
        public var name: String
        public var index: Int
        public var type: NSFetchedResultsChangeType
    }

    /// The sections of the results, in order.
    public var sections: [Section]
    /// The object changes since the previous element, in the order the delegate hears them
    /// (deletions, insertions, moves, updates); empty for the first element.
    public var changes: [Change]
    /// The section changes since the previous element; empty for the first element.
    public var sectionChanges: [SectionChange]

    /// The IDs of the fetched objects in order (the sections' IDs one after another).
    public var objectIDs: [NSManagedObjectID] { sections.flatMap(\.objectIDs) }

    /// The fetched objects, registered in `context`. Call it on `context`'s queue; throws
    /// `existingObject(with:)`'s error for an object that no longer exists.
    public func objects(in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        try objectIDs.map { try context.existingObject(with: $0) }
    }
}
