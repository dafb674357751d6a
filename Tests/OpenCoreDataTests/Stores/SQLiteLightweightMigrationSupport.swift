import Foundation
import Testing
@testable import OpenCoreData

/// Models, mappings and readers for the SQLite in-place migration tests.
enum LightweightMigrationSupport {
    static func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil,
                          renamedFrom old: String? = nil) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        attribute.defaultValue = defaultValue
        attribute.renamingIdentifier = old
        return attribute
    }

    static func relationship(_ name: String, to destination: NSEntityDescription, toMany: Bool) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        relationship.destinationEntity = destination
        relationship.maxCount = toMany ? 0 : 1
        return relationship
    }

    static func inverses(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription) {
        a.inverseRelationship = b
        b.inverseRelationship = a
    }

    /// `$source.name`.
    static func copy(_ destination: String, from source: String? = nil) -> NSPropertyMapping {
        NSPropertyMapping(name: destination, valueExpression: NSExpression(format: "$source.\(source ?? destination)"))
    }

    /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", mapping, $source.rel)`.
    static func related(_ destination: String, from source: String? = nil, mapping: String) -> NSPropertyMapping {
        NSPropertyMapping(name: destination, valueExpression: NSExpression(
            format: "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"\(mapping)\", $source.\(source ?? destination))"))
    }

    static func entityMapping(_ source: String?, _ destination: String?, type: NSEntityMappingType,
                              attributes: [NSPropertyMapping] = [], relationships: [NSPropertyMapping] = []) -> NSEntityMapping {
        let mapping = NSEntityMapping()
        mapping.name = "\(source ?? "")To\(destination ?? "")"
        mapping.mappingType = type
        mapping.sourceEntityName = source
        mapping.destinationEntityName = destination
        mapping.attributeMappings = attributes
        mapping.relationshipMappings = relationships
        return mapping
    }

    static func mappingModel(_ mappings: [NSEntityMapping]) -> NSMappingModel {
        let model = NSMappingModel()
        model.entityMappings = mappings
        return model
    }

    /// A context on a new coordinator with `model` over the SQLite store at `url`.
    static func context(_ model: NSManagedObjectModel, at url: URL, readOnly: Bool = false) throws -> (NSManagedObjectContext, NSPersistentStore) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                       options: readOnly ? [NSReadOnlyPersistentStoreOption: true] : nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (context, store)
    }

    /// Every object of `entity` (subentities included), sorted by a key.
    static func fetch(_ context: NSManagedObjectContext, _ entity: String, sortedBy key: String) throws -> [NSManagedObject] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
            return try context.fetch(request)
        }
    }

    /// The bytes of the store's file and `-wal` (empty when missing).
    static func bytes(_ url: URL) -> [Data] {
        ["", "-wal"].map { (try? Data(contentsOf: URL(fileURLWithPath: url.path + $0))) ?? Data() }
    }
}
