import Foundation
import Testing
@testable import OpenCoreData

/// `NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)`: every change a
/// lightweight migration infers, the shape of what it produces, and the changes it refuses.
@Suite struct InferredMappingModelTests {
    typealias M = MappingTestModels

    static let personV1 = """
    <entity name="Person" representedClassName="Person">
        <attribute name="name" optional="YES" attributeType="String"/>
        <attribute name="age" optional="YES" attributeType="Integer 16" defaultValueString="0"/>
        <relationship name="cars" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Car" inverseName="owner" inverseEntity="Car"/>
    </entity>
    <entity name="Car" representedClassName="Car">
        <attribute name="plate" optional="YES" attributeType="String"/>
        <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="cars" inverseEntity="Person"/>
    </entity>
    """

    @Test func unchangedModelGivesCopyMappingsInAppleShape() throws {
        let source = try M.model(Self.personV1), destination = try M.model(Self.personV1)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        #expect(mapping.entityMappings.count == 2)
        let car = try M.mapping(mapping, "Car")
        #expect(car.name == "CarToCar")
        #expect(car.mappingType == .copyEntityMappingType)
        #expect(car.sourceEntityName == "Car" && car.destinationEntityName == "Car")
        #expect(car.sourceEntityVersionHash == source.entityVersionHashesByName["Car"])
        #expect(car.destinationEntityVersionHash == destination.entityVersionHashesByName["Car"])
        #expect(car.sourceExpression?.description
                == #"FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:" , "Car", "TRUEPREDICATE"), $manager.sourceContext, NO)"#)
        #expect(try M.expression(car, "plate") == "$source.plate")
        #expect(try M.expression(car, "owner")
                == #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:" , "PersonToPerson", $source.owner)"#)
        #expect(car.attributeMappings?.map(\.name) == ["plate"])
        #expect(car.relationshipMappings?.map(\.name) == ["owner"])
        #expect(mapping.entityMappingsByName.keys.sorted() == ["CarToCar", "PersonToPerson"])
    }

    @Test func printedExpressionsParseBackToEqualTrees() throws {
        let model = try M.model(Self.personV1)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: model, destinationModel: model)
        for entity in mapping.entityMappings {
            var expressions = [entity.sourceExpression].compactMap { $0 }
            expressions += ((entity.attributeMappings ?? []) + (entity.relationshipMappings ?? [])).compactMap(\.valueExpression)
            for expression in expressions {
                let reparsed = NSExpression(format: expression.description)
                #expect(reparsed == expression, "\(expression)")
            }
        }
    }

    @Test func addedAndRemovedAttributesAndEntities() throws {
        let source = try M.model(Self.personV1 + """
        <entity name="Garage" representedClassName="Garage"><attribute name="city" optional="YES" attributeType="String"/></entity>
        """)
        let destination = try M.model("""
        <entity name="Person" representedClassName="Person">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="email" optional="YES" attributeType="String"/>
            <attribute name="score" attributeType="Double" defaultValueString="1.5"/>
            <relationship name="cars" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Car" inverseName="owner" inverseEntity="Car"/>
        </entity>
        <entity name="Car" representedClassName="Car">
            <attribute name="plate" optional="YES" attributeType="String"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="cars" inverseEntity="Person"/>
        </entity>
        <entity name="Maker" representedClassName="Maker"><attribute name="title" optional="YES" attributeType="String"/></entity>
        """)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let person = try M.mapping(mapping, "Person")
        #expect(person.mappingType == .transformEntityMappingType)
        #expect(person.attributeMappings?.map(\.name) == ["email", "name", "score"])
        #expect(try M.expression(person, "email") == "nil")
        #expect(try M.expression(person, "score") == "nil")
        #expect(try M.expression(person, "name") == "$source.name")
        #expect(try M.mapping(mapping, "Car").mappingType == .copyEntityMappingType)

        let maker = try M.mapping(mapping, "Maker")
        #expect(maker.mappingType == .addEntityMappingType && maker.name == "Maker")
        #expect(maker.sourceEntityName == nil && maker.sourceExpression == nil && maker.sourceEntityVersionHash == nil)
        #expect(maker.destinationEntityVersionHash == destination.entityVersionHashesByName["Maker"])
        #expect(try M.expression(maker, "title") == "nil")

        let garage = try M.mapping(mapping, "Garage")
        #expect(garage.mappingType == .removeEntityMappingType && garage.name == "Garage")
        #expect(garage.destinationEntityName == nil && garage.sourceEntityVersionHash == source.entityVersionHashesByName["Garage"])
        #expect(mapping.entityMappings.last === garage)
    }

    @Test func renamingIdentifiersRenameEntitiesPropertiesAndRelationshipDestinations() throws {
        let source = try M.model(Self.personV1)
        let destination = try M.model("""
        <entity name="Human" representedClassName="Human" elementID="Person">
            <attribute name="fullName" optional="YES" attributeType="String" elementID="name"/>
            <attribute name="age" optional="YES" attributeType="Integer 16" defaultValueString="0"/>
            <relationship name="vehicles" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Automobile" inverseName="driver" inverseEntity="Automobile" elementID="cars"/>
        </entity>
        <entity name="Automobile" representedClassName="Automobile" elementID="Car">
            <attribute name="plate" optional="YES" attributeType="String"/>
            <relationship name="driver" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Human" inverseName="vehicles" inverseEntity="Human" elementID="owner"/>
        </entity>
        """)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        #expect(mapping.entityMappings.count == 2)
        let human = try M.mapping(mapping, "Human")
        #expect(human.name == "PersonToHuman" && human.sourceEntityName == "Person")
        #expect(human.mappingType == .transformEntityMappingType)
        #expect(human.sourceExpression.map { MappingExpressions.fetchedEntityName($0) } == "Person")
        #expect(try M.expression(human, "fullName") == "$source.name")
        #expect(try M.expression(human, "vehicles")
                == #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:" , "CarToAutomobile", $source.cars)"#)
        let automobile = try M.mapping(mapping, "Automobile")
        #expect(try M.expression(automobile, "driver")
                == #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:" , "PersonToHuman", $source.owner)"#)
    }

    @Test func entityWhoseRenamingIdentifierMatchesNothingFallsBackToItsName() throws {
        let source = try M.model(Self.personV1)
        let destination = try M.model(Self.personV1.replacingOccurrences(
            of: #"<entity name="Car" representedClassName="Car">"#,
            with: #"<entity name="Car" representedClassName="Car" elementID="NoSuchEntity">"#))
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let car = try M.mapping(mapping, "Car")
        #expect(car.sourceEntityName == "Car" && car.name == "CarToCar")
        #expect(mapping.entityMappings.count == 2)
    }

    /// Apple matches the destination's renaming identifier against the source's *canonical*
    /// name (its renaming identifier, else its name). An identifier naming the previous
    /// version's name, in a chain of renames, matches nothing: the value is lost, as on Apple.
    @Test func chainedRenamesMatchAsAppleDoes() throws {
        let v1 = try M.model(#"<entity name="Car" representedClassName="Car"><attribute name="color" optional="YES" attributeType="String"/></entity>"#)
        let v2 = try M.model(#"<entity name="Car" representedClassName="Car"><attribute name="paintColor" optional="YES" attributeType="String" elementID="color"/></entity>"#)
        let v3Chained = try M.model(#"<entity name="Car" representedClassName="Car"><attribute name="hue" optional="YES" attributeType="String" elementID="paintColor"/></entity>"#)
        let v3Canonical = try M.model(#"<entity name="Car" representedClassName="Car"><attribute name="hue" optional="YES" attributeType="String" elementID="color"/></entity>"#)

        let oneToTwo = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        #expect(try M.expression(M.mapping(oneToTwo, "Car"), "paintColor") == "$source.color")
        // The chain: v2's paintColor stands for "color", so "paintColor" matches nothing.
        let twoToThree = try NSMappingModel.inferredMappingModel(forSourceModel: v2, destinationModel: v3Chained)
        #expect(try M.expression(M.mapping(twoToThree, "Car"), "hue") == "nil")
        let oneToThree = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v3Chained)
        #expect(try M.expression(M.mapping(oneToThree, "Car"), "hue") == "nil")
        // Apple's advice, the original name as identifier, works from every version.
        for source in [v1, v2] {
            let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: v3Canonical)
            #expect(try M.expression(M.mapping(mapping, "Car"), "hue").hasPrefix("$source."))
        }
    }

    @Test func optionalBecomingNonOptionalWithDefaultIsInferred() throws {
        let source = try M.model(#"<entity name="Car" representedClassName="Car"><attribute name="plate" optional="YES" attributeType="String"/></entity>"#)
        let destination = try M.model(#"<entity name="Car" representedClassName="Car"><attribute name="plate" attributeType="String" defaultValueString="none"/></entity>"#)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        #expect(try M.expression(M.mapping(mapping, "Car"), "plate") == "$source.plate")
        #expect(try M.mapping(mapping, "Car").mappingType == .transformEntityMappingType)
    }

    @Test func newNonOptionalAttributeWithoutDefaultCannotBeInferred() throws {
        let source = try M.model(#"<entity name="Car" representedClassName="Car"><attribute name="plate" optional="YES" attributeType="String"/></entity>"#)
        let destination = try M.model("""
        <entity name="Car" representedClassName="Car"><attribute name="plate" optional="YES" attributeType="String"/><attribute name="vin" attributeType="String"/></entity>
        """)
        let error = try #require(M.inferenceError { _ = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination) })
        #expect(error.domain == NSCocoaErrorDomain && error.code == 134190 && error.code == NSInferredMappingModelError)
        #expect(error.userInfo["entity"] as? String == "Car" && error.userInfo["property"] as? String == "vin")
        #expect(error.localizedDescription.contains("'vin'") && error.localizedDescription.contains("'Car'"))
        #expect(error.localizedDescription.contains("no default value"))
    }

    @Test func numericTypeChangesAreInferredOthersAreNot() throws {
        func car(_ type: String) throws -> NSManagedObjectModel {
            try M.model(#"<entity name="Car" representedClassName="Car"><attribute name="n" optional="YES" attributeType="\#(type)"/></entity>"#)
        }
        for (from, to) in [("Integer 16", "Integer 64"), ("Integer 64", "Integer 32"), ("Integer 32", "Double"),
                           ("Float", "Decimal"), ("Boolean", "Integer 16")] {
            let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: car(from), destinationModel: car(to))
            #expect(try M.expression(M.mapping(mapping, "Car"), "n") == "$source.n", "\(from) -> \(to)")
        }
        for (from, to) in [("String", "Integer 64"), ("Integer 32", "String"), ("Date", "Double"), ("Binary", "Transformable"), ("UUID", "String")] {
            let error = M.inferenceError { _ = try NSMappingModel.inferredMappingModel(forSourceModel: car(from), destinationModel: car(to)) }
            #expect(error?.code == 134190, "\(from) -> \(to)")
            #expect(error?.userInfo["property"] as? String == "n")
            #expect(error?.localizedDescription.contains("\(from) to \(to)") == true)
        }
    }

    @Test func toOneToManyAndOrderedChangesAreInferred() throws {
        let destination = try M.model("""
        <entity name="Person" representedClassName="Person">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="age" optional="YES" attributeType="Integer 16" defaultValueString="0"/>
            <relationship name="cars" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Car" inverseName="owner" inverseEntity="Car"/>
        </entity>
        <entity name="Car" representedClassName="Car">
            <attribute name="plate" optional="YES" attributeType="String"/>
            <relationship name="owner" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="cars" inverseEntity="Person"/>
        </entity>
        """)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: M.model(Self.personV1), destinationModel: destination)
        let car = try M.mapping(mapping, "Car"), person = try M.mapping(mapping, "Person")
        #expect(car.mappingType == .transformEntityMappingType && person.mappingType == .transformEntityMappingType)
        #expect(try M.expression(car, "owner").contains(#""PersonToPerson", $source.owner"#))
        #expect(try M.expression(person, "cars").contains(#""CarToCar", $source.cars"#))
        // And back.
        let back = try NSMappingModel.inferredMappingModel(forSourceModel: destination, destinationModel: M.model(Self.personV1))
        #expect(try M.expression(M.mapping(back, "Car"), "owner").contains("$source.owner"))
    }

    @Test func inheritanceChangesKeepValuesOfMovedProperties() throws {
        let source = try M.model("""
        <entity name="Car" representedClassName="Car"><attribute name="plate" optional="YES" attributeType="String"/></entity>
        <entity name="Truck" representedClassName="Truck" parentEntity="Car"><attribute name="load" optional="YES" attributeType="Double"/></entity>
        """)
        // Truck loses its parent; the inherited plate becomes its own.
        let destination = try M.model("""
        <entity name="Car" representedClassName="Car"><attribute name="plate" optional="YES" attributeType="String"/></entity>
        <entity name="Truck" representedClassName="Truck"><attribute name="plate" optional="YES" attributeType="String"/><attribute name="load" optional="YES" attributeType="Double"/></entity>
        """)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let truck = try M.mapping(mapping, "Truck")
        #expect(truck.mappingType == .transformEntityMappingType)
        #expect(try M.expression(truck, "plate") == "$source.plate")
        #expect(try M.expression(truck, "load") == "$source.load")
        #expect(try M.mapping(mapping, "Car").mappingType == .copyEntityMappingType)
        // And a new parent entity above an existing one, taking one of its properties.
        let gained = try M.model("""
        <entity name="Vehicle" representedClassName="Vehicle"><attribute name="plate" optional="YES" attributeType="String"/></entity>
        <entity name="Car" representedClassName="Car" parentEntity="Vehicle"/>
        """)
        let carOnly = try M.model(#"<entity name="Car" representedClassName="Car"><attribute name="plate" optional="YES" attributeType="String"/></entity>"#)
        let up = try NSMappingModel.inferredMappingModel(forSourceModel: carOnly, destinationModel: gained)
        #expect(try M.expression(M.mapping(up, "Car"), "plate") == "$source.plate")
        #expect(try M.mapping(up, "Vehicle").mappingType == .addEntityMappingType)
    }

    @Test func mergingEntityHierarchiesCannotBeInferred() throws {
        let source = try M.model("""
        <entity name="Car" representedClassName="Car"><attribute name="plate" optional="YES" attributeType="String"/></entity>
        <entity name="Boat" representedClassName="Boat"><attribute name="hull" optional="YES" attributeType="String"/></entity>
        """)
        let destination = try M.model("""
        <entity name="Car" representedClassName="Car"><attribute name="plate" optional="YES" attributeType="String"/></entity>
        <entity name="Boat" representedClassName="Boat" parentEntity="Car"><attribute name="hull" optional="YES" attributeType="String"/></entity>
        """)
        let error = M.inferenceError { _ = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination) }
        #expect(error?.code == NSInferredMappingModelError)
        #expect(error?.localizedDescription.contains("hierarchies cannot be merged") == true)
    }

    @Test func attributeBecomingRelationshipCannotBeInferred() throws {
        let source = try M.model("""
        <entity name="Car" representedClassName="Car"><attribute name="owner" optional="YES" attributeType="String"/></entity>
        <entity name="Person" representedClassName="Person"><attribute name="name" optional="YES" attributeType="String"/></entity>
        """)
        let destination = try M.model("""
        <entity name="Car" representedClassName="Car"><relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person"/></entity>
        <entity name="Person" representedClassName="Person"><attribute name="name" optional="YES" attributeType="String"/></entity>
        """)
        let error = M.inferenceError { _ = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination) }
        #expect(error?.code == 134190)
        #expect(error?.userInfo["entity"] as? String == "Car" && error?.userInfo["property"] as? String == "owner")
    }

    @Test func relationshipToAnotherEntityCannotBeInferred() throws {
        let source = try M.model("""
        <entity name="Car" representedClassName="Car"><relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person"/></entity>
        <entity name="Person" representedClassName="Person"/>
        <entity name="Company" representedClassName="Company"/>
        """)
        let destination = try M.model("""
        <entity name="Car" representedClassName="Car"><relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Company"/></entity>
        <entity name="Person" representedClassName="Person"/>
        <entity name="Company" representedClassName="Company"/>
        """)
        let error = M.inferenceError { _ = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination) }
        #expect(error?.code == 134190)
        #expect(error?.localizedDescription.contains("'owner'") == true)
    }

    /// SampleModel version 1 → 2 (CoreDataPlus): ExpensiveSportCar is renamed LuxuryCar (its
    /// renaming identifier), Car loses `color`, Person loses `id`; transient attributes go.
    @Test func sampleModelVersionOneToTwo() throws {
        let package = Fixtures.sampleModel
        let v1 = try NSManagedObjectModel.load(contentsOf: package.appendingPathComponent("SampleModel.xcdatamodel"))
        let v2 = try NSManagedObjectModel.load(contentsOf: package.appendingPathComponent("SampleModel2.xcdatamodel"))
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        #expect(Set(mapping.entityMappingsByName.keys)
                == ["CarToCar", "ExpensiveSportCarToLuxuryCar", "PersonToPerson", "SportCarToSportCar"])
        for entity in mapping.entityMappings {
            #expect(entity.sourceEntityVersionHash == v1.entityVersionHashesByName[entity.sourceEntityName ?? ""])
            #expect(entity.destinationEntityVersionHash == v2.entityVersionHashesByName[entity.destinationEntityName ?? ""])
        }
        let luxury = try M.mapping(mapping, "LuxuryCar")
        #expect(luxury.mappingType == .transformEntityMappingType && luxury.sourceEntityName == "ExpensiveSportCar")
        #expect(try M.expression(luxury, "isLimitedEdition") == "$source.isLimitedEdition")
        #expect(try M.expression(luxury, "numberPlate") == "$source.numberPlate")
        let car = try M.mapping(mapping, "Car")
        #expect(car.attributeMappings?.map(\.name) == ["maker", "markedForDeletionAsOf", "model", "numberPlate"])
        #expect(try M.expression(car, "owner").contains(#""PersonToPerson", $source.owner"#))
        let person = try M.mapping(mapping, "Person")
        #expect(person.attributeMappings?.map(\.name) == ["firstName", "lastName", "updatedAt"])
        // Car has subentities, so Person.cars uses the by-relationship form, as Xcode compiles it.
        #expect(try M.expression(person, "cars")
                == #"FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:" , "cars", $source.cars)"#)

        let plan = try #require(LightweightPlan(mapping))
        let luxuryStep = try #require(plan.entity(forDestination: "LuxuryCar"))
        #expect(luxuryStep.sourceEntityName == "ExpensiveSportCar")
        #expect(luxuryStep.source(ofDestinationProperty: "isLimitedEdition") == .some("isLimitedEdition"))
        #expect(plan.entity(forSource: "ExpensiveSportCar")?.destinationEntityName == "LuxuryCar")
    }
}
