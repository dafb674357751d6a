import Foundation
import OpenCoreData

/// One reader of outside input that the fuzz targets in `Fuzz/` and the regression tests in
/// `Tests/OpenCoreDataTests/Fuzz/` drive through the same entry point.
///
/// Every entry point takes raw bytes and goes only through public API. A reader that rejects
/// the bytes throws; the entry point returns the error as ``FuzzOutcome/rejected(_:)``. A crash
/// (trap, stack overflow) or a hang is the bug the fuzzers look for.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The predicate parser, then formatting, re-parsing and in-memory evaluation of what parsed.
    case predicate
    /// An Xcode model version's `contents` file (`.xcdatamodel`).
    case modelXML = "model-xml"
    /// A compiled model file: OpenCoreData's `.ocdmom` and Apple's `.mom` keyed archive.
    case compiledModel = "compiled-model"
    /// A mapping model: Apple's compiled `.cdm` keyed archive (input starting with `bplist`) or
    /// an Xcode `.xcmappingmodel`'s `xcmapping.xml` (anything else); then its entity mappings,
    /// their expressions, and fitting it to ``FuzzFixtures/model``.
    case mappingModel = "mapping-model"
    /// An XML store file, opened read-only with ``FuzzFixtures/model`` and fetched completely.
    case xmlStore = "xml-store"
    /// A binary store file, opened read-only with ``FuzzFixtures/model`` and fetched completely.
    case binaryStore = "binary-store"
    /// A SQLite store file: its metadata and entity table, then opened read-only with
    /// ``FuzzFixtures/model`` and fetched completely.
    case sqliteStore = "sqlite-store"

    /// Feeds `data` to this target's reader.
    @discardableResult
    public func run(_ data: Data) -> FuzzOutcome {
        do {
            switch self {
            case .predicate: return try FuzzReaders.predicate(data)
            case .modelXML: return try FuzzReaders.modelXML(data)
            case .compiledModel: return try FuzzReaders.compiledModel(data)
            case .mappingModel: return try FuzzReaders.mappingModel(data)
            case .xmlStore: return try FuzzReaders.store(data, type: NSXMLStoreType, fileName: "store.xml")
            case .binaryStore: return try FuzzReaders.store(data, type: NSBinaryStoreType, fileName: "store.binary")
            case .sqliteStore: return try FuzzReaders.sqliteStore(data)
            }
        } catch {
            return .rejected(error)
        }
    }

    /// Entry point for a libFuzzer `LLVMFuzzerInitialize`: when the environment variable
    /// `OCD_FUZZ_SEEDS_DIR` names a folder (`scripts/fuzz.sh` sets it to the target's working
    /// corpus), writes the seeds that this version of the code generates for the target there,
    /// so the store targets always start from a store of the current format. Returns 0.
    public func initialize() -> CInt {
        guard let path = ProcessInfo.processInfo.environment["OCD_FUZZ_SEEDS_DIR"], !path.isEmpty else { return 0 }
        let folder = URL(fileURLWithPath: path, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let seeds = try FuzzReaders.withScratchFolder { scratch in
                try FuzzFixtures.writeSeeds(to: scratch).mapValues { try Data(contentsOf: $0) }
            }
            if let seed = seeds[self] {
                try seed.write(to: folder.appendingPathComponent("generated-seed"))
            }
        } catch {
            print("OpenCoreDataFuzzing: could not write the generated seeds: \(error)")
        }
        return 0
    }

    /// Entry point for a libFuzzer `LLVMFuzzerTestOneInput`: always returns 0.
    public func run(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
        run(Data(bytes: bytes, count: count))
        return 0
    }
}

/// What a reader made of one input.
public enum FuzzOutcome: @unchecked Sendable {
    // `@unchecked`: the error is only read for its description; no state is shared.
    /// The reader read the input; `summary` counts what it found (objects, entities, nodes).
    case accepted(summary: Int)
    /// The reader threw this error.
    case rejected(any Error)

    /// Whether the reader accepted the input.
    public var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }
}
