import Synchronization

/// An entity of a managed object model: its name, class, properties and place in an
/// inheritance tree.
///
/// Subentities inherit their superentity's properties: ``properties`` and the `…ByName`
/// dictionaries include inherited properties (inherited first, then the entity's own, each in
/// declaration order). Differences from Apple: declaring a property whose name an ancestor or
/// descendant entity already uses traps with a message naming both entities (Apple's behaviour is
/// undefined); the throwing reader reports it as ``ManagedObjectModelError/Kind/propertyOverride``.
/// Changing an entity of a model in use traps with "Can't modify an immutable model.".
open class NSEntityDescription: NSObject, NSCopying, @unchecked Sendable {
    /// The model the entity belongs to (not retained: nil once the model is freed).
    public internal(set) var managedObjectModel: NSManagedObjectModel? {
        get { modelReference.object }
        set { modelReference = UnretainedReference(newValue) }
    }

    private var modelReference = UnretainedReference<NSManagedObjectModel>(nil)

    /// The entity's name, unique within its model.
    @exclusivity(unchecked) open var name: String? {
        willSet { checkMutable() }
        didSet {
            if !nameTokenIsFixed.load(ordering: .relaxed) { objectIDNameToken = ObjectIDTokens.entityName(name) }
            managedObjectModel?.entityNamesChanged()
        }
    }

    /// The name as a number for object ID keys (``ObjectIDKey``), looked up when the name is
    /// set. An ID's key reads it each time (``NSManagedObjectID/key``), so it is a plain
    /// stored value, as ``name`` is: a lookup on the way, or an atomic load, in the middle of
    /// every registry probe made the optimizer copy the table's buckets around it.
    ///
    /// Fixed (``fixObjectIDNameToken()``) once an ID of the entity may exist: when its model is
    /// frozen (a coordinator uses it, and its stores make IDs), or the first ID is made
    /// otherwise. A registry finds an object by its ID's key, so a key that changed under a
    /// registered object would lose it there, and the registry would keep a freed one. An
    /// entity renamed after that (an editable entity with objects, or one moved from a frozen
    /// model into a new one) keeps the old name's number: its IDs equal those of its own
    /// objects, not those of another model's entity of the new name. (Renaming an entity on
    /// one thread while another makes its first object is a race the number does not guard
    /// against, as nothing else in an editable model does.)
    @exclusivity(unchecked) private(set) var objectIDNameToken = ObjectIDTokens.entityName(nil)

    /// Whether ``objectIDNameToken`` no longer follows the name. Atomic: contexts on any
    /// queues insert objects, whose temporary IDs fix it.
    private let nameTokenIsFixed = Atomic<Bool>(false)

    /// Keeps ``objectIDNameToken`` as it is from now on: called when the model is frozen, and
    /// by the first temporary ID and the public initializer of permanent ones (a store reading
    /// rows makes IDs of a frozen model's entities without it).
    @inline(__always)
    func fixObjectIDNameToken() {
        if !nameTokenIsFixed.load(ordering: .relaxed) { nameTokenIsFixed.store(true, ordering: .relaxed) }
    }

    /// The name of the class that represents the entity's objects. Defaults to `NSManagedObject`.
    @exclusivity(unchecked) open var managedObjectClassName: String! = "NSManagedObject" {
        willSet { checkMutable() }
        didSet { resolvedClassBits.store(0, ordering: .relaxed) }
    }

    /// The class ``managedObjectClassName`` names, as the object graph resolved it the first
    /// time it made an object of the entity (`Graph/ManagedObjectClasses.swift`): 0 before, 1
    /// when the name is `NSManagedObject` or names no class the runtime knows, else the
    /// metatype's bits. Atomic, because any context's queue may resolve it first; a name that
    /// names no class is looked up once, not for every object made (a store read by a tool
    /// that lacks the app's classes).
    let resolvedClassBits = Atomic<UInt>(0)

    /// Whether the entity is abstract (only its subentities have instances).
    // Unchecked, as `name` is: it changes only while the model is editable, and every
    // insertion reads it.
    @exclusivity(unchecked) open var isAbstract: Bool = false { willSet { checkMutable() } }

    /// Xcode's code generation setting for the entity (`codeGenerationType`: `class`,
    /// `category`, or `nil` for Manual/None), as read from an Xcode model; `coredata generate`
    /// and the build plugin read it. Not in Apple's API (Xcode keeps it out of compiled models).
    package var codeGenerationType: String?

    /// Free-form information from the model author.
    open var userInfo: [AnyHashable: Any]? { willSet { checkMutable() } }

    /// The identifier used to map a renamed entity during migration (`elementID` in Xcode).
    open var renamingIdentifier: String? { willSet { checkMutable() } }

    /// A string mixed into ``versionHash`` to force a new version without changing the schema.
    open var versionHashModifier: String? { willSet { checkMutable() } }

    /// Sets of properties whose values must be unique together; each inner array holds
    /// property names or property descriptions.
    open var uniquenessConstraints: [[Any]] = [] { willSet { checkMutable() } }

    /// The entity's fetch indexes.
    open var indexes: [NSFetchIndexDescription] = [] {
        willSet { checkMutable() }
        didSet { indexes.forEach { $0.entity = self } }
    }

    /// The entity this one inherits from (not retained: nil once it is freed).
    public private(set) var superentity: NSEntityDescription? {
        get { superentityReference.object }
        set { superentityReference = UnretainedReference(newValue) }
    }

    private var superentityReference = UnretainedReference<NSEntityDescription>(nil)

    /// The properties the entity declares itself, in order.
    private var ownProperties: [NSPropertyDescription] = []

    /// The entity's direct subentities.
    private var directSubentities: [NSEntityDescription] = []

    /// Lookups computed once the model is immutable. Set once, when the model comes into use
    /// (before it is shared), and never again: `@exclusivity(unchecked)`, as every key-value
    /// access reads it.
    @exclusivity(unchecked) private var frozen: FrozenLookups?

    /// The class registered for the entity's objects with `NSManagedObjectModel.register(_:forEntityName:)`,
    /// or resolved from ``managedObjectClassName`` (object graph, `Graph/ManagedObjectClasses.swift`).
    /// Not part of the model's structure: it may be set on an immutable model.
    var managedObjectClass: NSManagedObject.Type?

    public override init() {
        super.init()
    }

    // MARK: Inheritance

    /// The entity's direct subentities. Setting them makes this entity their superentity.
    ///
    /// Traps when a subentity (or one of its descendants) declares a property this entity or one
    /// of its ancestors has.
    open var subentities: [NSEntityDescription] {
        get { directSubentities }
        set {
            checkMutable()
            do { try setSubentities(newValue) } catch { preconditionFailure("\(error)") }
        }
    }

    /// The throwing form of setting ``subentities``.
    func setSubentities(_ newValue: [NSEntityDescription]) throws {
        let inherited = Set(properties.map(\.name))
        for sub in newValue {
            var ancestor: NSEntityDescription? = self
            while let current = ancestor {
                if current === sub {
                    throw ManagedObjectModelError(.invalidValue, "entity '\(sub.name ?? "?")' can't be its own superentity",
                                                  element: "entity '\(sub.name ?? "?")'")
                }
                ancestor = current.superentity
            }
            for descendant in [sub] + sub.allSubentities {
                if let clash = descendant.ownProperties.first(where: { inherited.contains($0.name) }) {
                    throw overrideError(property: clash.name, in: descendant)
                }
            }
        }
        for old in directSubentities where !newValue.contains(where: { $0 === old }) { old.superentity = nil }
        directSubentities = newValue
        for sub in newValue { sub.superentity = self }
    }

    /// The entity's direct subentities by name.
    open var subentitiesByName: [String: NSEntityDescription] {
        Dictionary(directSubentities.map { ($0.name ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every descendant, depth-first in declaration order.
    var allSubentities: [NSEntityDescription] {
        directSubentities.flatMap { [$0] + $0.allSubentities }
    }

    /// Whether this entity is `entity` or one of its descendants.
    open func isKindOf(entity: NSEntityDescription) -> Bool {
        var current: NSEntityDescription? = self
        while let candidate = current {
            if candidate.isSameEntity(as: entity) { return true }
            current = candidate.superentity
        }
        return false
    }

    /// Whether `other` is this entity: the same instance, or the entity of the same name in the
    /// same model (a copy made for a lookup, say). Entities of different models never match.
    func isSameEntity(as other: NSEntityDescription) -> Bool {
        self === other || (name != nil && name == other.name && managedObjectModel != nil
                           && managedObjectModel === other.managedObjectModel)
    }

    // MARK: Properties

    /// The entity's properties: inherited ones first, then its own. Setting it sets the entity's
    /// own properties.
    open var properties: [NSPropertyDescription] {
        get {
            if let frozen { return frozen.properties }
            return (superentity?.properties ?? []) + ownProperties
        }
        set {
            checkMutable()
            do { try setProperties(newValue) } catch { preconditionFailure("\(error)") }
        }
    }

    /// The throwing form of setting ``properties``: refuses duplicate names and overrides.
    func setProperties(_ newValue: [NSPropertyDescription]) throws {
        var seen = Set<String>()
        let inherited = Set(superentity?.properties.map(\.name) ?? [])
        let descendants = allSubentities
        for property in newValue {
            guard seen.insert(property.name).inserted else {
                throw ManagedObjectModelError(.invalidValue, "entity '\(name ?? "?")' declares property '\(property.name)' twice",
                                              element: "entity '\(name ?? "?")'")
            }
            if inherited.contains(property.name) { throw overrideError(property: property.name, in: self) }
            if let sub = descendants.first(where: { $0.ownProperties.contains { $0.name == property.name } }) {
                throw overrideError(property: property.name, in: sub)
            }
            if let owner = property.entity, owner !== self, owner.ownProperties.contains(where: { $0 === property }) {
                throw ManagedObjectModelError(.invalidValue,
                    "property '\(property.name)' already belongs to entity '\(owner.name ?? "?")'; add a copy instead",
                    element: "entity '\(name ?? "?")'")
            }
        }
        for old in ownProperties where old.entity === self { old.entity = nil }
        ownProperties = newValue
        for property in newValue { property.entity = self }
    }

    private func overrideError(property: String, in entity: NSEntityDescription) -> ManagedObjectModelError {
        var ancestor = entity.superentity ?? self
        while let next = ancestor.superentity, next.properties.contains(where: { $0.name == property }) { ancestor = next }
        return ManagedObjectModelError(.propertyOverride,
            "entity '\(entity.name ?? "?")' can't override property '\(property)' inherited from entity '\(ancestor.name ?? "?")'",
            element: "property '\(property)' of entity '\(entity.name ?? "?")'")
    }

    /// The properties the entity declares itself (not inherited ones), in order.
    var declaredProperties: [NSPropertyDescription] { ownProperties }

    /// All properties, inherited ones included, by name.
    open var propertiesByName: [String: NSPropertyDescription] {
        if let frozen { return frozen.propertiesByName }
        return Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// All attributes, inherited ones included, by name.
    open var attributesByName: [String: NSAttributeDescription] {
        if let frozen { return frozen.attributesByName }
        return Dictionary(properties.compactMap { $0 as? NSAttributeDescription }.map { ($0.name, $0) },
                          uniquingKeysWith: { first, _ in first })
    }

    /// All relationships, inherited ones included, by name.
    open var relationshipsByName: [String: NSRelationshipDescription] {
        if let frozen { return frozen.relationshipsByName }
        return Dictionary(properties.compactMap { $0 as? NSRelationshipDescription }.map { ($0.name, $0) },
                          uniquingKeysWith: { first, _ in first })
    }

    /// The relationships (inherited ones included) whose destination is `entity`.
    open func relationships(forDestination entity: NSEntityDescription) -> [NSRelationshipDescription] {
        properties.compactMap { $0 as? NSRelationshipDescription }.filter { relationship in
            guard let destination = relationship.destinationEntity else { return false }
            return destination.isSameEntity(as: entity)
        }
    }

    /// The entity's version hash: 32 bytes that change when its schema changes.
    ///
    /// Computed once when the model comes into use (it is immutable then); before that, on
    /// every call, each ancestor hashed once.
    open var versionHash: Data { frozen?.versionHash ?? VersionHasher.hash(of: self) }

    /// Where objects and snapshots of the entity keep each property's value: made once when the
    /// model comes into use, and anew on every call before (the entity may still change).
    var layout: EntityLayout { frozen?.layout ?? EntityLayout(self) }

    /// Whether the entity's lookups (and ``layout``) are final: its model is in use.
    var hasFrozenLayout: Bool { frozen != nil }

    /// The hash computed when the model came into use; `nil` before.
    var frozenVersionHash: Data? { frozen?.versionHash }

    // MARK: Mutability

    /// Whether the entity may still change: its model is not yet used by a coordinator.
    public var isEditable: Bool { managedObjectModel?.isEditable ?? true }

    /// Throws ``ManagedObjectModelError/Kind/immutableModel`` when the entity may no longer
    /// change. Not in Apple's API.
    public func ensureEditable() throws {
        guard isEditable else {
            throw ManagedObjectModelError(.immutableModel, ManagedObjectModelError.immutableModelMessage,
                                          element: "entity '\(name ?? "?")'")
        }
    }

    func checkMutable() {
        if !isEditable { preconditionFailure(ManagedObjectModelError.immutableModelMessage) }
    }

    /// Computes the lookups once, when the model becomes immutable. Superentities first;
    /// `hashes` holds the version hashes computed so far (see ``VersionHasher/Memo``).
    func freezeLookups(hashes: VersionHasher.Memo) {
        let properties = (superentity?.properties ?? []) + ownProperties
        frozen = FrozenLookups(
            versionHash: VersionHasher.hash(of: self, memo: hashes),
            properties: properties,
            propertiesByName: Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first }),
            attributesByName: Dictionary(properties.compactMap { $0 as? NSAttributeDescription }.map { ($0.name, $0) },
                                         uniquingKeysWith: { first, _ in first }),
            relationshipsByName: Dictionary(properties.compactMap { $0 as? NSRelationshipDescription }.map { ($0.name, $0) },
                                            uniquingKeysWith: { first, _ in first }),
            layout: EntityLayout(self))
    }

    /// A class, not a struct: reading one lookup retains one reference, not all six.
    private final class FrozenLookups {
        let versionHash: Data
        let properties: [NSPropertyDescription]
        let propertiesByName: [String: NSPropertyDescription]
        let attributesByName: [String: NSAttributeDescription]
        let relationshipsByName: [String: NSRelationshipDescription]
        let layout: EntityLayout

        init(versionHash: Data, properties: [NSPropertyDescription], propertiesByName: [String: NSPropertyDescription],
             attributesByName: [String: NSAttributeDescription], relationshipsByName: [String: NSRelationshipDescription],
             layout: EntityLayout) {
            self.versionHash = versionHash
            self.properties = properties
            self.propertiesByName = propertiesByName
            self.attributesByName = attributesByName
            self.relationshipsByName = relationshipsByName
            self.layout = layout
        }
    }

    // MARK: Copying and equality

    /// A detached copy: same settings and copies of the entity's own properties, with no model,
    /// superentity or subentities. Relationships keep their destination and inverse by name.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSEntityDescription()
        copy.name = name
        copy.managedObjectClassName = managedObjectClassName
        copy.codeGenerationType = codeGenerationType
        copy.isAbstract = isAbstract
        copy.userInfo = userInfo
        copy.renamingIdentifier = renamingIdentifier
        copy.versionHashModifier = versionHashModifier
        copy.uniquenessConstraints = uniquenessConstraints.map { $0.map { ($0 as? NSPropertyDescription)?.name ?? $0 } }
        copy.indexes = indexes.map { $0.copy() as! NSFetchIndexDescription }
        let properties = ownProperties.map { $0.copy() as! NSPropertyDescription }
        for case let relationship as NSRelationshipDescription in properties { relationship.detachReferences() }
        copy.ownProperties = properties
        properties.forEach { $0.entity = copy }
        return copy
    }

    /// The uniqueness constraints as property names.
    var uniquenessConstraintNames: [[String]] {
        uniquenessConstraints.map { $0.map { ($0 as? NSPropertyDescription)?.name ?? "\($0)" } }
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSEntityDescription else { return false }
        if other === self { return true }
        return name == other.name
            && managedObjectClassName == other.managedObjectClassName
            && isAbstract == other.isAbstract
            && superentity?.name == other.superentity?.name
            && directSubentities.map(\.name) == other.directSubentities.map(\.name)
            && renamingIdentifier == other.renamingIdentifier
            && versionHashModifier == other.versionHashModifier
            && ModelValues.isEqual(userInfo, other.userInfo)
            && uniquenessConstraintNames == other.uniquenessConstraintNames
            && indexes.count == other.indexes.count && zip(indexes, other.indexes).allSatisfy { $0.isEqual($1) }
            && ownProperties.count == other.ownProperties.count
            && zip(ownProperties, other.ownProperties).allSatisfy { $0.isEqual($1) }
    }

    open override var hash: Int { name?.hashValue ?? 0 }

    open override var description: String {
        "(NSEntityDescription) \(name ?? "nil"), class \(managedObjectClassName ?? "nil"), "
            + "superentity \(superentity?.name ?? "nil"), properties [\(properties.map(\.name).joined(separator: ", "))]"
    }
}
