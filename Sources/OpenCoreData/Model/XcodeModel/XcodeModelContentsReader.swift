#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the `contents` XML file of one Xcode model version (`V.xcdatamodel/contents`), in
/// every form Xcode has written since Xcode 4.
///
/// Every element and attribute of the format is read (see DESIGN.md, decision 7). Unknown
/// elements and attributes are ignored, because Xcode adds new ones every year; `elements`
/// (diagram layout) is ignored on purpose. Errors name the file and the element.
struct XcodeModelContentsReader {
    /// The file being read, for error messages.
    let file: URL

    /// Reads the model in `data`.
    func read(_ data: Data) throws -> NSManagedObjectModel {
        let document: XMLDocument
        do {
            document = try XMLDocumentInput.document(from: data)
        } catch {
            throw ManagedObjectModelError(.malformedXML, error.description, file: file)
        }
        guard let root = document.rootElement() else {
            throw ManagedObjectModelError(.malformedXML, "the file has no root element", file: file)
        }
        guard root.name == "model" else {
            throw ManagedObjectModelError(.malformedXML, "the root element is <\(root.name ?? "")>, not <model>",
                                          file: file, element: root.name)
        }
        do {
            return try readModel(root)
        } catch let error as ManagedObjectModelError {
            throw error.located(in: file)
        }
    }

    private func readModel(_ root: XMLElement) throws -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        if let identifier = root.string("userDefinedModelVersionIdentifier"), !identifier.isEmpty {
            model.versionIdentifiers = [identifier]
        }
        var entities: [NSEntityDescription] = []
        var parents: [(entity: NSEntityDescription, parent: String)] = []
        for element in root.childElements(named: "entity") {
            let entity = try readEntity(element)
            entities.append(entity)
            if let parent = element.string("parentEntity"), !parent.isEmpty { parents.append((entity, parent)) }
        }
        let byName = Dictionary(entities.compactMap { entity in entity.name.map { ($0, entity) } }, uniquingKeysWith: { a, _ in a })
        var children: [String: [NSEntityDescription]] = [:]
        var parentOrder: [String] = []
        for (entity, parentName) in parents {
            guard byName[parentName] != nil else {
                throw ManagedObjectModelError(.missingReference, "parent entity '\(parentName)' is not in the model",
                                              element: "entity '\(entity.name ?? "")'")
            }
            if children[parentName] == nil { parentOrder.append(parentName) }
            children[parentName, default: []].append(entity)
        }
        // Link ancestors before descendants, so that override checks see whole chains.
        // Iterative (a deep inheritance chain must not exhaust the stack) and by dictionary (a
        // long list of entities must not cost the square of its length).
        var linked = Set<String>()
        let parentOf = Dictionary(parents.compactMap { pair in pair.entity.name.map { ($0, pair.parent) } },
                                  uniquingKeysWith: { first, _ in first })
        for name in parentOrder where !linked.contains(name) {
            var chain: [String] = []
            var current: String? = name
            while let next = current, !linked.contains(next), children[next] != nil {
                linked.insert(next)
                chain.append(next)
                current = parentOf[next]
            }
            for ancestorFirst in chain.reversed() {
                guard let entity = byName[ancestorFirst], let subs = children[ancestorFirst] else { continue }
                try entity.setSubentities(subs)
            }
        }
        model.entities = entities

        for element in root.childElements(named: "fetchRequest") {
            let name = try element.required("name", in: "fetchRequest")
            model.setFetchRequestTemplate(try readFetchRequest(element, element: "fetch request '\(name)'"), forName: name)
        }
        for element in root.childElements(named: "configuration") {
            let name = try element.required("name", in: "configuration")
            var members: [NSEntityDescription] = []
            for member in element.childElements(named: "memberEntity") {
                let entityName = try member.required("name", in: "memberEntity of configuration '\(name)'")
                guard let entity = byName[entityName] else {
                    throw ManagedObjectModelError(.missingReference, "member entity '\(entityName)' is not in the model",
                                                  element: "configuration '\(name)'")
                }
                members.append(entity)
            }
            model.setEntities(members, forConfigurationName: name)
        }
        for (_, template) in model.fetchRequestTemplatesByName {
            template.resolveEntity(in: byName)
        }
        try model.validateReferences()
        return model
    }

    private func readEntity(_ element: XMLElement) throws -> NSEntityDescription {
        let name = try element.required("name", in: "entity")
        let context = "entity '\(name)'"
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = element.string("representedClassName").flatMap { $0.isEmpty ? nil : $0 } ?? "NSManagedObject"
        entity.isAbstract = element.bool("isAbstract")
        entity.codeGenerationType = element.string("codeGenerationType").flatMap { $0.isEmpty ? nil : $0 }
        entity.renamingIdentifier = element.string("elementID")
        entity.versionHashModifier = element.string("versionHashModifier")
        entity.userInfo = readUserInfo(element)

        var properties: [NSPropertyDescription] = []
        for child in element.children?.compactMap({ $0 as? XMLElement }) ?? [] {
            switch child.name {
            case "attribute": properties.append(try readAttribute(child, entity: name))
            case "relationship": properties.append(try readRelationship(child, entity: name))
            case "fetchedProperty": properties.append(try readFetchedProperty(child, entity: name))
            default: continue
            }
        }
        try entity.setProperties(properties)

        for constraints in element.childElements(named: "uniquenessConstraints") {
            for constraint in constraints.childElements(named: "uniquenessConstraint") {
                let names = constraint.childElements(named: "constraint").compactMap { $0.string("value") }
                if !names.isEmpty { entity.uniquenessConstraints.append(names) }
            }
        }
        var indexes: [NSFetchIndexDescription] = []
        for index in element.childElements(named: "fetchIndex") {
            let indexName = try index.required("name", in: "fetchIndex of \(context)")
            let elements = index.childElements(named: "fetchIndexElement").compactMap { item -> NSFetchIndexElementDescription? in
                guard let property = item.string("property") else { return nil }
                let type: NSFetchIndexElementType = item.string("type")?.lowercased() == "rtree" ? .rTree : .binary
                return NSFetchIndexElementDescription(propertyName: property, collationType: type,
                                                      ascending: item.string("order")?.lowercased() != "descending")
            }
            indexes.append(NSFetchIndexDescription(name: indexName, elements: elements))
        }
        entity.indexes = indexes
        return entity
    }

    /// The settings every kind of property shares.
    private func readCommon(_ element: XMLElement, into property: NSPropertyDescription) {
        property.isOptional = element.bool("optional")
        property.isTransient = element.bool("transient")
        property.isIndexed = element.bool("indexed")
        property.isIndexedBySpotlight = element.bool("spotlightIndexingEnabled")
        property.isStoredInExternalRecord = element.bool("storedInTruthFile")
        property.renamingIdentifier = element.string("elementID")
        property.versionHashModifier = element.string("versionHashModifier")
        property.userInfo = readUserInfo(element)
    }

    private func readAttribute(_ element: XMLElement, entity: String) throws -> NSAttributeDescription {
        let name = try element.required("name", in: "attribute of entity '\(entity)'")
        let context = "attribute '\(name)' of entity '\(entity)'"
        let typeName = element.string("attributeType") ?? "Undefined"
        guard let type = NSAttributeType(xcodeName: typeName) else {
            throw ManagedObjectModelError(.invalidValue, "unknown attribute type '\(typeName)'", element: context)
        }
        let attribute: NSAttributeDescription
        if element.bool("derived") || element.string("derivationExpression") != nil {
            let derived = NSDerivedAttributeDescription()
            if let format = element.string("derivationExpression"), !format.isEmpty {
                do {
                    derived.derivationExpression = try NSExpression(validatingFormat: format)
                } catch {
                    throw ManagedObjectModelError(.invalidValue, "the derivation expression does not parse: \(error)", element: context)
                }
            }
            attribute = derived
        } else {
            attribute = NSAttributeDescription()
        }
        attribute.name = name
        readCommon(element, into: attribute)
        attribute.attributeType = type
        if let className = element.string("customClassName"), !className.isEmpty { attribute.attributeValueClassName = className }
        attribute.valueTransformerName = element.string("valueTransformerName")
        attribute.allowsExternalBinaryDataStorage = element.bool("allowsExternalBinaryDataStorage")
        attribute.preservesValueInHistoryOnDeletion = element.bool("preserveAfterDeletion")
        attribute.allowsCloudEncryption = element.bool("allowsCloudEncryption")
        attribute.usesScalarValueType = element.optionalBool("usesScalarValueType")
        if type == .dateAttributeType, let interval = element.string("defaultDateTimeInterval") {
            attribute.defaultValue = type.value(fromModelString: interval)
        } else if let string = element.string("defaultValueString") {
            attribute.defaultValue = type.value(fromModelString: string)
        }
        // Xcode writes date bounds as `minDateTimeInterval`/`maxDateTimeInterval` (older
        // versions as `minValueString`/`maxValueString`), in seconds since 2001 either way.
        // A bound that does not fit the type (old Xcode kept stale bounds after a type change)
        // is skipped rather than refusing the whole model.
        let constraints = NSAttributeDescription.constraintPredicates(
            type: type,
            minimum: element.string("minDateTimeInterval") ?? element.string("minValueString"),
            maximum: element.string("maxDateTimeInterval") ?? element.string("maxValueString"),
            regularExpression: element.string("regularExpressionString"))
        if !constraints.predicates.isEmpty {
            attribute.setValidationPredicates(constraints.predicates, warnings: constraints.warnings)
        }
        return attribute
    }

    private func readRelationship(_ element: XMLElement, entity: String) throws -> NSRelationshipDescription {
        let name = try element.required("name", in: "relationship of entity '\(entity)'")
        let relationship = NSRelationshipDescription()
        relationship.name = name
        readCommon(element, into: relationship)
        let toMany = element.bool("toMany")
        relationship.maxCount = element.int("maxCount") ?? (toMany ? 0 : 1)
        relationship.minCount = element.int("minCount") ?? 0
        relationship.isOrdered = element.bool("ordered")
        if let rule = element.string("deletionRule") {
            guard let deleteRule = NSDeleteRule(xcodeName: rule) else {
                throw ManagedObjectModelError(.invalidValue, "unknown deletion rule '\(rule)'",
                                              element: "relationship '\(name)' of entity '\(entity)'")
            }
            relationship.deleteRule = deleteRule
        }
        relationship.destinationEntityName = element.string("destinationEntity")
        relationship.inverseName = element.string("inverseName").flatMap { $0.isEmpty ? nil : $0 }
        if let inverseEntity = element.string("inverseEntity"), let destination = relationship.destinationEntityName,
           inverseEntity != destination, relationship.inverseName != nil {
            throw ManagedObjectModelError(.missingReference,
                                          "inverse entity '\(inverseEntity)' is not the destination entity '\(destination)'",
                                          element: "relationship '\(name)' of entity '\(entity)'")
        }
        return relationship
    }

    private func readFetchedProperty(_ element: XMLElement, entity: String) throws -> NSFetchedPropertyDescription {
        let name = try element.required("name", in: "fetchedProperty of entity '\(entity)'")
        let fetched = NSFetchedPropertyDescription()
        fetched.name = name
        readCommon(element, into: fetched)
        if let request = element.childElements(named: "fetchRequest").first {
            fetched.fetchRequest = try readFetchRequest(request, element: "fetched property '\(name)' of entity '\(entity)'")
        }
        return fetched
    }

    /// A `fetchRequest` element: a model template or a fetched property's request.
    private func readFetchRequest(_ element: XMLElement, element context: String) throws -> NSFetchRequest<NSFetchRequestResult> {
        guard let entityName = element.string("entity"), !entityName.isEmpty else {
            throw ManagedObjectModelError(.missingReference, "the fetch request names no entity", element: context)
        }
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
        if let format = element.string("predicateString"), !format.isEmpty {
            do {
                request.predicate = try NSPredicate(validatingFormat: format, argumentArray: [])
            } catch {
                throw ManagedObjectModelError(.invalidValue, "the predicate does not parse: \(error)", element: context)
            }
        }
        request.fetchLimit = element.int("fetchLimit") ?? 0
        request.fetchBatchSize = element.int("fetchBatchSize") ?? 0
        if let value = element.optionalBool("includeSubentities") ?? element.optionalBool("includesSubentities") {
            request.includesSubentities = value
        }
        if let value = element.optionalBool("includePendingChanges") ?? element.optionalBool("includesPendingChanges") {
            request.includesPendingChanges = value
        }
        if let value = element.optionalBool("includePropertyValues") ?? element.optionalBool("includesPropertyValues") {
            request.includesPropertyValues = value
        }
        if let value = element.optionalBool("returnObjectsAsFaults") ?? element.optionalBool("returnsObjectsAsFaults") {
            request.returnsObjectsAsFaults = value
        }
        if let value = element.optionalBool("returnDistinctResults") ?? element.optionalBool("returnsDistinctResults") {
            request.returnsDistinctResults = value
        }
        if let paths = element.string("relationshipKeyPathsForPrefetching"), !paths.isEmpty {
            request.relationshipKeyPathsForPrefetching = paths.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return request
    }

    private func readUserInfo(_ element: XMLElement) -> [AnyHashable: Any]? {
        guard let userInfo = element.childElements(named: "userInfo").first else { return nil }
        var result: [AnyHashable: Any] = [:]
        for entry in userInfo.childElements(named: "entry") {
            if let key = entry.string("key") { result[key] = entry.string("value") ?? "" }
        }
        return result
    }
}

extension XMLElement {
    func childElements(named name: String) -> [XMLElement] {
        (children ?? []).compactMap { $0 as? XMLElement }.filter { $0.name == name }
    }

    func string(_ attribute: String) -> String? {
        self.attribute(forName: attribute)?.stringValue
    }

    func required(_ attribute: String, in context: String) throws -> String {
        guard let value = string(attribute), !value.isEmpty else {
            throw ManagedObjectModelError(.invalidValue, "the '\(attribute)' attribute is missing", element: context)
        }
        return value
    }

    /// Xcode writes `YES`/`NO`; absent means `NO`.
    func bool(_ attribute: String) -> Bool {
        optionalBool(attribute) ?? false
    }

    func optionalBool(_ attribute: String) -> Bool? {
        guard let value = string(attribute)?.lowercased() else { return nil }
        return value == "yes" || value == "true" || value == "1"
    }

    func int(_ attribute: String) -> Int? {
        string(attribute).flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }
}
