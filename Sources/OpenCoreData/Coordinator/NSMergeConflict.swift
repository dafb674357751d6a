/// An optimistic-locking conflict found when saving: the object changed (or was deleted) in its
/// store since the context last read it.
///
/// A failed save's `NSManagedObjectMergeError` (133020) lists these under
/// `NSPersistentStoreSaveConflictsErrorKey`.
///
/// Differences from Apple: stores find conflicts without managed objects, so a conflict always
/// carries ``sourceObjectID``; ``sourceObject`` is filled in by the context that saved, when it
/// has the object (it is `nil` in conflicts a store reports directly).
open class NSMergeConflict: NSObject, @unchecked Sendable {
    /// The ID of the object in conflict. Not in Apple's API.
    public let sourceObjectID: NSManagedObjectID

    /// The object in conflict, set by the context that saved it.
    open internal(set) var sourceObject: NSManagedObject?

    /// The values the save tried to write.
    public let objectSnapshot: [String: Any]?

    /// The values the coordinator's row cache held; `nil` (there is no separate cache).
    public let cachedSnapshot: [String: Any]?

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

    open override var description: String {
        "<NSMergeConflict \(sourceObjectID): old version \(oldVersionNumber), new version \(newVersionNumber)"
            + (persistedSnapshot == nil ? ", deleted from the store>" : ">")
    }
}

extension ObjectSnapshot {
    /// The snapshot's values as one dictionary, to-many relationships included (as ID arrays).
    var dictionaryRepresentation: [String: Any] {
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
            if let id = value as? NSManagedObjectID { copy.values[key] = map(id) }
        }
        for (key, ids) in toMany { copy.toMany[key] = ids.map(map) }
        return copy
    }
}
