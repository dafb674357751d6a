/// Turns a model into the property-list tree of a compiled file (see ``CompiledModelFormat``).
struct CompiledModelEncoder {
    func encode(_ model: NSManagedObjectModel) throws -> [String: Any] {
        var root: [String: Any] = [
            "format": CompiledModelFormat.formatName,
            "formatVersion": CompiledModelFormat.formatVersion,
            "versionIdentifiers": try model.versionIdentifiers.map { try plistValue($0.base, context: "version identifier") },
            "entities": try model.entities.map(encode),
            "configurations": model.configurationEntityNames.map { ["name": $0.name, "entities": $0.entities] as [String: Any] },
            "fetchRequests": try model.fetchRequestTemplatesByName.keys.sorted().map { name in
                ["name": name, "request": try encode(model.fetchRequestTemplatesByName[name]!)] as [String: Any]
            },
        ]
        if let localization = model.localizationDictionary { root["localization"] = localization }
        return root
    }

    private func encode(_ entity: NSEntityDescription) throws -> [String: Any] {
        let context = "entity '\(entity.name ?? "")'"
        var result: [String: Any] = [
            "name": entity.name ?? "",
            "className": entity.managedObjectClassName ?? "NSManagedObject",
            "abstract": entity.isAbstract,
            "uniqueness": entity.uniquenessConstraintNames,
            "indexes": entity.indexes.map { index -> [String: Any] in
                var encoded: [String: Any] = [
                    "name": index.name,
                    "elements": index.elements.map {
                        ["property": $0.propertyName ?? "", "collation": Int($0.collationType.rawValue), "ascending": $0.isAscending] as [String: Any]
                    },
                ]
                if let partial = index.partialIndexPredicate { encoded["partial"] = partial.predicateFormat }
                return encoded
            },
            "properties": try entity.declaredProperties.map { try encode($0, context: context) },
        ]
        result["parent"] = entity.superentity?.name
        result["renamingIdentifier"] = entity.renamingIdentifier
        result["versionHashModifier"] = entity.versionHashModifier
        if let userInfo = entity.userInfo { result["userInfo"] = try plistValue(userInfo, context: context) }
        return result
    }

    private func encode(_ property: NSPropertyDescription, context entityContext: String) throws -> [String: Any] {
        let context = "property '\(property.name)' of \(entityContext)"
        var result: [String: Any] = [
            "name": property.name,
            "optional": property.isOptional,
            "transient": property.isTransient,
            "indexed": property.isIndexed,
            "spotlight": property.isIndexedBySpotlight,
            "externalRecord": property.isStoredInExternalRecord,
            "validation": try zip(property.validationPredicates, property.validationWarnings).map { predicate, warning in
                ["predicate": predicate.predicateFormat, "warning": try plistValue(warning, context: context)] as [String: Any]
            },
        ]
        result["renamingIdentifier"] = property.renamingIdentifier
        result["versionHashModifier"] = property.versionHashModifier
        if let userInfo = property.userInfo { result["userInfo"] = try plistValue(userInfo, context: context) }
        switch property {
        case let attribute as NSAttributeDescription:
            result["kind"] = attribute is NSDerivedAttributeDescription ? "derivedAttribute" : "attribute"
            result["type"] = Int(attribute.attributeType.rawValue)
            if attribute.attributeValueClassName != attribute.attributeType.defaultValueClassName {
                result["valueClassName"] = attribute.attributeValueClassName
            }
            if let value = attribute.defaultValue {
                result["default"] = try CompiledValue.encode(value, type: attribute.attributeType, context: context)
            }
            result["valueTransformerName"] = attribute.valueTransformerName
            result["externalStorage"] = attribute.allowsExternalBinaryDataStorage
            result["preservesValueInHistory"] = attribute.preservesValueInHistoryOnDeletion
            result["cloudEncryption"] = attribute.allowsCloudEncryption
            result["derivation"] = (attribute as? NSDerivedAttributeDescription)?.derivationExpression?.description
        case let relationship as NSRelationshipDescription:
            result["kind"] = "relationship"
            result["destination"] = relationship.destinationEntityName
            result["inverse"] = relationship.inverseName
            result["minCount"] = relationship.minCount
            result["maxCount"] = relationship.maxCount
            result["ordered"] = relationship.isOrdered
            result["deleteRule"] = Int(relationship.deleteRule.rawValue)
        case let fetched as NSFetchedPropertyDescription:
            result["kind"] = "fetchedProperty"
            if let request = fetched.fetchRequest { result["request"] = try encode(request) }
        case let expression as NSExpressionDescription:
            result["kind"] = "expression"
            result["expression"] = expression.expression?.description
            result["resultType"] = Int(expression.expressionResultType.rawValue)
        default:
            throw ManagedObjectModelError(.invalidValue, "unknown property class \(type(of: property))", element: context)
        }
        return result
    }

    private func encode(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> [String: Any] {
        var result: [String: Any] = [
            "entity": request.entityName ?? "",
            "fetchLimit": request.fetchLimit,
            "fetchOffset": request.fetchOffset,
            "fetchBatchSize": request.fetchBatchSize,
            "resultType": Int(request.resultType.rawValue),
            "distinct": request.returnsDistinctResults,
            "includesSubentities": request.includesSubentities,
            "includesPendingChanges": request.includesPendingChanges,
            "returnsObjectsAsFaults": request.returnsObjectsAsFaults,
            "includesPropertyValues": request.includesPropertyValues,
            "refreshRefetched": request.shouldRefreshRefetchedObjects,
        ]
        result["predicate"] = request.predicate?.predicateFormat
        if let descriptors = request.sortDescriptors {
            result["sortDescriptors"] = try descriptors.map { descriptor -> [String: Any] in
                guard let selector = descriptor.selector else {
                    throw ManagedObjectModelError(.invalidValue, "a comparator sort descriptor can't be stored in a compiled model",
                                                  element: "fetch request for '\(request.entityName ?? "")'")
                }
                var encoded: [String: Any] = ["ascending": descriptor.ascending, "selector": NSStringFromSelector(selector)]
                encoded["key"] = descriptor.key
                return encoded
            }
        }
        result["having"] = request.havingPredicate?.predicateFormat
        result["prefetching"] = request.relationshipKeyPathsForPrefetching
        result["propertiesToFetch"] = request.propertiesToFetch.map(FetchRequestSettings.names)
        result["propertiesToGroupBy"] = request.propertiesToGroupBy.map(FetchRequestSettings.names)
        return result
    }

    /// A user-info or identifier value as a property-list value.
    private func plistValue(_ value: Any, context: String) throws -> Any {
        switch value {
        case let dictionary as [AnyHashable: Any]:
            var result: [String: Any] = [:]
            for (key, item) in dictionary { result["\(key.base)"] = try plistValue(item, context: context) }
            return result
        case let array as [Any]:
            return try array.map { try plistValue($0, context: context) }
        case is String, is Bool, is Int, is Int16, is Int32, is Int64, is Double, is Float, is Date, is Data, is NSNumber:
            return value
        default:
            throw ManagedObjectModelError(.invalidValue, "a \(type(of: value)) can't be stored in a compiled model", element: context)
        }
    }
}

/// Rebuilds a model from the property-list tree of a compiled file.
struct CompiledModelDecoder {
    func decode(_ root: [String: Any]) throws -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        model.versionIdentifiers = Set((root["versionIdentifiers"] as? [Any] ?? []).compactMap { $0 as? AnyHashable })
        model.localizationDictionary = root["localization"] as? [String: String]
        let entityDictionaries = root["entities"] as? [[String: Any]] ?? []
        let entities = try entityDictionaries.map(decodeEntity)
        let byName = Dictionary(entities.compactMap { entity in entity.name.map { ($0, entity) } }, uniquingKeysWith: { a, _ in a })
        var children: [String: [NSEntityDescription]] = [:]
        var order: [String] = []
        for (dictionary, entity) in zip(entityDictionaries, entities) {
            guard let parent = dictionary["parent"] as? String else { continue }
            guard byName[parent] != nil else {
                throw ManagedObjectModelError(.missingReference, "parent entity '\(parent)' is not in the model",
                                              element: "entity '\(entity.name ?? "")'")
            }
            if children[parent] == nil { order.append(parent) }
            children[parent, default: []].append(entity)
        }
        // Ancestors first: an entity is linked after every entity above it. Depths are counted
        // once per entity through a dictionary (a cycle stops at the entity count; linking
        // then reports it).
        let parentOf = Dictionary(zip(entityDictionaries, entities).compactMap { dictionary, entity in
            (dictionary["parent"] as? String).flatMap { parent in entity.name.map { ($0, parent) } }
        }, uniquingKeysWith: { first, _ in first })
        var depths: [String: Int] = [:]
        for name in order {
            var count = 0
            var current = name
            while let parent = parentOf[current], count <= entities.count {
                count += 1
                current = parent
            }
            depths[name] = count
        }
        for parent in order.sorted(by: { depths[$0, default: 0] < depths[$1, default: 0] }) {
            guard let entity = byName[parent], let subs = children[parent] else { continue }
            try entity.setSubentities(subs)
        }
        model.entities = entities
        for configuration in root["configurations"] as? [[String: Any]] ?? [] {
            guard let name = configuration["name"] as? String else { continue }
            let members = (configuration["entities"] as? [String] ?? []).compactMap { byName[$0] }
            model.setEntities(members, forConfigurationName: name)
        }
        for template in root["fetchRequests"] as? [[String: Any]] ?? [] {
            guard let name = template["name"] as? String, let request = template["request"] as? [String: Any] else { continue }
            let decoded = try decodeRequest(request, context: "fetch request '\(name)'")
            decoded.resolveEntity(in: byName)
            model.setFetchRequestTemplate(decoded, forName: name)
        }
        try model.validateReferences()
        return model
    }

    private func decodeEntity(_ dictionary: [String: Any]) throws -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = dictionary["name"] as? String
        let context = "entity '\(entity.name ?? "")'"
        entity.managedObjectClassName = dictionary["className"] as? String ?? "NSManagedObject"
        entity.isAbstract = dictionary["abstract"] as? Bool ?? false
        entity.renamingIdentifier = dictionary["renamingIdentifier"] as? String
        entity.versionHashModifier = dictionary["versionHashModifier"] as? String
        entity.userInfo = dictionary["userInfo"] as? [String: Any]
        entity.uniquenessConstraints = (dictionary["uniqueness"] as? [[String]] ?? []).map { $0 as [Any] }
        entity.indexes = try (dictionary["indexes"] as? [[String: Any]] ?? []).map { index in
            let elements = try (index["elements"] as? [[String: Any]] ?? []).map { element in
                NSFetchIndexElementDescription(
                    propertyName: element["property"] as? String ?? "",
                    collationType: try enumeration(NSFetchIndexElementType.self, element, "collation", default: .binary,
                                                   context: "index '\(index["name"] as? String ?? "")' of \(context)"),
                    ascending: element["ascending"] as? Bool ?? true)
            }
            let description = NSFetchIndexDescription(name: index["name"] as? String ?? "", elements: elements)
            description.partialIndexPredicate = try (index["partial"] as? String).map { try predicate($0, context: context) }
            return description
        }
        try entity.setProperties((dictionary["properties"] as? [[String: Any]] ?? []).map { try decodeProperty($0, entity: context) })
        return entity
    }

    private func decodeProperty(_ dictionary: [String: Any], entity: String) throws -> NSPropertyDescription {
        let name = dictionary["name"] as? String ?? ""
        let context = "property '\(name)' of \(entity)"
        let property: NSPropertyDescription
        switch dictionary["kind"] as? String {
        case "attribute", "derivedAttribute":
            let attribute = dictionary["kind"] as? String == "derivedAttribute" ? NSDerivedAttributeDescription() : NSAttributeDescription()
            let type = try enumeration(NSAttributeType.self, dictionary, "type", default: nil, context: context)
            attribute.attributeType = type
            if let className = dictionary["valueClassName"] as? String { attribute.attributeValueClassName = className }
            if let value = dictionary["default"] { attribute.defaultValue = CompiledValue.decode(value, type: type) }
            attribute.valueTransformerName = dictionary["valueTransformerName"] as? String
            attribute.allowsExternalBinaryDataStorage = dictionary["externalStorage"] as? Bool ?? false
            attribute.preservesValueInHistoryOnDeletion = dictionary["preservesValueInHistory"] as? Bool ?? false
            attribute.allowsCloudEncryption = dictionary["cloudEncryption"] as? Bool ?? false
            if let derived = attribute as? NSDerivedAttributeDescription, let format = dictionary["derivation"] as? String {
                derived.derivationExpression = try expression(format, context: context)
            }
            property = attribute
        case "relationship":
            let relationship = NSRelationshipDescription()
            relationship.destinationEntityName = dictionary["destination"] as? String
            relationship.inverseName = dictionary["inverse"] as? String
            relationship.minCount = try count(dictionary, "minCount", default: 0, context: context)
            relationship.maxCount = try count(dictionary, "maxCount", default: 1, context: context)
            relationship.isOrdered = dictionary["ordered"] as? Bool ?? false
            relationship.deleteRule = try enumeration(NSDeleteRule.self, dictionary, "deleteRule", default: .nullifyDeleteRule, context: context)
            property = relationship
        case "fetchedProperty":
            let fetched = NSFetchedPropertyDescription()
            if let request = dictionary["request"] as? [String: Any] { fetched.fetchRequest = try decodeRequest(request, context: context) }
            property = fetched
        case "expression":
            let description = NSExpressionDescription()
            if let format = dictionary["expression"] as? String { description.expression = try expression(format, context: context) }
            description.expressionResultType = try enumeration(NSAttributeType.self, dictionary, "resultType", default: .undefinedAttributeType,
                                                               context: context)
            property = description
        default:
            throw ManagedObjectModelError(.invalidCompiledModel, "unknown property kind", element: context)
        }
        property.name = name
        property.isOptional = dictionary["optional"] as? Bool ?? true
        property.isTransient = dictionary["transient"] as? Bool ?? false
        property.isIndexed = dictionary["indexed"] as? Bool ?? false
        property.isIndexedBySpotlight = dictionary["spotlight"] as? Bool ?? false
        property.isStoredInExternalRecord = dictionary["externalRecord"] as? Bool ?? false
        property.renamingIdentifier = dictionary["renamingIdentifier"] as? String
        property.versionHashModifier = dictionary["versionHashModifier"] as? String
        property.userInfo = dictionary["userInfo"] as? [String: Any]
        let validation = dictionary["validation"] as? [[String: Any]] ?? []
        if !validation.isEmpty {
            let predicates = try validation.map { try predicate($0["predicate"] as? String ?? "", context: context) }
            property.setValidationPredicates(predicates, warnings: validation.map { $0["warning"] ?? "" })
        }
        return property
    }

    private func decodeRequest(_ dictionary: [String: Any], context: String) throws -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: dictionary["entity"] as? String ?? "")
        request.predicate = try (dictionary["predicate"] as? String).map { try predicate($0, context: context) }
        if let descriptors = dictionary["sortDescriptors"] as? [[String: Any]] {
            request.sortDescriptors = descriptors.map {
                NSSortDescriptor(key: $0["key"] as? String, ascending: $0["ascending"] as? Bool ?? true,
                                 selector: ($0["selector"] as? String).map(NSSelectorFromString))
            }
        }
        request.havingPredicate = try (dictionary["having"] as? String).map { try predicate($0, context: context) }
        request.fetchLimit = try count(dictionary, "fetchLimit", default: 0, context: context)
        request.fetchOffset = try count(dictionary, "fetchOffset", default: 0, context: context)
        request.fetchBatchSize = try count(dictionary, "fetchBatchSize", default: 0, context: context)
        let resultTypes: [NSFetchRequestResultType] = [.managedObjectResultType, .managedObjectIDResultType, .dictionaryResultType, .countResultType]
        let resultType = try count(dictionary, "resultType", default: 0, context: context)
        guard let known = resultTypes.first(where: { $0.rawValue == UInt(resultType) }) else {
            throw ManagedObjectModelError(.invalidCompiledModel, "resultType \(resultType) is not an NSFetchRequestResultType", element: context)
        }
        request.resultType = known
        request.returnsDistinctResults = dictionary["distinct"] as? Bool ?? false
        request.includesSubentities = dictionary["includesSubentities"] as? Bool ?? true
        request.includesPendingChanges = dictionary["includesPendingChanges"] as? Bool ?? true
        request.returnsObjectsAsFaults = dictionary["returnsObjectsAsFaults"] as? Bool ?? true
        request.includesPropertyValues = dictionary["includesPropertyValues"] as? Bool ?? true
        request.shouldRefreshRefetchedObjects = dictionary["refreshRefetched"] as? Bool ?? false
        request.relationshipKeyPathsForPrefetching = dictionary["prefetching"] as? [String]
        request.propertiesToFetch = dictionary["propertiesToFetch"] as? [String]
        request.propertiesToGroupBy = dictionary["propertiesToGroupBy"] as? [String]
        return request
    }

    /// The non-negative integer at `key` (`fallback` when absent). A negative or non-integer
    /// value is an error naming the element: the compiled file is corrupt.
    private func count(_ dictionary: [String: Any], _ key: String, default fallback: Int, context: String) throws -> Int {
        guard let raw = dictionary[key] else { return fallback }
        guard let value = raw as? Int, value >= 0 else {
            throw ManagedObjectModelError(.invalidCompiledModel, "\(key) \(raw) is not a non-negative integer", element: context)
        }
        return value
    }

    /// The enumeration case whose raw value is the integer at `key` (`fallback` when absent;
    /// an error when absent and there is no fallback). A negative, non-integer or unknown value
    /// is an error naming the element.
    private func enumeration<Value: RawRepresentable>(_ type: Value.Type, _ dictionary: [String: Any], _ key: String,
                                                      default fallback: Value?, context: String) throws -> Value where Value.RawValue == UInt {
        guard let raw = dictionary[key] else {
            if let fallback { return fallback }
            throw ManagedObjectModelError(.invalidCompiledModel, "\(key) is missing (an \(Value.self) is required)", element: context)
        }
        guard let number = raw as? Int, number >= 0, let value = Value(rawValue: UInt(number)) else {
            throw ManagedObjectModelError(.invalidCompiledModel, "\(key) \(raw) is not an \(Value.self)", element: context)
        }
        return value
    }

    private func predicate(_ format: String, context: String) throws -> NSPredicate {
        do {
            return try NSPredicate(validatingFormat: format, argumentArray: [])
        } catch {
            throw ManagedObjectModelError(.invalidCompiledModel, "the predicate does not parse: \(error)", element: context)
        }
    }

    private func expression(_ format: String, context: String) throws -> NSExpression {
        do {
            return try NSExpression(validatingFormat: format)
        } catch {
            throw ManagedObjectModelError(.invalidCompiledModel, "the expression does not parse: \(error)", element: context)
        }
    }
}

/// Attribute values (defaults) in the compiled format, stored by attribute type.
enum CompiledValue {
    static func encode(_ value: Any, type: NSAttributeType, context: String) throws -> Any {
        switch value {
        case let decimal as Decimal: return "\(decimal)"
        case let date as Date: return date.timeIntervalSinceReferenceDate
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case is String, is Bool, is Int, is Int16, is Int32, is Int64, is Double, is Float, is Data, is NSNumber: return value
        default:
            throw ManagedObjectModelError(.invalidValue, "a default value of type \(Swift.type(of: value)) can't be stored",
                                          element: context)
        }
    }

    static func decode(_ value: Any, type: NSAttributeType) -> Any? {
        switch type {
        case .integer16AttributeType: return (value as? NSNumber)?.int16Value
        case .integer32AttributeType: return (value as? NSNumber)?.int32Value
        case .integer64AttributeType: return (value as? NSNumber)?.int64Value
        case .doubleAttributeType: return (value as? NSNumber)?.doubleValue
        case .floatAttributeType: return (value as? NSNumber)?.floatValue
        case .booleanAttributeType: return (value as? NSNumber)?.boolValue
        case .decimalAttributeType: return (value as? String).flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
        case .dateAttributeType: return (value as? NSNumber).map { Date(timeIntervalSinceReferenceDate: $0.doubleValue) }
        case .UUIDAttributeType: return (value as? String).flatMap(UUID.init(uuidString:))
        case .URIAttributeType: return (value as? String).flatMap(URL.init(string:))
        default: return value
        }
    }
}
