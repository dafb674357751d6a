import Foundation

/// What an entity mapping does. Core Data's raw values.
public enum NSEntityMappingType: UInt, Sendable {
    /// Not yet decided; a mapping of this type is refused by the migration manager.
    case undefinedEntityMappingType = 0x00
    /// Instances are made by a custom `NSEntityMigrationPolicy`.
    case customEntityMappingType = 0x01
    /// The destination entity is new: no source instances.
    case addEntityMappingType = 0x02
    /// The source entity is gone: its instances are not migrated.
    case removeEntityMappingType = 0x03
    /// The entity is unchanged: instances are copied property by property.
    case copyEntityMappingType = 0x04
    /// The entity changed: instances are made from the property mappings.
    case transformEntityMappingType = 0x05
}

/// How the instances of one source entity become instances of one destination entity.
open class NSEntityMapping: NSObject, @unchecked Sendable {
    // @unchecked Sendable: like Apple's, a mapping is configured before a migration starts and only
    // read while it runs, from the one thread that runs the migration.

    /// The mapping's name, unique in its mapping model (Xcode writes `SourceToDestination`).
    open var name: String!

    /// What the mapping does.
    open var mappingType: NSEntityMappingType = .undefinedEntityMappingType

    /// The source entity's name; `nil` for an add mapping.
    open var sourceEntityName: String?

    /// The version hash the source entity must have for this mapping to apply.
    open var sourceEntityVersionHash: Data?

    /// The destination entity's name; `nil` for a remove mapping.
    open var destinationEntityName: String?

    /// The version hash the destination entity must have for this mapping to apply.
    open var destinationEntityVersionHash: Data?

    /// The mappings of the destination's attributes.
    open var attributeMappings: [NSPropertyMapping]?

    /// The mappings of the destination's relationships.
    open var relationshipMappings: [NSPropertyMapping]?

    /// The expression that yields the source instances to migrate (a `FETCH` of the source entity).
    open var sourceExpression: NSExpression?

    /// The mapping's user info.
    open var userInfo: [AnyHashable: Any]?

    /// The name of the `NSEntityMigrationPolicy` subclass that migrates the instances, if any.
    ///
    /// Swift classes are found by their module-qualified name, as managed object classes are.
    open var entityMigrationPolicyClassName: String?

    /// Creates an empty entity mapping.
    public override init() {
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSEntityMapping else { return false }
        return name == other.name && mappingType == other.mappingType
            && sourceEntityName == other.sourceEntityName && destinationEntityName == other.destinationEntityName
            && sourceEntityVersionHash == other.sourceEntityVersionHash
            && destinationEntityVersionHash == other.destinationEntityVersionHash
            && (attributeMappings ?? []) == (other.attributeMappings ?? [])
            && (relationshipMappings ?? []) == (other.relationshipMappings ?? [])
            && ModelValues.isEqual(sourceExpression, other.sourceExpression)
            && entityMigrationPolicyClassName == other.entityMigrationPolicyClassName
    }

    open override var hash: Int { name?.hashValue ?? 0 }

    open override var description: String {
        "(NSEntityMapping) \(name ?? "<nil>"): \(sourceEntityName ?? "-") -> \(destinationEntityName ?? "-") (\(mappingType))"
    }
}
