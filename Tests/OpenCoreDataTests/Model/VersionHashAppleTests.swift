import Testing
@testable import OpenCoreData

/// Our version hashes against the ones Apple's tools wrote into the fixtures: momc's
/// `VersionInfo.plist` (every entity of every version), the per-property hashes of the optimized
/// `.omo` model, and the `Z_METADATA` of the stores Apple's Core Data wrote.
@Suite struct VersionHashAppleTests {
    static let models: [(momd: String, version: String)] = [
        ("SampleModel/Fixtures/SampleModel.momd", "SampleModel"),
        ("SampleModel/Fixtures/SampleModel.momd", "SampleModel2"),
        ("SampleModel/Fixtures/SampleModel.momd", "SampleModel3"),
        ("SampleModel3/Fixtures/SampleModel3.momd", "SampleModel3"),
        ("SampleModel3/Fixtures/SampleModel3.momd", "SampleModel3_v2"),
        ("SampleModel3/Fixtures/SampleModel3.momd", "SampleModel3_v3"),
    ]

    @Test(arguments: models)
    func entityHashesEqualVersionInfo(momd: String, version: String) throws {
        let directory = Fixtures.coreDataPlus(momd)
        let info = try AppleCompiledModelReader.versionInfo(ofModelDirectory: directory)
        let expected = try #require(info.versionHashes[version])
        let model = try AppleCompiledModelReader.readMom(at: try info.url(ofVersion: version))
        #expect(Set(model.entityVersionHashesByName.keys) == Set(expected.keys))
        for (entity, hash) in expected {
            #expect(model.entityVersionHashesByName[entity] == hash, "entity \(entity) of \(version)")
        }
        if let checksum = info.versionChecksums[version] {
            #expect(VersionHasher.modelChecksum(entityVersionHashes: model.entityVersionHashesByName) == checksum)
        }
    }

    /// The `Z_METADATA` of each fixture store, as Apple's Core Data wrote it (extracted with
    /// `sqlite3 'file:STORE?immutable=1' 'select hex(Z_PLIST) from Z_METADATA'`; the test below
    /// re-extracts it when the sqlite3 tool is installed, so that this table cannot drift).
    struct StoreMetadata: Sendable, CustomStringConvertible {
        let store: String
        let momd: String
        let version: String
        let hashes: [String: String]
        let digest: String
        let checksum: String?
        var description: String { store }
    }

    static let stores: [StoreMetadata] = [
        StoreMetadata(
            store: "SampleModel/Fixtures/SampleModel_V1.sqlite", momd: "SampleModel/Fixtures/SampleModel.momd", version: "SampleModel",
            hashes: ["Car": "9e555529072158220d1bacd2f80a3dad4919f74a32aa8be9ee22a6a7b4126c8f",
                     "Person": "164268551b45108ae763aa2ba61ff32d32d32323850987c3e21607c8da44b72b",
                     "ExpensiveSportCar": "3dc7e32b1be45b5a4c795ac9af3e1d10aa7222d3c69ae805bbeb4408bdeba480",
                     "SportCar": "514ec1907a568299f9fb6851106516136f0755f45fa53a823a0e4d44013d5313"],
            digest: "fACvwxty0QWritKFX3/LTtXZvI64UnFcRtP6qcjW1Yl0owr+rH+SpCvzy/uDYRpknMXbgacd3srn9wmE2KkL8Q==",
            checksum: nil),
        StoreMetadata(
            store: "SampleModel/Fixtures/SampleModel_V2.sqlite", momd: "SampleModel/Fixtures/SampleModel.momd", version: "SampleModel2",
            hashes: ["Car": "7e503efbf4b63cd93ff729e9675e21c63c65262d85a9889f59a2440af6481b93",
                     "Person": "067ae62e1bd1014cb6559d990803ae58f354dd1b7ba7b7722a361c0c39f2134e",
                     "LuxuryCar": "a873c5590010e4ea3f7bdf846786dfbf5cb095526b86aa0de2c569c4bb121886",
                     "SportCar": "722a55b5bbcd51d74876a4dd8f8f7bbde57ddc61cb65a577ec5b0fbe978d7b8c"],
            digest: "gA/GyOCh8sMDKPJBWGZpv2usq+rU1r4MjgwPc9tbafDh4RTvoBOjSnmanNvWopksmy/criJNqsnPcAZkTmEa7Q==",
            checksum: nil),
        StoreMetadata(
            store: "SampleModel3/Fixtures/SampleModel3_V1.sqlite", momd: "SampleModel3/Fixtures/SampleModel3.momd", version: "SampleModel3",
            hashes: ["User": "6b31f4e97b691d16c4c820bae55f89408d47013bd42151ecfde1eac7fe4be798"],
            digest: "0KLB/FnL8roMcgeszeCxnPnvYqnn4VzB2DpFP6csqrDKzLB6fyG5rrVfjY5DtnQxx4355oWuKFublPf2Jo1UWg==",
            checksum: "u970QgYhRHEJGIt0zQr1UhuZL2ZJ1KxBS+B7rkAx0ik="),
    ]

    @Test(arguments: stores)
    func hashesEqualStoreMetadata(_ store: StoreMetadata) throws {
        let directory = Fixtures.coreDataPlus(store.momd)
        let info = try AppleCompiledModelReader.versionInfo(ofModelDirectory: directory)
        let model = try AppleCompiledModelReader.readMom(at: try info.url(ofVersion: store.version))
        let ours = model.entityVersionHashesByName
        #expect(ours.mapValues(Self.hex) == store.hashes)
        #expect(VersionHasher.storeHashesDigest(entityVersionHashes: ours).base64EncodedString() == store.digest)
        if let checksum = store.checksum {
            #expect(VersionHasher.modelChecksum(entityVersionHashes: ours).base64EncodedString() == checksum)
        }
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: [
            NSStoreModelVersionHashesKey: store.hashes.mapValues { Self.data(hex: $0) },
        ]))
    }

    /// The table above is what the store files hold (checked when the sqlite3 tool is installed).
    @Test(arguments: stores)
    func storeMetadataTableMatchesTheFiles(_ store: StoreMetadata) throws {
        let tool = URL(fileURLWithPath: "/usr/bin/sqlite3")
        guard FileManager.default.isExecutableFile(atPath: tool.path) else { return }
        let process = Process()
        process.executableURL = tool
        // immutable=1 opens read-only and leaves the -wal/-shm files of the fixture alone.
        process.arguments = ["file:\(Fixtures.coreDataPlus(store.store).path)?immutable=1", "select hex(Z_PLIST) from Z_METADATA"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let hex = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let plist = try #require(try PropertyListSerialization.propertyList(from: Self.data(hex: hex), options: [], format: nil) as? [String: Any])
        let hashes = try #require(plist["NSStoreModelVersionHashes"] as? [String: Data])
        #expect(hashes.mapValues(Self.hex) == store.hashes)
        #expect(plist["NSStoreModelVersionHashesDigest"] as? String == store.digest)
        #expect(plist["NSStoreModelVersionChecksumKey"] as? String == store.checksum)
    }

    /// momc's optimized model (`.omo`) stores the hash of each property of `User`.
    @Test func propertyHashesEqualTheOptimizedModel() throws {
        let momd = Fixtures.sampleModel3Momd
        let model = try AppleCompiledModelReader.readMom(at: momd.appendingPathComponent("SampleModel3.mom"))
        let user = try #require(model.entitiesByName["User"])
        let omo = try Data(contentsOf: momd.appendingPathComponent("SampleModel3.omo"))
        for (property, hash) in [("name", "8cb9965c0031ac68913984f3110941ad965395be9fd9b17de7be54bc7ad46890"),
                                 ("petName", "3600ceedf50b080f90041365395158784f0deb03bc9acddf1cad607c4fe50742")] {
            let ours = try #require(user.propertiesByName[property]).versionHash
            #expect(Self.hex(ours) == hash)
            #expect(omo.range(of: ours) != nil, "the .omo holds the hash of \(property)")
        }
        #expect(omo.range(of: user.versionHash) != nil)
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    static func data(hex: String) -> Data {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex), index != hex.endIndex {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return Data(bytes)
    }
}
