// `import CoreData` on Linux: the whole of OpenCoreData under Apple's module name.
@_exported import OpenCoreData

// swift-corelibs-foundation declares these classes too (unusable on Linux). Code that imports
// both Foundation and CoreData, as Apple's code does, would find a type name ambiguous; scoped
// imports take precedence over whole-module imports in name lookup, so re-exporting ours by
// name makes them win in type position as well as in expressions.
@_exported import class OpenCoreData.NSPredicate
@_exported import class OpenCoreData.NSComparisonPredicate
@_exported import class OpenCoreData.NSCompoundPredicate
@_exported import class OpenCoreData.NSExpression
@_exported import class OpenCoreData.NSSortDescriptor
#if !canImport(Darwin)
// Value transformers: swift-corelibs-foundation has none; ours stand in for Foundation's.
@_exported import class OpenCoreData.ValueTransformer
@_exported import class OpenCoreData.NSSecureUnarchiveFromDataTransformer
@_exported import struct OpenCoreData.NSValueTransformerName
#endif
