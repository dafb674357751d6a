import Foundation

/// What one of Xcode's generated to-many accessors does, for ``NSManagedObject/performToManyAccessor(_:relationship:)``.
///
/// Not in Apple's API: `@Managed` on a body-less `addToPages(_:)`, `insertIntoPages(_:at:)`, …
/// expands into a call with one of these.
public enum ManagedToManyAccessor {
    /// `addToX(_ value:)`
    case add(NSManagedObject)
    /// `removeFromX(_ value:)`
    case remove(NSManagedObject)
    /// `addToX(_ values:)` with an `NSSet`, `NSOrderedSet`, `Set` or array.
    case addAll([NSManagedObject])
    /// `removeFromX(_ values:)`
    case removeAll([NSManagedObject])
    /// `insertIntoX(_ value:at:)`
    case insert(NSManagedObject, at: Int)
    /// `insertIntoX(_ values:at:)`
    case insertAll([NSManagedObject], at: IndexSet)
    /// `removeFromX(at:)` with an index.
    case removeAt(Int)
    /// `removeFromX(at:)` with an index set.
    case removeAtIndexes(IndexSet)
    /// `replaceX(at:with:)` with an index.
    case replace(at: Int, with: NSManagedObject)
    /// `replaceX(at:with:)` with an index set.
    case replaceAll(at: IndexSet, with: [NSManagedObject])

    /// The objects of a collection an accessor was given (`NSSet`, `NSOrderedSet`, `Set`, array),
    /// in its order. Traps for an element that is not a managed object, as Apple raises.
    public static func objects(_ collection: Any) -> [NSManagedObject] {
        let elements: [Any]
        switch collection {
        case let set as NSOrderedSet: elements = set.array
        case let set as NSSet: elements = set.allObjects
        case let array as [Any]: elements = array
        case let sequence as any Sequence: elements = Self.elements(of: sequence)
        default: elements = [collection]
        }
        return elements.map { element in
            guard let object = element as? NSManagedObject else {
                preconditionFailure("A to-many accessor was given \(type(of: element)), which is not a managed object")
            }
            return object
        }
    }

    private static func elements<S: Sequence>(of sequence: S) -> [Any] { sequence.map { $0 } }

    /// An index set an accessor was given (`IndexSet` or `NSIndexSet`).
    public static func indexes(_ indexes: IndexSet) -> IndexSet { indexes }

    /// An index set an accessor was given (`IndexSet` or `NSIndexSet`).
    public static func indexes(_ indexes: NSIndexSet) -> IndexSet {
        var result = IndexSet()
        indexes.enumerate { index, _ in result.insert(index) }
        return result
    }
}

extension NSManagedObject {
    /// Performs one of Xcode's generated to-many accessors on the relationship it is named
    /// after: `relationship` is the name as it appears in the accessor (`Pages` in
    /// `addToPages(_:)`), matched to the entity's relationship `pages` (or `Pages`). Not in
    /// Apple's API: `@Managed` on a generated accessor's declaration calls it.
    ///
    /// The changes go through ``mutableSetValue(forKey:)`` or ``mutableOrderedSetValue(forKey:)``,
    /// with inverse maintenance, change tracking and undo. Traps with a message naming the entity
    /// when it has no to-many relationship of that name, or an ordered-only accessor is used on
    /// an unordered relationship (Apple raises "unrecognized selector").
    public func performToManyAccessor(_ accessor: ManagedToManyAccessor, relationship name: String) {
        let relationship = toManyRelationship(forAccessorName: name)
        guard relationship.isOrdered else {
            let set = mutableSetValue(forKey: relationship.name)
            switch accessor {
            case .add(let object): set.add(object)
            case .remove(let object): set.remove(object)
            case .addAll(let objects): set.union(objects)
            case .removeAll(let objects): set.minus(objects)
            default:
                preconditionFailure("Relationship '\(relationship.name)' of entity \(entity.name ?? "?") is not ordered; \(accessor) needs an ordered relationship")
            }
            return
        }
        let ordered = mutableOrderedSetValue(forKey: relationship.name)
        switch accessor {
        case .add(let object): ordered.add(object)
        case .remove(let object): ordered.remove(object)
        case .addAll(let objects): for object in objects { ordered.add(object) }
        case .removeAll(let objects): for object in objects { ordered.remove(object) }
        case .insert(let object, let index): ordered.insert(object, at: index)
        case .insertAll(let objects, let indexes):
            // As NSMutableOrderedSet's insertObjects(_:at:): the n-th object goes to the n-th index.
            for (object, index) in zip(objects, indexes) { ordered.insert(object, at: index) }
        case .removeAt(let index): ordered.removeObject(at: index)
        case .removeAtIndexes(let indexes):
            let objects = indexes.map { ordered.object(at: $0) }
            for object in objects { ordered.remove(object) }
        case .replace(let index, let object): ordered.replaceObject(at: index, with: object)
        case .replaceAll(let indexes, let objects):
            for (index, object) in zip(indexes, objects) { ordered.replaceObject(at: index, with: object) }
        }
    }

    /// The to-many relationship an accessor names: `Pages` finds `pages`, or `Pages` itself.
    private func toManyRelationship(forAccessorName name: String) -> NSRelationshipDescription {
        let lowered = name.prefix(1).lowercased() + name.dropFirst()
        let relationships = entity.relationshipsByName
        guard let relationship = relationships[lowered] ?? relationships[name], relationship.isToMany else {
            preconditionFailure("\(ManagedObjectAccessError.notToMany(entity: entity.name ?? "?", key: lowered))")
        }
        return relationship
    }
}
