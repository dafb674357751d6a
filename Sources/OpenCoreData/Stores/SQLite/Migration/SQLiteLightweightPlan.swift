import Foundation
import GRDB

/// What ``SQLiteStore/migrateInPlace(at:options:configurationName:sourceModel:destinationModel:mapping:progress:)`` did.
enum SQLiteInPlaceMigrationResult: Sendable, Equatable {
    /// Why a mapping can't run in SQL in place.
    struct Reason: Error, Sendable, Equatable, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The store was migrated and now holds the destination model's schema and metadata.
    case migrated
    /// The mapping is not lightweight-shaped for the SQL path; the store is untouched (byte for
    /// byte) and the caller migrates through the migration manager instead.
    case notApplicable(Reason)
}

/// A lightweight migration of one SQLite store, planned: the store's schema under the source
/// model (its own names, ``SQLiteSchema/reconciled(model:configurationName:catalog:)``), the
/// destination model's schema numbered by Apple's rule, and which source rows become which
/// destination rows. ``SQLiteLightweightMigration+Statements.swift`` turns it into SQL.
///
/// Rows keep their primary keys, so a destination table may take rows from one source table
/// only (rows of two tables could share keys): a mapping that merges two tables is not
/// lightweight-shaped here.
struct SQLiteLightweightMigration {
    let source: SQLiteSchema
    let destination: SQLiteSchema
    let sourceModel: NSManagedObjectModel
    let destinationModel: NSManagedObjectModel
    let catalog: SQLiteStoreCatalog
    /// The entity links of the mapping, each with its source and destination numbers.
    let links: [Link]
    /// Source `Z_ENT` → destination `Z_ENT` of the entity its rows become.
    let destinationNumberOfSource: [Int64: Int64]
    /// Destination table → the source table its rows come from.
    let feedingTable: [String: String]

    struct Link {
        let view: SQLiteLightweightMappingView.EntityLink
        let source: SQLEntityMapping
        let destination: SQLEntityMapping
        let sourceEntity: NSEntityDescription
        let destinationEntity: NSEntityDescription
    }

    typealias Reason = SQLiteInPlaceMigrationResult.Reason

    /// The plan, or why the mapping does not fit the SQL path.
    static func plan(catalog: SQLiteStoreCatalog, configurationName: String?, sourceModel: NSManagedObjectModel,
                     destinationModel: NSManagedObjectModel, view: SQLiteLightweightMappingView) -> Result<Self, Reason> {
        let source: SQLiteSchema
        do {
            source = try SQLiteSchema.reconciled(model: sourceModel, configurationName: configurationName, catalog: catalog)
        } catch {
            return .failure(Reason("the store does not have the source model's schema: \(error)"))
        }
        let destination = SQLiteSchema(model: destinationModel, configurationName: configurationName)
        let sourceEntities = entitiesByName(sourceModel, configurationName)
        let destinationEntities = entitiesByName(destinationModel, configurationName)

        var links: [Link] = []
        var numbers: [Int64: Int64] = [:]
        var feeding: [String: String] = [:]
        var linkedDestinations: Set<String> = []
        for entityLink in view.links {
            let name = entityLink.mappingName
            guard let sourceMapping = source.entity(named: entityLink.sourceEntity), let sourceEntity = sourceEntities[entityLink.sourceEntity] else {
                return .failure(Reason("entity mapping '\(name)' names the source entity '\(entityLink.sourceEntity)' the store does not hold"))
            }
            guard let destinationMapping = destination.entity(named: entityLink.destinationEntity),
                  let destinationEntity = destinationEntities[entityLink.destinationEntity] else {
                return .failure(Reason("entity mapping '\(name)' names the destination entity '\(entityLink.destinationEntity)' the destination model lacks"))
            }
            guard numbers[sourceMapping.number] == nil, linkedDestinations.insert(destinationMapping.name).inserted else {
                return .failure(Reason("entity mapping '\(name)' maps an entity another mapping maps too"))
            }
            if let other = feeding[destinationMapping.tableName], other != sourceMapping.tableName {
                return .failure(Reason("table \(destinationMapping.tableName) would take rows of tables \(other) and \(sourceMapping.tableName), whose primary keys may collide"))
            }
            feeding[destinationMapping.tableName] = sourceMapping.tableName
            numbers[sourceMapping.number] = destinationMapping.number
            let link = Link(view: entityLink, source: sourceMapping, destination: destinationMapping,
                            sourceEntity: sourceEntity, destinationEntity: destinationEntity)
            if let reason = checkProperties(of: link) { return .failure(reason) }
            links.append(link)
        }
        return .success(SQLiteLightweightMigration(
            source: source, destination: destination, sourceModel: sourceModel, destinationModel: destinationModel,
            catalog: catalog, links: links, destinationNumberOfSource: numbers, feedingTable: feeding))
    }

    private static func entitiesByName(_ model: NSManagedObjectModel, _ configurationName: String?) -> [String: NSEntityDescription] {
        Dictionary((model.entities(forConfigurationName: configurationName) ?? model.entities).compactMap { entity in entity.name.map { ($0, entity) } },
                   uniquingKeysWith: { first, _ in first })
    }

    /// Why a link's property mappings can't be done in SQL, if they can't.
    private static func checkProperties(of link: Link) -> Reason? {
        let name = link.view.mappingName
        for (attribute, column) in link.destination.attributes {
            guard case .sourceAttribute(let sourceName) = link.view.attributes[attribute] ?? .defaultValue else { continue }
            guard let sourceColumn = link.source.attributes[sourceName] else {
                return Reason("attribute '\(attribute)' of mapping '\(name)' reads '\(sourceName)', which '\(link.source.name)' does not store")
            }
            if valueSQL(from: sourceColumn, to: column, alias: "s") == nil {
                return Reason("attribute '\(attribute)' of mapping '\(name)' changes from \(sourceColumn.attributeType) to \(column.attributeType), which SQL does not convert here")
            }
        }
        for (relationship, sourceName) in link.view.relationships {
            guard link.destinationEntity.relationshipsByName[relationship] != nil else {
                return Reason("mapping '\(name)' maps the relationship '\(relationship)' that '\(link.destination.name)' lacks")
            }
            guard link.sourceEntity.relationshipsByName[sourceName] != nil,
                  link.source.toOne[sourceName] != nil || link.source.toMany[sourceName] != nil else {
                return Reason("relationship '\(relationship)' of mapping '\(name)' reads '\(sourceName)', which '\(link.source.name)' does not store")
            }
        }
        return nil
    }

    /// The SQL reading a source column as the destination column's value, or `nil` when the
    /// change of type needs Swift (the migration manager's path). Same types copy; integers
    /// widen or narrow among themselves; integers and floating types become each other; integers
    /// become strings. Transformable values need the same transformer, binary data the same
    /// external-storage marker.
    static func valueSQL(from source: SQLAttributeColumn, to destination: SQLAttributeColumn, alias: String) -> String? {
        let column = "\(alias).\(SQLiteDialect().quote(source.column))"
        guard source.storesExternally == destination.storesExternally else { return nil }
        let integers: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType]
        let reals: Set<NSAttributeType> = [.doubleAttributeType, .floatAttributeType, .decimalAttributeType]
        let from = source.attributeType, to = destination.attributeType
        switch (from, to) {
        case _ where from == to:
            if from == .transformableAttributeType, source.valueTransformerName != destination.valueTransformerName { return nil }
            return column
        case _ where integers.contains(from) && integers.contains(to):
            return to == .booleanAttributeType ? "(\(column) <> 0)" : column
        case _ where integers.contains(from) && reals.contains(to), _ where reals.contains(from) && reals.contains(to):
            return "CAST(\(column) AS REAL)"
        case _ where reals.contains(from) && integers.contains(to) && to != .booleanAttributeType:
            return "CAST(\(column) AS INTEGER)"
        case _ where integers.contains(from) && to == .stringAttributeType:
            return "CAST(\(column) AS TEXT)"
        case (.stringAttributeType, .URIAttributeType), (.URIAttributeType, .stringAttributeType):
            return column
        default:
            return nil
        }
    }
}
