// swift-tools-version:6.0
import PackageDescription

// An app whose Core Data model is an Xcode `.xcdatamodeld` folder in its sources, compiled and
// turned into classes by OpenCoreData's `CoreDataModelPlugin` at build time, as Xcode does.
// `swift run` builds and runs it; CI does the same (`.ci/run`).
let package = Package(
    name: "ModelPluginExample",
    dependencies: [
        .package(name: "OpenCoreData", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "LibraryApp",
            dependencies: [.product(name: "OpenCoreData", package: "OpenCoreData")],
            exclude: ["Library.xcdatamodeld"],
            plugins: [.plugin(name: "CoreDataModelPlugin", package: "OpenCoreData")]
        ),
    ]
)
