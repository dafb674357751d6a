import OpenCoreDataMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Foundation
import Testing

/// The `@Managed` macro's expansion, checked as source text (swift-syntax's test support).
@Suite("@Managed macro expansion")
struct ManagedMacroExpansionTests {
    private let macros: [String: MacroSpec] = [
        "Managed": MacroSpec(type: ManagedMacro.self),
        "ManagedAccessor": MacroSpec(type: ManagedAccessorMacro.self),
    ]

    private func expect(
        _ source: String, expandsTo expected: String, diagnostics: [DiagnosticSpec] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        assertMacroExpansion(
            source, expandedSource: expected, diagnostics: diagnostics, macroSpecs: macros,
            failureHandler: { Issue.record(Comment(rawValue: $0.message), sourceLocation: sourceLocation) }
        )
    }

    @Test("Attributes, optionals and to-one relationships get KVC accessors keyed by the property name",
          arguments: ["Date", "Int32", "String?", "ClassEntity?", "Set<StudentEntity>", "NSOrderedSet"])
    func accessors(type: String) {
        expect(
            """
            final class Run: NSManagedObject {
                @Managed var value: \(type)
            }
            """,
            expandsTo: """
            final class Run: NSManagedObject {
                var value: \(type) {
                    get {
                        self.managedValue(forKey: "value")
                    }
                    set {
                        self.setManagedValue(newValue, forKey: "value")
                    }
                }
            }
            """
        )
    }

    @Test("A backticked name is keyed without its backticks")
    func backtickedName() {
        expect(
            "@Managed var `default`: String?",
            expandsTo: """
            var `default`: String? {
                get {
                    self.managedValue(forKey: "default")
                }
                set {
                    self.setManagedValue(newValue, forKey: "default")
                }
            }
            """
        )
    }

    @Test("toManyAccessors: true writes Xcode's four to-many accessors with the property's access level")
    func toManyAccessors() {
        expect(
            "@Managed(toManyAccessors: true) public var students: Set<StudentEntity>",
            expandsTo: """
            public var students: Set<StudentEntity> {
                get {
                    self.managedValue(forKey: "students")
                }
                set {
                    self.setManagedValue(newValue, forKey: "students")
                }
            }

            public func addStudentsObject(_ value: StudentEntity) {
                self.mutableSetValue(forKey: "students").add(value)
            }

            public func removeStudentsObject(_ value: StudentEntity) {
                self.mutableSetValue(forKey: "students").remove(value)
            }

            public func addStudents(_ values: Set<StudentEntity>) {
                self.mutableSetValue(forKey: "students").union(values)
            }

            public func removeStudents(_ values: Set<StudentEntity>) {
                self.mutableSetValue(forKey: "students").minus(values)
            }
            """
        )
    }

    @Test("toManyAccessors on an ordered to-many takes NSManagedObject and NSOrderedSet")
    func orderedToManyAccessors() {
        expect(
            "@Managed(toManyAccessors: true) var items: NSOrderedSet",
            expandsTo: """
            var items: NSOrderedSet {
                get {
                    self.managedValue(forKey: "items")
                }
                set {
                    self.setManagedValue(newValue, forKey: "items")
                }
            }

            func addItemsObject(_ value: NSManagedObject) {
                self.mutableOrderedSetValue(forKey: "items").add(value)
            }

            func removeItemsObject(_ value: NSManagedObject) {
                self.mutableOrderedSetValue(forKey: "items").remove(value)
            }

            func addItems(_ values: NSOrderedSet) {
                let proxy = self.mutableOrderedSetValue(forKey: "items")
                for case let value as NSManagedObject in values {
                    proxy.add(value)
                }
            }

            func removeItems(_ values: NSOrderedSet) {
                let proxy = self.mutableOrderedSetValue(forKey: "items")
                for case let value as NSManagedObject in values {
                    proxy.remove(value)
                }
            }
            """
        )
    }

    @Test("toManyAccessors: false (the default) writes no peers")
    func noPeersByDefault() {
        expect(
            "@Managed(toManyAccessors: false) var students: Set<StudentEntity>",
            expandsTo: """
            var students: Set<StudentEntity> {
                get {
                    self.managedValue(forKey: "students")
                }
                set {
                    self.setManagedValue(newValue, forKey: "students")
                }
            }
            """
        )
    }

    struct Misuse: CustomTestStringConvertible, Sendable {
        let source: String
        let message: String
        let column: Int
        var testDescription: String { source }
    }

    @Test("Misuse is diagnosed with a message naming the problem", arguments: [
        Misuse(source: "@Managed let date: Date", message: "@Managed property must be declared with 'var'", column: 10),
        Misuse(source: "@Managed var date = Date()", message: "@Managed property 'date' needs an explicit type annotation", column: 14),
        Misuse(source: "@Managed var count: Int = 0", message: "@Managed property 'count' cannot have an initial value; set the attribute's default value in the model or assign it in awakeFromInsert()", column: 14),
        Misuse(source: "@Managed var x: Int { 1 }", message: "@Managed property 'x' already has accessors", column: 14),
        Misuse(source: "@Managed var (a, b): (Int, Int)", message: "@Managed property must be a simple name", column: 14),
        Misuse(source: "@Managed static var count: Int", message: "@Managed cannot be applied to a static or class property", column: 1),
    ])
    func misuse(_ misuse: Misuse) {
        let diagnostics = [DiagnosticSpec(message: misuse.message, line: 1, column: misuse.column)]
        // The declaration comes back without the attribute and without accessors.
        let stripped = misuse.source.replacingOccurrences(of: "@Managed ", with: "")
        expect(misuse.source, expandsTo: stripped, diagnostics: diagnostics)
    }

    @Test("Several bindings are refused by the expansion itself")
    func severalBindings() {
        expect(
            "@Managed var a: Int, b: Int",
            expandsTo: "var a: Int, b: Int",
            diagnostics: [
                DiagnosticSpec(message: "accessor macro can only be applied to a single variable", line: 1, column: 1),
                DiagnosticSpec(message: "peer macro can only be applied to a single variable", line: 1, column: 1),
            ]
        )
    }

    @Test("toManyAccessors on a property that is not a to-many set is an error")
    func accessorsOnToOne() {
        expect(
            "@Managed(toManyAccessors: true) var inClass: ClassEntity?",
            expandsTo: """
            var inClass: ClassEntity? {
                get {
                    self.managedValue(forKey: "inClass")
                }
                set {
                    self.setManagedValue(newValue, forKey: "inClass")
                }
            }
            """,
            diagnostics: [DiagnosticSpec(
                message: "toManyAccessors: @Managed property 'inClass' must be a Set<Element> or NSOrderedSet to-many relationship",
                line: 1, column: 1)]
        )
    }

    struct AccessorFunction: CustomTestStringConvertible, Sendable {
        let declaration: String
        let body: String
        var testDescription: String { declaration }
    }

    @Test("A body-less generated to-many accessor gets the body that performs it", arguments: [
        AccessorFunction(declaration: "public func addToPages(_ value: Page)", body: #"self.performToManyAccessor(.add(value), relationship: "Pages")"#),
        AccessorFunction(declaration: "public func removeFromPages(_ value: Page)", body: #"self.performToManyAccessor(.remove(value), relationship: "Pages")"#),
        AccessorFunction(declaration: "public func addToPages(_ values: NSSet)", body: #"self.performToManyAccessor(.addAll(ManagedToManyAccessor.objects(values)), relationship: "Pages")"#),
        AccessorFunction(declaration: "public func removeFromPages(_ values: NSOrderedSet)", body: #"self.performToManyAccessor(.removeAll(ManagedToManyAccessor.objects(values)), relationship: "Pages")"#),
        AccessorFunction(declaration: "public func insertIntoPages(_ value: Page, at idx: Int)", body: #"self.performToManyAccessor(.insert(value, at: idx), relationship: "Pages")"#),
        AccessorFunction(declaration: "public func insertIntoPages(_ values: [Page], at indexes: NSIndexSet)", body: #"self.performToManyAccessor(.insertAll(ManagedToManyAccessor.objects(values), at: ManagedToManyAccessor.indexes(indexes)), relationship: "Pages")"#),
        AccessorFunction(declaration: "public func removeFromPages(at idx: Int)", body: #"self.performToManyAccessor(.removeAt(idx), relationship: "Pages")"#),
        AccessorFunction(declaration: "public func removeFromPages(at indexes: NSIndexSet)", body: #"self.performToManyAccessor(.removeAtIndexes(ManagedToManyAccessor.indexes(indexes)), relationship: "Pages")"#),
        AccessorFunction(declaration: "public func replacePages(at idx: Int, with value: Page)", body: #"self.performToManyAccessor(.replace(at: idx, with: value), relationship: "Pages")"#),
        AccessorFunction(declaration: "public func replacePages(at indexes: NSIndexSet, with values: [Page])", body: #"self.performToManyAccessor(.replaceAll(at: ManagedToManyAccessor.indexes(indexes), with: ManagedToManyAccessor.objects(values)), relationship: "Pages")"#),
    ])
    func accessorFunction(_ function: AccessorFunction) {
        expect(
            "@ManagedAccessor \(function.declaration)",
            expandsTo: """
            \(function.declaration) {
                \(function.body)
            }
            """
        )
    }

    @Test("@ManagedAccessor on a function that is not a generated accessor, or has a body, is an error")
    func accessorFunctionMisuse() {
        expect(
            "@ManagedAccessor func reshelve(_ book: Page)",
            expandsTo: "func reshelve(_ book: Page)",
            diagnostics: [DiagnosticSpec(
                message: "@ManagedAccessor function 'reshelve' is not one of Xcode's generated to-many accessors (addToX(_:), removeFromX(_:), removeFromX(at:), insertIntoX(_:at:), replaceX(at:with:))",
                line: 1, column: 23)]
        )
        expect(
            "@ManagedAccessor func addToPages(_ value: Page) {}",
            expandsTo: "func addToPages(_ value: Page) {}",
            diagnostics: [DiagnosticSpec(
                message: "@ManagedAccessor function 'addToPages' must not have a body; @ManagedAccessor writes it",
                line: 1, column: 23)]
        )
    }
}
