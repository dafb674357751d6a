// PLACEHOLDER, replaced by the parser work.
enum PredicateParser {
    static func parsePredicate(_ format: String, arguments: [Any?]) throws -> NSPredicate {
        throw PredicateParseError(format: format, column: 1, message: "parser not written yet")
    }

    static func parseExpression(_ format: String, arguments: [Any?]) throws -> NSExpression {
        throw PredicateParseError(format: format, column: 1, message: "parser not written yet")
    }
}
