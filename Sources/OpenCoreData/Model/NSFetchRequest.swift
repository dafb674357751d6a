/// A type a fetch request can return: managed objects, object IDs, dictionaries or counts.
public protocol NSFetchRequestResult: NSObjectProtocol {}

extension NSNumber: NSFetchRequestResult {}
extension NSDictionary: NSFetchRequestResult {}

/// The kind of a store request. Core Data's raw values.
public enum NSPersistentStoreRequestType: UInt, Sendable {
    case fetchRequestType = 1
    case saveRequestType = 2
    case batchInsertRequestType = 5
    case batchUpdateRequestType = 6
    case batchDeleteRequestType = 7
}

/// What a fetch request returns. Core Data's raw values.
public struct NSFetchRequestResultType: OptionSet, Sendable, Hashable {
    /// Core Data's raw value.
    public let rawValue: UInt
    /// The result type with Core Data's raw value `rawValue`.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Managed objects (the default).
    public static let managedObjectResultType = NSFetchRequestResultType([])
    /// Object IDs.
    public static let managedObjectIDResultType = NSFetchRequestResultType(rawValue: 1)
    /// Dictionaries of the fetched properties.
    public static let dictionaryResultType = NSFetchRequestResultType(rawValue: 2)
    /// The number of matching objects.
    public static let countResultType = NSFetchRequestResultType(rawValue: 4)
}

/// A request to the persistent stores: the common part of fetch, save and batch requests.
open class NSPersistentStoreRequest: NSObject, NSCopying {
    /// The stores the request goes to; `nil` means every store of the coordinator.
    open var affectedStores: [NSPersistentStore]? { willSet { checkMutable() } }

    /// The kind of request.
    open var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    public override init() {
        super.init()
    }

    /// Traps when the request may not change. Subclasses refine it.
    func checkMutable() {}

    /// A copy with the same affected stores.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSPersistentStoreRequest()
        copy.affectedStores = affectedStores
        return copy
    }
}

/// A description of a fetch: the entity, the predicate, the order and the shape of the result.
///
/// Executing it (`context.fetch(_:)`) comes with the object graph. Differences from Apple:
/// `ResultType` has no `NSFetchRequestResult` constraint, so that Apple's spelling
/// `NSFetchRequest<NSFetchRequestResult>(entityName:)` compiles in Swift. A request obtained
/// with ``NSManagedObjectModel/fetchRequestTemplate(forName:)`` from an immutable model traps
/// with "Can't modify a named fetch request in an immutable model" when changed in place;
/// copy it first.
open class NSFetchRequest<ResultType>: NSPersistentStoreRequest {
    /// Set while the request is a template of an immutable model.
    var isImmutableTemplate = false

    /// The entity to fetch. Setting it sets ``entityName``.
    open var entity: NSEntityDescription? {
        didSet { entityName = entity?.name }
        willSet { checkMutable() }
    }

    /// The name of the entity to fetch.
    open private(set) var entityName: String?

    /// The condition fetched objects match; `nil` fetches all.
    open var predicate: NSPredicate? { willSet { checkMutable() } }

    /// The order of the results.
    open var sortDescriptors: [NSSortDescriptor]? { willSet { checkMutable() } }

    /// The greatest number of results; 0 means no limit.
    open var fetchLimit: Int = 0 { willSet { checkMutable() } }

    /// The number of leading results to skip.
    open var fetchOffset: Int = 0 { willSet { checkMutable() } }

    /// The batch size for faulting in results; 0 means all at once.
    open var fetchBatchSize: Int = 0 { willSet { checkMutable() } }

    /// What the fetch returns. Defaults to managed objects.
    open var resultType: NSFetchRequestResultType = .managedObjectResultType { willSet { checkMutable() } }

    /// The properties a dictionary fetch returns: property descriptions or their names.
    open var propertiesToFetch: [Any]? { willSet { checkMutable() } }

    /// Whether a dictionary fetch drops duplicate dictionaries.
    open var returnsDistinctResults: Bool = false { willSet { checkMutable() } }

    /// The properties a dictionary fetch groups by: descriptions or names.
    open var propertiesToGroupBy: [Any]? { willSet { checkMutable() } }

    /// The condition groups must meet in a grouped dictionary fetch.
    open var havingPredicate: NSPredicate? { willSet { checkMutable() } }

    /// Whether instances of subentities match too. Defaults to `true`.
    open var includesSubentities: Bool = true { willSet { checkMutable() } }

    /// Whether unsaved changes of the context take part. Defaults to `true`.
    open var includesPendingChanges: Bool = true { willSet { checkMutable() } }

    /// Whether fetched objects start as faults. Defaults to `true`.
    open var returnsObjectsAsFaults: Bool = true { willSet { checkMutable() } }

    /// Whether the fetch loads property values with the objects. Defaults to `true`.
    open var includesPropertyValues: Bool = true { willSet { checkMutable() } }

    /// Whether fetched objects already in the context get their values refreshed.
    open var shouldRefreshRefetchedObjects: Bool = false { willSet { checkMutable() } }

    /// Relationship key paths whose destinations are loaded with the results.
    open var relationshipKeyPathsForPrefetching: [String]? { willSet { checkMutable() } }

    public override init() {
        super.init()
    }

    /// A request for the entity named `entityName`.
    public convenience init(entityName: String) {
        self.init()
        self.entityName = entityName
    }

    open override var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    /// Points ``entity`` at the entity named ``entityName`` among `entities`, if there is one.
    func resolveEntity(in entities: [String: NSEntityDescription]) {
        if let entityName, let match = entities[entityName] { entity = match }
    }

    override func checkMutable() {
        if isImmutableTemplate { preconditionFailure(ManagedObjectModelError.immutableFetchRequestMessage) }
    }

    /// Throws ``ManagedObjectModelError/Kind/immutableFetchRequest`` when the request is a
    /// template of an immutable model. Not in Apple's API.
    public func ensureEditable() throws {
        if isImmutableTemplate {
            throw ManagedObjectModelError(.immutableFetchRequest, ManagedObjectModelError.immutableFetchRequestMessage,
                                          element: "fetch request for '\(entityName ?? "?")'")
        }
    }

    /// A mutable copy with the same settings.
    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSFetchRequest<ResultType>()
        copy.copySettings(from: self)
        return copy
    }

    /// Copies every setting of `other` (of any result type) into this request.
    func copySettings<Other>(from other: NSFetchRequest<Other>) {
        affectedStores = other.affectedStores
        entity = other.entity
        entityName = other.entityName
        predicate = other.predicate
        sortDescriptors = other.sortDescriptors
        fetchLimit = other.fetchLimit
        fetchOffset = other.fetchOffset
        fetchBatchSize = other.fetchBatchSize
        resultType = other.resultType
        propertiesToFetch = other.propertiesToFetch
        returnsDistinctResults = other.returnsDistinctResults
        propertiesToGroupBy = other.propertiesToGroupBy
        havingPredicate = other.havingPredicate
        includesSubentities = other.includesSubentities
        includesPendingChanges = other.includesPendingChanges
        returnsObjectsAsFaults = other.returnsObjectsAsFaults
        includesPropertyValues = other.includesPropertyValues
        shouldRefreshRefetchedObjects = other.shouldRefreshRefetchedObjects
        relationshipKeyPathsForPrefetching = other.relationshipKeyPathsForPrefetching
    }

    /// Structural equality of the settings (entity by name; stores by identity).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPersistentStoreRequest else { return false }
        if other === self { return true }
        guard let mirror = FetchRequestSettings(other) else { return false }
        return FetchRequestSettings(self) == mirror
    }

    open override var hash: Int { entityName?.hashValue ?? 0 }

    open override var description: String {
        "<NSFetchRequest: entity \(entityName ?? "nil"), predicate \(predicate?.predicateFormat ?? "nil")>"
    }
}

/// The comparable settings of a fetch request, whatever its result type.
struct FetchRequestSettings: Equatable {
    var entityName: String?
    var predicate: NSPredicate?
    var sortDescriptors: [NSSortDescriptor]?
    var numbers: [Int]
    var flags: [Bool]
    var resultType: NSFetchRequestResultType
    var propertiesToFetch: [String]?
    var propertiesToGroupBy: [String]?
    var havingPredicate: NSPredicate?
    var prefetching: [String]?
    var storeIdentifiers: [ObjectIdentifier]?

    init?(_ request: NSPersistentStoreRequest) {
        guard let request = request as? FetchRequestSettingsProviding else { return nil }
        self = request.settings
    }

    init<R>(_ r: NSFetchRequest<R>) {
        entityName = r.entityName
        predicate = r.predicate
        sortDescriptors = r.sortDescriptors
        numbers = [r.fetchLimit, r.fetchOffset, r.fetchBatchSize]
        flags = [r.returnsDistinctResults, r.includesSubentities, r.includesPendingChanges, r.returnsObjectsAsFaults,
                 r.includesPropertyValues, r.shouldRefreshRefetchedObjects]
        resultType = r.resultType
        propertiesToFetch = r.propertiesToFetch.map(FetchRequestSettings.names)
        propertiesToGroupBy = r.propertiesToGroupBy.map(FetchRequestSettings.names)
        havingPredicate = r.havingPredicate
        prefetching = r.relationshipKeyPathsForPrefetching
        storeIdentifiers = r.affectedStores?.map(ObjectIdentifier.init)
    }

    /// Property descriptions by name, names as themselves.
    static func names(_ properties: [Any]) -> [String] {
        properties.map { ($0 as? NSPropertyDescription)?.name ?? "\($0)" }
    }

    static func == (a: FetchRequestSettings, b: FetchRequestSettings) -> Bool {
        a.entityName == b.entityName
            && ModelValues.isEqual(a.predicate, b.predicate)
            && a.sortDescriptors?.count == b.sortDescriptors?.count
            && zip(a.sortDescriptors ?? [], b.sortDescriptors ?? []).allSatisfy { $0.isEqual($1) }
            && a.numbers == b.numbers && a.flags == b.flags && a.resultType == b.resultType
            && a.propertiesToFetch == b.propertiesToFetch && a.propertiesToGroupBy == b.propertiesToGroupBy
            && ModelValues.isEqual(a.havingPredicate, b.havingPredicate)
            && a.prefetching == b.prefetching && a.storeIdentifiers == b.storeIdentifiers
    }
}

/// Lets a type-erased request give its settings (the generic parameter is unknown at the call).
protocol FetchRequestSettingsProviding {
    var settings: FetchRequestSettings { get }
}

extension NSFetchRequest: FetchRequestSettingsProviding {
    var settings: FetchRequestSettings { FetchRequestSettings(self) }
}

extension NSFetchRequest {
    /// Drops the window, order and shaping of a dictionary result (offset, limit, sort,
    /// properties to fetch, grouping, having, distinct), so that the request reads every matching
    /// object: the rows a dictionary result is then built over in memory.
    func readEveryMatchingRow() {
        fetchOffset = 0
        fetchLimit = 0
        sortDescriptors = nil
        propertiesToFetch = nil
        propertiesToGroupBy = nil
        havingPredicate = nil
        returnsDistinctResults = false
    }
}
