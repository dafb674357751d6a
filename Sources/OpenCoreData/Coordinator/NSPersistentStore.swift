/// A persistent store: the descriptive state every store has (identifier, type, location,
/// options, configuration, metadata).
///
/// This is the class the model layer needs for ``NSPersistentStoreRequest/affectedStores``.
/// The store protocol itself (loading, saving, fetching snapshots), the link to the coordinator
/// and the store-type registry land with the object graph (issue 4), which subclasses this.
open class NSPersistentStore: NSObject, @unchecked Sendable {
    /// The configuration name Core Data uses when a store is added without one.
    public static let defaultConfigurationName = "PF_DEFAULT_CONFIGURATION_NAME"

    /// The store's unique identifier, saved in its metadata (`NSStoreUUIDKey`).
    open var identifier: String!

    /// The store type, e.g. `"SQLite"`, `"XML"`, `"Binary"`, `"InMemory"`.
    open var type: String

    /// Where the store lives; `nil` for a store without a file.
    open var url: URL?

    /// The options the store was added with.
    open private(set) var options: [AnyHashable: Any]?

    /// The model configuration whose entities the store holds.
    open private(set) var configurationName: String

    /// The store's metadata (`NSStoreType`, `NSStoreUUID`, `NSStoreModelVersionHashes`, …).
    open var metadata: [String: Any]!

    /// Whether the store refuses saves.
    open var isReadOnly: Bool

    /// Creates the descriptive part of a store.
    ///
    /// Differs from Apple, whose initializer also takes the coordinator; that one arrives with
    /// the coordinator (issue 4).
    public init(type: String, configurationName: String?, at url: URL?, options: [AnyHashable: Any]?) {
        self.identifier = UUID().uuidString
        self.type = type
        self.url = url
        self.options = options
        self.configurationName = configurationName ?? NSPersistentStore.defaultConfigurationName
        self.metadata = [:]
        self.isReadOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
        super.init()
    }

    open override var description: String {
        "<\(Swift.type(of: self)): \(type) \(url?.path ?? "(no URL)") configuration \(configurationName)>"
    }
}

/// The store option that opens a store read-only (a `Bool`).
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"
