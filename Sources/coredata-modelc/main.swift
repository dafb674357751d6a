import CoreDataModelTools
import Foundation
import OpenCoreData

// `coredata-modelc --module NAME MODEL OUTPUT.momd OUTPUT.swift`: what Xcode's build does with a
// model, for the `CoreDataModelPlugin` build plugin. Compiles MODEL (an .xcdatamodeld or
// .xcdatamodel) into the compiled model folder OUTPUT.momd (Apple's format, or ours when the model
// has a part Apple's format can't hold), with class names in module NAME, and
// writes the classes of the entities whose Codegen is Class Definition or Category/Extension
// into the one Swift file OUTPUT.swift (empty of declarations when none is). Exit status 0 on
// success, 2 with the message on standard error on any failure.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("coredata-modelc: error: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var moduleName: String?
var importedModule = "OpenCoreData"
while let first = arguments.first, first.hasPrefix("--") {
    arguments.removeFirst()
    guard let value = arguments.first else { fail("\(first) needs a value") }
    arguments.removeFirst()
    switch first {
    case "--module": moduleName = value
    case "--import": importedModule = value
    default: fail("unknown option \(first)")
    }
}
guard arguments.count == 3 else {
    fail("usage: coredata-modelc [--module NAME] [--import MODULE] MODEL OUTPUT.momd OUTPUT.swift")
}
let model = URL(fileURLWithPath: arguments[0])
let compiled = URL(fileURLWithPath: arguments[1])
let swiftFile = URL(fileURLWithPath: arguments[2])
do {
    do {
        try CompiledModelFormat.compile(modelAt: model, to: compiled, moduleName: moduleName, format: .apple)
    } catch let error as ManagedObjectModelError where error.kind == .invalidValue {
        // A part Apple's format can't hold (a block predicate, a custom selector): ours holds it.
        FileHandle.standardError.write(Data("coredata-modelc: warning: \(error); writing OpenCoreData's compiled format instead\n".utf8))
        try? FileManager.default.removeItem(at: compiled)
        try CompiledModelFormat.compile(modelAt: model, to: compiled, moduleName: moduleName, format: .openCoreData)
    }
    var generator = ClassGenerator(model: try NSManagedObjectModel.load(contentsOf: model))
    generator.importedModule = importedModule
    let source = generator.combinedSource(modelName: model.deletingPathExtension().lastPathComponent)
    try Data(source.utf8).write(to: swiftFile, options: .atomic)
} catch {
    fail("\(model.path): \(error)")
}
