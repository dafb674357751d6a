import Foundation
import OpenCoreData

/// Writes the Swift files Xcode generates for a model's entities (`Entity+CoreDataClass.swift`
/// and `Entity+CoreDataProperties.swift`), with `@Managed` properties and `@ManagedAccessor`
/// to-many accessors in place of `@NSManaged`.
///
/// What goes in follows Xcode's Swift code generation:
/// - `codeGenerationType` "class" writes both files, "category" only the properties (the class is
///   written by hand), Manual/None nothing, unless the entity is asked for by name (as Xcode's
///   "Create NSManagedObject Subclass…" writes both files for any entity);
/// - the class is `representedClassName` without its module (`.Book` and `MyApp.Book` are
///   `Book`; an entity without a class name uses its own name), its superclass the superentity's
///   class; only the entity's own properties are declared;
/// - numbers and Booleans are Swift scalars (`Int16`, `Int32`, `Int64`, `Double`, `Float`, `Bool`)
///   when `usesScalarValueType` is set, else `NSNumber`; other attributes are their Foundation
///   value types (`Decimal`, `String`, `Date`, `Data`, `UUID`, `URL`, `NSManagedObjectID`), a
///   transformable one its custom class name (else `NSObject`); an optional attribute or to-one
///   relationship is a Swift optional, a scalar never is (Xcode's rule);
/// - to-many relationships are `NSSet` or `NSOrderedSet`, with Xcode's generated accessors;
/// - a root entity's class is `Identifiable` (subentities' classes inherit it).
///
/// Differs from Xcode: no `@objc(Name)` lines (Linux has no Objective-C runtime), `Decimal`
/// rather than `NSDecimalNumber` (what the stores hand back on every platform), and the files
/// import `OpenCoreData` unless told otherwise.
public struct ClassGenerator {
    /// `public` or `internal` declarations.
    public enum Access: String, CaseIterable, Sendable {
        case `public`, `internal`

        var prefix: String { self == .public ? "public " : "" }
    }

    /// One file to write.
    public struct File: Equatable, Sendable {
        public let name: String
        public let contents: String
    }

    /// Why generation could not start.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let model: NSManagedObjectModel
    public var access: Access = .public
    /// The module the files import.
    public var importedModule = "OpenCoreData"

    public init(model: NSManagedObjectModel) {
        self.model = model
    }

    /// The files for `entityNames` (every entity whose `codeGenerationType` asks for them when
    /// empty), sorted by name. Throws for a name the model does not have, or when nothing is
    /// to be generated.
    public func files(forEntityNames entityNames: [String] = []) throws -> [File] {
        var files: [File] = []
        if entityNames.isEmpty {
            for entity in model.entities {
                switch entity.codeGenerationType {
                case "class": files += [classFile(entity), propertiesFile(entity)]
                case "category": files.append(propertiesFile(entity))
                default: continue
                }
            }
            if files.isEmpty {
                throw Failure(description: "no entity of the model has Codegen set to Class Definition or Category/Extension; name the entities to generate with --entity")
            }
        } else {
            for name in entityNames {
                guard let entity = model.entitiesByName[name] else {
                    let known = model.entities.compactMap(\.name).sorted().joined(separator: ", ")
                    throw Failure(description: "the model has no entity '\(name)' (it has \(known))")
                }
                if entity.codeGenerationType != "category" { files.append(classFile(entity)) }
                files.append(propertiesFile(entity))
            }
        }
        return files.sorted { $0.name < $1.name }
    }

    // MARK: Files

    /// Every class and extension the build generates for the model (what Xcode puts in its
    /// derived sources, as one file): the entities whose Codegen is Class Definition or
    /// Category/Extension. A model without such entities gives a file without declarations.
    public func combinedSource(modelName: String) -> String {
        var text = header("\(modelName)+CoreDataGenerated.swift")
        for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            switch entity.codeGenerationType {
            case "class": text += classBody(entity) + "\n" + propertiesBody(entity) + "\n"
            case "category": text += propertiesBody(entity) + "\n"
            default: continue
            }
        }
        return text
    }

    func classFile(_ entity: NSEntityDescription) -> File {
        let name = Self.className(entity)
        return File(name: "\(name)+CoreDataClass.swift", contents: header("\(name)+CoreDataClass.swift") + classBody(entity))
    }

    func propertiesFile(_ entity: NSEntityDescription) -> File {
        let name = Self.className(entity)
        return File(name: "\(name)+CoreDataProperties.swift", contents: header("\(name)+CoreDataProperties.swift") + propertiesBody(entity))
    }

    private func classBody(_ entity: NSEntityDescription) -> String {
        let superclass = entity.superentity.map(Self.className) ?? "NSManagedObject"
        return """
            \(access.prefix)class \(Self.className(entity)): \(superclass) {

            }

            """
    }

    private func propertiesBody(_ entity: NSEntityDescription) -> String {
        let name = Self.className(entity)
        let inherited = Set(entity.superentity?.propertiesByName.keys.map { $0 } ?? [])
        let own = entity.properties.filter { !inherited.contains($0.name) }.sorted { $0.name < $1.name }
        var text = """
            extension \(name) {

                \(access.prefix)class func fetchRequest() -> NSFetchRequest<\(name)> {
                    return NSFetchRequest<\(name)>(entityName: \(Self.literal(entity.name ?? name)))
                }


            """
        for property in own {
            text += "    @Managed \(access.prefix)var \(Self.identifier(property.name)): \(swiftType(of: property))\n"
        }
        text += "\n}\n"
        for case let relationship as NSRelationshipDescription in own where relationship.isToMany {
            text += accessors(for: relationship, in: name)
        }
        // A subentity's class inherits the conformance (declaring it again would not compile).
        if entity.superentity == nil { text += "\nextension \(name) : Identifiable {\n\n}\n" }
        return text
    }

    private func header(_ fileName: String) -> String {
        """
        //
        //  \(fileName)
        //
        //  This file was automatically generated by `coredata generate` and should not be edited.
        //

        import Foundation
        import \(importedModule)


        """
    }

    /// Xcode's generated to-many accessors, in Xcode's order.
    private func accessors(for relationship: NSRelationshipDescription, in className: String) -> String {
        let key = relationship.name.prefix(1).uppercased() + relationship.name.dropFirst()
        let element = relationship.destinationEntity.map(Self.className) ?? "NSManagedObject"
        let a = "    @ManagedAccessor \(access.prefix)func "
        var lines: [String] = []
        if relationship.isOrdered {
            lines += [
                "\(a)insertInto\(key)(_ value: \(element), at idx: Int)",
                "\(a)removeFrom\(key)(at idx: Int)",
                "\(a)insertInto\(key)(_ values: [\(element)], at indexes: NSIndexSet)",
                "\(a)removeFrom\(key)(at indexes: NSIndexSet)",
                "\(a)replace\(key)(at idx: Int, with value: \(element))",
                "\(a)replace\(key)(at indexes: NSIndexSet, with values: [\(element)])",
            ]
        }
        let collection = relationship.isOrdered ? "NSOrderedSet" : "NSSet"
        lines += [
            "\(a)addTo\(key)(_ value: \(element))",
            "\(a)removeFrom\(key)(_ value: \(element))",
            "\(a)addTo\(key)(_ values: \(collection))",
            "\(a)removeFrom\(key)(_ values: \(collection))",
        ]
        return """

            // MARK: Generated accessors for \(relationship.name)
            extension \(className) {

            \(lines.joined(separator: "\n\n"))

            }

            """
    }

    // MARK: Types and names

    /// The Swift type of a property's `@Managed` declaration.
    func swiftType(of property: NSPropertyDescription) -> String {
        switch property {
        case let relationship as NSRelationshipDescription:
            let base = relationship.isToMany
                ? (relationship.isOrdered ? "NSOrderedSet" : "NSSet")
                : relationship.destinationEntity.map(Self.className) ?? "NSManagedObject"
            return relationship.isOptional ? base + "?" : base
        case let fetched as NSFetchedPropertyDescription:
            let element = fetched.fetchRequest?.entity.map(Self.className) ?? "NSManagedObject"
            return "[\(element)]?"
        case let attribute as NSAttributeDescription:
            if let scalar = scalarType(of: attribute) { return scalar }
            let base: String
            switch attribute.attributeType {
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
                 .doubleAttributeType, .floatAttributeType, .booleanAttributeType:
                base = "NSNumber"
            case .decimalAttributeType: base = "Decimal"
            case .stringAttributeType: base = "String"
            case .dateAttributeType: base = "Date"
            case .binaryDataAttributeType: base = "Data"
            case .UUIDAttributeType: base = "UUID"
            case .URIAttributeType: base = "URL"
            case .objectIDAttributeType: base = "NSManagedObjectID"
            case .transformableAttributeType:
                base = attribute.attributeValueClassName.flatMap { $0.isEmpty ? nil : $0 } ?? "NSObject"
            case .undefinedAttributeType, .compositeAttributeType: base = "NSObject"
            }
            return attribute.isOptional ? base + "?" : base
        default:
            return "Any?"
        }
    }

    /// The scalar type of a number or Boolean attribute with "Use Scalar Type" set.
    private func scalarType(of attribute: NSAttributeDescription) -> String? {
        guard attribute.usesScalarValueType == true else { return nil }
        switch attribute.attributeType {
        case .integer16AttributeType: return "Int16"
        case .integer32AttributeType: return "Int32"
        case .integer64AttributeType: return "Int64"
        case .doubleAttributeType: return "Double"
        case .floatAttributeType: return "Float"
        case .booleanAttributeType: return "Bool"
        default: return nil
        }
    }

    /// The entity's class name without its module.
    static func className(_ entity: NSEntityDescription) -> String {
        let name = entity.managedObjectClassName ?? ""
        let plain = name.split(separator: ".").last.map(String.init) ?? ""
        return plain.isEmpty || plain == "NSManagedObject" ? (entity.name ?? "Entity") : plain
    }

    /// A property name as a Swift identifier (keywords in backticks).
    static func identifier(_ name: String) -> String {
        swiftKeywords.contains(name) ? "`\(name)`" : name
    }

    /// A Swift string literal.
    static func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private static let swiftKeywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self",
        "super", "throws", "true", "try",
    ]
}
