// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets, one per reader of outside input. Build (see README.md):
//   OPENCOREDATA_FUZZ=1 swift build -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library
// A separate package so that the main package's executables and its macro plugin are not
// linked against libFuzzer's `main`. The entry points live in the main package's
// `OpenCoreDataFuzzing` library, shared with the regression tests.
let targets: [(product: String, module: String)] = [
    ("fuzz-predicate", "FuzzPredicate"),
    ("fuzz-model-xml", "FuzzModelXML"),
    ("fuzz-compiled-model", "FuzzCompiledModel"),
    ("fuzz-mapping-model", "FuzzMappingModel"),
    ("fuzz-xml-store", "FuzzXMLStore"),
    ("fuzz-binary-store", "FuzzBinaryStore"),
    ("fuzz-sqlite-store", "FuzzSQLiteStore"),
]

let package = Package(
    name: "OpenCoreDataFuzz",
    products: targets.map { .executable(name: $0.product, targets: [$0.module]) },
    dependencies: [.package(name: "OpenCoreData", path: "..")],
    targets: targets.map {
        .executableTarget(
            name: $0.module,
            dependencies: ["FuzzerDriver", .product(name: "OpenCoreDataFuzzing", package: "OpenCoreData")],
            path: "Sources/\($0.module)"
        )
    } + [
        // Hands a target's entry point to libFuzzer's driver (see its source).
        .target(name: "FuzzerDriver", path: "Sources/FuzzerDriver"),
    ]
)
