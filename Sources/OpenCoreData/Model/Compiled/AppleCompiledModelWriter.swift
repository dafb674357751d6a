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
/// Differs from momc: predicates and expressions (validation rules other than an attribute's
/// minimum and maximum, fetch request templates, fetched properties, derived attributes,
/// partial indexes) are not written yet; a model with one is refused with a
/// ``ManagedObjectModelError`` naming it, rather than compiled without it. No `.omo`
/// (optimized) file is written: Core Data reads the `.mom` when there is none.
struct AppleCompiledModelWriter {
    private typealias Value = BinaryPropertyListWriter.Value

    private var archive = KeyedArchiveWriter(allowedClassNames: nil)
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
        if let name = model.fetchRequestTemplatesByName.keys.sorted().first {
            throw unsupported("fetch request template '\(name)'", element: nil)
        }
        modelIndex = archive.reserveObject()
        let entities = try dictionary(model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
            .map { entity in (entity.name ?? "", { (writer: inout Self) in try writer.entity(entity) }) })
        let identifiers = try set(model.versionIdentifiers.map(\.base))
        var fields: [(String, Value)] = [
            ("NSEntities", .uid(entities)),
            ("NSFetchRequestTemplates", .uid(0)),
            ("NSVersionIdentifiers", .uid(identifiers)),
        ]
        let configurations = model.configurations.filter { $0 != "PF_DEFAULT_CONFIGURATION_NAME" }.sorted()
        if !configurations.isEmpty {
            let index = try dictionary(configurations.map { name in
                (name, { (writer: inout Self) in
                    let members = (writer.model.entities(forConfigurationName: name) ?? []).compactMap(\.name).sorted()
                    return try writer.set(members)
                })
            })
            fields.append(("NSConfigurations", .uid(index)))
        }
        archive.finishObject(at: modelIndex, classes: ["NSManagedObjectModel", "NSObject"], fields: fields)
        return modelIndex
    }

    // MARK: Entities

    private mutating func entity(_ entity: NSEntityDescription) throws -> Int {
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
        if index.partialIndexPredicate != nil { throw unsupported("its partial index predicate", element: element) }
        let object = archive.reserveObject()
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
            ("NSPartialIndexPredicate", .uid(0)),
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
        let classes: [String]
        switch property {
        case is NSDerivedAttributeDescription:
            throw unsupported("its derivation expression", element: element)
        case let attribute as NSAttributeDescription:
            if attribute.allowsCloudEncryption { packed |= 0x800 }
            fields += try attributeFields(attribute, element: element)
            classes = ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
        case let relationship as NSRelationshipDescription:
            guard property.validationPredicates.isEmpty else { throw unsupported("its validation predicates", element: element) }
            if relationship.isOrdered { packed |= 0x400 }
            fields += try relationshipFields(relationship)
            classes = ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"]
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
        // Minimum and maximum are the only validation rules written (as momc writes them).
        for (predicate, _) in zip(attribute.validationPredicates, attribute.validationWarnings) {
            guard let bound = Self.bound(predicate) else {
                throw unsupported("its validation predicate \(predicate.predicateFormat)", element: element)
            }
            flags |= bound.isMinimum ? 0x2 : 0x1
            fields.append((bound.isMinimum ? "NSMinValueName" : "NSMaxValueName", .uid(archive.inline(bound.value))))
        }
        fields.append(("NSFlagsKey", .integer(flags)))
        return fields
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

    private func unsupported(_ what: String, element: String?) -> ManagedObjectModelError {
        ManagedObjectModelError(.invalidValue, "can't be written in Apple's compiled format yet: \(what)", element: element)
    }
}
