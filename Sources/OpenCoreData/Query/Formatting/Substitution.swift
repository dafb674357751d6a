// PLACEHOLDER, replaced by the formatter work.
struct Substitution {
    var variables: [String: Any]
    func substitute(_ predicate: NSPredicate) -> NSPredicate { predicate }
}
