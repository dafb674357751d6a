import Foundation
import Testing
@testable import OpenCoreData

/// Reading mapping models: Xcode's `.xcmappingmodel` folders and the compiled `.cdm` files, their
/// agreement, finding them for a pair of models, and malformed files.
@Suite struct MappingModelReaderTests {
    static let xcmapping = Fixtures.coreDataPlus("SampleModel/MappingModels/V2toV3.xcmappingmodel")
    static let cdm = Fixtures.coreDataPlus("SampleModel/Fixtures/V2toV3.cdm")

    static func version(_ name: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel.appendingPathComponent("\(name).xcdatamodel"))
    }

    @Test func compiledMappingModelReadsAsXcodeWroteIt() throws {
        let mapping = try NSMappingModel.load(contentsOf: Self.cdm)
        #expect(mapping.entityMappings.map(\.name) == ["CarToCar", "LuxuryCarToLuxuryCar", "PersonToPerson", "SportCarToSportCar", "Maker"])
        #expect(mapping.entityMappings.map(\.mappingType) == [.customEntityMappingType, .customEntityMappingType,
                                                              .copyEntityMappingType, .customEntityMappingType, .addEntityMappingType])
        let car = try MappingTestModels.mapping(mapping, "Car")
        #expect(car.entityMigrationPolicyClassName == "REPLACE_AT_RUNTIME.V2to3MakerPolicy")
        #expect(car.sourceExpression.map { MappingExpressions.fetchedEntityName($0) } == "Car")
        #expect(try MappingTestModels.expression(car, "numberPlate") == "$source.numberPlate")
        #expect(try MappingTestModels.expression(car, "createdBy") == "nil")
        let person = try MappingTestModels.mapping(mapping, "Person")
        #expect(try MappingTestModels.expression(person, "previousCars")
                == #"FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:" , "cars", $source.cars)"#)
        #expect(NSMappingModel(contentsOf: Self.cdm) == mapping)
    }

    @Test func xcodeMappingModelEqualsTheCompiledOne() throws {
        let compiled = try NSMappingModel.load(contentsOf: Self.cdm)
        let xcode = try NSMappingModel.load(contentsOf: Self.xcmapping)
        #expect(xcode.entityMappings.count == compiled.entityMappings.count)
        for (ours, apple) in zip(xcode.entityMappings, compiled.entityMappings) {
            #expect(ours.name == apple.name)
            #expect(ours.mappingType == apple.mappingType, "\(ours.name ?? "")")
            #expect(ours.sourceEntityVersionHash == apple.sourceEntityVersionHash, "\(ours.name ?? "")")
            #expect(ours.destinationEntityVersionHash == apple.destinationEntityVersionHash, "\(ours.name ?? "")")
            #expect(ours.sourceExpression == apple.sourceExpression, "\(ours.name ?? "")")
            #expect(ours.entityMigrationPolicyClassName == apple.entityMigrationPolicyClassName)
            #expect(ours.attributeMappings == apple.attributeMappings, "\(ours.name ?? "")")
            #expect(ours.relationshipMappings == apple.relationshipMappings, "\(ours.name ?? "")")
        }
        #expect(xcode == compiled)
        // The folder or its xcmapping.xml.
        #expect(try NSMappingModel.load(contentsOf: Self.xcmapping.appendingPathComponent("xcmapping.xml")) == compiled)
    }

    @Test func hashesAreTheModelsHashes() throws {
        let v2 = try Self.version("SampleModel2"), v3 = try Self.version("SampleModel3")
        for url in [Self.cdm, Self.xcmapping] {
            let mapping = try NSMappingModel.load(contentsOf: url)
            #expect(mapping.fits(sourceModel: v2, destinationModel: v3), "\(url.lastPathComponent)")
            #expect(!mapping.fits(sourceModel: try Self.version("SampleModel"), destinationModel: v3))
            for entity in mapping.entityMappings {
                if let name = entity.sourceEntityName { #expect(entity.sourceEntityVersionHash == v2.entityVersionHashesByName[name]) }
                if let name = entity.destinationEntityName { #expect(entity.destinationEntityVersionHash == v3.entityVersionHashesByName[name]) }
            }
        }
    }

    @Test func findsTheMappingModelsThatFitInFolders() throws {
        let v1 = try Self.version("SampleModel"), v2 = try Self.version("SampleModel2"), v3 = try Self.version("SampleModel3")
        let folder = Fixtures.coreDataPlus("SampleModel")
        let found = NSMappingModel.fittingMappingModels(in: [folder], forSourceModel: v2, destinationModel: v3)
        #expect(Set(found.map(\.url.lastPathComponent)) == ["V2toV3.cdm", "V2toV3.xcmappingmodel"])
        let first = try #require(NSMappingModel(fromFolders: [folder], forSourceModel: v2, destinationModel: v3))
        #expect(first == (try NSMappingModel.load(contentsOf: Self.cdm)))
        #expect(NSMappingModel(fromFolders: [folder], forSourceModel: v1, destinationModel: v2) == nil)
        #expect(NSMappingModel(fromFolders: [folder], forSourceModel: v3, destinationModel: v2) == nil)
        #expect(NSMappingModel(fromFolders: [folder], forSourceModel: nil, destinationModel: v3) == nil)
    }

    // MARK: Malformed files

    static func error(_ url: URL) -> ManagedObjectModelError? {
        do {
            _ = try NSMappingModel.load(contentsOf: url)
            return nil
        } catch {
            return error as? ManagedObjectModelError
        }
    }

    @Test func malformedFilesThrowNamingFileAndElement() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let xml = try Data(contentsOf: Self.xcmapping.appendingPathComponent("xcmapping.xml"))

        func package(_ name: String, _ data: Data) throws -> URL {
            let folder = directory.appendingPathComponent(name + ".xcmappingmodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try data.write(to: folder.appendingPathComponent("xcmapping.xml"))
            return folder
        }
        let truncated = try package("Truncated", xml.prefix(xml.count / 2))
        let truncatedError = try #require(Self.error(truncated))
        #expect(truncatedError.kind == .malformedXML && truncatedError.file?.lastPathComponent == "xcmapping.xml")

        let wrongRoot = try package("WrongRoot", Data(#"<?xml version="1.0"?><model><entity name="A"/></model>"#.utf8))
        let rootError = try #require(Self.error(wrongRoot))
        #expect(rootError.kind == .malformedXML && rootError.element == "model" && rootError.message.contains("<database>"))

        let text = String(decoding: xml, as: UTF8.self)
        let dangling = try package("Dangling", Data(text.replacingOccurrences(of: #"idrefs="z107 z110 z117""#, with: #"idrefs="z107 z999""#).utf8))
        let danglingError = try #require(Self.error(dangling))
        #expect(danglingError.kind == .missingReference && danglingError.message.contains("z999"))
        #expect(danglingError.element?.contains("Car -> Car") == true)

        let badExpression = try package("BadExpression", Data(text.replacingOccurrences(of: "YnBsaXN0MDDUAQIDBAUGVFVYJHZl", with: "AAAA").utf8))
        let expressionError = try #require(Self.error(badExpression))
        #expect(expressionError.element?.contains("property mapping 'previousOwners'") == true)

        let empty = directory.appendingPathComponent("Empty.xcmappingmodel")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(Self.error(empty)?.kind == .unreadableFile)
        #expect(NSMappingModel(contentsOf: empty) == nil)
        #expect(NSMappingModel(contentsOf: nil) == nil)
        #expect(Self.error(directory.appendingPathComponent("missing.cdm"))?.kind == .unreadableFile)

        let garbage = directory.appendingPathComponent("Garbage.cdm")
        try Data("bplist00 this is not a property list".utf8).write(to: garbage)
        let garbageError = try #require(Self.error(garbage))
        #expect(garbageError.kind == .invalidCompiledModel && garbageError.file == garbage)
        let noise = directory.appendingPathComponent("Noise.cdm")
        try Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(to: noise)
        #expect(Self.error(noise) != nil)

        // A model archive is not a mapping model archive.
        let mom = Fixtures.sampleModelMomd.appendingPathComponent("SampleModel2.mom")
        let momError = try #require(Self.error(mom))
        #expect(momError.kind == .invalidCompiledModel && momError.message.contains("not an NSMappingModel"))

        // Broken pieces inside a real .cdm: a truncated archive.
        let cdm = try Data(contentsOf: Self.cdm)
        let cut = directory.appendingPathComponent("Cut.cdm")
        try cdm.prefix(cdm.count - 40).write(to: cut)
        #expect(Self.error(cut)?.file == cut)
        #expect(NSMappingModel(contentsOf: cut) == nil)
    }
}
