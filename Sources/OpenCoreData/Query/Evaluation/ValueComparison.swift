// PLACEHOLDER, replaced by the evaluator work.
enum ValueComparison {
    /// Whether two constants are equal as NSNumber and Foundation values compare.
    static func isEqualConstant(_ a: Any?, _ b: Any?) -> Bool {
        String(describing: a) == String(describing: b)
    }
}
