import Foundation

/// An expression that runs a fetch request in a context: `FETCH(request, context, countOnly)`.
///
/// Mapping models use it as an entity mapping's source expression:
/// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:" , "Car", "TRUEPREDICATE"), $manager.sourceContext, NO)`.
/// Evaluated, it gives the request's results in the context (or their count as a number when
/// `countOnly`). Differs from Apple: an expression made by `NSExpression(format:)` or rebuilt from another (by variable
/// substitution, say) is a plain `NSExpression` of type `.fetchRequest`; the accessors below are
/// also on `NSExpression` for such expressions.
open class NSFetchRequestExpression: NSExpression, @unchecked Sendable {
    // @unchecked Sendable: immutable, like every NSExpression.

    /// `FETCH(fetch, context, countOnly)`. `fetch` yields an `NSFetchRequest`, `context` an
    /// `NSManagedObjectContext`.
    open class func expression(forFetch fetch: NSExpression, context: NSExpression, countOnly countFlag: Bool) -> NSExpression {
        NSFetchRequestExpression(node: .fetch(fetch, context, countOnly: countFlag))
    }
}

extension NSExpression {
    /// The expression yielding the fetch request of a `FETCH` expression.
    public var requestExpression: NSExpression {
        guard case .fetch(let request, _, _) = node else { return wrongType("requestExpression") }
        return request
    }

    /// The expression yielding the context of a `FETCH` expression.
    public var contextExpression: NSExpression {
        guard case .fetch(_, let context, _) = node else { return wrongType("contextExpression") }
        return context
    }

    /// Whether a `FETCH` expression yields the count of the results instead of the results.
    public var isCountOnlyRequest: Bool {
        guard case .fetch(_, _, let countOnly) = node else { return wrongType("isCountOnlyRequest") }
        return countOnly
    }
}

/// A fetch request of any result type, as `FETCH` evaluates it.
protocol FetchExpressionRequest {
    /// The results of the request in `context`, or their count as an `NSNumber` when `countOnly`.
    func results(in context: NSManagedObjectContext, countOnly: Bool) throws -> Any
}

extension NSFetchRequest: FetchExpressionRequest {
    func results(in context: NSManagedObjectContext, countOnly: Bool) throws -> Any {
        countOnly ? NSNumber(value: try context.count(for: self)) : try context.fetch(self)
    }
}
