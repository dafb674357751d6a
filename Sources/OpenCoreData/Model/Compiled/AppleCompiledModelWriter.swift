import Foundation

/// Writes a model in Apple's compiled format: the `NSKeyedArchiver` archive momc writes as a
/// `.mom` file, which ``AppleCompiledModelReader`` (and Apple's Core Data) reads.
///
/// The archive holds Core Data's classes with the keys momc writes for them (see
/// ``MomPropertyDecoder`` for the property keys): `NSManagedObjectModel` (`NSEntities`,
/// `NSFetchRequestTemplates`, `NSVersionIdentifiers`, `NSConfigurations`),
/// `NSEntityDescription` (`NSEntityName`, `NSClassNameForEntity`, `NSRenamingIdentifier`,
/// `NSVersionHashModifier`, `NSUserInfo`, `NSManagedObjectModel`, `NSSuperentity`,
/// `NSSubentities`, `NSProperties`, `NSIsAbstract`, `NSUniqueTuples`,
/// `NSFetchIndexDescriptions`, `NSCompoundIndexes`), `NSAttributeDescription`,
/// `NSRelationshipDescription`, `NSFetchIndexDescription` and
/// `NSFetchIndexElementDescription`, with Foundation's collections
/// (`NSMutableDictionary`, `NSMutableArray`, `NSSet`) and values around them.
///
/// Predicates, expressions and fetch requests (validation rules, fetch request templates,
/// fetched properties, derived attributes, partial indexes) are archived as Foundation archives
/// them (`AppleCompiledModelWriter+Predicates.swift`).
///
/// Differs from momc: the few predicate forms models never hold (blocks, custom selectors, index
/// symbols, `FETCH`) are refused with a ``ManagedObjectModelError`` naming them, rather than
/// compiled without them. No `.omo` (optimized) file is written: Core Data reads the `.mom` when
/// there is none. The predicate archives follow Foundation's classes and keys as read back by
/// ``AppleArchivedPredicate``; no momc-written fixture holds one to compare byte layouts with.
struct AppleCompiledModelWriter {
    typealias Value = BinaryPropertyListWriter.Value

    var archive = KeyedArchiveWriter(allowedClassNames: nil)
    private var entityIndexes: [ObjectIdentifier: Int] = [:]
    private var propertyIndexes: [ObjectIdentifier: Int] = [:]
    private let model: NSManagedObjectModel
    private var modelIndex = 0

    private init(model: NSManagedObjectModel) { self.model = model }

    /// The `.mom` bytes of `model`.
    static func data(for model: NSManagedObjectModel) throws -> Data {
        var writer = AppleCompiledModelWriter(model: model)
        let root = try writer.encodeModel()
        return writer.archive.archiveData(root: root)
    }

    // MARK: Model

    private mutating func encodeModel() throws -> Int {
        modelIndex = archive.reserveObject()
        let entities = try dictionary(model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
            .map { entity in (entity.name ?? "", { (writer: inout Self) in try writer.entity(entity) }) })
        let identifiers = try set(model.versionIdentifiers.map(\.base))
        let templates = model.fetchRequestTemplatesByName.sorted { $0.key < $1.key }
        let templateIndex = templates.isEmpty ? 0 : try dictionary(templates.map { name, request in
            (name, { (writer: inout Self) in try writer.fetchRequest(request, element: "fetch request '\(name)'") })
        })
        var fields: [(String, Value)] = [
            ("NSEntities", .uid(entities)),
            ("NSFetchRequestTemplates", .uid(templateIndex)),
            ("NSVersionIdentifiers", .uid(identifiers)),
        ]
        let configurations = model.configurations.filter { $0 != "PF_DEFAULT_CONFIGURATION_NAME" }.sorted()
        if !configurations.isEmpty {
            let index = try dictionary(configurations.map { name in
                (name, { (writer: inout Self) in
                    let members = (writer.model.entities(forConfigurationName: name) ?? []).sorted { ($0.name ?? "") < ($1.name ?? "") }
                    let index = writer.archive.reserveObject()
                    var values: [Value] = []
                    for member in members { values.append(.uid(try writer.entity(member))) }
                    writer.archive.finishObject(at: index, classes: ["NSSet", "NSObject"], fields: [("NS.objects", .array(values))])
                    return index
                })
            })
            fields.append(("NSConfigurations", .uid(index)))
        }
        archive.finishObject(at: modelIndex, classes: ["NSManagedObjectModel", "NSObject"], fields: fields)
        return modelIndex
    }

    // MARK: Entities

    mutating func entity(_ entity: NSEntityDescription) throws -> Int {
        if let index = entityIndexes[ObjectIdentifier(entity)] { return index }
        let index = archive.reserveObject()
        entityIndexes[ObjectIdentifier(entity)] = index
        let name = entity.name ?? ""
        var fields: [(String, Value)] = [
            ("NSEntityName", .uid(string(name))),
            ("NSClassNameForEntity", .uid(string(entity.managedObjectClassName ?? "NSManagedObject"))),
            ("NSRenamingIdentifier", .uid(string(entity.renamingIdentifier ?? name))),
            ("NSVersionHashModifier", .uid(entity.versionHashModifier.map { string($0) } ?? 0)),
            ("NSManagedObjectModel", .uid(modelIndex)),
            ("NSSuperentity", .uid(try entity.superentity.map { try self.entity($0) } ?? 0)),
        ]
        fields.append(("NSSubentities", .uid(try dictionary(entity.subentities.map { sub in
            (sub.name ?? "", { (writer: inout Self) in try writer.entity(sub) })
        }))))
        fields.append(("NSProperties", .uid(try dictionary(entity.declaredProperties.map { property in
            (property.name, { (writer: inout Self) in try writer.property(property) })
        }))))
        fields.append(("NSUserInfo", .uid(try userInfo(entity.userInfo, always: true))))
        if entity.isAbstract { fields.append(("NSIsAbstract", .bool(true))) }
        if !entity.uniquenessConstraints.isEmpty {
            let tuples = entity.uniquenessConstraints.map { tuple in
                tuple.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name }
            }
            fields.append(("NSUniqueTuples", .uid(try nameLists(tuples))))
        }
        if !entity.indexes.isEmpty {
            fields.append(("NSFetchIndexDescriptions", .uid(try array(entity.indexes.map { index in
                { (writer: inout Self) in try writer.fetchIndex(index, entity: entity) }
            }, classes: Self.mutableArray))))
            fields.append(("NSCompoundIndexes", .uid(try nameLists(entity.indexes.map { $0.elements.compactMap(\.propertyName) }))))
        }
        archive.finishObject(at: index, classes: ["NSEntityDescription", "NSObject"], fields: fields)
        return index
    }

    private mutating func fetchIndex(_ index: NSFetchIndexDescription, entity: NSEntityDescription) throws -> Int {
        let element = "fetch index '\(index.name)' of entity '\(entity.name ?? "")'"
        let object = archive.reserveObject()
        let partial = try index.partialIndexPredicate.map { try predicate($0, element: element) } ?? 0
        let name = string(index.name)
        let elements = try array(index.elements.map { item in
            { (writer: inout Self) in
                let itemIndex = writer.archive.reserveObject()
                writer.archive.finishObject(at: itemIndex, classes: ["NSFetchIndexElementDescription", "NSObject"], fields: [
                    ("NSPropertyName", .uid(writer.string(item.propertyName ?? ""))),
                    ("NSFetchIndexElementType", .integer(Int64(item.collationType.rawValue))),
                    ("NSFetchIndexDescription", .uid(object)),
                    ("NSAscending", .bool(item.isAscending)),
                ])
                return itemIndex
            }
        }, classes: ["NSArray", "NSObject"])
        archive.finishObject(at: object, classes: ["NSFetchIndexDescription", "NSObject"], fields: [
            ("NSIndexName", .uid(name)),
            ("NSPartialIndexPredicate", .uid(partial)),
            ("NSIndexElements", .uid(elements)),
            ("NSEntity", .uid(try self.entity(entity))),
        ])
        return object
    }

    // MARK: Properties

    private mutating func property(_ property: NSPropertyDescription) throws -> Int {
        if let index = propertyIndexes[ObjectIdentifier(property)] { return index }
        let element = "property '\(property.name)' of entity '\(property.entity?.name ?? "")'"
        let index = archive.reserveObject()
        propertyIndexes[ObjectIdentifier(property)] = index
        var packed: Int64 = 0xF1
        if property.isOptional { packed |= 0x2 }
        if property.isTransient { packed |= 0x8 }
        if property.isIndexedBySpotlight { packed |= 0x100 }
        if property.isStoredInExternalRecord { packed |= 0x200 }
        var fields: [(String, Value)] = [
            ("NSPropertyName", .uid(string(property.name))),
            ("NSEntity", .uid(try property.entity.map { try entity($0) } ?? 0)),
            ("NSRenamingIdentifier", .uid(string(property.renamingIdentifier ?? property.name))),
        ]
        if property.isOptional { fields.append(("NSIsOptional", .bool(true))) }
        if property.isTransient { fields.append(("NSIsTransient", .bool(true))) }
        if property.isIndexed { fields.append(("NSIsIndexed", .bool(true))) }
        if let modifier = property.versionHashModifier { fields.append(("NSVersionHashModifier", .uid(string(modifier)))) }
        if let info = property.userInfo, !info.isEmpty { fields.append(("NSUserInfo", .uid(try userInfo(info, always: true)))) }
        var classes: [String]
        switch property {
        case let attribute as NSAttributeDescription:
            if attribute.allowsCloudEncryption { packed |= 0x800 }
            fields += try attributeFields(attribute, element: element)
            classes = ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
            if let derived = attribute as? NSDerivedAttributeDescription {
                if let expression = derived.derivationExpression {
                    fields.append(("NSDerivationExpression", .uid(try self.expression(expression, element: element))))
                }
                classes = ["NSDerivedAttributeDescription"] + classes
            }
        case let relationship as NSRelationshipDescription:
            if relationship.isOrdered { packed |= 0x400 }
            fields += try relationshipFields(relationship)
            fields += try validationFields(property.validationPredicates, warnings: property.validationWarnings, element: element)
            classes = ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"]
        case let fetched as NSFetchedPropertyDescription:
            if let request = fetched.fetchRequest {
                fields.append(("NSFetchRequest", .uid(try fetchRequest(request, element: element))))
                if let name = request.entityName { fields.append(("_NSFetchRequestEntityName", .uid(string(name)))) }
            }
            classes = ["NSFetchedPropertyDescription", "NSPropertyDescription", "NSObject"]
        default:
            throw unsupported("a \(type(of: property))", element: element)
        }
        fields.append(("_P", .integer(packed)))
        archive.finishObject(at: index, classes: classes, fields: fields)
        return index
    }

    private mutating func attributeFields(_ attribute: NSAttributeDescription, element: String) throws -> [(String, Value)] {
        var flags: Int64 = 0
        if attribute.allowsExternalBinaryDataStorage { flags |= 0x4 }
        if attribute.preservesValueInHistoryOnDeletion { flags |= 0x10 }
        var fields: [(String, Value)] = [
            ("NSAttributeType", .integer(Int64(attribute.attributeType.rawValue))),
            ("NSAttributeValueClassName", .uid(attribute.attributeValueClassName.map { string($0) } ?? 0)),
            ("NSValueTransformerName", .uid(attribute.valueTransformerName.map { string($0) } ?? 0)),
            ("NSDefaultValue", .uid(try attribute.defaultValue.map { try defaultValue($0) } ?? 0)),
        ]
        // Minimum and maximum go in NSFlagsKey, as momc writes them; other rules as predicates.
        var others: [(NSPredicate, Any)] = []
        for (predicate, warning) in zip(attribute.validationPredicates, attribute.validationWarnings) {
            guard let bound = Self.bound(predicate) else {
                others.append((predicate, warning))
                continue
            }
            flags |= bound.isMinimum ? 0x2 : 0x1
            fields.append((bound.isMinimum ? "NSMinValueName" : "NSMaxValueName", .uid(archive.inline(bound.value))))
        }
        fields.append(("NSFlagsKey", .integer(flags)))
        fields += try validationFields(others.map(\.0), warnings: others.map(\.1), element: element)
        return fields
    }

    /// `NSValidationPredicates` and `NSValidationWarnings` (nothing when there are no rules).
    private mutating func validationFields(_ predicates: [NSPredicate], warnings: [Any], element: String) throws -> [(String, Value)] {
        guard !predicates.isEmpty else { return [] }
        let predicateList = archive.reserveObject()
        var members: [Value] = []
        for predicate in predicates { members.append(.uid(try self.predicate(predicate, element: element))) }
        archive.finishObject(at: predicateList, classes: ["NSArray", "NSObject"], fields: [("NS.objects", .array(members))])
        let warningList = archive.reserveObject()
        var texts: [Value] = []
        for warning in warnings { texts.append(.uid(try archive.encode(warning, depth: 0))) }
        archive.finishObject(at: warningList, classes: ["NSArray", "NSObject"], fields: [("NS.objects", .array(texts))])
        return [("NSValidationPredicates", .uid(predicateList)), ("NSValidationWarnings", .uid(warningList))]
    }

    /// A default value as Apple archives it: a `Decimal` as an `NSDecimalNumber` (its mantissa as
    /// 16 little-endian bytes), anything else as ``KeyedArchiveWriter`` archives it.
    private mutating func defaultValue(_ value: Any) throws -> Int {
        guard let decimal = value as? Decimal else { return try archive.encode(value, depth: 0) }
        // The mantissa from the significand's decimal digits (Decimal's fields are not public
        // on Linux), as 8 little-endian 16-bit words.
        var bytes = [UInt8](repeating: 0, count: 16)
        for digit in "\(decimal.significand)".compactMap(\.wholeNumberValue) {
            var carry = digit
            for i in bytes.indices {
                let value = Int(bytes[i]) * 10 + carry
                bytes[i] = UInt8(value & 0xFF)
                carry = value >> 8
            }
        }
        let length = (bytes.lastIndex { $0 != 0 }).map { $0 / 2 + 1 } ?? 0
        let index = archive.reserveObject()
        archive.finishObject(at: index, classes: ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"], fields: [
            ("NS.exponent", .integer(Int64(decimal.exponent))),
            ("NS.length", .integer(Int64(length))),
            ("NS.negative", .bool(decimal.sign == .minus && !decimal.isZero)),
            ("NS.compact", .bool(true)),
            ("NS.mantissa.bo", .integer(1)),
            ("NS.mantissa", .data(Data(bytes))),
        ])
        return index
    }

    /// A predicate Xcode's minimum or maximum makes (`SELF >= 3`, `length <= 10`), as its bound.
    private static func bound(_ predicate: NSPredicate) -> (isMinimum: Bool, value: Value)? {
        guard let comparison = predicate as? NSComparisonPredicate, comparison.comparisonPredicateModifier == .direct,
              comparison.options.isEmpty else { return nil }
        let isMinimum: Bool
        switch comparison.predicateOperatorType {
        case .greaterThanOrEqualTo: isMinimum = true
        case .lessThanOrEqualTo: isMinimum = false
        default: return nil
        }
        switch comparison.leftExpression.node {
        case .evaluatedObject: break
        case .keyPath("length"): break
        default: return nil
        }
        guard case .constant(let constant) = comparison.rightExpression.node else { return nil }
        switch constant {
        case let date as Date: return (isMinimum, .real(date.timeIntervalSinceReferenceDate))
        case let value?:
            switch NumericValue(value) {
            case .integer(let integer)?: return (isMinimum, .integer(integer))
            case .double(let double)?: return (isMinimum, .real(double))
            default: return nil
            }
        case nil: return nil
        }
    }

    private mutating func relationshipFields(_ relationship: NSRelationshipDescription) throws -> [(String, Value)] {
        let destination = try relationship.destinationEntity.map { try entity($0) } ?? 0
        let inverse = try relationship.inverseRelationship.map { try property($0) } ?? 0
        return [
            ("NSDestinationEntity", .uid(destination)),
            ("_NSDestinationEntityName", .uid(relationship.destinationEntity?.name.map { string($0) } ?? 0)),
            ("NSInverseRelationship", .uid(inverse)),
            ("_NSInverseRelationshipName", .uid(relationship.inverseRelationship.map { string($0.name) } ?? 0)),
            ("NSDeleteRule", .integer(Int64(relationship.deleteRule.rawValue))),
            ("NSMinCount", .integer(Int64(relationship.minCount))),
            ("NSMaxCount", .integer(Int64(relationship.maxCount))),
        ]
    }

    // MARK: Collections and values

    private static let mutableDictionary = ["NSMutableDictionary", "NSDictionary", "NSObject"]
    private static let mutableArray = ["NSMutableArray", "NSArray", "NSObject"]

    private mutating func string(_ text: String) -> Int { archive.inline(.string(text)) }

    /// An `NSMutableDictionary` of string keys: the dictionary first, its keys, then its values.
    private mutating func dictionary(_ entries: [(String, (inout Self) throws -> Int)]) throws -> Int {
        let index = archive.reserveObject()
        let keys = entries.map { Value.uid(string($0.0)) }
        var values: [Value] = []
        for (_, encode) in entries { values.append(.uid(try encode(&self))) }
        archive.finishObject(at: index, classes: Self.mutableDictionary, fields: [("NS.keys", .array(keys)), ("NS.objects", .array(values))])
        return index
    }

    private mutating func array(_ items: [(inout Self) throws -> Int], classes: [String]) throws -> Int {
        let index = archive.reserveObject()
        var values: [Value] = []
        for encode in items { values.append(.uid(try encode(&self))) }
        archive.finishObject(at: index, classes: classes, fields: [("NS.objects", .array(values))])
        return index
    }

    /// An `NSMutableArray` of `NSMutableArray`s of property names (uniqueness constraints, compound indexes).
    private mutating func nameLists(_ lists: [[String]]) throws -> Int {
        try array(lists.map { names in
            { (writer: inout Self) in try writer.array(names.map { name in { (w: inout Self) in w.string(name) } }, classes: Self.mutableArray) }
        }, classes: Self.mutableArray)
    }

    private mutating func set(_ members: [Any]) throws -> Int {
        let index = archive.reserveObject()
        var values: [Value] = []
        for member in members { values.append(.uid(try archive.encode(member, depth: 0))) }
        archive.finishObject(at: index, classes: ["NSSet", "NSObject"], fields: [("NS.objects", .array(values))])
        return index
    }

    /// User info as an `NSDictionary` (an empty one when `always` and there is none).
    private mutating func userInfo(_ info: [AnyHashable: Any]?, always: Bool) throws -> Int {
        let entries = (info ?? [:]).sorted { "\($0.key)" < "\($1.key)" }
        let index = archive.reserveObject()
        let keys = try entries.map { Value.uid(try archive.encode($0.key.base, depth: 0)) }
        let values = try entries.map { Value.uid(try archive.encode($0.value, depth: 0)) }
        archive.finishObject(at: index, classes: ["NSDictionary", "NSObject"], fields: [("NS.keys", .array(keys)), ("NS.objects", .array(values))])
        return index
    }

    func unsupported(_ what: String, element: String?) -> ManagedObjectModelError {
        ManagedObjectModelError(.invalidValue, "can't be written in Apple's compiled format yet: \(what)", element: element)
    }
}
