/// What the live views of a to-many relationship share: reading the destinations now, and
/// changing them through the context, with inverse maintenance, change tracking and undo.
///
/// Not `Sendable`: like the managed object it belongs to, a view stays in its context.
public class ManagedRelationshipCollection: Sequence {
    /// The object whose relationship this is.
    public let owner: NSManagedObject
    /// The relationship.
    public let relationship: NSRelationshipDescription

    init(owner: NSManagedObject, relationship: NSRelationshipDescription) {
        self.owner = owner
        self.relationship = relationship
    }

    var list: ObjectList {
        owner.fireFaultIfNeeded()
        return owner.toManyList(relationship.name)
    }

    /// The number of destinations.
    public var count: Int { list.count }

    /// The destinations as a Swift set.
    public var set: Set<NSManagedObject> { list.set }

    /// Whether `object` is a destination.
    public func contains(_ object: NSManagedObject) -> Bool { list.contains(object) }

    /// Adds `object` (appended when ordered; the owner joins its inverse).
    public func add(_ object: NSManagedObject) {
        change { try checked(object); owner.link(object, via: relationship) }
    }

    /// Removes `object` (and the owner from its inverse).
    public func remove(_ object: NSManagedObject) {
        change { if list.contains(object) { owner.unlink(object, via: relationship) } }
    }

    /// Adds every object of `array`, as `NSMutableSet` and `NSMutableOrderedSet` do (appended
    /// when ordered). Traps for an element that is not a managed object, as Apple raises.
    public func addObjects(from array: [Any]) {
        change {
            for element in array {
                guard let object = element as? NSManagedObject else {
                    throw ManagedObjectAccessError.unacceptableRelationshipValue(
                        entity: owner.entity.name ?? "?", key: relationship.name, given: "\(type(of: element))")
                }
                try checked(object)
                owner.link(object, via: relationship)
            }
        }
    }

    /// Removes the destinations that do not match `predicate`, as `NSMutableSet.filter(using:)`.
    public func filter(using predicate: NSPredicate) {
        let rejected = list.objects.filter { !predicate.evaluate(with: $0) }
        change { for object in rejected { owner.unlink(object, via: relationship) } }
    }

    /// Removes every destination.
    public func removeAllObjects() {
        change { for object in list { owner.unlink(object, via: relationship) } }
    }

    public func makeIterator() -> IndexingIterator<[NSManagedObject]> { list.objects.makeIterator() }

    func checked(_ object: NSManagedObject) throws {
        try owner.checkContext(of: object, relationship)
    }

    /// Runs a change; traps with the error's text on misuse (as Apple raises).
    func change(_ body: () throws -> Void) {
        do { try body() } catch { preconditionFailure("\(error)") }
    }
}

/// A live, mutable view of a to-many relationship, as `mutableSetValue(forKey:)` returns.
///
/// Reading it reads the relationship now; changing it changes the relationship through the
/// context, with inverse maintenance, change tracking and undo. Method names follow
/// `NSMutableSet`.
///
/// Differs from Apple: a class of its own rather than an `NSMutableSet` subclass, which
/// swift-corelibs-foundation does not support usefully. Pass `allObjects` or `set` where a
/// Foundation collection is needed.
public final class ManagedSet: ManagedRelationshipCollection {
    /// The destinations (in the relationship's order).
    public var allObjects: [NSManagedObject] { list.objects }

    /// Adds every object of `objects`.
    public func union<S: Sequence>(_ objects: S) where S.Element: NSManagedObject {
        change { for object in objects { try checked(object); owner.link(object, via: relationship) } }
    }

    /// Removes every object of `objects`.
    public func minus<S: Sequence>(_ objects: S) where S.Element: NSManagedObject {
        change { for object in objects where list.contains(object) { owner.unlink(object, via: relationship) } }
    }

    /// Keeps only the objects also in `objects`.
    public func intersect<S: Sequence>(_ objects: S) where S.Element: NSManagedObject {
        let keep = ObjectList(objects.map { $0 as NSManagedObject })
        change { for object in list where !keep.contains(object) { owner.unlink(object, via: relationship) } }
    }

    /// The destinations that match `predicate`, as `NSSet.filtered(using:)`.
    public func filtered(using predicate: NSPredicate) -> Set<AnyHashable> {
        Set(list.objects.filter { predicate.evaluate(with: $0) }.map(AnyHashable.init))
    }

    /// Replaces the destinations with `objects`.
    public func setSet<S: Sequence>(_ objects: S) where S.Element: NSManagedObject {
        change { try owner.replaceToMany(relationship, with: objects.map { $0 as NSManagedObject }) }
    }
}

/// A live, mutable view of an ordered to-many relationship, as `mutableOrderedSetValue(forKey:)`
/// returns. Method names follow `NSMutableOrderedSet`.
///
/// Differs from Apple: a class of its own rather than an `NSMutableOrderedSet` subclass.
public final class ManagedOrderedSet: ManagedRelationshipCollection {
    /// The destinations in order.
    public var array: [NSManagedObject] { list.objects }

    /// The destination at `index`.
    public func object(at index: Int) -> NSManagedObject { list.objects[index] }

    public subscript(index: Int) -> NSManagedObject { object(at: index) }

    /// The position of `object`, or `NSNotFound`.
    public func index(of object: NSManagedObject) -> Int { list.index(of: object) ?? NSNotFound }

    /// Inserts `object` at `index` (moving it there when present).
    public func insert(_ object: NSManagedObject, at index: Int) {
        change {
            try checked(object)
            var order = list.objects.filter { $0 !== object }
            order.insert(object, at: Swift.min(index, order.count))
            owner.link(object, via: relationship)
            owner.reorderDestinations(of: relationship, like: order)
        }
    }

    /// The destinations that match `predicate`, in order, as `NSOrderedSet.filtered(using:)`.
    public func filtered(using predicate: NSPredicate) -> NSOrderedSet {
        NSOrderedSet(array: list.objects.filter { predicate.evaluate(with: $0) })
    }

    /// Removes the destination at `index`.
    public func removeObject(at index: Int) {
        remove(object(at: index))
    }

    /// Replaces the destination at `index` with `object`.
    public func replaceObject(at index: Int, with object: NSManagedObject) {
        let old = self.object(at: index)
        guard old !== object else { return }
        remove(old)
        insert(object, at: index)
    }

    /// Moves the destinations at `indexes` to start at `index` (of the order without them).
    public func moveObjects(at indexes: IndexSet, to index: Int) {
        let current = list.objects
        let moving = indexes.map { current[$0] }
        var rest = current.enumerated().filter { !indexes.contains($0.offset) }.map(\.element)
        rest.insert(contentsOf: moving, at: Swift.min(index, rest.count))
        change { owner.reorderDestinations(of: relationship, like: rest) }
    }
}
