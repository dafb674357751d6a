/// Looks up the snapshots an adapter's relationships point to.
///
/// Atomic stores resolve from their rows; the coordinator, when it merges the results of
/// several stores, resolves through the stores. IDs that resolve to nothing (deleted or in
/// another store) are dangling and read as a bare ``StoreObjectReference``.
final class SnapshotResolver {
    private let snapshotForID: (NSManagedObjectID) -> ObjectSnapshot?
    private let relatedIDs: (NSRelationshipDescription, NSManagedObjectID) -> [NSManagedObjectID]
    private var adapters: [NSManagedObjectID: SnapshotKeyValueAdapter] = [:]

    /// - Parameters:
    ///   - snapshot: the current snapshot of an ID, or `nil` when there is none.
    ///   - toMany: the destinations of a to-many relationship whose snapshot does not carry them.
    init(snapshot: @escaping (NSManagedObjectID) -> ObjectSnapshot?,
         toMany: @escaping (NSRelationshipDescription, NSManagedObjectID) -> [NSManagedObjectID] = { _, _ in [] }) {
        snapshotForID = snapshot
        relatedIDs = toMany
    }

    /// An adapter over `snapshot` (a new one: the rows a fetch walks are each met once).
    func adapter(for snapshot: ObjectSnapshot) -> SnapshotKeyValueAdapter {
        SnapshotKeyValueAdapter(snapshot: snapshot, resolver: self)
    }

    /// The adapter of the object `objectID` names, or a bare reference when it can't be
    /// resolved. Made once per ID, as many rows point to the same destinations.
    func reference(for objectID: NSManagedObjectID) -> StoreObjectReference {
        if let existing = adapters[objectID] { return existing }
        guard let snapshot = snapshotForID(objectID) else { return StoreObjectReference(objectID: objectID) }
        let adapter = SnapshotKeyValueAdapter(snapshot: snapshot, resolver: self)
        adapters[objectID] = adapter
        return adapter
    }

    func toMany(_ relationship: NSRelationshipDescription, of objectID: NSManagedObjectID) -> [NSManagedObjectID] {
        relatedIDs(relationship, objectID)
    }
}

/// An object as predicates and sort descriptors see it inside a store: equal to every other
/// reference to, or ``NSManagedObjectID`` of, the same object.
///
/// Predicate constants that name objects (IDs, or managed objects, through their `objectID`)
/// are turned into references before a store evaluates a predicate, so `department == %@`,
/// `self IN %@` and `employees CONTAINS %@` compare identities whichever side the constant is on.
class StoreObjectReference: NSObject {
    let objectID: NSManagedObjectID

    init(objectID: NSManagedObjectID) {
        self.objectID = objectID
        super.init()
    }

    override func isEqual(_ object: Any?) -> Bool {
        switch object {
        case let reference as StoreObjectReference: return reference.objectID == objectID
        case let id as NSManagedObjectID: return id == objectID
        default: return false
        }
    }

    override var hash: Int { objectID.hash }

    override var description: String { objectID.description }
}

/// Key-value coding over a snapshot, for the query evaluator and sort descriptors.
///
/// - An attribute reads the snapshot's value (nil when missing).
/// - A to-one relationship reads the destination's adapter, so `department.name` works.
/// - A to-many relationship reads an array of the destinations' adapters, so `ANY employees.salary
///   > 10`, `employees.@count`, `employees.@sum.salary` and `SUBQUERY(employees, …)` work. It is
///   an array even for unordered relationships, so that mapping a key over it keeps duplicates
///   (`@sum` adds every salary, as SQL does).
/// - A property of another entity of the inheritance tree (a subentity's attribute, when a
///   fetch includes subentities) reads nil.
/// - `objectID` reads the ID; any other key the entity's tree lacks throws
///   ``KeyValueCodingError/unknownKey(key:owner:)`` naming the entity.
final class SnapshotKeyValueAdapter: StoreObjectReference, KeyValueCoding {
    let snapshot: ObjectSnapshot
    private unowned let resolver: SnapshotResolver

    init(snapshot: ObjectSnapshot, resolver: SnapshotResolver) {
        self.snapshot = snapshot
        self.resolver = resolver
        super.init(objectID: snapshot.objectID)
    }

    func value(forKey key: String) -> Any? {
        try? valueThrowing(forKey: key)
    }

    func valueThrowing(forKey key: String) throws -> Any? {
        let entity = snapshot.objectID.entity
        if let relationship = entity.relationshipsByName[key] {
            if relationship.isToMany {
                let ids = snapshot.toMany[key] ?? resolver.toMany(relationship, of: snapshot.objectID)
                return ids.map { resolver.reference(for: $0) }
            }
            guard let id = snapshot[key] as? NSManagedObjectID else { return nil }
            return resolver.reference(for: id)
        }
        if entity.attributesByName[key] != nil { return snapshot[key] }
        if key == "objectID" { return snapshot.objectID }
        if Self.inheritanceTree(of: entity, hasProperty: key) { return nil }
        throw KeyValueCodingError.unknownKey(key: key, owner: "entity \(entity.name ?? "?")")
    }

    /// Whether `entity`, or another entity of its inheritance tree, has a property `key`.
    ///
    /// A fetch of an entity with its subentities may test a subentity's property (`level == 2`
    /// over employees and managers): rows of entities without it read nil, as the NULL column of
    /// the root table does in SQL, so every store gives the same result.
    static func inheritanceTree(of entity: NSEntityDescription, hasProperty key: String) -> Bool {
        if entity.propertiesByName[key] != nil { return true }
        var root = entity
        while let parent = root.superentity { root = parent }
        return root.allSubentities.contains { $0.propertiesByName[key] != nil }
    }
}

/// Conversions between the values stores hold and the values predicates compare.
enum StoreValueMapping {
    /// `value` with every ``StoreObjectReference`` (at any depth of arrays and sets) replaced by
    /// its ID, for values that leave the store (dictionary results).
    static func plain(_ value: Any?) -> Any? {
        switch ValueComparison.unwrap(value) {
        case let reference as StoreObjectReference: return reference.objectID
        case let array as [Any]: return array.map { plain($0) ?? NSNull() }
        case let set as Set<AnyHashable>: return Set(set.compactMap { plain($0.base) as? AnyHashable })
        case let ordered as NSOrderedSet: return NSOrderedSet(array: ordered.array.map { plain($0) ?? NSNull() })
        case let dictionary as [String: Any]: return dictionary.mapValues { plain($0) ?? NSNull() }
        case let other: return other
        }
    }

    /// `predicate` with every constant that names an object (an ``NSManagedObjectID``, or a
    /// managed object through its `objectID`, also inside arrays and sets) replaced by the
    /// object's reference from `resolver`.
    static func resolvingObjectConstants(in predicate: NSPredicate, with resolver: SnapshotResolver) -> NSPredicate {
        ConstantRewriter(transform: { objectConstant($0, resolver) }).rewrite(predicate)
    }

    /// The expression with object constants resolved as in ``resolvingObjectConstants(in:with:)``.
    static func resolvingObjectConstants(in expression: NSExpression, with resolver: SnapshotResolver) -> NSExpression {
        ConstantRewriter(transform: { objectConstant($0, resolver) }).rewrite(expression)
    }

    private static func objectConstant(_ value: Any?, _ resolver: SnapshotResolver) -> Any?? {
        switch ValueComparison.unwrap(value) {
        case let id as NSManagedObjectID:
            return .some(resolver.reference(for: id))
        case let object as NSManagedObject:
            return .some(resolver.reference(for: object.objectID))
        case let array as [Any]:
            let mapped = array.map { objectConstant($0, resolver) }
            guard mapped.contains(where: { $0 != nil }) else { return nil }
            return .some(zip(array, mapped).map { original, new in new.map { $0 ?? NSNull() } ?? original })
        case let set as Set<AnyHashable>:
            let mapped = set.map { objectConstant($0.base, resolver) }
            guard mapped.contains(where: { $0 != nil }) else { return nil }
            return .some(Set(zip(set, mapped).compactMap { original, new in new.map { $0 as? AnyHashable } ?? original }))
        case let ordered as NSOrderedSet:
            return objectConstant(ordered.array, resolver)
        default:
            return nil
        }
    }
}

/// Rebuilds a predicate or expression tree with some constants replaced.
///
/// `transform` returns `nil` to keep a constant, or the replacement value. Each node keeps its
/// kind, as ``Substitution`` does.
struct ConstantRewriter {
    let transform: (Any?) -> Any??

    func rewrite(_ predicate: NSPredicate) -> NSPredicate {
        switch predicate.shape {
        case .constant, .block:
            return predicate
        case .comparison(let comparison):
            return NSComparisonPredicate(
                leftExpression: rewrite(comparison.leftExpression), rightExpression: rewrite(comparison.rightExpression),
                modifier: comparison.comparisonPredicateModifier,
                type: comparison.predicateOperatorType, options: comparison.options)
        case .compound(let compound):
            return NSCompoundPredicate(type: compound.compoundPredicateType,
                                       subpredicates: compound.predicates.map(rewrite))
        }
    }

    func rewrite(_ expression: NSExpression) -> NSExpression {
        let node: NSExpression.Node
        switch expression.node {
        case .constant(let value):
            guard let replacement = transform(value) else { return expression }
            node = .constant(replacement)
        case .evaluatedObject, .keyPath, .symbolic, .anyKey, .variable:
            return expression
        case .keyPathOn(let base, let path):
            node = .keyPathOn(rewrite(base), path)
        case .function(let name, let arguments):
            node = .function(name, arguments.map(rewrite))
        case .functionOn(let target, let selector, let arguments):
            node = .functionOn(rewrite(target), selector, arguments.map(rewrite))
        case .aggregate(let items):
            node = .aggregate(items.map(rewrite))
        case .unionSet(let l, let r):
            node = .unionSet(rewrite(l), rewrite(r))
        case .intersectSet(let l, let r):
            node = .intersectSet(rewrite(l), rewrite(r))
        case .minusSet(let l, let r):
            node = .minusSet(rewrite(l), rewrite(r))
        case .subquery(let collection, let variable, let predicate):
            node = .subquery(rewrite(collection), variable, rewrite(predicate))
        case .conditional(let predicate, let whenTrue, let whenFalse):
            node = .conditional(rewrite(predicate), rewrite(whenTrue), rewrite(whenFalse))
        case .block(let block, let arguments):
            node = .block(block, arguments?.map(rewrite))
        case .fetch(let request, let context, let countOnly):
            node = .fetch(rewrite(request), rewrite(context), countOnly: countOnly)
        }
        return NSExpression(node: node)
    }
}
