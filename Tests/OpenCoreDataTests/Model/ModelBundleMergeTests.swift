import Foundation
import Testing
@testable import OpenCoreData

/// Apple's `NSManagedObjectModel.mergedModel(from: [Bundle]?)`, which real code calls with
/// `nil` or `[Bundle.main]`.
@Suite struct ModelBundleMergeTests {
    @Test func mergesTheCompiledModelsAtTheTopOfABundle() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: Fixtures.sampleModel3Momd, to: folder.appendingPathComponent("SampleModel3.momd"))
        try Data("not a model".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        let bundle = try #require(Bundle(path: folder.path))

        let merged = try #require(NSManagedObjectModel.mergedModel(from: [bundle]))
        let alone = try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel3Momd)
        #expect(Set(merged.entitiesByName.keys) == Set(alone.entitiesByName.keys))
        #expect(!merged.entities.isEmpty)

        let metadata: [String: Any] = [NSStoreModelVersionHashesKey: alone.entityVersionHashesByName]
        #expect(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: metadata) != nil)
        #expect(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: [NSStoreModelVersionHashesKey: ["Nope": Data()]]) == nil)
    }

    @Test func aBundleWithoutModelsGivesNil() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bundle = try #require(Bundle(path: folder.path))
        #expect(NSManagedObjectModel.mergedModel(from: [bundle]) == nil)
    }
}
