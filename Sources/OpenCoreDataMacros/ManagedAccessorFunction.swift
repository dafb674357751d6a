import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@ManagedAccessor`: the body of a body-less declaration of one of Xcode's generated to-many
/// accessors (`@NSManaged public func addToPages(_ value: Page)` ported by a one-word change),
/// which performs it through `NSManagedObject.performToManyAccessor(_:relationship:)`.
public struct ManagedAccessorMacro: BodyMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingBodyFor declaration: some DeclSyntaxProtocol & WithOptionalCodeBlockSyntax,
        in context: some MacroExpansionContext
    ) throws -> [CodeBlockItemSyntax] {
        guard let function = declaration.as(FunctionDeclSyntax.self) else {
            throw DiagnosticsError(diagnostics: [Diagnostic(node: Syntax(node), message: ManagedDiagnostic.notAFunction)])
        }
        return [try ManagedAccessorFunction(function).body]
    }
}

/// The checked parts of an accessor declaration and the body ``ManagedAccessorMacro`` writes.
///
/// The operation is read from the name's prefix (`addTo`, `removeFrom`, `insertInto`,
/// `replace`) and the parameters: a collection (`NSSet`, `NSOrderedSet`, `Set<…>`, `[…]`) or an
/// index set (`NSIndexSet`, `IndexSet`) instead of one object or one `Int` index. The rest of the
/// name is the relationship, matched at run time (`Pages` finds `pages`).
struct ManagedAccessorFunction {
    let body: CodeBlockItemSyntax

    init(_ function: FunctionDeclSyntax) throws {
        let name = function.name.text
        if function.body != nil { throw Self.error(function.name, .functionHasBody(name)) }
        let parameters = Array(function.signature.parameterClause.parameters)
        let names = parameters.map { ($0.secondName ?? $0.firstName).text }
        let labels = parameters.map { $0.firstName.text }
        let kinds = parameters.map { Self.kind(of: $0.type) }

        let call: (String, String)?
        switch (name, parameters.count) {
        case let (name, 1) where name.hasPrefix("addTo") && name.count > 5:
            call = (String(name.dropFirst(5)), kinds[0] == .collection
                ? ".addAll(ManagedToManyAccessor.objects(\(names[0])))" : ".add(\(names[0]))")
        case let (name, 1) where name.hasPrefix("removeFrom") && name.count > 10:
            let relationship = String(name.dropFirst(10))
            switch (labels[0], kinds[0]) {
            case ("at", .index): call = (relationship, ".removeAt(\(names[0]))")
            case ("at", .indexSet): call = (relationship, ".removeAtIndexes(ManagedToManyAccessor.indexes(\(names[0])))")
            case (_, .collection): call = (relationship, ".removeAll(ManagedToManyAccessor.objects(\(names[0])))")
            default: call = (relationship, ".remove(\(names[0]))")
            }
        case let (name, 2) where name.hasPrefix("insertInto") && name.count > 10 && labels[1] == "at":
            let relationship = String(name.dropFirst(10))
            call = kinds[1] == .indexSet
                ? (relationship, ".insertAll(ManagedToManyAccessor.objects(\(names[0])), at: ManagedToManyAccessor.indexes(\(names[1])))")
                : (relationship, ".insert(\(names[0]), at: \(names[1]))")
        case let (name, 2) where name.hasPrefix("replace") && name.count > 7 && labels[0] == "at" && labels[1] == "with":
            let relationship = String(name.dropFirst(7))
            call = kinds[0] == .indexSet
                ? (relationship, ".replaceAll(at: ManagedToManyAccessor.indexes(\(names[0])), with: ManagedToManyAccessor.objects(\(names[1])))")
                : (relationship, ".replace(at: \(names[0]), with: \(names[1]))")
        default:
            call = nil
        }
        guard let (relationship, accessor) = call else { throw Self.error(function.name, .notAnAccessor(name)) }
        body = "self.performToManyAccessor(\(raw: accessor), relationship: \(literal: relationship))"
    }

    private enum Kind { case object, index, indexSet, collection }

    private static func kind(of type: TypeSyntax) -> Kind {
        let text = type.trimmedDescription
        let base = text.split(separator: "<").first.map(String.init) ?? text
        switch base.split(separator: ".").last.map(String.init) ?? base {
        case "Int": return .index
        case "NSIndexSet", "IndexSet": return .indexSet
        case "NSSet", "NSOrderedSet", "Set": return .collection
        default: return text.hasPrefix("[") ? .collection : .object
        }
    }

    private static func error(_ node: some SyntaxProtocol, _ message: ManagedDiagnostic) -> DiagnosticsError {
        DiagnosticsError(diagnostics: [Diagnostic(node: Syntax(node), message: message)])
    }
}
