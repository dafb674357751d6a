import Testing
@testable import OpenCoreData

/// Raw DEFLATE decompression (for a store's model cache) and reading the model cache Apple's Core
/// Data wrote into the fixture stores.
@Suite struct AppleCompiledInflateTests {
    /// Streams made with zlib (`compressobj(wbits: -15)`): a stored block, fixed and dynamic
    /// Huffman blocks, an empty stream; with the length and SHA-256 of what they inflate to.
    @Test(arguments: [
        ("AV0Aov9Db3JlIERhdGEga2VlcHMgaXRzIG1vZGVsIGhlcmUuQ29yZSBEYXRhIGtlZXBzIGl0cyBtb2RlbCBoZXJlLkNvcmUgRGF0YSBrZWVwcyBpdHMgbW9kZWwgaGVyZS4=",
         93, "8395fd745b1d8f52ec213545123f5960015ac725954bf55774d92584c31cb630"),
        ("S0xKTkRCChmpOTn5yCQA", 33, "a4b60f6ef65723ce2388f01f7a748cd9d637828ed09cf21cee4fc9d16169cd60"),
        ("C8lIVSgszUzOVkgqyi/PU0jLr1DIKs0tKFbIL0stUigBSuckVlUqpOSn6ymEjCoeVTyqeFTxqOJRxcNLMQMjEzMLKxs7BycXNw8vH7+AoJCwiKiYuISklLSMrJy8gqKSsoqqmrqGppa2jq6evoGhkbGJqZm5haWVtY2tnb2Do5Ozi6ubu4enl7ePr59/QGBQcEhoWHhEZFR0TGxcfEJiUnJKalp6RmZWdk5uXn5BYVFxSWlZeUVlVXVNbV19Q2NTc0trW3tHZ1d3T29f/4SJkyZPmTpt+oyZs2bPmTtv/oKFixYvWbps+YqVq1avWbtu/YaNmzZv2bpt+46du3bv2btv/4GDhw4fOXrs+ImTp06fOXvu/IWLly5fuXrt+o2bt27fuXvv/oOHjx4/efrs+YuXr16/efvu/YePnz5/+frt+4+fv37/+fvv/6j/R/0/kv0PAA==",
         2824, "73dabb0593451fcdc3dd1705dfc27b30b04c45e44f05128ca0a237c76883f51b"),
        ("AwA=", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ])
    func inflatesZlibStreams(base64: String, length: Int, sha256: String) throws {
        let output = try RawInflate.inflate(try #require(Data(base64Encoded: base64)))
        #expect(output.count == length)
        #expect(VersionHashDigestTests.hex(SHA256.hash(output)) == sha256)
    }

    @Test func damagedStreamsThrow() throws {
        let dynamic = try #require(Data(base64Encoded: "S0xKTkRCChmpOTn5yCQA"))
        #expect(throws: RawInflate.Failure.truncated) { try RawInflate.inflate(dynamic.prefix(5)) }
        #expect(throws: RawInflate.Failure.invalidBlockType) { try RawInflate.inflate(Data([0x07])) }
        #expect(throws: RawInflate.Failure.storedLengthMismatch) { try RawInflate.inflate(Data([0x01, 0x05, 0x00, 0x00, 0x00])) }
        #expect(throws: RawInflate.Failure.outputTooLarge(limit: 10)) {
            try RawInflate.inflate(try #require(Data(base64Encoded: "AV0Aov9Db3JlIERhdGEga2VlcHMgaXRzIG1vZGVsIGhlcmUuQ29yZSBEYXRhIGtlZXBzIGl0cyBtb2RlbCBoZXJlLkNvcmUgRGF0YSBrZWVwcyBpdHMgbW9kZWwgaGVyZS4=")), limit: 10)
        }
    }

    /// The model cache Core Data wrote into each fixture store reads back with the store's
    /// hashes. Core Data archives it at run time, unlike momc: entities in an
    /// `NSKnownKeysDictionary1`, inherited properties repeated in every subentity, no class names.
    @Test(arguments: VersionHashAppleTests.stores)
    func storeModelCacheReadsBack(_ store: VersionHashAppleTests.StoreMetadata) throws {
        let tool = URL(fileURLWithPath: "/usr/bin/sqlite3")
        guard FileManager.default.isExecutableFile(atPath: tool.path) else { return }
        let url = Fixtures.coreDataPlus(store.store)
        let process = Process()
        process.executableURL = tool
        process.arguments = ["file:\(url.path)?immutable=1", "select hex(Z_CONTENT) from Z_MODELCACHE"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let content = VersionHashAppleTests.data(hex: String(decoding: output, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines))
        let cached = try AppleCompiledModelReader.readModel(fromStoreModelCache: content, store: url)
        #expect(cached.entityVersionHashesByName.mapValues(VersionHashAppleTests.hex) == store.hashes)

        let compiled = try AppleCompiledModelReader.readMom(at: Fixtures.coreDataPlus(store.momd).appendingPathComponent(store.version + ".mom"))
        for entity in compiled.entities {
            let twin = try #require(cached.entitiesByName[entity.name ?? ""])
            #expect(twin.superentity?.name == entity.superentity?.name)
            #expect(twin.declaredProperties.map(\.name) == entity.declaredProperties.map(\.name))
        }
    }

    @Test func damagedModelCacheNamesTheStore() throws {
        let store = URL(fileURLWithPath: "/tmp/Some.sqlite")
        let error = try #require(throws: ManagedObjectModelError.self) {
            try AppleCompiledModelReader.readModel(fromStoreModelCache: Data([0x07, 0x00]), store: store)
        }
        #expect(error.file == store)
        #expect(error.element == "Z_MODELCACHE")
        #expect(error.kind == .invalidCompiledModel)
    }
}
