/// An optimistic-locking conflict found when saving: the object changed (or was deleted) in its
/// store since the context last read it.
///
/// A failed save's `NSManagedObjectMergeError` (133020) lists these under
/// `NSPersistentStoreSaveConflictsErrorKey`.
///
/// Snapshots are dictionaries of attributes and relationships (to-one and to-many, as object IDs
/// and arrays of IDs; a to-many relationship a store did not read is left out).
///
/// Differences from Apple: stores find conflicts without managed objects, so a conflict always
/// carries ``sourceObjectID``; ``sourceObject`` and ``cachedSnapshot`` are filled in by the
/// context that saved, before its merge policy runs (both are `nil` in conflicts a store reports
/// directly to the coordinator).
open class NSMergeConflict: NSObject, @unchecked Sendable {
    /// The ID of the object in conflict. Not in Apple's API.
    public let sourceObjectID: NSManagedObjectID

    /// The object in conflict, set by the context that saved it.
    open internal(set) var sourceObject: NSManagedObject?

    /// The values the save tried to write.
    public let objectSnapshot: [String: Any]?

    /// The values the saving context last read of the object (the version it read).
    public internal(set) var cachedSnapshot: [String: Any]?

    /// The values in the store now; `nil` when the object was deleted from the store.
    public let persistedSnapshot: [String: Any]?

    /// The version in the store now (0 when the object was deleted).
    public let newVersionNumber: Int

    /// The version the saving context last read.
    public let oldVersionNumber: Int

    /// Creates a conflict for the object `sourceObjectID`.
    public init(sourceObjectID: NSManagedObjectID, newVersion: Int, oldVersion: Int,
                objectSnapshot: [String: Any]? = nil, cachedSnapshot: [String: Any]? = nil,
                persistedSnapshot: [String: Any]?) {
        self.sourceObjectID = sourceObjectID
        self.newVersionNumber = newVersion
        self.oldVersionNumber = oldVersion
        self.objectSnapshot = objectSnapshot
        self.cachedSnapshot = cachedSnapshot
        self.persistedSnapshot = persistedSnapshot
        super.init()
    }

    /// Creates a conflict for a managed object, as Apple's initializer. ``objectSnapshot`` is the
    /// object's current persistent state.
    public convenience init(source srcObject: NSManagedObject, newVersion newvers: Int, oldVersion oldvers: Int,
                            cachedSnapshot cachesnap: [String: Any]?, persistedSnapshot persnap: [String: Any]?) {
        self.init(sourceObjectID: srcObject.objectID, newVersion: newvers, oldVersion: oldvers,
                  objectSnapshot: srcObject.persistentSnapshot().dictionaryRepresentation,
                  cachedSnapshot: cachesnap, persistedSnapshot: persnap)
        sourceObject = srcObject
    }

    open override var description: String {
        "<NSMergeConflict \(sourceObjectID): old version \(oldVersionNumber), new version \(newVersionNumber)"
            + (persistedSnapshot == nil ? ", deleted from the store>" : ">")
    }
}

extension ObjectSnapshot {
    /// The snapshot's values as one dictionary, to-many relationships included (as ID arrays).
    package var dictionaryRepresentation: [String: Any] {
        var result = values
        for (key, ids) in toMany { result[key] = ids }
        return result
    }

    /// The snapshot with every object ID in it (its own, to-one values, object-ID attribute
    /// values and to-many destinations) passed through `map`.
    func remappingIDs(_ map: (NSManagedObjectID) -> NSManagedObjectID) -> ObjectSnapshot {
        var copy = self
        copy.objectID = map(objectID)
        for (key, value) in values {
            if let id = value as? NSManagedObjectID { copy[key] = map(id) }
        }
        for (key, ids) in toMany { copy.toMany[key] = ids.map(map) }
        return copy
    }

    /// A snapshot of `objectID` from a ``dictionaryRepresentation`` (to-many relationships as
    /// arrays or sets of IDs; anything else under a to-many key is left out, as "not loaded").
    init(objectID: NSManagedObjectID, dictionary: [String: Any], version: Int64) {
        self.init(objectID: objectID, version: version)
        let relationships = objectID.entity.relationshipsByName
        for (key, value) in dictionary {
            guard let relationship = relationships[key], relationship.isToMany else {
                values[key] = value
                continue
            }
            if let ids = value as? [NSManagedObjectID] {
                toMany[key] = ids
            } else if let ids = value as? Set<NSManagedObjectID> {
                toMany[key] = Array(ids)
            }
        }
    }
}
