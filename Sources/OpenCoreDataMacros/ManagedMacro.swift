import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Managed`: turns a stored-looking property of an `NSManagedObject` subclass into accessors
/// that read and write the object's value for the property's name through key-value coding.
///
/// ```swift
/// @Managed var processID: Int32
/// // becomes
/// var processID: Int32 {
///     get { self.managedValue(forKey: "processID") }
///     set { self.setManagedValue(newValue, forKey: "processID") }
/// }
/// ```
/// The conversions (numbers across widths, optionals, typed to-many sets) live in the library
/// (`NSManagedObject.managedValue(forKey:as:)`), so the expansion stays one line per accessor.
///
/// With `@Managed(toManyAccessors: true)` on a `Set<Element>` or `NSOrderedSet` property it also
/// writes Xcode's generated to-many accessors as peers, on top of `mutableSetValue(forKey:)` (or
/// `mutableOrderedSetValue(forKey:)`): `add<Key>Object(_:)`, `remove<Key>Object(_:)`,
/// `add<Key>(_:)` and `remove<Key>(_:)`.
public struct ManagedMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        let property = try ManagedProperty(declaration)
        let key = property.name
        return [
            "get { self.managedValue(forKey: \(literal: key)) }",
            "set { self.setManagedValue(newValue, forKey: \(literal: key)) }",
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard try wantsToManyAccessors(node) else { return [] }
        // Errors about the declaration itself are reported once, by the accessor role.
        guard let property = try? ManagedProperty(declaration) else { return [] }
        let key = property.name
        let capitalized = key.prefix(1).uppercased() + key.dropFirst()
        let access = property.accessModifier
        switch property.toManyKind {
        case .set(let element):
            let proxy = "self.mutableSetValue(forKey: \"\(key)\")"
            return [
                "\(raw: access)func add\(raw: capitalized)Object(_ value: \(element)) { \(raw: proxy).add(value) }",
                "\(raw: access)func remove\(raw: capitalized)Object(_ value: \(element)) { \(raw: proxy).remove(value) }",
                "\(raw: access)func add\(raw: capitalized)(_ values: Set<\(element)>) { \(raw: proxy).union(values) }",
                "\(raw: access)func remove\(raw: capitalized)(_ values: Set<\(element)>) { \(raw: proxy).minus(values) }",
            ]
        case .ordered:
            let proxy = "self.mutableOrderedSetValue(forKey: \"\(key)\")"
            return [
                "\(raw: access)func add\(raw: capitalized)Object(_ value: NSManagedObject) { \(raw: proxy).add(value) }",
                "\(raw: access)func remove\(raw: capitalized)Object(_ value: NSManagedObject) { \(raw: proxy).remove(value) }",
                """
                \(raw: access)func add\(raw: capitalized)(_ values: NSOrderedSet) {
                    let proxy = \(raw: proxy)
                    for case let value as NSManagedObject in values { proxy.add(value) }
                }
                """,
                """
                \(raw: access)func remove\(raw: capitalized)(_ values: NSOrderedSet) {
                    let proxy = \(raw: proxy)
                    for case let value as NSManagedObject in values { proxy.remove(value) }
                }
                """,
            ]
        case nil:
            throw DiagnosticsError(diagnostics: [
                Diagnostic(node: Syntax(node), message: ManagedDiagnostic.accessorsNeedToMany(key)),
            ])
        }
    }

    /// Reads `toManyAccessors: true|false` from the attribute (default `false`).
    private static func wantsToManyAccessors(_ node: AttributeSyntax) throws -> Bool {
        guard case .argumentList(let arguments) = node.arguments else { return false }
        for argument in arguments where argument.label?.text == "toManyAccessors" {
            guard let literal = argument.expression.as(BooleanLiteralExprSyntax.self) else {
                throw DiagnosticsError(diagnostics: [
                    Diagnostic(node: Syntax(argument.expression), message: ManagedDiagnostic.literalArgument),
                ])
            }
            return literal.literal.tokenKind == .keyword(.true)
        }
        return false
    }
}

/// The parts of a `@Managed` property declaration the expansion needs, checked.
struct ManagedProperty {
    enum ToManyKind {
        case set(element: TypeSyntax)
        case ordered
    }

    let name: String
    let type: TypeSyntax
    let accessModifier: String

    init(_ declaration: some DeclSyntaxProtocol) throws {
        guard let variable = declaration.as(VariableDeclSyntax.self) else {
            throw Self.error(declaration, .notAVariable)
        }
        guard variable.bindingSpecifier.tokenKind == .keyword(.var) else {
            throw Self.error(variable.bindingSpecifier, .notVar)
        }
        if variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }) {
            throw Self.error(variable, .staticProperty)
        }
        guard variable.bindings.count == 1, let binding = variable.bindings.first else {
            throw Self.error(variable, .severalBindings)
        }
        guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
            throw Self.error(binding.pattern, .notAnIdentifier)
        }
        let name = identifier.identifier.trimmedDescription.trimmingBackticks
        guard let type = binding.typeAnnotation?.type.trimmed else {
            throw Self.error(binding, .missingType(name))
        }
        if binding.initializer != nil {
            throw Self.error(binding, .initialValue(name))
        }
        if binding.accessorBlock != nil {
            throw Self.error(binding, .hasAccessors(name))
        }
        self.name = name
        self.type = type
        let access = variable.modifiers.first { modifier in
            [.keyword(.public), .keyword(.internal), .keyword(.fileprivate), .keyword(.private), .keyword(.package), .keyword(.open)]
                .contains(modifier.name.tokenKind) && modifier.detail == nil
        }
        self.accessModifier = access.map { $0.name.text + " " } ?? ""
    }

    /// `Set<Element>` (or `Swift.Set<Element>`) and `NSOrderedSet` properties are to-many.
    var toManyKind: ToManyKind? {
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            if identifier.name.text == "NSOrderedSet" { return .ordered }
            if identifier.name.text == "Set", let element = identifier.genericArgumentClause?.arguments.first {
                return Self.elementType(element)
            }
        }
        if let member = type.as(MemberTypeSyntax.self), member.baseType.trimmedDescription == "Swift",
           member.name.text == "Set", let element = member.genericArgumentClause?.arguments.first {
            return Self.elementType(element)
        }
        if let member = type.as(MemberTypeSyntax.self), member.name.text == "NSOrderedSet" { return .ordered }
        return nil
    }

    private static func elementType(_ argument: GenericArgumentSyntax) -> ToManyKind? {
        // The argument's text, re-parsed as a type: `GenericArgumentSyntax.argument` is a type in
        // swift-syntax 600 and a type-or-expression choice from 601 on.
        let text = argument.argument.trimmedDescription
        guard !text.isEmpty else { return nil }
        return .set(element: TypeSyntax(stringLiteral: text))
    }

    private static func error(_ node: some SyntaxProtocol, _ message: ManagedDiagnostic) -> DiagnosticsError {
        DiagnosticsError(diagnostics: [Diagnostic(node: Syntax(node), message: message)])
    }
}

/// The macro's error messages.
enum ManagedDiagnostic: DiagnosticMessage {
    case notAVariable
    case notAFunction
    case notVar
    case staticProperty
    case severalBindings
    case notAnIdentifier
    case missingType(String)
    case initialValue(String)
    case hasAccessors(String)
    case accessorsNeedToMany(String)
    case literalArgument
    case functionHasBody(String)
    case notAnAccessor(String)

    var message: String {
        switch self {
        case .notAVariable: return "@Managed applies only to a property of an NSManagedObject subclass"
        case .notVar: return "@Managed property must be declared with 'var'"
        case .staticProperty: return "@Managed cannot be applied to a static or class property"
        case .severalBindings: return "@Managed applies to one property per declaration"
        case .notAnIdentifier: return "@Managed property must be a simple name"
        case .missingType(let name): return "@Managed property '\(name)' needs an explicit type annotation"
        case .initialValue(let name):
            return "@Managed property '\(name)' cannot have an initial value; set the attribute's default value in the model or assign it in awakeFromInsert()"
        case .hasAccessors(let name): return "@Managed property '\(name)' already has accessors"
        case .accessorsNeedToMany(let name):
            return "toManyAccessors: @Managed property '\(name)' must be a Set<Element> or NSOrderedSet to-many relationship"
        case .literalArgument: return "toManyAccessors must be the literal true or false"
        case .notAFunction: return "@ManagedAccessor applies only to a body-less generated to-many accessor function"
        case .functionHasBody(let name): return "@ManagedAccessor function '\(name)' must not have a body; @ManagedAccessor writes it"
        case .notAnAccessor(let name):
            return "@ManagedAccessor function '\(name)' is not one of Xcode's generated to-many accessors (addToX(_:), removeFromX(_:), removeFromX(at:), insertIntoX(_:at:), replaceX(at:with:))"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notAVariable: id = "notAVariable"
        case .notVar: id = "notVar"
        case .staticProperty: id = "staticProperty"
        case .severalBindings: id = "severalBindings"
        case .notAnIdentifier: id = "notAnIdentifier"
        case .missingType: id = "missingType"
        case .initialValue: id = "initialValue"
        case .hasAccessors: id = "hasAccessors"
        case .accessorsNeedToMany: id = "accessorsNeedToMany"
        case .literalArgument: id = "literalArgument"
        case .notAFunction: id = "notAFunction"
        case .functionHasBody: id = "functionHasBody"
        case .notAnAccessor: id = "notAnAccessor"
        }
        return MessageID(domain: "OpenCoreDataMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

extension String {
    /// `` `default` `` → `default`: the key is the property's name without backticks.
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}
