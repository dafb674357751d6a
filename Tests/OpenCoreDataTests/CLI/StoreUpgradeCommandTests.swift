import Foundation
import Testing
@_spi(CLI) @testable import OpenCoreData
import OpenCoreDataPostgres

/// `coredata store upgrade`, run as the built executable on copies of the Apple-written
/// CoreDataPlus fixture store `SampleModel_V1.sqlite` (with its `-wal` and `-shm`).
@Suite struct StoreUpgradeCommandTests {
    struct Run {
        let status: Int32
        let output: String
        let error: String
    }

    static func run(_ arguments: [String]) throws -> Run {
        let executable = try #require(CrashSafetyTests.coredataExecutable, "the coredata executable is built")
        let process = Process()
        process.executableURL = executable
        process.arguments = ["store", "upgrade"] + arguments
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile(), err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                   error: String(decoding: err, as: UTF8.self))
    }

    /// A copy of the V1 fixture store in a new folder, and its bytes (file, `-wal`, `-shm`).
    static func v1Store() throws -> (folder: URL, url: URL, bytes: [Data?]) {
        let folder = try Fixtures.temporaryDirectory()
        let url = try FixtureMigrationTests.copyStore("SampleModel_V1.sqlite", to: folder)
        let bytes = MigrationTestModels.bytes(url)
        #expect(bytes.allSatisfy { $0 != nil }, "the fixture has a -wal and a -shm")
        return (folder, url, bytes)
    }

    static func leftovers(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("upgrade") || $0.contains("migrating") }
    }

    @Test func upgradesToAGivenVersionWithTheInferredMapping() throws {
        let (folder, url, _) = try Self.v1Store()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.run([url.path, "--model", Fixtures.sampleModel.path, "--to", "SampleModel2"])
        #expect(run.status == 0, "\(run.error)")
        let wal = FileManager.default.contents(atPath: url.path + "-wal")
        #expect(wal == nil || wal?.isEmpty == true, "no -wal of the old store is left to be applied to the new one")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(summary["source"] as? String == "SampleModel")
        #expect(summary["destination"] as? String == "SampleModel2")
        let steps = try #require(summary["steps"] as? [[String: String]])
        #expect(steps == [["from": "SampleModel", "to": "SampleModel2", "mapping": "inferred"]])
        let objects = try #require(summary["objects"] as? [String: Int])
        #expect(objects["Person"] == 20)
        #expect(objects["LuxuryCar"].map { $0 > 0 } == true, "the renamed entity's objects")
        #expect(objects.keys.contains("ExpensiveSportCar") == false)

        let v2 = try FixtureMigrationTests.version("SampleModel2")
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let context = try MigrationTestModels.open(.sqlite, at: url, model: v2)
        #expect(try FixtureMigrationTests.cars(in: context).count == 125)
        #expect(try Self.leftovers(in: folder).isEmpty)
    }

    @Test func aStoreAtTheDestinationVersionIsLeftAlone() throws {
        let (folder, url, before) = try Self.v1Store()
        defer { try? FileManager.default.removeItem(at: folder) }
        // SampleModel.xcdatamodeld's current version is its first, SampleModel.
        let run = try Self.run([url.path, "--model", Fixtures.sampleModel.path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.contains("already has version 'SampleModel'"))
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect((summary["steps"] as? [Any])?.isEmpty == true)
        #expect(MigrationTestModels.bytes(url) == before)
        #expect(try Self.leftovers(in: folder).isEmpty)
    }

    @Test func aPolicyClassTheToolCannotLoadIsRefusedBeforeAnything() throws {
        let (folder, url, before) = try Self.v1Store()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mapping = Fixtures.coreDataPlus("SampleModel/MappingModels/V2toV3.xcmappingmodel")
        let run = try Self.run([url.path, "--model", Fixtures.sampleModel.path, "--to", "SampleModel3", "--mapping", mapping.path])
        #expect(run.status == 2)
        #expect(run.error.contains("REPLACE_AT_RUNTIME.V2to3MakerPolicy"), "\(run.error)")
        #expect(run.output.isEmpty)
        #expect(MigrationTestModels.bytes(url) == before)
        #expect(try Self.leftovers(in: folder).isEmpty)
    }

    @Test func aBadMappingPathFailsWithTheStoreUntouched() throws {
        let (folder, url, before) = try Self.v1Store()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.run([url.path, "--model", Fixtures.sampleModel.path, "--to", "SampleModel2",
                                "--mapping", folder.appendingPathComponent("Nope.cdm").path])
        #expect(run.status == 2)
        #expect(run.error.contains("Nope.cdm"), "\(run.error)")
        #expect(MigrationTestModels.bytes(url) == before)
    }

    @Test func aFailingStepLeavesTheStoreByteIdentical() throws {
        let (folder, url, before) = try Self.v1Store()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.run([url.path, "--model", Fixtures.sampleModel.path, "--to", "NoSuchVersion"])
        #expect(run.status == 2)
        #expect(run.error.contains("NoSuchVersion"))
        #expect(MigrationTestModels.bytes(url) == before)
    }
}

/// `coredata store upgrade` planning, in process: the steps through several versions.
@Suite struct StoreUpgradeTests {
    /// The file store types, and PostgreSQL when its server can run (its copy is a schema).
    static let types: [NSPersistentStore.StoreType] = AutomaticMigrationTests.fileTypes
        + (StoreTypesUnderTest.all.contains(NSPostgreSQLStoreType) ? [NSPersistentStore.StoreType(rawValue: NSPostgreSQLStoreType)] : [])

    /// A three-version package (V1, V2 of `AutomaticMigrationTests`, and a V3 adding `Tag`),
    /// upgraded from V1 in two inferred steps, on every file store type and on PostgreSQL; the
    /// summary counts.
    @Test(arguments: types)
    func upgradesThroughEveryVersion(_ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = try AutomaticMigrationTests.writePackage(in: folder)
        let v3 = AutomaticMigrationTests.v2Contents.replacingOccurrences(of: "</model>", with: """
                <entity name="Tag" representedClassName="NSManagedObject" syncable="YES">
                    <attribute name="label" optional="YES" attributeType="String"/>
                </entity>
            </model>
            """)
        let version3 = package.appendingPathComponent("Model 10.xcdatamodel")
        try FileManager.default.createDirectory(at: version3, withIntermediateDirectories: true)
        try Data(v3.utf8).write(to: version3.appendingPathComponent("contents"))
        let versions = try ModelVersionList.read(at: package)
        #expect(versions.versions.map(\.name) == ["Model", "Model 2", "Model 10"], "natural order")

        let url = try #require(StoreTypesUnderTest.location(type.rawValue, folder.appendingPathComponent("store")))
        let uuid = try AutomaticMigrationTests.writeV1Store(type, at: url, model: versions.versions[0].model)
        let summary = try StoreUpgrade.upgrade(storeAt: url, type: type.rawValue, modelAt: package, to: "Model 10", mappings: [])
        #expect(summary.steps == [.init(from: "Model", to: "Model 2", mappingPath: nil), .init(from: "Model 2", to: "Model 10", mappingPath: nil)])
        #expect(summary.objectCounts == ["Person": 2, "Article": 1, "Tag": 0])
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: type, at: url)
        #expect(metadata[NSStoreUUIDKey] as? String == uuid)
        let context = try MigrationTestModels.open(type, at: url, model: versions.versions[2].model)
        try AutomaticMigrationTests.checkMigrated(context)
    }
}

/// `coredata store upgrade` on a store whose externally stored binary data names a file that
/// is missing: the value reads as nil with a warning, and the upgrade goes on.
@Suite struct StoreUpgradeExternalDataTests {
    @Test func aMissingExternalDataFileIsAWarningNotAFailure() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (url, versionOne) = try SQLiteExternalDataTests.makeStore(in: folder, photos: [("external", nil, nil), ("lost", nil, nil)])
        let bytes = Data((0..<1_000).map { UInt8($0 % 241) })
        try SQLiteExternalDataTests.storeExternally(bytes, name: "external", in: url)
        try SQLiteExternalDataTests.storeExternally(Data(), name: "lost", in: url, fileName: "0A1B2C3D-LOST", writeFile: false)

        // A package: version 1 is the store's model, version 2 adds a caption.
        let package = folder.appendingPathComponent("Photos.xcdatamodeld")
        let second = package.appendingPathComponent("Photos 2.xcdatamodel")
        try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: versionOne, to: package.appendingPathComponent("Photos.xcdatamodel"))
        let contents = try String(contentsOf: package.appendingPathComponent("Photos.xcdatamodel/contents"), encoding: .utf8)
        try Data(contents.replacingOccurrences(of: "<attribute name=\"name\"", with: "<attribute name=\"caption\" optional=\"YES\" attributeType=\"String\"/>\n        <attribute name=\"name\"").utf8)
            .write(to: second.appendingPathComponent("contents"))
        let current = ["_XCCurrentVersionName": "Photos 2.xcdatamodel"]
        try PropertyListSerialization.data(fromPropertyList: current, format: .xml, options: 0)
            .write(to: package.appendingPathComponent(".xccurrentversion"))

        let run = try StoreUpgradeCommandTests.run([url.path, "--model", package.path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.contains("can't find underlying file"), "\(run.error)")
        #expect(run.error.contains("0A1B2C3D-LOST"))

        let model = try NSManagedObjectModel.load(contentsOf: package)
        #expect(model.entitiesByName["Photo"]?.attributesByName["caption"] != nil)
        let images = try SQLiteExternalDataTests.images(url, model: package)
        #expect(images["external"] == bytes, "the file the store names is still found after the upgrade")
        #expect(images["lost"] == .some(nil))
    }
}

/// A store written by no version of the given model upgrades from the model it caches.
@Suite struct StoreUpgradeCachedModelTests {
    /// Apple's V1 fixture store against a package holding only version 2: the source is the
    /// store's `Z_MODELCACHE`, one inferred step, the renamed entity's objects kept.
    @Test func aStoreOfNoKnownVersionUpgradesFromItsCachedModel() throws {
        let (folder, url, _) = try StoreUpgradeCommandTests.v1Store()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = folder.appendingPathComponent("Only2.xcdatamodeld")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.sampleModel.appendingPathComponent("SampleModel2.xcdatamodel"),
                                         to: package.appendingPathComponent("SampleModel2.xcdatamodel"))
        let summary = try StoreUpgrade.upgrade(storeAt: url, type: NSSQLiteStoreType, modelAt: package, to: nil, mappings: [])
        #expect(summary.source == StoreUpgrade.cachedModelName)
        #expect(summary.steps == [.init(from: StoreUpgrade.cachedModelName, to: "SampleModel2", mappingPath: nil)])
        #expect(summary.objectCounts["Person"] == 20)
        let v2 = try FixtureMigrationTests.version("SampleModel2")
        let context = try MigrationTestModels.open(.sqlite, at: url, model: v2)
        #expect(try FixtureMigrationTests.cars(in: context).count == 125)
    }
}
