import Foundation
import Testing
@testable import OpenCoreData

/// `FETCH(request, context, countOnly)`, Core Data's `NSFetchRequestExpression`: parsed, printed
/// as Apple prints it, compared, and evaluated against a context.
@Suite struct FetchRequestExpressionTests {
    static let mappingSource = #"FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:" , "Car", "TRUEPREDICATE"), $manager.sourceContext, NO)"#

    @Test func parsesAndPrintsAsApple() throws {
        let expression = NSExpression(format: Self.mappingSource)
        #expect(expression.expressionType == .fetchRequest)
        #expect(expression.expressionType.rawValue == 50)
        #expect(expression.description == Self.mappingSource)
        #expect(expression.isCountOnlyRequest == false)
        #expect(expression.requestExpression.function == "fetchRequestForSourceEntityNamed:predicateString:")
        #expect(expression.contextExpression.keyPath == "sourceContext")
        #expect(NSExpression(format: "FETCH($r, $c, YES)").isCountOnlyRequest)
    }

    @Test func equalityLooksAtAllParts() {
        let made = NSFetchRequestExpression.expression(forFetch: NSExpression(forVariable: "r"),
                                                       context: NSExpression(forVariable: "c"), countOnly: false)
        #expect(made == NSExpression(format: "FETCH($r, $c, NO)"))
        #expect(made != NSExpression(format: "FETCH($r, $c, YES)"))
        #expect(made != NSExpression(format: "FETCH($r, $other, NO)"))
    }

    @Test func nonBooleanCountFlagIsAParseError() {
        #expect(throws: PredicateParseError.self) { try NSPredicate(validatingFormat: "FETCH($r, $c, 'x') != nil") }
        #expect(throws: PredicateParseError.self) { try NSPredicate(validatingFormat: "FETCH($r, $c) != nil") }
    }

    @Test func evaluatesTheRequestInTheContext() throws {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try MappingTestModels.model(
            #"<entity name="Car" representedClassName="NSManagedObject"><attribute name="plate" optional="YES" attributeType="String"/></entity>"#))
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        context.persistentStoreCoordinator = coordinator
        for plate in ["A", "B"] {
            NSEntityDescription.insertNewObject(forEntityName: "Car", into: context).setValue(plate, forKey: "plate")
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: "Car")
        let variables: [String: Any] = ["request": request, "context": context]
        let results = try NSExpression(format: "FETCH($request, $context, NO)").expressionValueThrowing(with: nil, variables: variables)
        #expect((results as? [NSManagedObject])?.count == 2)
        let count = try NSExpression(format: "FETCH($request, $context, YES)").expressionValueThrowing(with: nil, variables: variables)
        #expect(throws: PredicateEvaluationError.self) {
            try NSExpression(format: "FETCH($context, $request, NO)").expressionValueThrowing(with: nil, variables: variables)
        }
        #expect((count as? NSNumber)?.intValue == 2)
    }

    @Test func notACompilableSQLExpression() {
        let predicate = NSPredicate(format: "FETCH($r, $c, YES) > 0")
        #expect(predicate.predicateFormat == "FETCH($r, $c, YES) > 0")
    }
}
