/// Replaces `$VARIABLE` expressions by constants throughout a predicate or expression tree.
///
/// This is `withSubstitutionVariables(_:)`:
/// - every `.variable` bound in `variables` becomes a constant expression (a bound value that is
///   itself an `NSExpression` is used as it is);
/// - an unbound variable stays a variable, so it can be bound later or reported at evaluation;
/// - inside `SUBQUERY(collection, $x, predicate)`, `$x` is the subquery's own iterator and is
///   never replaced inside `predicate` (it shadows a binding of the same name); the collection
///   is outside that scope and is substituted;
/// - each node keeps its kind (a comparison stays an `NSComparisonPredicate`, a compound an
///   `NSCompoundPredicate`), so the result can be cast back to the receiver's type. A subtree
///   without bound variables is returned as the same instance.
struct Substitution {
    var variables: [String: Any]

    func substitute(_ predicate: NSPredicate) -> NSPredicate {
        substitute(predicate, shadowed: [])
    }

    func substitute(_ expression: NSExpression) -> NSExpression {
        substitute(expression, shadowed: [])
    }

    private func substitute(_ predicate: NSPredicate, shadowed: Set<String>) -> NSPredicate {
        switch predicate.shape {
        case .constant, .block:
            return predicate
        case .comparison(let comparison):
            let left = substitute(comparison.leftExpression, shadowed: shadowed)
            let right = substitute(comparison.rightExpression, shadowed: shadowed)
            if left === comparison.leftExpression && right === comparison.rightExpression {
                return predicate
            }
            return NSComparisonPredicate(
                leftExpression: left, rightExpression: right,
                modifier: comparison.comparisonPredicateModifier,
                type: comparison.predicateOperatorType, options: comparison.options)
        case .compound(let compound):
            let subpredicates = compound.predicates.map { substitute($0, shadowed: shadowed) }
            if zip(subpredicates, compound.predicates).allSatisfy({ $0 === $1 }) {
                return predicate
            }
            return NSCompoundPredicate(type: compound.compoundPredicateType, subpredicates: subpredicates)
        }
    }

    private func substitute(_ expression: NSExpression, shadowed: Set<String>) -> NSExpression {
        let node: NSExpression.Node
        switch expression.node {
        case .constant, .evaluatedObject, .keyPath, .symbolic, .anyKey:
            return expression
        case .variable(let name):
            guard !shadowed.contains(name), let bound = variables[name] else { return expression }
            return (bound as? NSExpression) ?? NSExpression(node: .constant(bound))
        case .keyPathOn(let base, let path):
            node = .keyPathOn(substitute(base, shadowed: shadowed), path)
        case .function(let name, let arguments):
            node = .function(name, arguments.map { substitute($0, shadowed: shadowed) })
        case .functionOn(let target, let selector, let arguments):
            node = .functionOn(substitute(target, shadowed: shadowed), selector,
                               arguments.map { substitute($0, shadowed: shadowed) })
        case .aggregate(let items):
            node = .aggregate(items.map { substitute($0, shadowed: shadowed) })
        case .unionSet(let l, let r):
            node = .unionSet(substitute(l, shadowed: shadowed), substitute(r, shadowed: shadowed))
        case .intersectSet(let l, let r):
            node = .intersectSet(substitute(l, shadowed: shadowed), substitute(r, shadowed: shadowed))
        case .minusSet(let l, let r):
            node = .minusSet(substitute(l, shadowed: shadowed), substitute(r, shadowed: shadowed))
        case .subquery(let collection, let variable, let predicate):
            node = .subquery(substitute(collection, shadowed: shadowed), variable,
                             substitute(predicate, shadowed: shadowed.union([variable])))
        case .conditional(let predicate, let whenTrue, let whenFalse):
            node = .conditional(substitute(predicate, shadowed: shadowed),
                                substitute(whenTrue, shadowed: shadowed),
                                substitute(whenFalse, shadowed: shadowed))
        case .block(let block, let arguments):
            node = .block(block, arguments?.map { substitute($0, shadowed: shadowed) })
        case .fetch(let request, let context, let countOnly):
            node = .fetch(substitute(request, shadowed: shadowed), substitute(context, shadowed: shadowed), countOnly: countOnly)
        }
        return Self.children(of: node).elementsEqual(Self.children(of: expression.node), by: ===)
            ? expression : NSExpression(node: node)
    }

    /// The direct subtrees of a node, to tell whether a substitution changed anything.
    private static func children(of node: NSExpression.Node) -> [AnyObject] {
        switch node {
        case .constant, .evaluatedObject, .variable, .keyPath, .symbolic, .anyKey:
            return []
        case .keyPathOn(let base, _): return [base]
        case .function(_, let arguments): return arguments
        case .functionOn(let target, _, let arguments): return [target] + arguments
        case .aggregate(let items): return items
        case .unionSet(let l, let r), .intersectSet(let l, let r), .minusSet(let l, let r): return [l, r]
        case .subquery(let collection, _, let predicate): return [collection, predicate]
        case .conditional(let predicate, let t, let f): return [predicate, t, f]
        case .block(_, let arguments): return arguments ?? []
        case .fetch(let request, let context, _): return [request, context]
        }
    }
}
