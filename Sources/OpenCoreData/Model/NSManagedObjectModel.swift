/// A managed object model: the entities of an application's data, their properties, the
/// configurations that route them to stores, named fetch request templates and localized names.
///
/// Differences from Apple:
/// - A model becomes immutable once a coordinator uses it (as in Core Data). Changing it then
///   traps with "Can't modify an immutable model."; ``ensureEditable()`` reports the same as a
///   thrown error, for tooling.
/// - `mergedModel(from:)` takes model URLs instead of bundles, which do not apply on Linux.
/// - ``load(contentsOf:)`` is a throwing form of ``init(contentsOf:)`` that says what is wrong.
/// - Equality (`isEqual`) is structural: entities, configurations and fetch request templates.
open class NSManagedObjectModel: NSObject, NSCopying, @unchecked Sendable {
    private var entityList: [NSEntityDescription] = []
    /// Configuration name → names of its member entities, in order.
    private var configurationMembers: [(name: String, entities: [String])] = []
    private var templates: [String: NSFetchRequest<NSFetchRequestResult>] = [:]
    private var editable = true
    /// The entities by name, computed once the model is immutable.
    private var frozenEntitiesByName: [String: NSEntityDescription]?
    /// The entities by name while the model is editable: built on first use after a change to
    /// the entities or their names (relationships look destinations up by name, so rebuilding
    /// it per lookup made loading large models quadratic). Guarded by ``editableIndexLock``.
    private var editableEntitiesByName: [String: NSEntityDescription]?
    private let editableIndexLock = NSLock()

    /// The configuration name Core Data uses for "all entities".
    static let defaultConfigurationName = NSPersistentStore.defaultConfigurationName

    public override init() {
        super.init()
    }

    // MARK: Entities

    /// The model's entities, in declaration order.
    open var entities: [NSEntityDescription] {
        get { entityList }
        set {
            checkMutable()
            for old in entityList where old.managedObjectModel === self { old.managedObjectModel = nil }
            entityList = newValue
            for entity in newValue { entity.managedObjectModel = self }
            entityNamesChanged()
        }
    }

    /// The model's entities by name.
    open var entitiesByName: [String: NSEntityDescription] {
        if let frozenEntitiesByName { return frozenEntitiesByName }
        return editableIndexLock.withLock {
            if let editableEntitiesByName { return editableEntitiesByName }
            ModelWorkCounter.record(.entitiesByNameIndex)
            let byName = Dictionary(entityList.compactMap { entity in entity.name.map { ($0, entity) } },
                                    uniquingKeysWith: { first, _ in first })
            editableEntitiesByName = byName
            return byName
        }
    }

    /// Whether the model is frozen (see ``freeze()``): its entities and their names no longer
    /// change.
    var hasFrozenEntities: Bool { frozenEntitiesByName != nil }

    /// Forgets ``entitiesByName`` of the editable model: the entities or a name changed.
    func entityNamesChanged() {
        editableIndexLock.withLock { editableEntitiesByName = nil }
    }

    // MARK: Configurations

    /// The names of the model's configurations, in declaration order.
    open var configurations: [String] { configurationMembers.map(\.name) }

    /// The entities of a configuration. `nil` (or the default configuration's name) gives all
    /// entities; an unknown name gives `nil`.
    open func entities(forConfigurationName configuration: String?) -> [NSEntityDescription]? {
        guard let configuration, configuration != Self.defaultConfigurationName else { return entityList }
        guard let members = configurationMembers.first(where: { $0.name == configuration })?.entities else {
            return configuration == "Default" ? entityList : nil
        }
        let byName = entitiesByName
        return members.compactMap { byName[$0] }
    }

    /// Makes `entities` the members of the configuration `configuration`.
    open func setEntities(_ entities: [NSEntityDescription], forConfigurationName configuration: String) {
        checkMutable()
        let names = entities.compactMap(\.name)
        if let index = configurationMembers.firstIndex(where: { $0.name == configuration }) {
            configurationMembers[index].entities = names
        } else {
            configurationMembers.append((configuration, names))
        }
    }

    /// The member entity names of each configuration.
    var configurationEntityNames: [(name: String, entities: [String])] { configurationMembers }

    // MARK: Fetch request templates

    /// The named fetch request templates.
    open var fetchRequestTemplatesByName: [String: NSFetchRequest<NSFetchRequestResult>] { templates }

    /// The template named `name`. In an immutable model it must be copied before it is changed.
    open func fetchRequestTemplate(forName name: String) -> NSFetchRequest<NSFetchRequestResult>? {
        templates[name]
    }

    /// A copy of the template named `name`, with its predicate's `$VARIABLE`s replaced from
    /// `variables`.
    open func fetchRequestFromTemplate(withName name: String, substitutionVariables variables: [String: Any]) -> NSFetchRequest<NSFetchRequestResult>? {
        guard let template = templates[name], let request = template.copy() as? NSFetchRequest<NSFetchRequestResult> else { return nil }
        if request.entity == nil, let entityName = request.entityName { request.entity = entitiesByName[entityName] }
        request.predicate = template.predicate?.withSubstitutionVariables(variables)
        return request
    }

    /// Stores `fetchRequestTemplate` under `name`; `nil` removes the template.
    open func setFetchRequestTemplate(_ fetchRequestTemplate: NSFetchRequest<NSFetchRequestResult>?, forName name: String) {
        checkMutable()
        templates[name] = fetchRequestTemplate
    }

    // MARK: Localization and versions

    /// Localized names and messages, keyed as Core Data does: `Entity/<entity>`,
    /// `Property/<property>/Entity/<entity>`, `Property/<property>`, `ErrorString/<message>`.
    open var localizationDictionary: [String: String]? { willSet { checkMutable() } }

    /// The developer's version identifiers (`userDefinedModelVersionIdentifier` in Xcode).
    open var versionIdentifiers: Set<AnyHashable> = [] { willSet { checkMutable() } }

    /// The versioned model (`.xcdatamodeld`, `.momd` or compiled folder) this model was loaded
    /// from, so automatic migration can find the version that wrote a store; `nil` otherwise.
    var versionedModelURL: URL?

    /// The version hash of each entity, by entity name.
    open var entityVersionHashesByName: [String: Data] {
        versionHashes(of: entityList)
    }

    /// The version hashes of `entities` by name: the cached ones of a model in use, else each
    /// entity and property hashed once for the whole list.
    func versionHashes(of entities: [NSEntityDescription]) -> [String: Data] {
        guard editable else {
            return Dictionary(entities.compactMap { entity in entity.name.map { ($0, entity.versionHash) } },
                              uniquingKeysWith: { first, _ in first })
        }
        return VersionHasher.hashes(of: entities)
    }

    /// The model's checksum, base64-encoded: the value Xcode writes in `VersionInfo.plist`
    /// (`NSManagedObjectModel_VersionChecksums`) and Core Data in store metadata.
    open var versionChecksum: String {
        VersionHasher.modelChecksum(entityVersionHashes: entityVersionHashesByName).base64EncodedString()
    }

    /// Whether a store whose metadata is `metadata` holds data of configuration `configuration`
    /// of this model: the store's `NSStoreModelVersionHashes` equal the hashes of the
    /// configuration's entities.
    open func isConfiguration(withName configuration: String?, compatibleWithStoreMetadata metadata: [String: Any]) -> Bool {
        guard let storeHashes = metadata[NSStoreModelVersionHashesKey] as? [String: Any],
              let entities = entities(forConfigurationName: configuration) else { return false }
        let ours = versionHashes(of: entities)
        guard Set(storeHashes.keys) == Set(ours.keys) else { return false }
        return ours.allSatisfy { name, hash in (storeHashes[name] as? Data) == hash }
    }

    // MARK: Mutability

    /// Whether the model may still change. Not in Apple's API (Apple keeps it private); a
    /// coordinator makes the model immutable with `freeze()`.
    public var isEditable: Bool { editable }

    /// Throws ``ManagedObjectModelError/Kind/immutableModel`` when the model may no longer
    /// change. Not in Apple's API.
    public func ensureEditable() throws {
        guard editable else {
            throw ManagedObjectModelError(.immutableModel, ManagedObjectModelError.immutableModelMessage, element: "model")
        }
    }

    func checkMutable() {
        if !editable { preconditionFailure(ManagedObjectModelError.immutableModelMessage) }
    }

    /// Makes the model immutable, as a coordinator does when it starts using the model.
    /// Lookups are computed once here; fetch request templates become immutable too.
    func freeze() {
        guard editable else { return }
        let byName = entitiesByName
        for entity in entityList {
            // Its stores make IDs of it from now on: their keys must keep its name's number,
            // even if the entity is later put in another, editable model and renamed.
            entity.fixObjectIDNameToken()
            for case let relationship as NSRelationshipDescription in entity.declaredProperties {
                relationship.resolveReferences(in: byName)
            }
        }
        editable = false
        frozenEntitiesByName = byName
        let hashes = VersionHasher.Memo()
        for root in entityList where root.superentity == nil {
            for entity in [root] + root.allSubentities { entity.freezeLookups(hashes: hashes) }
        }
        for template in templates.values { template.isImmutableTemplate = true }
    }

    // MARK: Copying and equality

    /// A mutable deep copy: entities, properties, configurations, templates and localization.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSManagedObjectModel()
        let entityCopies = entityList.map { $0.copy() as! NSEntityDescription }
        let byName = Dictionary(entityCopies.compactMap { entity in entity.name.map { ($0, entity) } },
                                uniquingKeysWith: { first, _ in first })
        for (original, entityCopy) in zip(entityList, entityCopies) {
            try? entityCopy.setSubentities(original.subentities.compactMap { $0.name.flatMap { byName[$0] } })
        }
        copy.entities = entityCopies
        copy.configurationMembers = configurationMembers
        for (name, template) in templates {
            let templateCopy = template.copy() as! NSFetchRequest<NSFetchRequestResult>
            if template.entity != nil { templateCopy.resolveEntity(in: byName) }
            copy.templates[name] = templateCopy
        }
        copy.localizationDictionary = localizationDictionary
        copy.versionIdentifiers = versionIdentifiers
        return copy
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectModel else { return false }
        if other === self { return true }
        guard entityList.count == other.entityList.count else { return false }
        let otherEntities = other.entitiesByName
        guard entityList.allSatisfy({ entity in entity.name.flatMap { otherEntities[$0] }.map(entity.isEqual) ?? false }) else {
            return false
        }
        // A configuration's members are a set (Apple's compiled models keep an NSSet): their order
        // does not make two models different.
        let configurationsMatch = Dictionary(configurationMembers.map { ($0.name, Set($0.entities)) }, uniquingKeysWith: { a, _ in a })
            == Dictionary(other.configurationMembers.map { ($0.name, Set($0.entities)) }, uniquingKeysWith: { a, _ in a })
        return configurationsMatch
            && templates.count == other.templates.count
            && templates.allSatisfy { name, template in other.templates[name].map(template.isEqual) ?? false }
    }

    open override var hash: Int { entityList.count }

    open override var description: String {
        "(NSManagedObjectModel) entities: [\(entityList.compactMap(\.name).joined(separator: ", "))], "
            + "configurations: [\(configurations.joined(separator: ", "))], "
            + "fetch request templates: [\(templates.keys.sorted().joined(separator: ", "))]"
    }
}

/// The store metadata key of the entity version hashes (entity name → `Data`).
public let NSStoreModelVersionHashesKey = "NSStoreModelVersionHashes"
/// The store metadata key of the model's version identifiers.
public let NSStoreModelVersionIdentifiersKey = "NSStoreModelVersionIdentifiers"

extension NSManagedObjectModel {
    /// Moves the whole state of `other` (a model just read from a file) into this fresh model.
    func adopt(_ other: NSManagedObjectModel) {
        let entities = other.entityList
        other.entityList = []
        self.entities = entities
        configurationMembers = other.configurationMembers
        templates = other.templates
        localizationDictionary = other.localizationDictionary
        versionIdentifiers = other.versionIdentifiers
        versionedModelURL = other.versionedModelURL
    }
}
