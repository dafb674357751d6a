/// What happens to the destination objects when the source object of a relationship is deleted.
/// Core Data's raw values.
public enum NSDeleteRule: UInt, Sendable, CaseIterable {
    /// Leave the destination objects alone (they may be left pointing at a deleted object).
    case noActionDeleteRule = 0
    /// Remove the deleted object from the destination objects' inverse relationship.
    case nullifyDeleteRule = 1
    /// Delete the destination objects too.
    case cascadeDeleteRule = 2
    /// Refuse the deletion while the relationship has destination objects.
    case denyDeleteRule = 3
}

extension NSDeleteRule {
    /// The spelling Xcode writes in `deletionRule="…"` and the CLI prints.
    public var xcodeName: String {
        switch self {
        case .noActionDeleteRule: return "No Action"
        case .nullifyDeleteRule: return "Nullify"
        case .cascadeDeleteRule: return "Cascade"
        case .denyDeleteRule: return "Deny"
        }
    }

    /// The rule Xcode spells `name` (also accepting `NoAction`), or `nil`.
    public init?(xcodeName name: String) {
        switch name {
        case "No Action", "NoAction": self = .noActionDeleteRule
        case "Nullify": self = .nullifyDeleteRule
        case "Cascade": self = .cascadeDeleteRule
        case "Deny": self = .denyDeleteRule
        default: return nil
        }
    }
}

/// A relationship from one entity to another.
///
/// Differences from Apple: the destination and the inverse are also remembered by name, and
/// resolved through the model when the referenced description is not (or no longer) attached,
/// which is how model files refer to them.
open class NSRelationshipDescription: NSPropertyDescription, @unchecked Sendable {
    // Not retained (`UnretainedReference`): nil once the description is freed.
    private var destination: NSEntityDescription? {
        get { destinationReference.object }
        set { destinationReference = UnretainedReference(newValue) }
    }

    private var inverse: NSRelationshipDescription? {
        get { inverseReference.object }
        set { inverseReference = UnretainedReference(newValue) }
    }

    private var destinationReference = UnretainedReference<NSEntityDescription>(nil)
    private var inverseReference = UnretainedReference<NSRelationshipDescription>(nil)

    private var storedDestinationName: String?
    private var storedInverseName: String?

    /// The name of the destination entity: the attached entity's current name, or the name a
    /// model file gave.
    var destinationEntityName: String? {
        get { destination?.name ?? storedDestinationName }
        set {
            checkMutable()
            storedDestinationName = newValue
            if let destination, destination.name != newValue { self.destination = nil }
        }
    }

    /// The name of the inverse relationship (on the destination entity), resolved like
    /// ``destinationEntityName``.
    var inverseName: String? {
        get { inverse?.name ?? storedInverseName }
        set {
            checkMutable()
            storedInverseName = newValue
            if let inverse, inverse.name != newValue { self.inverse = nil }
        }
    }

    /// The entity at the other end of the relationship.
    open var destinationEntity: NSEntityDescription? {
        get {
            if let destination { return destination }
            guard let name = destinationEntityName else { return nil }
            return entity?.managedObjectModel?.entitiesByName[name]
        }
        set {
            checkMutable()
            destination = newValue
            storedDestinationName = newValue?.name
        }
    }

    /// The relationship on the destination entity that points back here.
    open var inverseRelationship: NSRelationshipDescription? {
        get {
            if let inverse { return inverse }
            guard let name = inverseName else { return nil }
            return destinationEntity?.relationshipsByName[name]
        }
        set {
            checkMutable()
            inverse = newValue
            storedInverseName = newValue?.name
        }
    }

    /// The least number of destination objects. Defaults to 0.
    open var minCount: Int = 0 { willSet { checkMutable() } }

    /// The greatest number of destination objects; 0 means no limit. Defaults to 1 (to-one).
    open var maxCount: Int = 1 { willSet { checkMutable() } }

    /// Whether the relationship may hold several objects (`maxCount` other than 1).
    open var isToMany: Bool { maxCount != 1 }

    /// Whether a to-many relationship keeps its objects in order.
    open var isOrdered: Bool = false { willSet { checkMutable() } }

    /// What deleting the source object does to the destination objects. Defaults to nullify.
    open var deleteRule: NSDeleteRule = .nullifyDeleteRule { willSet { checkMutable() } }

    open override var versionHash: Data { VersionHasher.hash(of: self) }

    override func copyState(from other: NSPropertyDescription) {
        super.copyState(from: other)
        guard let other = other as? NSRelationshipDescription else { return }
        destination = other.destination
        storedDestinationName = other.destinationEntityName
        inverse = other.inverse
        storedInverseName = other.inverseName
        minCount = other.minCount
        maxCount = other.maxCount
        isOrdered = other.isOrdered
        deleteRule = other.deleteRule
    }

    /// Drops the references, keeping the names, so that they resolve in another model (copies).
    func detachReferences() {
        storedDestinationName = destinationEntityName
        storedInverseName = inverseName
        destination = nil
        inverse = nil
    }

    /// Attaches the destination and inverse found by name in `entities`, so that lookups no
    /// longer go through the model (done when the model becomes immutable).
    func resolveReferences(in entities: [String: NSEntityDescription]) {
        if destination == nil, let name = storedDestinationName { destination = entities[name] }
        if inverse == nil, let name = storedInverseName { inverse = destination?.relationshipsByName[name] }
    }

    override func hasEqualState(_ other: NSPropertyDescription) -> Bool {
        guard super.hasEqualState(other), let other = other as? NSRelationshipDescription else { return false }
        return destinationEntityName == other.destinationEntityName
            && inverseName == other.inverseName
            && minCount == other.minCount
            && maxCount == other.maxCount
            && isOrdered == other.isOrdered
            && deleteRule == other.deleteRule
    }

    open override var description: String {
        "\(super.description), destination \(destinationEntityName ?? "nil"), inverse \(inverseName ?? "nil"), "
            + "minCount \(minCount), maxCount \(maxCount), deleteRule \(deleteRule.xcodeName)"
    }
}
