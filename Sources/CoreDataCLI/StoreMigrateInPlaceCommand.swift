import ArgumentParser
@_spi(Testing) import OpenCoreData

/// `coredata store migrate-in-place STORE` (hidden): the child process of the SQLite in-place
/// migration kill test (`SQLiteLightweightMigrationKillTests`). A test aid, not a stable form.
///
/// It migrates the SQLite store at STORE, written with ``MigrationKillModel/make(version:)``
/// version 1, to version 2 with ``MigrationKillModel/mapping()`` by the SQLite store's in-place
/// lightweight migration, then writes `migrated`. The parent kills it at random moments.
struct StoreMigrateInPlaceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-in-place",
        abstract: "Migrate a test store in place (the migration kill test's child process).",
        shouldDisplay: false)

    @Argument(help: "The SQLite store file.")
    var store: String

    func run() throws {
        try StoreCommandError.reporting {
            let migrated = try SQLiteInPlaceMigrationTesting.migrate(
                at: URL(fileURLWithPath: store), sourceModel: MigrationKillModel.make(version: 1),
                destinationModel: MigrationKillModel.make(version: 2), mapping: MigrationKillModel.mapping())
            FileHandle.standardOutput.write(Data((migrated ? "migrated\n" : "not applicable\n").utf8))
        }
    }
}

/// The models of ``StoreMigrateInPlaceCommand``.
///
/// Version 1: `Group` (`title`) ←→> `Item` (`index` Integer 64, `name` String, `group`).
/// Version 2: `Item.name` renamed `label`, a new `weight` (Double, non-optional, default 1.5),
/// and a new entity `Aardvark`, which renumbers the others (`Z_ENT` 1, 2 become 2, 3).
enum MigrationKillModel {
    static func make(version: Int) -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, renamedFrom old: String? = nil) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.renamingIdentifier = old
            return attribute
        }
        let group = NSEntityDescription(), item = NSEntityDescription()
        group.name = "Group"
        item.name = "Item"
        let items = NSRelationshipDescription(), owner = NSRelationshipDescription()
        items.name = "items"; items.destinationEntity = item; items.maxCount = 0; items.inverseRelationship = owner
        owner.name = "group"; owner.destinationEntity = group; owner.maxCount = 1; owner.inverseRelationship = items
        group.properties = [attribute("title", .stringAttributeType), items]
        var itemProperties: [NSPropertyDescription] = [attribute("index", .integer64AttributeType), owner]
        var entities = [group, item]
        if version == 1 {
            itemProperties.append(attribute("name", .stringAttributeType))
        } else {
            itemProperties.append(attribute("label", .stringAttributeType, renamedFrom: "name"))
            let weight = attribute("weight", .doubleAttributeType)
            weight.isOptional = false
            weight.defaultValue = 1.5
            itemProperties.append(weight)
            let aardvark = NSEntityDescription()
            aardvark.name = "Aardvark"
            aardvark.properties = [attribute("nickname", .stringAttributeType)]
            entities.append(aardvark)
        }
        item.properties = itemProperties
        let model = NSManagedObjectModel()
        model.entities = entities
        model.versionIdentifiers = ["\(version)"]
        return model
    }

    /// The version 1 → 2 mapping, written as Xcode writes one.
    static func mapping() -> NSMappingModel {
        func property(_ name: String, _ format: String) -> NSPropertyMapping {
            NSPropertyMapping(name: name, valueExpression: NSExpression(format: format))
        }
        let group = NSEntityMapping()
        group.name = "GroupToGroup"; group.mappingType = .copyEntityMappingType
        group.sourceEntityName = "Group"; group.destinationEntityName = "Group"
        group.attributeMappings = [property("title", "$source.title")]
        group.relationshipMappings = [property("items", "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"ItemToItem\", $source.items)")]
        let item = NSEntityMapping()
        item.name = "ItemToItem"; item.mappingType = .transformEntityMappingType
        item.sourceEntityName = "Item"; item.destinationEntityName = "Item"
        item.attributeMappings = [property("index", "$source.index"), property("label", "$source.name"), NSPropertyMapping(name: "weight", valueExpression: nil)]
        item.relationshipMappings = [property("group", "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"GroupToGroup\", $source.group)")]
        let aardvark = NSEntityMapping()
        aardvark.name = "Aardvark"; aardvark.mappingType = .addEntityMappingType; aardvark.destinationEntityName = "Aardvark"
        let mapping = NSMappingModel()
        mapping.entityMappings = [group, item, aardvark]
        return mapping
    }
}
