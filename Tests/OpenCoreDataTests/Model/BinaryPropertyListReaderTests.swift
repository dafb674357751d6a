import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Our strict binary property list reader: it reads what our writer and Apple's tools write the
/// way `PropertyListSerialization` does, and turns any malformed input into a thrown error.
@Suite struct BinaryPropertyListReaderTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures")

    /// Every file under the fixtures with one of `extensions`, sorted.
    static func fixtureFiles(_ extensions: Set<String>) -> [URL] {
        let walker = FileManager.default.enumerator(at: fixtures, includingPropertiesForKeys: nil)
        let all = (walker?.allObjects as? [URL]) ?? []
        return all.filter { extensions.contains($0.pathExtension) }.sorted { $0.path < $1.path }
    }

    /// A property list in a canonical, comparable form, whatever Foundation handed back.
    static func canonical(_ any: Any) -> String {
        switch any {
        case let string as String: return "s:\(string.debugDescription)"
        case let data as Data: return "d:\(data.base64EncodedString())"
        case let date as Date: return "t:\(date.timeIntervalSinceReferenceDate)"
        case let array as [Any]: return "[" + array.map(canonical).joined(separator: ",") + "]"
        case let set as Set<AnyHashable>: return "{" + set.map { canonical($0.base) }.sorted().joined(separator: ",") + "}"
        case let dictionary as [String: Any]:
            if dictionary.count == 1, let uid = dictionary["CF$UID"] as? NSNumber { return "u:\(uid.intValue)" }
            return "{" + dictionary.sorted { $0.key < $1.key }.map { "\($0.key.debugDescription):" + canonical($0.value) }
                .joined(separator: ",") + "}"
        default: break
        }
        if type(of: any) == Bool.self, let bool = any as? Bool { return "b:\(bool)" }
        if let number = any as? NSNumber {
            let type = String(cString: number.objCType)
            if type == "c" || type == "B" { return "b:\(number.boolValue)" }
            if type == "d" || type == "f" { return "r:\(number.doubleValue)" }
            return "i:\(number.int64Value)"
        }
        if String(describing: Swift.type(of: any)).contains("KeyedArchiverUID") {
            for child in Mirror(reflecting: any).children where child.label == "value" {
                if let value = child.value as? UInt32 { return "u:\(value)" }
            }
        }
        return "?:\(Swift.type(of: any))"
    }

    static func canonical(_ value: BinaryPropertyListWriter.Value) -> String {
        switch value {
        case .string(let string): return "s:\(string.debugDescription)"
        case .integer(let int): return "i:\(int)"
        case .real(let double): return "r:\(double)"
        case .bool(let bool): return "b:\(bool)"
        case .data(let data): return "d:\(data.base64EncodedString())"
        case .date(let date): return "t:\(date.timeIntervalSinceReferenceDate)"
        case .uid(let uid): return "u:\(uid)"
        case .array(let items): return "[" + items.map(canonical).joined(separator: ",") + "]"
        case .dictionary(let pairs):
            return "{" + pairs.sorted { $0.0 < $1.0 }.map { "\($0.0.debugDescription):" + canonical($0.1) }.joined(separator: ",") + "}"
        }
    }

    static func read(_ data: Data) throws -> Any { try BinaryPropertyListReader.propertyList(from: data) }

    /// A binary plist from hand-laid objects: `objects[i]` is object i's bytes; 1-byte offsets and references.
    static func plist(_ objects: [[UInt8]], top: UInt8 = 0) -> Data {
        var out = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects { offsets.append(UInt8(out.count)); out += object }
        let table = out.count
        out += offsets
        out += [0, 0, 0, 0, 0, 0, 1, 1]
        out += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count), 0, 0, 0, 0, 0, 0, 0, top, 0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        return Data(out)
    }

    func expectRejected(_ data: Data, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let value = try Self.read(data)
            Issue.record("accepted: \(Self.canonical(value))", sourceLocation: sourceLocation)
        } catch {
            #expect(String(describing: error).contains(fragment), "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func everythingOurWriterWritesReadsBackEqual() throws {
        let values: [BinaryPropertyListWriter.Value] = [
            .string("ascii"), .string("ünïcødé 🎉"), .string(String(repeating: "long ", count: 40)), .string(""),
            .integer(0), .integer(255), .integer(256), .integer(70_000), .integer(5_000_000_000), .integer(-1), .integer(.min), .integer(.max),
            .real(3.25), .real(-0.0), .real(.infinity), .bool(true), .bool(false),
            .data(Data()), .data(Data((0..<300).map { UInt8($0 % 256) })), .date(Date(timeIntervalSinceReferenceDate: 123_456.5)),
            .uid(0), .uid(300), .uid(70_000),
            .array([]), .array((0..<20).map { .integer(Int64($0)) }),
            .dictionary([("b", .string("x")), ("a", .array([.uid(1), .string("x"), .dictionary([])]))]),
            .dictionary((0..<300).map { ("key\($0)", .array([.integer(Int64($0)), .string("shared")])) }),
        ]
        for value in values + [.array(values)] {
            let read = try Self.read(BinaryPropertyListWriter.data(value))
            #expect(Self.canonical(read) == Self.canonical(value))
        }
    }

    @Test func appleCompiledModelsAndVersionInfoReadAsPropertyListSerializationReadsThem() throws {
        let files = Self.fixtureFiles(["mom", "omo", "plist"])
        #expect(files.count >= 8)
        for file in files {
            let data = try Data(contentsOf: file)
            guard BinaryPropertyListReader.isBinaryPropertyList(data) else { continue }
            let ours = try Self.read(data)
            let foundation = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            #expect(Self.canonical(ours) == Self.canonical(foundation), "\(file.lastPathComponent)")
        }
    }

    @Test func appleStoreMetadataReadsAsPropertyListSerializationReadsIt() throws {
        let stores = Self.fixtureFiles(["sqlite"])
        #expect(stores.count >= 3)
        var configuration = Configuration()
        configuration.readonly = true
        for store in stores {
            let queue = try DatabaseQueue(path: "file:\(store.path)?immutable=1", configuration: configuration)
            let blobs = try queue.read { db in try Data.fetchAll(db, sql: "SELECT Z_PLIST FROM Z_METADATA") }
            #expect(!blobs.isEmpty)
            for blob in blobs {
                let foundation = try PropertyListSerialization.propertyList(from: blob, options: [], format: nil)
                #expect(Self.canonical(try PropertyListInput.propertyList(from: blob)) == Self.canonical(foundation), "\(store.lastPathComponent)")
            }
        }
    }

    @Test func scalarsOfEveryWidth() throws {
        let plist = Self.plist([
            [0xA6, 1, 2, 3, 4, 5, 6],
            [0x14] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0x01, 0x00],   // 128-bit 256
            [0x14] + [UInt8](repeating: 0xFF, count: 16),                                 // 128-bit -1
            [0x22, 0x40, 0x49, 0x0F, 0xDB],                                                // Float pi
            [0x63, 0x00, 0x68, 0xD8, 0x3D, 0xDE, 0x00],                                    // UTF-16 "h😀"
            [0x73, 0xC3, 0xA9, 0x21],                                                      // UTF-8 "é!"
            [0xC2, 4, 5],                                                                  // a set of two strings
        ])
        let array = try #require(try Self.read(plist) as? [Any])
        #expect((array[0] as? NSNumber)?.int64Value == 256 && (array[1] as? NSNumber)?.int64Value == -1)
        #expect(abs(((array[2] as? NSNumber)?.doubleValue ?? 0) - 3.14159) < 1e-5)
        #expect(array[3] as? String == "h😀" && array[4] as? String == "é!")
        #expect((array[5] as? Set<AnyHashable>) == ["é!", "h😀"] as Set<AnyHashable>)
    }

    @Test func keyedArchiveUIDsReadAsKeyedArchiveExpects() throws {
        let archive = try KeyedArchive(data: KeyedArchiveValueTests.appleDictionary)
        #expect(!archive.objects.isEmpty && !archive.top.isEmpty)
        #expect(Self.canonical(try Self.read(Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30, 0x81, 0x01, 0x2C,
                                                     8, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1,
                                                     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11]))) == "u:300")
    }

    /// The fuzzer's input has a set of three strings where Apple's model has a dictionary:
    /// Foundation segfaulted bridging it; we read the set, and the model reader refuses the archive.
    @Test func theFuzzersSetBridgingCrashReadsAsASet() throws {
        let file = FuzzRegressionTests.fuzzRoot.appendingPathComponent("Regressions/compiled-model/bplist-set-bridging-segv.mom")
        let data = try Data(contentsOf: file)
        let objects = try #require((try Self.read(data) as? [String: Any])?["$objects"] as? [Any])
        #expect(objects.contains { ($0 as? Set<AnyHashable>) == ["NS.keys", "NS.objects", "$class"] as Set<AnyHashable> })
        #expect(throws: (any Error).self) { try AppleCompiledModelReader.readArchivedModel(data, file: file) }
    }

    @Test func malformedStructureIsRejected() {
        expectRejected(Data("bplist15".utf8) + Data(count: 40), "not \"bplist00\"")
        expectRejected(Data("bplist00".utf8) + Data(count: 10), "too short")
        expectRejected(Self.plist([[0xA1, 0]]), "contains itself")
        expectRejected(Self.plist([[0xA1, 1], [0xC1, 0]]), "contains itself")
        expectRejected(Self.plist([[0xA1, 7]]), "beyond the 1 objects")
        expectRejected(Self.plist([[0xC1, 1], [0xA0]]), "a set may hold only")
        expectRejected(Self.plist([[0xC2, 1, 2], [0x51, 0x61], [0x51, 0x61]]), "twice")
        expectRejected(Self.plist([[0xD2, 1, 1, 2, 2], [0x51, 0x61], [0x09]]), "the key \"a\" twice")
        expectRejected(Self.plist([[0xD1, 1, 1], [0x10, 0x01]]), "not a string")
        expectRejected(Self.plist([[0x5F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]), "a length of")
        expectRejected(Self.plist([[0x45, 1, 2]]), "run past the object area")
        expectRejected(Self.plist([[0x00]]), "not a property-list value")
        expectRejected(Self.plist([[0x51, 0xC3]]), "over 0x7F")
        expectRejected(Self.plist([[0x61, 0xD8, 0x00]]), "not valid UTF-16")
        expectRejected(Self.plist([[0x14] + [UInt8](repeating: 0, count: 7) + [1] + [UInt8](repeating: 0, count: 8)]), "beyond 64 bits")
        expectRejected(Self.plist([[0x10, 1]], top: 3), "top object")
    }

    @Test func sharedObjectsAreReadOnceAndNestingIsLimited() throws {
        // 15 arrays, each holding the next twice: 2^15 paths, each shared object read once.
        let chain = (0..<15).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] } + [[0x10, 7]]
        var level: Any = try Self.read(Self.plist(chain))
        for _ in 0..<15 {
            let pair = try #require(level as? [Any])
            #expect(pair.count == 2)
            level = pair[1]
        }
        #expect((level as? NSNumber)?.intValue == 7)
        // 60 such arrays stand for 2^60 values: anything that walks the result would hang, so
        // the reader refuses it, naming the object.
        let bomb = (0..<60).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] } + [[0x10, 7]]
        expectRejected(Self.plist(bomb), "once its shared objects are expanded")
        // Nested deeper than the limit (needs 2-byte references and offsets; built with our writer).
        var deep = BinaryPropertyListWriter.Value.integer(1)
        for _ in 0...BinaryPropertyListReader.maximumDepth { deep = .array([deep]) }
        expectRejected(BinaryPropertyListWriter.data(deep), "nested deeper than \(BinaryPropertyListReader.maximumDepth)")
        var allowed = BinaryPropertyListWriter.Value.integer(1)
        for _ in 0..<BinaryPropertyListReader.maximumDepth { allowed = .array([allowed]) }
        _ = try Self.read(BinaryPropertyListWriter.data(allowed))
    }

    /// Every prefix, and thousands of one-byte mutations, of an Apple compiled model: each reads or
    /// throws (a crash fails the whole test run).
    @Test func truncatedAndMutatedAppleModelsNeverCrash() throws {
        let file = try #require(Self.fixtureFiles(["mom"]).first)
        let data = try Data(contentsOf: file)
        for length in stride(from: 0, to: data.count, by: 3) { _ = try? Self.read(data.prefix(length)) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int { state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return Int(state >> 33) }
        var accepted = 0
        for _ in 0..<3000 {
            var bytes = Array(data)
            for _ in 0..<(1 + next() % 3) { bytes[next() % bytes.count] = UInt8(truncatingIfNeeded: next()) }
            if (try? Self.read(Data(bytes))) != nil { accepted += 1 }
        }
        #expect(accepted > 0, "some mutations (in string bytes, say) still read")
    }

    /// Text property lists still go to `PropertyListSerialization`: truncated and mutated XML and
    /// OpenStep plists throw or read, never crash.
    @Test func malformedTextPropertyListsNeverCrash() throws {
        let sample: [String: Any] = ["name": "x", "list": [1, 2.5, true, "s"], "nested": ["d": Data([1, 2, 3]), "t": Date(timeIntervalSinceReferenceDate: 0)]]
        let xml = try PropertyListSerialization.data(fromPropertyList: sample, format: .xml, options: 0)
        #expect(Self.canonical(try PropertyListInput.propertyList(from: xml)) == Self.canonical(sample))
        var inputs: [Data] = stride(from: 0, to: xml.count, by: 9).map { xml.prefix($0) }
        let text = String(decoding: xml, as: UTF8.self)
        for (from, to) in [("<dict>", "<array>"), ("</dict>", ""), ("<integer>1", "<integer>x"), ("<real>2.5", "<real>2.5e99999"),
                           ("<data>", "<data>!!"), ("<date>", "<date>xx"), ("<key>name</key>", ""), ("<true/>", "<true>"),
                           ("<string>", "<string><string>"), ("plist", "plisT"), ("<", "<<"), (">", "")] {
            inputs.append(Data(text.replacingOccurrences(of: from, with: to).utf8))
        }
        inputs += ["{a = b; c = (1, 2", "{a = b; a = c;}", "(", "\"", "<", "{}", "<plist><dict><key>a</key></dict></plist>",
                   "<plist version=\"1.0\"><array><dict/><array><array>", String(repeating: "(", count: 3000)].map { Data($0.utf8) }
        for input in inputs { _ = try? PropertyListInput.propertyList(from: input) }
    }
}
