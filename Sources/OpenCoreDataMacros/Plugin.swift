import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that serves OpenCoreData's macros.
@main
struct OpenCoreDataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [ManagedMacro.self, ManagedAccessorMacro.self]
}
