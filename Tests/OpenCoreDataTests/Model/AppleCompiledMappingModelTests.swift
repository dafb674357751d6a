import Testing
@testable import OpenCoreData

/// The compiled mapping model of the fixtures (`V2toV3.cdm`, written by Xcode) is a keyed archive
/// of expressions as Apple's Foundation archives them, and of the version hashes of the source
/// and destination entities: real-world input for the archive decoder, the expression rebuilder
/// and the hash algorithm.
@Suite struct AppleCompiledMappingModelTests {
    static let mapping = Fixtures.coreDataPlus("SampleModel/Fixtures/V2toV3.cdm")

    static func entityMappings() throws -> [KeyedArchive.Node] {
        let root = try KeyedArchive(contentsOf: mapping).topNode()
        #expect(root.className == "NSMappingModel")
        return try #require(root["NSEntityMappings"]?.elements)
    }

    @Test func entityMappingHashesEqualOurs() throws {
        let v2 = try AppleCompiledModelReader.readMom(at: Fixtures.sampleModelMomd.appendingPathComponent("SampleModel2.mom"))
        let v3 = try AppleCompiledModelReader.readMom(at: Fixtures.sampleModelMomd.appendingPathComponent("SampleModel3.mom"))
        var checked = 0
        for mapping in try Self.entityMappings() {
            let name = mapping["NSMappingName"]?.string ?? "?"
            if let source = mapping["NSSourceEntityName"]?.string, let hash = mapping["NSSourceEntityVersionHash"]?.data {
                #expect(v2.entitiesByName[source]?.versionHash == hash, "source of \(name)")
                checked += 1
            }
            if let destination = mapping["NSDestinationEntityName"]?.string, let hash = mapping["NSDestinationEntityVersionHash"]?.data {
                #expect(v3.entitiesByName[destination]?.versionHash == hash, "destination of \(name)")
                checked += 1
            }
        }
        #expect(checked >= 8)
    }

    @Test func propertyMappingExpressionsRebuild() throws {
        let rebuild = AppleArchivedPredicate(file: Self.mapping, element: nil)
        var expressions: [String: NSExpression] = [:]
        for mapping in try Self.entityMappings() {
            let name = mapping["NSMappingName"]?.string ?? "?"
            let propertyMappings = (mapping["NSAttributeMappings"]?.elements ?? []) + (mapping["NSRelationshipMappings"]?.elements ?? [])
            for property in propertyMappings {
                guard let value = property["NSValueExpression"], let destination = property["NSDestinationPropertyName"]?.string else { continue }
                expressions["\(name).\(destination)"] = try rebuild.expression(value)
            }
        }
        let plate = try #require(expressions["CarToCar.numberPlate"])
        #expect(plate.expressionType == .function)  // `$source.numberPlate` is a key path on a variable
        #expect(plate.operand.variable == "source")
        #expect(plate.keyPath == "numberPlate")

        let owner = try #require(expressions["CarToCar.owner"])
        #expect(owner.expressionType == .function)
        #expect(owner.function == "destinationInstancesForEntityMappingNamed:sourceInstances:")
        #expect(owner.operand.variable == "manager")
        let arguments = try #require(owner.arguments)
        #expect(arguments.count == 2)
        #expect(arguments[0].constantValue as? String == "PersonToPerson")
        #expect(arguments[1].operand.variable == "source")
        #expect(arguments[1].keyPath == "owner")
        #expect(expressions.count >= 10)
    }

    @Test func fetchRequestExpressionsRebuild() throws {
        let rebuild = AppleArchivedPredicate(file: Self.mapping, element: "entity mapping CarToCar")
        let source = try #require(try Self.entityMappings().first?["NSSourceExpression"])
        #expect(source.className == "NSFetchRequestExpression")
        let expression = try rebuild.expression(source)
        #expect(expression.expressionType == .fetchRequest)
        #expect(expression.description
                == #"FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:" , "Car", "TRUEPREDICATE"), $manager.sourceContext, NO)"#)
        #expect(MappingExpressions.fetchedEntityName(expression) == "Car")
    }
}
