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
    public var objectID: NSManagedObjectID {
        get { id }
        set {
            let entity = id.entity
            id = newValue
            if newValue.entity !== entity { relayout() }
        }
    }
    /// ``objectID``'s storage (a stored property without observers, so that
    /// ``holdsItsIDAlone()`` can ask whether it is the only reference).
    private var id: NSManagedObjectID
    public var toMany: [String: [NSManagedObjectID]] {
        get { side?.toMany ?? [:] }
        _modify {
            let box = uniqueSide()
            yield &box.toMany
            dropSideIfEmpty()
        }
    }
    public var version: Int64

    /// Where each value lives: the layout of the ID's entity.
    private(set) var layout: EntityLayout
    /// Persistent attributes and to-one destination IDs, by slot (see ``EntityLayout``):
    /// shared copy-on-write with the row cache and the objects loaded from it.
    var slots: SlotValues
    /// The to-many destinations and the values under keys that are no property of the entity,
    /// or nil when there are none (a row read from an SQL store). A snapshot is copied a dozen
    /// times between a store's row and a loaded object; two dictionaries of their own cost two
    /// retains and two releases a copy even when empty, one absent box costs none.
    private var side: SideValues?

    /// ``toMany`` and ``extras``, shared copy-on-write between copies of a snapshot
    /// (`@unchecked Sendable`: a box is never changed once a second snapshot holds it).
    private final class SideValues: @unchecked Sendable {
        var toMany: [String: [NSManagedObjectID]] = [:]
        var extras: [String: Any] = [:]
        init() {}
        init(copying other: SideValues) {
            toMany = other.toMany
            extras = other.extras
        }
    }

    /// Values under keys that are no attribute or relationship of the entity (kept as given).
    private var extras: [String: Any] {
        get { side?.extras ?? [:] }
        _modify {
            let box = uniqueSide()
            yield &box.extras
            dropSideIfEmpty()
        }
    }

    /// The side values' box, made this snapshot's own (new, or copied from one another
    /// snapshot shares).
    private mutating func uniqueSide() -> SideValues {
        if !isKnownUniquelyReferenced(&side) { side = side.map(SideValues.init(copying:)) ?? SideValues() }
        return side ?? SideValues()
    }

    /// Forgets the to-many destinations. Unlike assigning `[:]` to ``toMany``, which makes a
    /// box to assign into, it allocates nothing when there are none.
    mutating func removeToMany() {
        if side != nil { toMany = [:] }
    }

    /// Drops the side values' box once it holds nothing.
    private mutating func dropSideIfEmpty() {
        if let box = side, box.toMany.isEmpty, box.extras.isEmpty { side = nil }
    }

    public init(objectID: NSManagedObjectID, values: [String: Any] = [:],
                toMany: [String: [NSManagedObjectID]] = [:], version: Int64 = 0) {
        id = objectID
        self.layout = objectID.entity.layout
        self.slots = layout.emptyValues
        self.version = version
        if !toMany.isEmpty { self.toMany = toMany }
        for (key, value) in values { self[key] = value }
    }

    /// A snapshot whose values are `slots`, laid out by `layout` (the layout of the ID's entity).
    init(objectID: NSManagedObjectID, layout: EntityLayout, slots: SlotValues,
         toMany: [String: [NSManagedObjectID]], version: Int64) {
        self.init(objectID: objectID, layout: layout, slots: slots, version: version)
        if !toMany.isEmpty { self.toMany = toMany }
    }

    /// A snapshot without to-many destinations: what a store's row makes. (A defaulted `toMany`
    /// argument built an empty dictionary for every row read.)
    init(objectID: consuming NSManagedObjectID, layout: EntityLayout, slots: consuming SlotValues, version: Int64) {
        id = objectID
        self.layout = layout
        self.slots = slots
        self.version = version
    }

    /// Whether this snapshot holds the only reference to its ID: no object, registry, fault or
    /// other snapshot (as a to-one destination) refers to the row any more.
    mutating func holdsItsIDAlone() -> Bool { isKnownUniquelyReferenced(&id) }

    /// Persistent attributes and to-one destinations (as IDs) by name; a missing key means nil.
    ///
    /// A view: reading builds a dictionary and setting replaces every value. Stores and code
    /// that read or set one value use ``subscript(_:)``, which costs no dictionary.
    public var values: [String: Any] {
        get {
            var result = extras
            for slot in 0..<layout.count { if let value = slots[slot].anyInPlace() { result[layout.properties[slot].name] = value } }
            return result
        }
        set {
            slots = layout.emptyValues
            if side != nil { extras = [:] }
            for (key, value) in newValue { self[key] = value }
        }
    }

    /// The value of the persistent attribute or to-one relationship (its destination's ID)
    /// named `key`; nil when it has none.
    public subscript(key: String) -> Any? {
        get {
            if let slot = layout.slot(forKey: key) { return slots[slot].anyInPlace() }
            return side?.extras[key]
        }
        set {
            if let slot = layout.slot(forKey: key) { slots[slot] = SlotValue(newValue) } else { extras[key] = newValue }
        }
    }

    /// Moves the values to the layout of a new ID's entity, by name.
    private mutating func relayout() {
        let old = values
        layout = objectID.entity.layout
        values = old
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
    /// The saving context's `transactionAuthor`, for persistent history.
    public var transactionAuthor: String?
    /// The saving context's `name`, for persistent history.
    public var contextName: String?

    public init(inserted: [ObjectSnapshot] = [], updated: [ObjectSnapshot] = [], deleted: [ObjectSnapshot] = [],
                changedKeys: [NSManagedObjectID: Set<String>] = [:]) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.changedKeys = changedKeys
    }

    /// Whether there is nothing to write.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// The snapshots whose to-many relationships a SQL store writes: every inserted one that
    /// carries any, and each updated one with only those that changed (all it carries when
    /// ``changedKeys`` doesn't say).
    package var toManyWrites: [ObjectSnapshot] {
        var written = inserted.filter { !$0.toMany.isEmpty }
        for snapshot in updated where !snapshot.toMany.isEmpty {
            guard let keys = changedKeys[snapshot.objectID] else {
                written.append(snapshot)
                continue
            }
            var trimmed = snapshot
            trimmed.toMany = snapshot.toMany.filter { keys.contains($0.key) }
            written.append(trimmed)
        }
        return written
    }
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
            return old[property.name] as? NSManagedObjectID != new[property.name] as? NSManagedObjectID
        default:
            let before = old[property.name], after = new[property.name]
            if let before, let after, let same = ValueComparison.sameTypeEqual(before, after) { return !same }
            return !ValueComparison.isEqualConstant(before, after)
        }
    }
}
