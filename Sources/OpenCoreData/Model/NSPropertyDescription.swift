/// A property of an entity: an attribute, a relationship, a fetched property or an expression.
///
/// Differences from Apple: changing a property of a model that a coordinator uses traps with
/// Apple's message "Can't modify an immutable model."; ``ensureEditable()`` reports the same as a
/// thrown error. Equality (`isEqual`) is structural, so that a model built in code equals the same
/// model read from a file.
open class NSPropertyDescription: NSObject, NSCopying, @unchecked Sendable {
    /// The entity that declares this property (not one that inherits it).
    ///
    /// Not retained, as Apple's is not: nil once the entity is freed (an
    /// `UnretainedReference`, as every back reference of the model is).
    public internal(set) var entity: NSEntityDescription! {
        get { entityReference.object }
        set { entityReference = UnretainedReference(newValue) }
    }

    private var entityReference = UnretainedReference<NSEntityDescription>(nil)

    // The properties that every key-value access reads are `@exclusivity(unchecked)`: they
    // don't change once the model is in use (`checkMutable()`), so the runtime's check of
    // overlapping accesses only costs time.
    /// The property's name, unique within its entity and the entity's inheritance chain.
    @exclusivity(unchecked) open var name: String = "" { willSet { checkMutable() } }

    /// Whether a managed object may leave the property empty. Defaults to `true`.
    @exclusivity(unchecked) open var isOptional: Bool = true { willSet { checkMutable() } }

    /// Whether the property is kept in memory only and never saved.
    @exclusivity(unchecked) open var isTransient: Bool = false { willSet { checkMutable() } }

    /// Free-form information from the model author (`userInfo` entries in an Xcode model).
    open var userInfo: [AnyHashable: Any]? { willSet { checkMutable() } }

    /// Whether the store should index the property. Deprecated by Apple in favour of
    /// ``NSEntityDescription/indexes``; kept because old Xcode models set it (`indexed="YES"`).
    open var isIndexed: Bool = false { willSet { checkMutable() } }

    /// Whether Spotlight indexes the property. Stored only; Linux has no Spotlight.
    open var isIndexedBySpotlight: Bool = false { willSet { checkMutable() } }

    /// Whether the property is stored in an external record. Stored only (deprecated by Apple).
    open var isStoredInExternalRecord: Bool = false { willSet { checkMutable() } }

    /// The identifier used to map a renamed property during migration (`elementID` in Xcode).
    open var renamingIdentifier: String? { willSet { checkMutable() } }

    /// A string mixed into ``versionHash`` to force a new version without changing the schema.
    open var versionHashModifier: String? { willSet { checkMutable() } }

    /// The validation predicates, checked in order when an object is validated.
    public private(set) var validationPredicates: [NSPredicate] = []

    /// One warning per validation predicate: a localized message key or an `NSNumber` error code.
    public private(set) var validationWarnings: [Any] = []

    public required override init() {
        super.init()
    }

    /// Sets the validation predicates and their warnings; the two arrays must have equal length.
    open func setValidationPredicates(_ validationPredicates: [NSPredicate]?, withValidationWarnings validationWarnings: [String]?) {
        setValidationPredicates(validationPredicates, warnings: validationWarnings.map { $0 as [Any] })
    }

    /// Sets predicates with warnings that may be error codes (as compiled models hold them).
    func setValidationPredicates(_ predicates: [NSPredicate]?, warnings: [Any]?) {
        checkMutable()
        let predicates = predicates ?? []
        let warnings = warnings ?? []
        precondition(predicates.count == warnings.count,
                     "validation predicates and warnings must have the same count (\(predicates.count) and \(warnings.count))")
        self.validationPredicates = predicates
        self.validationWarnings = warnings
    }

    /// The property's version hash: 32 bytes that change when the property's schema changes.
    ///
    /// Validation predicates, defaults and user info do not take part, as Apple documents.
    open var versionHash: Data { VersionHasher.hash(of: self) }

    // MARK: Mutability

    /// Whether the property may still change: its entity's model is not yet used by a coordinator.
    public var isEditable: Bool { entity?.isEditable ?? true }

    /// Throws ``ManagedObjectModelError/Kind/immutableModel`` when the property may no longer
    /// change. Not in Apple's API.
    public func ensureEditable() throws {
        guard isEditable else {
            throw ManagedObjectModelError(.immutableModel, ManagedObjectModelError.immutableModelMessage,
                                          element: "property '\(name)'")
        }
    }

    func checkMutable() {
        if !isEditable { preconditionFailure(ManagedObjectModelError.immutableModelMessage) }
    }

    // MARK: Copying and equality

    /// A detached copy: same settings, no entity.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = type(of: self).init()
        copy.copyState(from: self)
        return copy
    }

    /// Copies the settings of `other` into this fresh instance. Subclasses extend it.
    func copyState(from other: NSPropertyDescription) {
        name = other.name
        isOptional = other.isOptional
        isTransient = other.isTransient
        userInfo = other.userInfo
        isIndexed = other.isIndexed
        isIndexedBySpotlight = other.isIndexedBySpotlight
        isStoredInExternalRecord = other.isStoredInExternalRecord
        renamingIdentifier = other.renamingIdentifier
        versionHashModifier = other.versionHashModifier
        validationPredicates = other.validationPredicates
        validationWarnings = other.validationWarnings
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPropertyDescription, type(of: other) == type(of: self) else { return false }
        if other === self { return true }
        return hasEqualState(other)
    }

    /// Structural comparison of the settings. Subclasses extend it; `other` has the same class.
    func hasEqualState(_ other: NSPropertyDescription) -> Bool {
        name == other.name
            && isOptional == other.isOptional
            && isTransient == other.isTransient
            && isIndexed == other.isIndexed
            && isIndexedBySpotlight == other.isIndexedBySpotlight
            && isStoredInExternalRecord == other.isStoredInExternalRecord
            && renamingIdentifier == other.renamingIdentifier
            && versionHashModifier == other.versionHashModifier
            && ModelValues.isEqual(userInfo, other.userInfo)
            && validationPredicates.count == other.validationPredicates.count
            && zip(validationPredicates, other.validationPredicates).allSatisfy { $0.isEqual($1) }
            && ModelValues.isEqual(validationWarnings, other.validationWarnings)
    }

    open override var hash: Int { name.hashValue }

    open override var description: String {
        "(\(type(of: self))) \(name), optional \(isOptional), transient \(isTransient)"
    }
}
