/// Rewrites the managed objects and object IDs held as constants in a predicate.
///
/// Users write `inClass == %@` with an object or with its ID. Stores compare relationships as
/// IDs, so the context hands them predicates whose constant objects became IDs
/// (``forStore(_:)``); the context evaluates pending changes over managed objects, so it turns
/// constant IDs into its registered objects (``forObjects(_:in:)``). A key path on a constant
/// constant (`$FETCH_SOURCE.name` or `$FETCHED_PROPERTY.userInfo.limit` after substitution) is
/// read first, so stores get its value.
struct PredicateObjectMapping {
    let mapConstant: (Any) -> Any
    let readsKeyPathsOnObjects: Bool

    /// The predicate with constant managed objects replaced by their IDs.
    static func forStore(_ predicate: NSPredicate) -> NSPredicate {
        PredicateObjectMapping(mapConstant: { value in
            if let object = value as? NSManagedObject { return object.objectID }
            if let collection = CollectionValue(value), collection.elements.contains(where: { $0 is NSManagedObject }) {
                let elements = collection.elements.map { ($0 as? NSManagedObject)?.objectID ?? $0 }
                return CollectionValue.make(elements, kind: collection.kind)
            }
            return value
        }, readsKeyPathsOnObjects: true).map(predicate)
    }

    /// The predicate with constant object IDs replaced by the context's objects.
    static func forObjects(_ predicate: NSPredicate, in context: NSManagedObjectContext) -> NSPredicate {
        PredicateObjectMapping(mapConstant: { value in
            if let id = value as? NSManagedObjectID { return context.registry[id] ?? (id.isTemporaryID ? id : context.object(with: id)) }
            if let collection = CollectionValue(value), collection.elements.contains(where: { $0 is NSManagedObjectID }) {
                let elements = collection.elements.map { element -> Any in
                    guard let id = element as? NSManagedObjectID else { return element }
                    return context.registry[id] ?? (id.isTemporaryID ? id : context.object(with: id))
                }
                return CollectionValue.make(elements, kind: collection.kind)
            }
            return value
        }, readsKeyPathsOnObjects: false).map(predicate)
    }

    func map(_ predicate: NSPredicate) -> NSPredicate {
        switch predicate.shape {
        case .constant, .block:
            return predicate
        case .comparison(let comparison):
            return NSComparisonPredicate(
                leftExpression: map(comparison.leftExpression), rightExpression: map(comparison.rightExpression),
                modifier: comparison.comparisonPredicateModifier,
                type: comparison.predicateOperatorType, options: comparison.options)
        case .compound(let compound):
            return NSCompoundPredicate(type: compound.compoundPredicateType, subpredicates: compound.predicates.map(map))
        }
    }

    func map(_ expression: NSExpression) -> NSExpression {
        let node: NSExpression.Node
        switch expression.node {
        case .constant(let value):
            guard let value else { return expression }
            return NSExpression(node: .constant(mapConstant(value)))
        case .evaluatedObject, .keyPath, .symbolic, .anyKey, .variable:
            return expression
        case .keyPathOn(let base, let path):
            if readsKeyPathsOnObjects, case .constant(let value?) = base.node,
               let read = try? KeyValueAccess.value(forKeyPath: path, of: value) {
                return NSExpression(node: .constant(mapConstant(read)))
            }
            node = .keyPathOn(map(base), path)
        case .function(let name, let arguments):
            node = .function(name, arguments.map(map))
        case .functionOn(let target, let selector, let arguments):
            node = .functionOn(map(target), selector, arguments.map(map))
        case .aggregate(let items):
            node = .aggregate(items.map(map))
        case .unionSet(let l, let r):
            node = .unionSet(map(l), map(r))
        case .intersectSet(let l, let r):
            node = .intersectSet(map(l), map(r))
        case .minusSet(let l, let r):
            node = .minusSet(map(l), map(r))
        case .subquery(let collection, let variable, let predicate):
            node = .subquery(map(collection), variable, map(predicate))
        case .conditional(let predicate, let whenTrue, let whenFalse):
            node = .conditional(map(predicate), map(whenTrue), map(whenFalse))
        case .block(let block, let arguments):
            node = .block(block, arguments?.map(map))
        case .fetch(let request, let context, let countOnly):
            node = .fetch(map(request), map(context), countOnly: countOnly)
        }
        return NSExpression(node: node)
    }
}
