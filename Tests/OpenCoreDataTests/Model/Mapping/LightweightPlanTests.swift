import Foundation
import Testing
@testable import OpenCoreData

/// `LightweightPlan`: the typed reading of mapping models of the inferred shape, and its refusal
/// of anything else.
@Suite struct LightweightPlanTests {
    typealias M = MappingTestModels

    static func inferred() throws -> NSMappingModel {
        let source = try M.model(InferredMappingModelTests.personV1)
        let destination = try M.model("""
        <entity name="Human" representedClassName="Human" elementID="Person">
            <attribute name="fullName" optional="YES" attributeType="String" elementID="name"/>
            <attribute name="email" optional="YES" attributeType="String"/>
            <relationship name="cars" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Car" inverseName="owner" inverseEntity="Car"/>
        </entity>
        <entity name="Car" representedClassName="Car">
            <attribute name="plate" optional="YES" attributeType="String"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Human" inverseName="cars" inverseEntity="Human"/>
        </entity>
        <entity name="Maker" representedClassName="Maker"/>
        """)
        return try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
    }

    @Test func readsEveryStepOfAnInferredMapping() throws {
        let mapping = try Self.inferred()
        let plan = try #require(LightweightPlan(mapping))
        #expect(plan.entities.count == 3)
        let human = try #require(plan.entity(forDestination: "Human"))
        #expect(human.sourceEntityName == "Person" && human.mappingType == .transformEntityMappingType)
        #expect(human.mappingName == "PersonToHuman")
        let expectedAttributes: [String: String?] = ["fullName": "name", "email": String?.none]
        #expect(human.attributeSources == expectedAttributes)
        #expect(human.relationshipSources == ["cars": .some("cars")] as [String: String?])
        #expect(human.source(ofDestinationProperty: "email") == String??.some(nil))
        #expect(human.source(ofDestinationProperty: "age") == nil)
        #expect(try human.sourceEntityVersionHash == M.mapping(mapping, "Human").sourceEntityVersionHash)
        let maker = try #require(plan.entity(forDestination: "Maker"))
        #expect(maker.mappingType == .addEntityMappingType && maker.sourceEntityName == nil)
        #expect(plan.entity(forSource: "Car")?.relationshipSources == ["owner": .some("owner")] as [String: String?])
        #expect(try M.mapping(mapping, "Human").inferredSource(forDestinationProperty: "fullName") == .some("name"))
    }

    @Test func customExpressionsPoliciesAndTypesAreNotTheSimpleShape() throws {
        let changes: [(String, (NSEntityMapping) -> Void)] = [
            ("an expression other than $source.key", { $0.attributeMappings?[0].valueExpression = NSExpression(format: "$source.name.uppercaseString") }),
            ("a key path on another variable", { $0.attributeMappings?[0].valueExpression = NSExpression(format: "$destination.name") }),
            ("a function", { $0.attributeMappings?[0].valueExpression = NSExpression(format: "FUNCTION($entityPolicy, 'x:', $source.name)") }),
            ("a policy class", { $0.entityMigrationPolicyClassName = "App.SplitPolicy" }),
            ("a custom type", { $0.mappingType = .customEntityMappingType }),
            ("a filtering source expression", { $0.sourceExpression = NSExpression(format:
                #"FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:" , "Person", "name != nil"), $manager.sourceContext, NO)"#) }),
            ("a source expression of another entity", { $0.sourceExpression = MappingExpressions.sourceFetch(entityName: "Car") }),
            ("a relationship function of another selector", { $0.relationshipMappings?[0].valueExpression = NSExpression(format:
                #"FUNCTION($manager, "destinationInstancesForSomething:sourceInstances:" , "CarToCar", $source.cars)"#) }),
        ]
        for (what, change) in changes {
            let mapping = try Self.inferred()
            let human = try M.mapping(mapping, "Human")
            #expect(human.lightweightStep != nil)
            change(human)
            #expect(human.lightweightStep == nil, "\(what)")
            #expect(LightweightPlan(mapping) == nil, "\(what)")
        }
    }
}
