// swift-tools-version:6.0
import PackageDescription
import CompilerPluginSupport

// The `CoreData` shim re-exports OpenCoreData under Apple's module name, so that
// `import CoreData` compiles on Linux. On Apple platforms the real framework wins.
#if canImport(Darwin)
let isApplePlatform = true
#else
let isApplePlatform = false
#endif

// `OPENCOREDATA_FUZZ=1` (set by scripts/fuzz.sh for the `Fuzz/` package) leaves the `@Managed`
// macro plugin out of the library's dependencies: `-Xswiftc -sanitize=fuzzer` reaches host tools
// too, and the plugin, an executable with its own `main`, cannot link against libFuzzer's. The
// library only declares the macro, so it builds without the plugin.
let fuzzing = Context.environment["OPENCOREDATA_FUZZ"] != nil

var products: [Product] = [
    .library(name: "OpenCoreData", targets: ["OpenCoreData"]),
    .executable(name: "coredata", targets: ["coredata"]),
    // The fuzz targets' reader entry points, shared by `Fuzz/` and the regression tests.
    .library(name: "OpenCoreDataFuzzing", targets: ["OpenCoreDataFuzzing"]),
    .executable(name: "coredata-tutorial", targets: ["coredata-tutorial"]),
]

var targets: [Target] = [
    .target(
        name: "OpenCoreData",
        dependencies: (fuzzing ? [] : ["OpenCoreDataMacros"]) + [
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
            "CSwiftRuntime",
        ],
        path: "Sources/OpenCoreData"
    ),
    // Declares `swift_tryRetain` and the unowned counts of the Swift runtime, for the context's
    // object registry and `UnretainedReference`.
    .target(name: "CSwiftRuntime", path: "Sources/CSwiftRuntime"),
    // One entry point per reader of outside input (predicates, models, stores), driven by the
    // libFuzzer targets in `Fuzz/` and by `Tests/OpenCoreDataTests/Fuzz/`.
    .target(
        name: "OpenCoreDataFuzzing",
        dependencies: ["OpenCoreData"],
        path: "Sources/OpenCoreDataFuzzing"
    ),
    // The `@Managed` accessor macro's compiler plugin (swift-syntax).
    .macro(
        name: "OpenCoreDataMacros",
        dependencies: [
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        ],
        path: "Sources/OpenCoreDataMacros"
    ),
    // What the model tools share: Swift class generation (`coredata generate`, the build plugin).
    .target(
        name: "CoreDataModelTools",
        dependencies: ["OpenCoreData"],
        path: "Sources/CoreDataModelTools"
    ),
    .target(
        name: "CoreDataCLI",
        dependencies: [
            "OpenCoreData",
            "CoreDataModelTools",
            "OpenCoreDataPostgres",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ],
        path: "Sources/CoreDataCLI"
    ),
    .executableTarget(
        name: "coredata",
        dependencies: ["CoreDataCLI"],
        path: "Sources/coredata"
    ),
    // The seed tutorial's models, classes and commands, as a library so that tests can run them.
    .target(
        name: "CoreDataTutorial",
        dependencies: [
            "OpenCoreData",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Sources/CoreDataTutorial"
    ),
    .executableTarget(
        name: "coredata-tutorial",
        dependencies: ["CoreDataTutorial"],
        path: "Sources/coredata-tutorial"
    ),
    .executableTarget(
        name: "coredata-store-bench",
        dependencies: ["OpenCoreData"],
        path: "Benchmarks/StoreLoad"
    ),
    .testTarget(
        name: "OpenCoreDataTests",
        dependencies: [
            "OpenCoreData",
            "CoreDataCLI",
            "CoreDataModelTools",
            "CoreDataTutorial",
            "OpenCoreDataFuzzing",
            "OpenCoreDataMacros",
            "OpenCoreDataPostgres",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
        ],
        path: "Tests/OpenCoreDataTests"
    ),
]

// `coredata-bench` (issue 6): each workload through raw SQLite (the C API, via GRDB's
// `GRDBSQLite` system module), GRDB records, and OpenCoreData's SQLite store. Run it in release:
// `swift run -c release coredata-bench [--json] [--scale 0.1]`.
products.append(.executable(name: "coredata-bench", targets: ["coredata-bench"]))
targets.append(.executableTarget(
    name: "coredata-bench",
    dependencies: [
        "OpenCoreData",
        "OpenCoreDataPostgres",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
    ],
    path: "Benchmarks/CoreDataBench"
))

// The PostgreSQL store (issue 16): its own library, so that SQLite-only users do not build the
// PostgreSQL client. Its tests (in OpenCoreDataTests, where the shared store test bodies run
// against it too) start a throwaway server (`initdb` + `postgres`) themselves.
products.append(.library(name: "OpenCoreDataPostgres", targets: ["OpenCoreDataPostgres"]))
targets.append(.target(
    name: "OpenCoreDataPostgres",
    dependencies: ["OpenCoreData", .product(name: "PostgresNIO", package: "postgres-nio")],
    path: "Sources/OpenCoreDataPostgres"
))

if !isApplePlatform {
    products.append(.library(name: "CoreData", targets: ["CoreData"]))
    targets.append(.target(name: "CoreData", dependencies: ["OpenCoreData"], path: "Sources/CoreData"))
    targets.append(.testTarget(name: "CoreDataShimTests", dependencies: ["CoreData"], path: "Tests/CoreDataShimTests"))
}

// The build plugin that plays Xcode's part for `.xcdatamodeld` folders in a target (issue 17), and
// its tool. `Examples/ModelPlugin` uses it.
products.append(.plugin(name: "CoreDataModelPlugin", targets: ["CoreDataModelPlugin"]))
targets.append(.executableTarget(
    name: "coredata-modelc",
    dependencies: ["OpenCoreData", "CoreDataModelTools"],
    path: "Sources/coredata-modelc"
))
targets.append(.plugin(
    name: "CoreDataModelPlugin",
    capability: .buildTool(),
    dependencies: ["coredata-modelc"],
    path: "Plugins/CoreDataModelPlugin"
))

let package = Package(
    name: "OpenCoreData",
    products: products,
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The tutorial's web page (`coredata-tutorial web`).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // `swift package generate-documentation --target OpenCoreData` (the DocC catalogue).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: targets
)
