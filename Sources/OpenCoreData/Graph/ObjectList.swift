/// An ordered collection of distinct managed objects, compared by identity.
///
/// The context keeps its inserted, updated and deleted objects in these, and managed objects
/// keep the destinations of their to-many relationships in one (in order, for ordered
/// relationships; in insertion order otherwise, which keeps results reproducible).
struct ObjectList: Sequence {
    private(set) var objects: [NSManagedObject] = []
    private var members = IdentitySet()

    init() {}

    /// The distinct members of `objects`, in order. Room for all of them is made first (a
    /// prefetch fills thousands of lists), so neither the list nor its set grows on the way.
    init<S: Sequence>(_ objects: S) where S.Element == NSManagedObject {
        let expected = objects.underestimatedCount
        if expected > 0 {
            self.objects.reserveCapacity(expected)
            members.reserveCapacity(expected)
        }
        for object in objects { insert(object) }
    }

    var count: Int { objects.count }
    var isEmpty: Bool { objects.isEmpty }

    func contains(_ object: NSManagedObject) -> Bool {
        members.contains(ObjectIdentifier(object))
    }

    /// Appends `object` unless it is already present; returns whether it was added.
    @discardableResult
    mutating func insert(_ object: NSManagedObject) -> Bool {
        guard members.insert(ObjectIdentifier(object)) else { return false }
        objects.append(object)
        return true
    }

    /// Inserts `object` at `index` (moving it there if present).
    mutating func insert(_ object: NSManagedObject, at index: Int) {
        remove(object)
        members.insert(ObjectIdentifier(object))
        objects.insert(object, at: Swift.min(index, objects.count))
    }

    /// Removes `object`; returns whether it was present.
    @discardableResult
    mutating func remove(_ object: NSManagedObject) -> Bool {
        guard members.remove(ObjectIdentifier(object)) else { return false }
        if let index = objects.firstIndex(where: { $0 === object }) { objects.remove(at: index) }
        return true
    }

    mutating func removeAll() {
        objects.removeAll()
        members.removeAll()
    }

    func index(of object: NSManagedObject) -> Int? {
        guard contains(object) else { return nil }
        return objects.firstIndex { $0 === object }
    }

    /// The same members, in the order given by `order` where it lists them.
    mutating func reorder(like order: [NSManagedObject]) {
        let ordered = order.filter { contains($0) }
        let orderedIDs = Set(ordered.map(ObjectIdentifier.init))
        objects = ordered + objects.filter { !orderedIDs.contains(ObjectIdentifier($0)) }
    }

    func makeIterator() -> IndexingIterator<[NSManagedObject]> { objects.makeIterator() }

    /// The members as a set, the Swift form of an unordered to-many value.
    var set: Set<NSManagedObject> { Set(objects) }

    /// Whether both lists hold the same objects (in the same order when `ordered`).
    func sameMembers(as other: ObjectList, ordered: Bool) -> Bool {
        ordered ? objects.elementsEqual(other.objects, by: ===) : members == other.members
    }
}
