/// To-many relationship faults.
///
/// Loading an object from a snapshot that does not carry a to-many relationship (the SQLite
/// store reads rows, not join tables) leaves that relationship a fault: nothing is stored for it
/// and the committed snapshot has no `toMany` entry. The first read or change of the
/// relationship asks the store for its destinations (one query), as Core Data's relationship
/// faults do. Snapshots that carry `toMany` (atomic stores, prefetching) fill it at once.
extension NSManagedObject {
    /// Whether the to-many relationship `key` has not been read from the store yet.
    func isToManyFault(_ key: String) -> Bool {
        guard !faultFlag, storedValue(forKey: key) == nil, let committed = committedSnapshot, committed.toMany[key] == nil else { return false }
        return entity.relationshipsByName[key]?.isToMany == true
    }

    /// Reads a to-many relationship fault from the store and stores its destinations (as
    /// registered objects, faults when new); `nil` when `key` is not a relationship fault.
    @discardableResult
    func fulfillToManyFault(_ key: String) -> ObjectList? {
        guard isToManyFault(key), let relationship = entity.relationshipsByName[key],
              let context = managedObjectContext else { return nil }
        return fillToMany(relationship, with: context.relatedObjectIDs(for: relationship, of: objectID), in: context)
    }

    /// Stores `ids` as the persistent destinations of `relationship` (not a recorded change):
    /// the current value and the committed snapshot's entry.
    @discardableResult
    func fillToMany(_ relationship: NSRelationshipDescription, with ids: [NSManagedObjectID],
                    in context: NSManagedObjectContext) -> ObjectList {
        // One registry lookup and one registration for all the destinations.
        fillToMany(relationship, with: ObjectList(context.objects(with: ids)), ids: ids)
    }

    /// Stores `list`, the objects of `ids` in the same order, as the persistent destinations of
    /// `relationship` (not a recorded change).
    @discardableResult
    func fillToMany(_ relationship: NSRelationshipDescription, with list: ObjectList, ids: [NSManagedObjectID]) -> ObjectList {
        putStoredValue(list, forKey: relationship.name)
        state?.committedSnapshot?.toMany[relationship.name] = ids
        return list
    }
}
