/// The state of one object as a store sees it: its ID, its persistent values and a version.
///
/// This is the only currency between the object graph and the stores (DESIGN decision 2): the
/// context turns snapshots into managed objects and back, and stores never see a managed object.
///
/// Value conventions, shared by every store:
/// - ``values`` holds persistent (non-transient) attributes by name, with the Swift type of their
///   attribute type: `Int16`, `Int32`, `Int64`, `Decimal`, `Double`, `Float`, `String`, `Bool`,
///   `Date`, `Data`, `UUID`, `URL`, `NSManagedObjectID` (objectID attributes), or the transformed
///   value of a transformable attribute. A missing key means nil.
/// - ``values`` also holds each to-one relationship by name as the destination's
///   `NSManagedObjectID`; a missing key means no destination.
/// - ``toMany`` holds each to-many relationship by name as destination IDs, in order for ordered
///   relationships. A missing key means "not loaded": ask the store with
///   ``NSPersistentStore/relatedObjectIDs(for:of:)``. Atomic stores always fill it.
/// - ``version`` is the optimistic-locking version (`Z_OPT`): 1 after the first save, incremented
///   by every save that changes the object.
public struct ObjectSnapshot: @unchecked Sendable {
    public var objectID: NSManagedObjectID
    public var values: [String: Any]
    public var toMany: [String: [NSManagedObjectID]]
    public var version: Int64

    public init(objectID: NSManagedObjectID, values: [String: Any] = [:],
                toMany: [String: [NSManagedObjectID]] = [:], version: Int64 = 0) {
        self.objectID = objectID
        self.values = values
        self.toMany = toMany
        self.version = version
    }
}

/// What a store returns for a fetch request, by its `resultType`.
public enum StoreFetchResult: @unchecked Sendable {
    /// `managedObjectResultType`: the matching objects' snapshots, sorted and limited.
    case snapshots([ObjectSnapshot])
    /// `managedObjectIDResultType`: the matching IDs, sorted and limited.
    case objectIDs([NSManagedObjectID])
    /// `dictionaryResultType`: one dictionary per row (or per group).
    case dictionaries([[String: Any]])
    /// `countResultType`: the number of matching objects.
    case count(Int)
}

/// The changes one save asks one store to make, all or nothing.
///
/// - ``inserted``: new objects, with permanent IDs already assigned by the store's
///   ``NSPersistentStore/newObjectIDs(for:count:)``; the store writes version 1.
/// - ``updated``: the full new snapshots of changed objects, each carrying the version the context
///   last read; the store fails with `NSManagedObjectMergeError` (133020) when its current version
///   differs, and otherwise writes version + 1. ``changedKeys`` names what changed, for stores
///   that update column by column.
/// - ``deleted``: the last snapshots the context read of deleted objects (version checked as for
///   updates).
public struct StoreSaveChanges: @unchecked Sendable {
    public var inserted: [ObjectSnapshot] = []
    public var updated: [ObjectSnapshot] = []
    public var deleted: [ObjectSnapshot] = []
    public var changedKeys: [NSManagedObjectID: Set<String>] = [:]

    public init(inserted: [ObjectSnapshot] = [], updated: [ObjectSnapshot] = [], deleted: [ObjectSnapshot] = [],
                changedKeys: [NSManagedObjectID: Set<String>] = [:]) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.changedKeys = changedKeys
    }

    /// Whether there is nothing to write.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

extension ObjectSnapshot {
    /// Whether the value of `property` differs between two snapshots of one object. A to-many
    /// relationship missing from `old` (never read) counts as changed.
    static func valueChanged(_ property: NSPropertyDescription, from old: ObjectSnapshot?, to new: ObjectSnapshot) -> Bool {
        guard let old else { return true }
        switch property {
        case let relationship as NSRelationshipDescription where relationship.isToMany:
            guard let before = old.toMany[property.name] else { return true }
            let after = new.toMany[property.name] ?? []
            return relationship.isOrdered ? before != after : Set(before) != Set(after)
        case is NSRelationshipDescription:
            return old.values[property.name] as? NSManagedObjectID != new.values[property.name] as? NSManagedObjectID
        default:
            let before = old.values[property.name], after = new.values[property.name]
            if let before, let after, let same = ValueComparison.sameTypeEqual(before, after) { return !same }
            return !ValueComparison.isEqualConstant(before, after)
        }
    }
}
