import Foundation

extension SQLiteSchema {
    /// The schema of the entities a store of `model` holds for `configurationName` (all entities
    /// for `nil` or the default configuration), numbered by `numbering` (entity name → `Z_ENT`,
    /// a store's own numbering) or else by Apple's rule.
    package init(model: NSManagedObjectModel, configurationName: String? = nil, numbering: [String: Int64]? = nil) {
        self.init(entities: model.entities(forConfigurationName: configurationName) ?? model.entities, numbering: numbering)
    }

    /// The schema of `entities`. Entities outside the list are left out, and so are
    /// relationships to them. `numbering`, when given, names the `Z_ENT` of every entity.
    init(entities list: [NSEntityDescription], numbering: [String: Int64]? = nil) {
        let included = Set(list.compactMap(\.name))
        // Z_ENT numbering: roots alphabetically (case-insensitive), each followed depth-first by
        // its subentities.
        var ordered: [NSEntityDescription] = []
        func visit(_ entity: NSEntityDescription) {
            ordered.append(entity)
            for sub in entity.subentities.filter({ included.contains($0.name ?? "") }).sorted(by: Self.byName) { visit(sub) }
        }
        let roots = list.filter { entity in
            guard let parent = entity.superentity else { return true }
            return !included.contains(parent.name ?? "")
        }
        for root in roots.sorted(by: Self.byName) { visit(root) }

        var numbers: [String: Int64] = [:]
        if let numbering {
            for entity in ordered { numbers[entity.name ?? ""] = numbering[entity.name ?? ""] ?? 0 }
            ordered.sort { numbers[$0.name ?? ""] ?? 0 < numbers[$1.name ?? ""] ?? 0 }
        } else {
            for (index, entity) in ordered.enumerated() { numbers[entity.name ?? ""] = Int64(index + 1) }
        }
        func rootOf(_ entity: NSEntityDescription) -> NSEntityDescription {
            var current = entity
            while let parent = current.superentity, included.contains(parent.name ?? "") { current = parent }
            return current
        }
        func hasSubentities(_ name: String?) -> Bool {
            guard let name, let entity = ordered.first(where: { $0.name == name }) else { return false }
            return entity.subentities.contains { included.contains($0.name ?? "") }
        }
        func isStored(_ relationship: NSRelationshipDescription) -> Bool {
            !relationship.isTransient && included.contains(relationship.destinationEntity?.name ?? "")
        }
        /// The stored inverse of a stored relationship.
        func storedInverse(_ relationship: NSRelationshipDescription) -> NSRelationshipDescription? {
            relationship.inverseRelationship.flatMap { isStored($0) ? $0 : nil }
        }
        // To-many relationships without an inverse, by destination entity: keys in its table.
        var inverseless: [String: [(source: Int64, relationship: NSRelationshipDescription)]] = [:]
        for entity in ordered {
            for relationship in entity.declaredProperties.compactMap({ $0 as? NSRelationshipDescription })
            where relationship.isToMany && isStored(relationship) && storedInverse(relationship) == nil {
                inverseless[relationship.destinationEntity?.name ?? "", default: []].append((numbers[entity.name ?? ""] ?? 0, relationship))
            }
        }
        var destinationKeys: [String: [String: SQLToManyMapping]] = [:]  // declaring entity → relationship → mapping

        // Root tables, with the column names each declaring entity's properties get.
        var tables: [SQLTableMapping] = []
        var attributeColumns: [String: [String: SQLAttributeColumn]] = [:]   // declaring entity → attribute → column
        var foreignKeys: [String: [String: SQLForeignKey]] = [:]              // declaring entity → relationship → key
        for root in ordered where rootOf(root) === root {
            let tableName = Self.columnName(root.name ?? "")
            let hierarchy = ordered.filter { rootOf($0) === root }
            var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
            func unique(_ name: String) -> String {
                var candidate = name
                var counter = 1
                while used.contains(candidate) { candidate = name + String(counter); counter += 1 }
                used.insert(candidate)
                return candidate
            }
            var columns: [SQLColumnDefinition] = []
            var indexes: [SQLIndexDefinition] = []
            for group in 0..<4 {
                for entity in hierarchy {
                    let entityName = entity.name ?? ""
                    let attributes = entity.declaredProperties.compactMap { $0 as? NSAttributeDescription }
                        .filter { !$0.isTransient }
                        .compactMap { attribute in Self.columnType(of: attribute.attributeType).map { (attribute, $0) } }
                        .filter { Self.group(of: $0.1) == group }
                        .sorted { $0.0.name < $1.0.name }
                    for (attribute, type) in attributes {
                        let column = unique(Self.columnName(attribute.name))
                        columns.append(SQLColumnDefinition(name: column, type: type))
                        attributeColumns[entityName, default: [:]][attribute.name] =
                            SQLAttributeColumn(attributeName: attribute.name, column: column, type: type, attributeType: attribute.attributeType,
                                               valueTransformerName: attribute.valueTransformerName,
                                               storesExternally: attribute.storesBinaryDataExternally)
                    }
                    guard group == 0 else { continue }
                    let toOne = entity.declaredProperties.compactMap { $0 as? NSRelationshipDescription }
                        .filter { !$0.isToMany && isStored($0) }
                        .sorted { $0.name < $1.name }
                    for relationship in toOne {
                        let column = unique(Self.columnName(relationship.name))
                        columns.append(SQLColumnDefinition(name: column, type: .integer))
                        var entityColumn: String?
                        let destination = relationship.destinationEntity?.name ?? ""
                        if hasSubentities(destination), let number = numbers[destination] {
                            entityColumn = unique("Z\(number)_\(relationship.name.uppercased())")
                            columns.append(SQLColumnDefinition(name: entityColumn!, type: .integer))
                        }
                        var orderColumn: String?
                        if let inverse = relationship.inverseRelationship, inverse.isToMany, inverse.isOrdered {
                            orderColumn = unique("Z_FOK_\(relationship.name.uppercased())")
                            columns.append(SQLColumnDefinition(name: orderColumn!, type: .integer))
                        }
                        foreignKeys[entityName, default: [:]][relationship.name] = SQLForeignKey(
                            relationshipName: relationship.name, column: column, entityColumn: entityColumn,
                            orderColumn: orderColumn, destinationName: destination)
                        indexes.append(SQLIndexDefinition(name: "\(tableName)_\(column)_INDEX", table: tableName, terms: [column], isUnique: false))
                    }
                    let incoming = (inverseless[entityName] ?? []).sorted { ($0.source, $0.relationship.name) < ($1.source, $1.relationship.name) }
                    for (source, relationship) in incoming {
                        let name = "\(source)\(relationship.name.uppercased())"
                        let column = unique("Z" + name)
                        columns.append(SQLColumnDefinition(name: column, type: .integer))
                        var orderColumn: String?
                        if relationship.isOrdered {
                            orderColumn = unique("Z_FOK_" + name)
                            columns.append(SQLColumnDefinition(name: orderColumn!, type: .integer))
                        }
                        destinationKeys[relationship.entity.name ?? "", default: [:]][relationship.name] =
                            .destinationKey(table: tableName, column: column, orderColumn: orderColumn, destinationName: entityName)
                        indexes.append(SQLIndexDefinition(name: "\(tableName)_\(column)_INDEX", table: tableName, terms: [column], isUnique: false))
                    }
                }
            }
            if hierarchy.count > 1 {
                indexes.append(SQLIndexDefinition(name: "\(tableName)_Z_ENT_INDEX", table: tableName, terms: ["Z_ENT"], isUnique: false))
            }
            // Indexed attributes, fetch indexes and uniqueness constraints, per entity.
            for entity in hierarchy {
                let entityName = entity.name ?? ""
                func column(of property: String) -> String? {
                    var current: NSEntityDescription? = entity
                    while let candidate = current {
                        let name = candidate.name ?? ""
                        if let attribute = attributeColumns[name]?[property] { return attribute.column }
                        if let key = foreignKeys[name]?[property] { return key.column }
                        current = candidate.superentity
                    }
                    return nil
                }
                for attribute in entity.declaredProperties where attribute.isIndexed && !attribute.isTransient {
                    if let column = column(of: attribute.name) {
                        indexes.append(SQLIndexDefinition(name: "\(tableName)_\(column)_INDEX", table: tableName, terms: [column], isUnique: false))
                    }
                }
                for index in entity.indexes {
                    let terms = index.elements.compactMap { element -> String? in
                        guard let property = element.propertyName, let column = column(of: property) else { return nil }
                        return "\(column) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")"
                    }
                    guard !terms.isEmpty, terms.count == index.elements.count,
                          index.elements.allSatisfy({ $0.collationType == .binary }) else { continue }
                    indexes.append(SQLIndexDefinition(name: "Z_\(entityName)_\(index.name)", table: tableName, terms: terms, isUnique: false))
                }
                for constraint in entity.uniquenessConstraints {
                    let names = constraint.compactMap { item -> String? in
                        if let name = item as? String { return name }
                        return (item as? NSPropertyDescription)?.name
                    }
                    let terms = names.compactMap { column(of: $0).map { "\($0) COLLATE BINARY ASC" } }
                    guard !terms.isEmpty, terms.count == names.count else { continue }
                    indexes.append(SQLIndexDefinition(name: "Z_\(entityName)_UNIQUE_\(names.joined(separator: "_"))",
                                                      table: tableName, terms: terms, isUnique: true))
                }
            }
            tables.append(SQLTableMapping(name: tableName, rootEntityName: root.name ?? "", columns: columns, indexes: indexes))
        }

        // Join tables for many-to-many relationships.
        var joinTables: [SQLJoinTableMapping] = []
        var joinMappings: [String: [String: SQLToManyMapping]] = [:]  // declaring entity → relationship → mapping
        var usedJoinColumns: Set<String> = []
        func uniqueJoinColumn(_ name: String) -> String {
            var candidate = name
            var counter = 1
            while usedJoinColumns.contains(candidate) { candidate = name + String(counter); counter += 1 }
            usedJoinColumns.insert(candidate)
            return candidate
        }
        for entity in ordered {
            let entityName = entity.name ?? ""
            let toMany = entity.declaredProperties.compactMap { $0 as? NSRelationshipDescription }
                .filter { $0.isToMany && isStored($0) }
                .sorted { $0.name < $1.name }
            for relationship in toMany {
                guard let inverse = storedInverse(relationship), inverse.isToMany else { continue }  // stored by a key
                if joinMappings[entityName]?[relationship.name] != nil { continue }  // done from the other side
                let ownerNumber = numbers[entityName] ?? 0
                let inverseEntity = inverse.entity?.name ?? ""
                let inverseNumber = numbers[inverseEntity] ?? 0
                if (inverseNumber, inverse.name) < (ownerNumber, relationship.name) { continue }  // the inverse owns it
                let destinationNumber = numbers[relationship.destinationEntity?.name ?? ""] ?? 0
                let tableName = "Z_\(ownerNumber)\(relationship.name.uppercased())"
                let firstBase = "Z_\(ownerNumber)\(inverse.name.uppercased())"
                let secondBase = "Z_\(destinationNumber)\(relationship.name.uppercased())"
                let table = SQLJoinTableMapping(
                    name: tableName, firstColumn: uniqueJoinColumn(firstBase), secondColumn: uniqueJoinColumn(secondBase),
                    firstIsOrdered: inverse.isOrdered, secondIsOrdered: relationship.isOrdered,
                    alternativeName: "Z_\(inverseNumber)\(inverse.name.uppercased())",
                    firstBaseName: firstBase, secondBaseName: secondBase)
                joinTables.append(table)
                let ownerOrder = relationship.isOrdered ? SQLJoinTableMapping.orderColumn(of: table.secondColumn) : nil
                let inverseOrder = inverse.isOrdered ? SQLJoinTableMapping.orderColumn(of: table.firstColumn) : nil
                joinMappings[entityName, default: [:]][relationship.name] =
                    .joinTable(name: tableName, sourceColumn: table.firstColumn, destinationColumn: table.secondColumn, orderColumn: ownerOrder)
                joinMappings[inverseEntity, default: [:]][inverse.name] =
                    .joinTable(name: tableName, sourceColumn: table.secondColumn, destinationColumn: table.firstColumn, orderColumn: inverseOrder)
            }
        }

        // Per-entity mappings, inherited properties included.
        var mappings: [SQLEntityMapping] = []
        for entity in ordered {
            let name = entity.name ?? ""
            let root = rootOf(entity)
            var lineage: [NSEntityDescription] = []
            var current: NSEntityDescription? = entity
            while let candidate = current, included.contains(candidate.name ?? "") { lineage.insert(candidate, at: 0); current = candidate.superentity }
            var attributes: [String: SQLAttributeColumn] = [:]
            var toOne: [String: SQLForeignKey] = [:]
            var toMany: [String: SQLToManyMapping] = [:]
            for ancestor in lineage {
                let ancestorName = ancestor.name ?? ""
                attributes.merge(attributeColumns[ancestorName] ?? [:]) { _, new in new }
                toOne.merge(foreignKeys[ancestorName] ?? [:]) { _, new in new }
                toMany.merge(joinMappings[ancestorName] ?? [:]) { _, new in new }
                toMany.merge(destinationKeys[ancestorName] ?? [:]) { _, new in new }
                for relationship in ancestor.declaredProperties.compactMap({ $0 as? NSRelationshipDescription })
                where relationship.isToMany && isStored(relationship) {
                    guard let inverse = relationship.inverseRelationship, !inverse.isToMany,
                          let inverseEntity = inverse.entity?.name,
                          let key = foreignKeys[inverseEntity]?[inverse.name] else { continue }
                    let destinationTable = Self.columnName(rootOf(inverse.entity).name ?? "")
                    toMany[relationship.name] = .inverseForeignKey(
                        table: destinationTable, column: key.column,
                        orderColumn: relationship.isOrdered ? key.orderColumn : nil,
                        destinationName: relationship.destinationEntity?.name ?? "")
                }
            }
            let kinds = ordered.filter { $0.isKindOf(entity: entity) && rootOf($0) === root }.compactMap { numbers[$0.name ?? ""] }
            mappings.append(SQLEntityMapping(
                name: name, number: numbers[name] ?? 0,
                superNumber: entity.superentity.flatMap { included.contains($0.name ?? "") ? numbers[$0.name ?? ""] : nil } ?? 0,
                rootName: root.name ?? "", rootNumber: numbers[root.name ?? ""] ?? 0,
                tableName: Self.columnName(root.name ?? ""), kindNumbers: kinds.sorted(),
                attributes: attributes, toOne: toOne, toMany: toMany))
        }
        self.init(entities: mappings, tables: tables, joinTables: joinTables)
    }

    /// `Z` + the uppercased name: the table of a root entity, the column of a property.
    static func columnName(_ name: String) -> String { "Z" + name.uppercased() }

    /// The storage class of an attribute type; `nil` for types that get no column
    /// (undefined, composite). Object-ID attributes hold the ID's URI as text: Apple's SQLite
    /// store does not persist them, so there is no Apple layout to follow.
    static func columnType(of type: NSAttributeType) -> SQLColumnType? {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType: return .integer
        case .decimalAttributeType: return .decimal
        case .doubleAttributeType, .floatAttributeType: return .float
        case .dateAttributeType: return .timestamp
        case .stringAttributeType, .URIAttributeType, .objectIDAttributeType: return .varchar
        case .binaryDataAttributeType, .UUIDAttributeType, .transformableAttributeType: return .blob
        case .undefinedAttributeType, .compositeAttributeType: return nil
        }
    }

    /// Apple's column groups, in table order: integers, floating values, strings, blobs.
    static func group(of type: SQLColumnType) -> Int {
        switch type {
        case .integer: return 0
        case .decimal, .float, .timestamp: return 1
        case .varchar: return 2
        case .blob: return 3
        }
    }

    /// Apple's entity order: case-insensitive (`SyncableSettingsMetadata` before
    /// `SyncFeatureEntity`), names equal but for case by bytes.
    static func byName(_ lhs: NSEntityDescription, _ rhs: NSEntityDescription) -> Bool {
        let left = lhs.name ?? "", right = rhs.name ?? ""
        let foldedLeft = left.lowercased(), foldedRight = right.lowercased()
        if foldedLeft != foldedRight { return Array(foldedLeft.utf8).lexicographicallyPrecedes(Array(foldedRight.utf8)) }
        return Array(left.utf8).lexicographicallyPrecedes(Array(right.utf8))
    }
}
