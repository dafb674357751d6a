import Foundation

/// Turns the archived properties of one entity of a `.mom` into property descriptions.
///
/// Core Data's coding of a property: `NSPropertyName`, `NSEntity`, `NSRenamingIdentifier`,
/// `NSUserInfo`, `NSVersionHashModifier`, `NSValidationPredicates`, `NSValidationWarnings`, and
/// flags both as Booleans (`NSIsOptional`, `NSIsTransient`, `NSIsOrdered`, …) and packed in `_P`
/// (2 optional, 4 read-only, 8 transient, 0x100 Spotlight, 0x200 external record, 0x400 ordered,
/// 0x800 cloud encryption). Attributes add `NSAttributeType`, `NSAttributeValueClassName`,
/// `NSDefaultValue`, `NSValueTransformerName`, `NSIsIndexed` and `NSFlagsKey` (1 has a maximum
/// in `NSMaxValueName`, 2 has a minimum in `NSMinValueName`, 4 external storage, 0x10 preserved
/// in history); relationships `NSDestinationEntity` (or `_NSDestinationEntityName`),
/// `NSInverseRelationship` (or `_NSInverseRelationshipName`), `NSMinCount`, `NSMaxCount`,
/// `NSDeleteRule`; fetched properties `NSFetchRequest`; derived attributes
/// `NSDerivationExpression`.
struct MomPropertyDecoder {
    let file: URL
    let entityName: String

    /// Reads an archived fetch request: its node, the element for errors, a fallback entity name.
    typealias FetchRequestReader = (KeyedArchive.Node, String, String?) throws -> NSFetchRequest<NSFetchRequestResult>

    func property(_ node: KeyedArchive.Node, key: String, fetchRequest: FetchRequestReader) throws -> NSPropertyDescription {
        let name = node["NSPropertyName"]?.string ?? key
        let element = "property '\(name)' of entity '\(entityName)'"
        let classes = node.classNames
        let property: NSPropertyDescription
        if classes.contains("NSDerivedAttributeDescription") {
            let derived = NSDerivedAttributeDescription()
            try fillAttribute(derived, node, element: element)
            if let expression = node["NSDerivationExpression"] {
                derived.derivationExpression = try AppleArchivedPredicate(file: file, element: element).expression(expression)
            }
            property = derived
        } else if classes.contains("NSAttributeDescription") {
            let attribute = NSAttributeDescription()
            try fillAttribute(attribute, node, element: element)
            property = attribute
        } else if classes.contains("NSRelationshipDescription") {
            let relationship = NSRelationshipDescription()
            fillRelationship(relationship, node)
            property = relationship
        } else if classes.contains("NSFetchedPropertyDescription") {
            let fetched = NSFetchedPropertyDescription()
            if let request = node["NSFetchRequest"] {
                fetched.fetchRequest = try fetchRequest(request, "fetched property '\(name)' of entity '\(entityName)'",
                                                        node["_NSFetchRequestEntityName"]?.string)
            }
            property = fetched
        } else {
            throw ManagedObjectModelError(.invalidCompiledModel,
                "unsupported property class \(node.className ?? "(none)")", file: file, element: element)
        }
        property.name = name
        try fillCommon(property, node, element: element)
        return property
    }

    // MARK: Common settings

    private func fillCommon(_ property: NSPropertyDescription, _ node: KeyedArchive.Node, element: String) throws {
        let packed = node["_P"]?.integer ?? 0
        property.isOptional = node["NSIsOptional"]?.bool ?? (packed & 0x2 != 0)
        property.isTransient = node["NSIsTransient"]?.bool ?? (packed & 0x8 != 0)
        property.isIndexedBySpotlight = node["NSIndexedBySpotlight"]?.bool ?? (packed & 0x100 != 0)
        property.isStoredInExternalRecord = node["NSIsStoredInTruth"]?.bool ?? (packed & 0x200 != 0)
        if node["NSIsIndexed"]?.bool == true { property.isIndexed = true }
        property.userInfo = MomValues.userInfo(node["NSUserInfo"])
        if let renaming = node["NSRenamingIdentifier"]?.string, renaming != property.name {
            property.renamingIdentifier = renaming
        }
        property.versionHashModifier = MomValues.nonEmpty(node["NSVersionHashModifier"]?.string)

        let predicates = AppleArchivedPredicate(file: file, element: element)
        let archived = try (node["NSValidationPredicates"]?.elements ?? []).map(predicates.predicate)
        let warnings: [Any] = (node["NSValidationWarnings"]?.elements ?? []).compactMap { warning in
            if let string = warning.string { return string }
            if let code = warning.integer { return Int(code) }
            return nil
        }
        var allPredicates = archived
        var allWarnings = warnings
        if let attribute = property as? NSAttributeDescription {
            let bounds = try constraintPredicates(attribute, node, element: element)
            allPredicates = bounds.predicates + archived
            allWarnings = bounds.warnings + warnings
        }
        guard allPredicates.count == allWarnings.count else {
            throw ManagedObjectModelError(.invalidCompiledModel,
                "\(allPredicates.count) validation predicates but \(allWarnings.count) warnings", file: file, element: element)
        }
        if !allPredicates.isEmpty { property.setValidationPredicates(allPredicates, warnings: allWarnings) }
    }

    // MARK: Attributes

    private func fillAttribute(_ attribute: NSAttributeDescription, _ node: KeyedArchive.Node, element: String) throws {
        let rawType = node["NSAttributeType"]?.integer ?? 0
        guard let type = NSAttributeType(rawValue: UInt(clamping: rawType)) else {
            throw ManagedObjectModelError(.invalidValue, "unknown attribute type \(rawType)", file: file, element: element)
        }
        attribute.attributeType = type
        if let className = node["NSAttributeValueClassName"]?.string, className != type.defaultValueClassName {
            attribute.attributeValueClassName = className
        }
        attribute.valueTransformerName = node["NSValueTransformerName"]?.string
        let flags = node["NSFlagsKey"]?.integer ?? 0
        attribute.allowsExternalBinaryDataStorage = flags & 0x4 != 0
        attribute.preservesValueInHistoryOnDeletion = flags & 0x10 != 0
        let packed = node["_P"]?.integer ?? 0
        attribute.allowsCloudEncryption = node["NSAllowsCloudEncryption"]?.bool ?? (packed & 0x800 != 0)
        if let value = node["NSDefaultValue"], !(attribute is NSDerivedAttributeDescription) {
            attribute.defaultValue = MomValues.defaultValue(value, type: type)
        }
    }

    /// The minimum and maximum (`NSFlagsKey` bits 2 and 1) as Core Data's validation predicates.
    private func constraintPredicates(_ attribute: NSAttributeDescription, _ node: KeyedArchive.Node,
                                      element: String) throws -> (predicates: [NSPredicate], warnings: [Any]) {
        let flags = node["NSFlagsKey"]?.integer ?? 0
        let integral: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType,
                                              .integer64AttributeType, .stringAttributeType,
                                              .binaryDataAttributeType, .URIAttributeType]
        func bound(_ key: String, present: Bool) -> String? {
            guard present, let value = node[key] else { return nil }
            if integral.contains(attribute.attributeType), let integer = value.integer { return String(integer) }
            return value.real.map { String($0) }
        }
        let minimum = bound("NSMinValueName", present: flags & 0x2 != 0)
        let maximum = bound("NSMaxValueName", present: flags & 0x1 != 0)
        guard minimum != nil || maximum != nil else { return ([], []) }
        let result = NSAttributeDescription.constraintPredicates(type: attribute.attributeType, minimum: minimum,
                                                                 maximum: maximum, regularExpression: nil)
        if let invalid = result.invalid.first {
            throw ManagedObjectModelError(.invalidValue, "the bound \(invalid) does not fit the attribute's type",
                                          file: file, element: element)
        }
        return (result.predicates, result.warnings)
    }

    // MARK: Relationships

    private func fillRelationship(_ relationship: NSRelationshipDescription, _ node: KeyedArchive.Node) {
        relationship.destinationEntityName = node["NSDestinationEntity"]?["NSEntityName"]?.string
            ?? node["_NSDestinationEntityName"]?.string
        relationship.inverseName = node["NSInverseRelationship"]?["NSPropertyName"]?.string
            ?? node["_NSInverseRelationshipName"]?.string
        relationship.minCount = Int(node["NSMinCount"]?.integer ?? 0)
        relationship.maxCount = Int(node["NSMaxCount"]?.integer ?? 0)
        let rule = node["NSDeleteRule"]?.integer ?? Int64(NSDeleteRule.nullifyDeleteRule.rawValue)
        relationship.deleteRule = NSDeleteRule(rawValue: UInt(clamping: rule)) ?? .nullifyDeleteRule
        let packed = node["_P"]?.integer ?? 0
        relationship.isOrdered = node["NSIsOrdered"]?.bool ?? (packed & 0x400 != 0)
    }
}

/// Conversions of archived values into the values the model holds.
enum MomValues {
    /// User info as the model holds it: `nil` when empty, as the Xcode model reader gives it.
    static func userInfo(_ node: KeyedArchive.Node?) -> [AnyHashable: Any]? {
        guard let entries = node?.stringKeyedEntries, !entries.isEmpty else { return nil }
        var info: [AnyHashable: Any] = [:]
        for (key, value) in entries { info[key] = value.propertyListValue }
        return info
    }

    static func nonEmpty(_ string: String?) -> String? {
        guard let string, !string.isEmpty else { return nil }
        return string
    }

    /// An archived default value as the Swift type Core Data bridges the attribute type to.
    static func defaultValue(_ node: KeyedArchive.Node, type: NSAttributeType) -> Any? {
        switch type {
        case .integer16AttributeType: return node.integer.flatMap { Int16(exactly: $0) }
        case .integer32AttributeType: return node.integer.flatMap { Int32(exactly: $0) }
        case .integer64AttributeType: return node.integer
        case .decimalAttributeType: return decimal(node)
        case .doubleAttributeType: return node.real
        case .floatAttributeType: return node.real.map { Float($0) }
        case .stringAttributeType: return node.string
        case .booleanAttributeType: return node.bool
        case .dateAttributeType: return node.date ?? node.real.map { Date(timeIntervalSinceReferenceDate: $0) }
        case .binaryDataAttributeType: return node.data
        case .UUIDAttributeType:
            if let bytes = node["NS.uuidbytes"]?.data ?? node.data, bytes.count == 16 {
                let b = [UInt8](bytes)
                return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                                   b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
            }
            return node.string.flatMap(UUID.init(uuidString:))
        case .URIAttributeType:
            if let relative = node["NS.relative"]?.string {
                return URL(string: relative, relativeTo: node["NS.base"]?.string.flatMap { URL(string: $0) })
            }
            return node.string.flatMap { URL(string: $0) }
        case .transformableAttributeType, .objectIDAttributeType, .undefinedAttributeType, .compositeAttributeType:
            return node.propertyListValue
        }
    }

    /// An archived `NSDecimalNumber` (`NS.mantissa` little-endian bytes, `NS.exponent`,
    /// `NS.negative`), or a plain number.
    static func decimal(_ node: KeyedArchive.Node) -> Decimal? {
        if let mantissa = node["NS.mantissa"]?.data {
            var magnitude = Decimal(0)
            for byte in mantissa.reversed() { magnitude = magnitude * 256 + Decimal(Int(byte)) }
            let exponent = Int(max(-128, min(127, node["NS.exponent"]?.integer ?? 0)))
            var value = Decimal(sign: .plus, exponent: exponent, significand: magnitude)
            if node["NS.negative"]?.bool == true { value.negate() }
            return value
        }
        if let integer = node.integer { return Decimal(integer) }
        if let real = node.real { return Decimal(string: String(real)) }
        return node.string.flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
    }
}
