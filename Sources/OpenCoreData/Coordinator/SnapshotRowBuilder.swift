/// Builds snapshots of one entity's rows value by value, into its slots: for stores outside
/// this module that decode rows themselves (the PostgreSQL store).
///
/// The entity's layout and the store's ID origin are looked up once, when the builder is
/// made, rather than once per row (making an ID from a store takes the store's lock), and
/// values go straight into the snapshot's slots, as the SQLite store decodes its rows.
package struct SnapshotRowBuilder {
    /// The entity whose rows this builds.
    package let entity: NSEntityDescription
    private let layout: EntityLayout
    private let origin: ObjectIDOrigin
    private var slots: SlotValues
    /// The destination ID set last, for ``setDestination(_:primaryKey:at:)``.
    private var lastDestination: (slot: Int, primaryKey: Int64, id: NSManagedObjectID)?

    /// A builder of `entity`'s snapshots as objects of `store`.
    package init(entity: NSEntityDescription, store: NSPersistentStore) {
        self.entity = entity
        self.layout = entity.layout
        self.origin = store.objectIDOrigin()
        self.slots = layout.makeEmptyValues()
    }

    /// The slot of the attribute or to-one relationship named `key`; nil when the entity has none.
    package func slot(forKey key: String) -> Int? {
        layout.slot(forKey: key)
    }

    /// Sets an `Integer 64` value.
    @inline(__always)
    package mutating func setInt64(_ value: Int64, at slot: Int) {
        slots[slot] = .int64(value)
    }

    /// Sets a value of its attribute's Swift type (``ObjectSnapshot``'s conventions).
    @inline(__always)
    package mutating func set(_ value: Any, at slot: Int) {
        slots[slot] = SlotValue(some: value)
    }

    /// Sets a to-one relationship to the row `primaryKey` of `destination`. Consecutive rows
    /// naming the same destination in a slot (a prefetch's children, sorted by their parent)
    /// share its ID, as the SQLite store's rows do.
    @inline(__always)
    package mutating func setDestination(_ destination: NSEntityDescription, primaryKey: Int64, at slot: Int) {
        if let last = lastDestination, last.slot == slot, last.id.entity === destination, last.primaryKey == primaryKey {
            slots[slot] = .objectID(last.id)
            return
        }
        let id = objectID(of: destination, primaryKey: primaryKey)
        lastDestination = (slot, primaryKey, id)
        slots[slot] = .objectID(id)
    }

    /// The ID of row `primaryKey` of `entity` in the builder's store.
    @inline(__always)
    package func objectID(of entity: NSEntityDescription, primaryKey: Int64) -> NSManagedObjectID {
        NSManagedObjectID(entity: entity, origin: origin, primaryKey: primaryKey)
    }

    /// The snapshot of the values set since the last one, as row `primaryKey` at `version`;
    /// the builder starts the next row empty.
    package mutating func finish(primaryKey: Int64, version: Int64) -> ObjectSnapshot {
        finish(objectID: objectID(of: entity, primaryKey: primaryKey), version: version)
    }

    /// The snapshot of the values set since the last one, as the row of `objectID` (an ID the
    /// caller has already, of the builder's entity) at `version`; the builder starts the next
    /// row empty.
    package mutating func finish(objectID: NSManagedObjectID, version: Int64) -> ObjectSnapshot {
        var values = layout.makeEmptyValues()
        swap(&values, &slots)
        return ObjectSnapshot(objectID: objectID, layout: layout, slots: values, version: version)
    }
}
