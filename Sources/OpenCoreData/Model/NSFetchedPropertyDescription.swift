/// A property whose value is the result of a fetch request, evaluated lazily for each object.
///
/// The request's predicate may use `$FETCH_SOURCE` (the object) and `$FETCHED_PROPERTY`.
open class NSFetchedPropertyDescription: NSPropertyDescription, @unchecked Sendable {
    /// The request that computes the property's value.
    open var fetchRequest: NSFetchRequest<NSFetchRequestResult>? { willSet { checkMutable() } }

    override func copyState(from other: NSPropertyDescription) {
        super.copyState(from: other)
        fetchRequest = ((other as? NSFetchedPropertyDescription)?.fetchRequest?.copy()) as? NSFetchRequest<NSFetchRequestResult>
    }

    override func hasEqualState(_ other: NSPropertyDescription) -> Bool {
        guard super.hasEqualState(other), let other = other as? NSFetchedPropertyDescription else { return false }
        switch (fetchRequest, other.fetchRequest) {
        case (nil, nil): return true
        case let (a?, b?): return a.isEqual(b)
        default: return false
        }
    }
}

/// A property computed by an expression, used in dictionary fetches (`propertiesToFetch`),
/// e.g. `sum:(amount)` named `total`.
open class NSExpressionDescription: NSPropertyDescription, @unchecked Sendable {
    /// The expression whose value the property holds.
    open var expression: NSExpression? { willSet { checkMutable() } }

    /// The type of the expression's value. Defaults to `.undefinedAttributeType`.
    open var expressionResultType: NSAttributeType = .undefinedAttributeType { willSet { checkMutable() } }

    override func copyState(from other: NSPropertyDescription) {
        super.copyState(from: other)
        guard let other = other as? NSExpressionDescription else { return }
        expression = other.expression
        expressionResultType = other.expressionResultType
    }

    override func hasEqualState(_ other: NSPropertyDescription) -> Bool {
        guard super.hasEqualState(other), let other = other as? NSExpressionDescription else { return false }
        return expressionResultType == other.expressionResultType
            && ModelValues.isEqual(expression, other.expression)
    }
}
