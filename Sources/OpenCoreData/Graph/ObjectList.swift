/// An ordered collection of distinct managed objects, compared by identity.
///
/// The context keeps its inserted, updated and deleted objects in these, and managed objects
/// keep the destinations of their to-many relationships in one (in order, for ordered
/// relationships; in insertion order otherwise, which keeps results reproducible).
///
/// Adding, finding and removing a member cost the same whatever the list's size: a removed
/// member leaves a hole (``hole``) in the storage, found through its position, and the holes go
/// once they are half of it. Removing each of n members (deleting the children of one parent,
/// emptying a relationship) is O(n) in all, where searching for each and closing its gap at
/// once made it O(n²). Positions are kept from a list's first removal on: most lists only grow
/// (a prefetch's, the context's inserted objects until a save), and pay nothing for them. An
/// ordered relationship's list closes its holes after each change, as it is read by index
/// (``NSManagedObject/changeToManyList(at:_:)``).
struct ObjectList: Sequence {
    /// The members in order, with ``hole`` where members were removed (``holes`` of them).
    private var storage: [NSManagedObject] = []
    private var members = IdentitySet()
    /// Each member's index in ``storage``, while ``tracksPositions``.
    private var positions = IdentityPositions()
    /// Whether ``positions`` are kept: from the first removal until ``removeAll()``.
    private var tracksPositions = false
    /// How many entries of ``storage`` are ``hole`` (only while ``tracksPositions``).
    private var holes = 0

    /// What stands in ``storage`` for a removed member until the holes go: an object of an
    /// empty entity and no context, which no list hands out.
    // nonisolated(unsafe): made once and never changed; lists only compare it by identity.
    private nonisolated(unsafe) static let hole = NSManagedObject(entity: NSEntityDescription(), insertInto: nil)

    init() {}

    /// The distinct members of `objects`, in order. Room for all of them is made first (a
    /// prefetch fills thousands of lists), so neither the list nor its set grows on the way.
    init<S: Sequence>(_ objects: S) where S.Element == NSManagedObject {
        let expected = objects.underestimatedCount
        if expected > 0 {
            storage.reserveCapacity(expected)
            members.reserveCapacity(expected)
        }
        for object in objects { insert(object) }
    }

    /// The members, in order.
    var objects: [NSManagedObject] {
        guard holes > 0 else { return storage }
        let hole = Self.hole
        return storage.filter { $0 !== hole }
    }

    var count: Int { members.count }
    var isEmpty: Bool { members.count == 0 }

    func contains(_ object: NSManagedObject) -> Bool {
        members.contains(ObjectIdentifier(object))
    }

    /// Appends `object` unless it is already present; returns whether it was added.
    @discardableResult
    mutating func insert(_ object: NSManagedObject) -> Bool {
        let id = ObjectIdentifier(object)
        guard members.insert(id) else { return false }
        if tracksPositions { positions.insert(id, position: storage.count) }
        storage.append(object)
        return true
    }

    /// Inserts `object` at `index` (moving it there if present).
    mutating func insert(_ object: NSManagedObject, at index: Int) {
        remove(object)
        closeHoles()
        let index = Swift.min(index, storage.count)
        members.insert(ObjectIdentifier(object))
        storage.insert(object, at: index)
        guard tracksPositions else { return }
        positions.insert(ObjectIdentifier(object), position: index)
        for position in storage.indices.dropFirst(index + 1) { positions.move(ObjectIdentifier(storage[position]), to: position) }
    }

    /// Removes `object`; returns whether it was present.
    @discardableResult
    mutating func remove(_ object: NSManagedObject) -> Bool {
        let id = ObjectIdentifier(object)
        guard members.remove(id) else { return false }
        if !tracksPositions {
            tracksPositions = true
            positions.reserveCapacity(storage.count)
            for position in storage.indices { positions.insert(ObjectIdentifier(storage[position]), position: position) }
        }
        // Every member has a position while they are kept; the search is a fallback only.
        guard let position = positions.remove(id) ?? storage.firstIndex(where: { $0 === object }) else { return true }
        let hole = Self.hole
        if position == storage.count - 1 {
            storage.removeLast()
            // Holes left at the end go with it.
            while holes > 0, storage.last === hole {
                storage.removeLast()
                holes -= 1
            }
        } else {
            storage[position] = hole
            holes += 1
            // The holes go when they are half the storage: each removal costs O(1) on
            // average, and `objects` filters at most twice the members.
            if holes * 2 > storage.count { closeHoles() }
        }
        return true
    }

    /// One change of a to-many relationship's list: what ``NSManagedObject/changeToManyList(at:_:)``
    /// makes, and what undo puts back (``inverse(of:keepingPosition:)``) instead of the whole
    /// list as it was.
    enum Change {
        /// Adds the member: at a position among the members (holes not counted), or at the end.
        case insert(NSManagedObject, at: Int?)
        /// Removes the member.
        case remove(NSManagedObject)
    }

    /// Makes `change`: nothing when it appends a member already there or removes a stranger;
    /// a member inserted at a position moves there.
    mutating func apply(_ change: Change) {
        switch change {
        case let .insert(object, at: position?): insert(object, at: position)
        case let .insert(object, at: nil): insert(object)
        case let .remove(object): remove(object)
        }
    }

    /// The change that undoes `change` once it is made to this list as it is now, from what it
    /// will do here: nil when it changes nothing (appending a member already there, removing a
    /// stranger). A removed member comes back at its position when `keepingPosition` (an
    /// ordered relationship's list, which has no holes: O(1) once it keeps positions, else a
    /// search), else at the end: an unordered relationship's members have no order to keep. A
    /// member moved by a positional insertion goes back to where it was.
    func inverse(of change: Change, keepingPosition: Bool) -> Change? {
        switch change {
        case let .insert(object, at: position):
            guard contains(object) else { return .remove(object) }
            return position == nil ? nil : .insert(object, at: index(of: object))
        case let .remove(object):
            guard contains(object) else { return nil }
            return .insert(object, at: keepingPosition ? index(of: object) : nil)
        }
    }

    /// Moves the members over the holes, keeping their order: O(n) when there are holes.
    mutating func closeHoles() {
        guard holes > 0 else { return }
        let hole = Self.hole
        var kept = 0
        for position in storage.indices where storage[position] !== hole {
            if kept != position {
                storage.swapAt(kept, position)
                positions.move(ObjectIdentifier(storage[kept]), to: kept)
            }
            kept += 1
        }
        storage.removeLast(storage.count - kept)
        holes = 0
    }

    mutating func removeAll() {
        storage.removeAll()
        members.removeAll()
        positions.removeAll()
        tracksPositions = false
        holes = 0
    }

    func index(of object: NSManagedObject) -> Int? {
        guard contains(object) else { return nil }
        guard tracksPositions, let position = positions.position(of: ObjectIdentifier(object)) else {
            return storage.firstIndex { $0 === object }
        }
        guard holes > 0 else { return position }
        let hole = Self.hole
        return storage[..<position].reduce(0) { count, member in member === hole ? count : count + 1 }
    }

    /// The same members, in the order given by `order` where it lists them.
    mutating func reorder(like order: [NSManagedObject]) {
        let current = self
        let ordered = ObjectList(order.filter { current.contains($0) })
        self = ObjectList(ordered.objects + objects.filter { !ordered.contains($0) })
    }

    func makeIterator() -> IndexingIterator<[NSManagedObject]> { objects.makeIterator() }

    /// The members as a set, the Swift form of an unordered to-many value.
    var set: Set<NSManagedObject> { Set(objects) }

    /// Whether both lists hold the same objects (in the same order when `ordered`).
    func sameMembers(as other: ObjectList, ordered: Bool) -> Bool {
        ordered ? objects.elementsEqual(other.objects, by: ===) : members == other.members
    }
}
