// Apple's code imports Foundation and CoreData side by side; this file does the same, so it
// fails to compile if a Foundation type name becomes ambiguous with ours again.
import Foundation
import CoreData
import Testing

/// Builds the query types in type position, as Apple code does in signatures and stored properties.
private struct Query {
    var predicate: NSPredicate
    var sorts: [NSSortDescriptor]
    var comparison: NSComparisonPredicate?
    var compound: NSCompoundPredicate?
    var expression: NSExpression
}

@Test func applesSampleCompilesAndEvaluatesThroughTheShim() {
    #expect(NSPredicate(format: "age > %d", 3).evaluate(with: ["age": 4]))
    #expect(!NSPredicate(format: "age > %d", 3).evaluate(with: ["age": 2]))
}

@Test func queryTypesAreUsableInTypePosition() throws {
    let query = Query(
        predicate: NSPredicate(format: "name BEGINSWITH[c] %@", "a"),
        sorts: [NSSortDescriptor(key: "name", ascending: true)],
        comparison: NSPredicate(format: "age > 3") as? NSComparisonPredicate,
        compound: NSPredicate(format: "age > 3 AND age < 9") as? NSCompoundPredicate,
        expression: NSExpression(forKeyPath: "age"))
    #expect(query.comparison?.predicateOperatorType == .greaterThan)
    #expect(query.compound?.compoundPredicateType == .and)
    #expect(query.predicate.predicateFormat == #"name BEGINSWITH[c] "a""#)
    #expect(query.expression.keyPath == "age")
    let people: [[String: Any]] = [["name": "b"], ["name": "a"]]
    let sorted = people.sortedArray(using: query.sorts)
    #expect(sorted.first?["name"] as? String == "a")
    #expect(throws: PredicateParseError.self) { try NSPredicate(validatingFormat: "age >") }
}
