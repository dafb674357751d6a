import Testing
@testable import OpenCoreData

@Test func comparisonPredicateIsBuiltInCode() {
    let p = NSComparisonPredicate(
        leftExpression: NSExpression(forKeyPath: "age"),
        rightExpression: NSExpression(forConstantValue: 3),
        modifier: .direct, type: .greaterThan)
    #expect(p.predicateOperatorType == .greaterThan)
    #expect(p.leftExpression.keyPath == "age")
}
