// PLACEHOLDER, replaced by the formatter work.
struct PredicateFormatter {
    func format(_ predicate: NSPredicate) -> String { "<predicate>" }
    func format(_ expression: NSExpression) -> String { "<expression>" }
}
