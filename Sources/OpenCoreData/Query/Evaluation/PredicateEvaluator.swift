// PLACEHOLDER, replaced by the evaluator work.
/// Why a predicate or expression could not be evaluated.
public enum PredicateEvaluationError: Error, Sendable {
    case unsupported(String)
}

struct PredicateEvaluator {
    var variables: [String: Any]

    func evaluate(_ predicate: NSPredicate, with object: Any?) throws -> Bool {
        throw PredicateEvaluationError.unsupported("evaluator not written yet")
    }

    func value(of expression: NSExpression, with object: Any?) throws -> Any? {
        throw PredicateEvaluationError.unsupported("evaluator not written yet")
    }
}
