import Foundation
import Testing
@testable import OpenCoreData

/// Several mapping models that fit the same pair of models are passes of one migration.
@Suite struct MultiPassMigrationTests {
    /// The test mapping split in two passes: people (without their notes) first, then notes.
    static func passes() -> [NSMappingModel] {
        let full = MigrationTestModels.mapping()
        let first = NSMappingModel(), second = NSMappingModel()
        first.entityMappings = [full.entityMappings[0]]
        first.entityMappings[0].relationshipMappings = []
        second.entityMappings = Array(full.entityMappings[1...])
        return [first, second]
    }

    /// In place on every file store: both passes' objects end in the store, which keeps its
    /// UUID; the old store is replaced only once, after the last pass.
    @Test(arguments: AutomaticMigrationTests.fileTypes)
    func passesOfOneMigrationAddToOneStore(_ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store")
        let uuid = try MigrationTestModels.writeV1Store(type, at: url)
        try MigrationRunner.migrate(storeAt: url, type: type.rawValue, options: nil, from: MigrationTestModels.v1(),
                                    to: MigrationTestModels.v2(), passes: Self.passes())
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: type, at: url)
        #expect(metadata[NSStoreUUIDKey] as? String == uuid)
        #expect(MigrationTestModels.v2().isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let context = try MigrationTestModels.open(type, at: url, model: MigrationTestModels.v2())
        let people = try MigrationTestModels.fetch("Person", in: context, sortedBy: "firstName")
        #expect(people.map { $0.value(forKey: "lastName") as? String } == ["Lovelace", "Turing"])
        #expect(try MigrationTestModels.fetch("Note", in: context, sortedBy: "text").map { $0.value(forKey: "text") as? String }
                == ["engine", "machines", "poetry"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.contains("migrating") })
    }

    /// A failing second pass leaves the store byte-identical and no working file behind.
    @Test func aFailingPassLeavesTheStoreUntouched() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store.sqlite")
        try MigrationTestModels.writeV1Store(.sqlite, at: url)
        let before = MigrationTestModels.bytes(url)
        let passes = Self.passes()
        passes[1].entityMappings[0].mappingType = .undefinedEntityMappingType
        #expect(throws: NSError.self) {
            try MigrationRunner.migrate(storeAt: url, type: NSSQLiteStoreType, options: nil, from: MigrationTestModels.v1(),
                                        to: MigrationTestModels.v2(), passes: passes)
        }
        #expect(MigrationTestModels.bytes(url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.contains("migrating") })
    }

    /// The upgrade plan takes every given mapping model that fits a step, in order, as its passes.
    @Test func theStepPlanTakesEveryFittingMappingAsAPass() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = try AutomaticMigrationTests.writePackage(in: folder)
        let versions = try ModelVersionList.read(at: package)
        let (v1, v2) = (versions.versions[0].model, versions.versions[1].model)
        let inferred = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        let first = NSMappingModel(), second = NSMappingModel()
        first.entityMappings = [inferred.entityMappings[0]]
        second.entityMappings = Array(inferred.entityMappings[1...])
        let unrelated = try NSMappingModel.inferredMappingModel(forSourceModel: v2, destinationModel: v1)
        let given = [(model: first, url: folder.appendingPathComponent("a.cdm")),
                     (model: unrelated, url: folder.appendingPathComponent("back.cdm")),
                     (model: second, url: folder.appendingPathComponent("b.cdm"))]
        let plan = MigrationStepPlan(versions: versions, from: 0, to: 1, mappings: given)
        #expect(plan.steps.count == 1)
        #expect(plan.steps[0].mappings.map(\.url.lastPathComponent) == ["a.cdm", "b.cdm"])
    }
}
