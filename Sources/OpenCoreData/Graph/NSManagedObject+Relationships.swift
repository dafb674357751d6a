/// Relationship changes with inverse maintenance.
///
/// Every change is made of one-sided primitive steps (``addDestination(_:via:)`` and
/// ``removeDestination(_:via:)``), each recorded for change tracking and undo on the object it
/// changes; undo replays the steps of both sides, so inverses come back without re-running the
/// maintenance. ``link(_:via:)`` and ``unlink(_:via:)`` keep both sides consistent:
/// - to-one ↔ to-one: linking A.r = B first unlinks A's old destination and B's old source;
/// - to-many ↔ to-one: adding B to A.rs moves B out of its previous owner's to-many;
/// - to-many ↔ to-many: both sides gain (or lose) the other.
extension NSManagedObject {
    /// Sets a to-one relationship, maintaining the inverse.
    func setToOne(_ relationship: NSRelationshipDescription, to destination: NSManagedObject?) throws {
        fireFaultIfNeeded()
        let current = storedValue(forKey: relationship.name) as? NSManagedObject
        if current === destination { return }
        if let destination { try checkContext(of: destination, relationship) }
        if let current { unlink(current, via: relationship) }
        if let destination { link(destination, via: relationship) }
    }

    /// Replaces the destinations of a to-many relationship, maintaining inverses and, for an ordered
    /// relationship, taking the order given.
    func replaceToMany(_ relationship: NSRelationshipDescription, with objects: [NSManagedObject]) throws {
        fireFaultIfNeeded()
        for object in objects { try checkContext(of: object, relationship) }
        let wanted = ObjectList(objects)
        for old in toManyList(relationship.name) where !wanted.contains(old) { unlink(old, via: relationship) }
        for new in wanted { link(new, via: relationship) }
        if relationship.isOrdered { reorderDestinations(of: relationship, like: wanted.objects) }
    }

    /// Makes `destination` a destination of `relationship` and the receiver a destination of its
    /// inverse, first undoing links that the cardinality no longer allows.
    func link(_ destination: NSManagedObject, via relationship: NSRelationshipDescription) {
        fireFaultIfNeeded()
        if !relationship.isToMany, let old = storedValue(forKey: relationship.name) as? NSManagedObject, old !== destination {
            unlink(old, via: relationship)
        }
        addDestination(destination, via: relationship)
        guard let inverse = inverse(of: relationship) else { return }
        destination.fireFaultIfNeeded()
        if !inverse.isToMany, let previous = destination.storedValue(forKey: inverse.name) as? NSManagedObject, previous !== self {
            destination.unlink(previous, via: inverse)
        }
        destination.addDestination(self, via: inverse)
    }

    /// Removes `destination` from `relationship`, and the receiver from the inverse.
    func unlink(_ destination: NSManagedObject, via relationship: NSRelationshipDescription) {
        removeDestination(destination, via: relationship)
        if let inverse = inverse(of: relationship) {
            destination.removeDestination(self, via: inverse)
        }
    }

    /// The inverse relationship as seen from the destination's entity (inherited lookups included).
    func inverse(of relationship: NSRelationshipDescription) -> NSRelationshipDescription? {
        relationship.inverseRelationship
    }

    /// One side: adds `destination` to the relationship (replaces it, for a to-one).
    func addDestination(_ destination: NSManagedObject, via relationship: NSRelationshipDescription) {
        fireFaultIfNeeded()
        let key = relationship.name
        if relationship.isToMany {
            guard let slot = slot(forKey: key), !toManyList(at: slot).contains(destination) else { return }
            willChangeValue(forKey: key)
            changeToManyList(at: slot, .insert(destination, at: nil))
            didChangeValue(forKey: key)
        } else {
            guard storedValue(forKey: key) as? NSManagedObject !== destination else { return }
            willChangeValue(forKey: key)
            setStoredValue(destination, forKey: key)
            didChangeValue(forKey: key)
        }
    }

    /// One side: removes `destination` from the relationship (clears a to-one that points to it).
    func removeDestination(_ destination: NSManagedObject, via relationship: NSRelationshipDescription) {
        fireFaultIfNeeded()
        let key = relationship.name
        if relationship.isToMany {
            guard let slot = slot(forKey: key), toManyList(at: slot).contains(destination) else { return }
            willChangeValue(forKey: key)
            changeToManyList(at: slot, .remove(destination))
            didChangeValue(forKey: key)
        } else {
            guard storedValue(forKey: key) as? NSManagedObject === destination else { return }
            willChangeValue(forKey: key)
            setStoredValue(nil, forKey: key)
            didChangeValue(forKey: key)
        }
    }

    /// Puts the destinations of an ordered relationship in the given order (one recorded change).
    func reorderDestinations(of relationship: NSRelationshipDescription, like order: [NSManagedObject]) {
        var list = toManyList(relationship.name)
        let before = list.objects
        list.reorder(like: order)
        guard !before.elementsEqual(list.objects, by: ===) else { return }
        willChangeValue(forKey: relationship.name)
        setStoredValue(list, forKey: relationship.name)
        didChangeValue(forKey: relationship.name)
    }

    /// Refuses a relationship between objects of two different contexts, or between an object of
    /// a context and one of none (Apple raises in both cases). Two objects without a context may
    /// be related.
    func checkContext(of destination: NSManagedObject, _ relationship: NSRelationshipDescription) throws {
        if managedObjectContext !== destination.managedObjectContext {
            throw ManagedObjectAccessError.differentContexts(entity: entity.name ?? "?", key: relationship.name)
        }
    }
}

extension NSManagedObject {
    /// The IDs of a relationship's destinations (in order when ordered), read without firing
    /// the destinations' faults. Traps for a key that is not a relationship.
    public func objectIDs(forRelationshipNamed key: String) -> [NSManagedObjectID] {
        guard let relationship = entity.relationshipsByName[key] else {
            preconditionFailure("objectIDs(forRelationshipNamed:): entity \(entity.name ?? "?") has no relationship '\(key)'")
        }
        fireFaultIfNeeded()
        if relationship.isToMany { return toManyList(key).objects.map(\.objectID) }
        // A kept ID (see `toOneDestination(at:)`) is read as it is, without looking up its object.
        return slot(forKey: key).flatMap { slotValue(at: $0).destinationID }.map { [$0] } ?? []
    }

    /// Whether reading the relationship would go to the store: true while the object is a fault,
    /// or while a to-many relationship has not been read since the object was loaded.
    public func hasFault(forRelationshipNamed key: String) -> Bool {
        guard entity.relationshipsByName[key] != nil else {
            preconditionFailure("hasFault(forRelationshipNamed:): entity \(entity.name ?? "?") has no relationship '\(key)'")
        }
        return faultFlag || isToManyFault(key)
    }
}
