// OpenCoreData re-exports Foundation so that its own `NSPredicate`, `NSExpression`,
// `NSSortDescriptor` and `UndoManager` shadow the disabled ones of swift-corelibs-foundation.
@_exported import Foundation
