/// Rewrites the managed objects and object IDs held as constants in a predicate.
///
/// Users write `inClass == %@` with an object or with its ID. Stores compare relationships as
/// IDs, so the context hands them predicates whose constant objects became IDs
/// (``forStore(_:)``); the context evaluates pending changes over managed objects, so it turns
/// constant IDs into its registered objects (``forObjects(_:in:)``). A key path on a constant
/// constant (`$FETCH_SOURCE.name` or `$FETCHED_PROPERTY.userInfo.limit` after substitution) is
/// read first, so stores get its value.
struct PredicateObjectMapping {
    /// The replacement of a constant, or nil to keep it.
    let mapConstant: (Any) -> Any?
    let readsKeyPathsOnObjects: Bool

    /// The predicate with constant managed objects replaced by their IDs (the predicate itself
    /// when it holds none).
    static func forStore(_ predicate: NSPredicate) -> NSPredicate {
        PredicateObjectMapping(mapConstant: { value in
            if isScalar(value) { return nil }
            if let object = value as? NSManagedObject { return object.objectID }
            if let collection = CollectionValue(value), collection.elements.contains(where: { $0 is NSManagedObject }) {
                let elements = collection.elements.map { ($0 as? NSManagedObject)?.objectID ?? $0 }
                return CollectionValue.make(elements, kind: collection.kind)
            }
            return nil
        }, readsKeyPathsOnObjects: true).map(predicate)
    }

    /// The predicate with constant object IDs replaced by the context's objects (the predicate
    /// itself when it holds none).
    static func forObjects(_ predicate: NSPredicate, in context: NSManagedObjectContext) -> NSPredicate {
        PredicateObjectMapping(mapConstant: { value in
            if isScalar(value) { return nil }
            if let id = value as? NSManagedObjectID { return context.registry[id] ?? (id.isTemporaryID ? id : context.object(with: id)) }
            if let collection = CollectionValue(value), collection.elements.contains(where: { $0 is NSManagedObjectID }) {
                let elements = collection.elements.map { element -> Any in
                    guard let id = element as? NSManagedObjectID else { return element }
                    return context.registry[id] ?? (id.isTemporaryID ? id : context.object(with: id))
                }
                return CollectionValue.make(elements, kind: collection.kind)
            }
            return nil
        }, readsKeyPathsOnObjects: false).map(predicate)
    }

    /// Whether `value` is a number, string or date: the common constants, which hold no object
    /// (decided without trying every collection type).
    private static func isScalar(_ value: Any) -> Bool {
        value is NSNumber || value is String || value is Date
    }

    /// The mapped predicate; `predicate` itself when nothing in it changed.
    func map(_ predicate: NSPredicate) -> NSPredicate {
        switch predicate.shape {
        case .constant, .block:
            return predicate
        case .comparison(let comparison):
            let left = map(comparison.leftExpression), right = map(comparison.rightExpression)
            if left === comparison.leftExpression && right === comparison.rightExpression { return predicate }
            return NSComparisonPredicate(
                leftExpression: left, rightExpression: right,
                modifier: comparison.comparisonPredicateModifier,
                type: comparison.predicateOperatorType, options: comparison.options)
        case .compound(let compound):
            let parts = compound.predicates.map(map)
            if zip(parts, compound.predicates).allSatisfy({ $0 === $1 }) { return predicate }
            return NSCompoundPredicate(type: compound.compoundPredicateType, subpredicates: parts)
        }
    }

    /// The mapped expression; `expression` itself when nothing in it changed.
    func map(_ expression: NSExpression) -> NSExpression {
        var changed = false
        func child(_ original: NSExpression) -> NSExpression {
            let mapped = map(original)
            if mapped !== original { changed = true }
            return mapped
        }
        func child(_ original: NSPredicate) -> NSPredicate {
            let mapped = map(original)
            if mapped !== original { changed = true }
            return mapped
        }
        let node: NSExpression.Node
        switch expression.node {
        case .constant(let value):
            guard let value, let mapped = mapConstant(value) else { return expression }
            return NSExpression(node: .constant(mapped))
        case .evaluatedObject, .keyPath, .symbolic, .anyKey, .variable:
            return expression
        case .keyPathOn(let base, let path):
            if readsKeyPathsOnObjects, case .constant(let value?) = base.node,
               let read = try? KeyValueAccess.value(forKeyPath: path, of: value) {
                return NSExpression(node: .constant(mapConstant(read) ?? read))
            }
            node = .keyPathOn(child(base), path)
        case .function(let name, let arguments):
            node = .function(name, arguments.map(child))
        case .functionOn(let target, let selector, let arguments):
            node = .functionOn(child(target), selector, arguments.map(child))
        case .aggregate(let items):
            node = .aggregate(items.map(child))
        case .unionSet(let l, let r):
            node = .unionSet(child(l), child(r))
        case .intersectSet(let l, let r):
            node = .intersectSet(child(l), child(r))
        case .minusSet(let l, let r):
            node = .minusSet(child(l), child(r))
        case .subquery(let collection, let variable, let predicate):
            node = .subquery(child(collection), variable, child(predicate))
        case .conditional(let predicate, let whenTrue, let whenFalse):
            node = .conditional(child(predicate), child(whenTrue), child(whenFalse))
        case .block(let block, let arguments):
            node = .block(block, arguments?.map(child))
        case .fetch(let request, let context, let countOnly):
            node = .fetch(child(request), child(context), countOnly: countOnly)
        }
        return changed ? NSExpression(node: node) : expression
    }
}
