/// A description of a store to add to a coordinator: its type, location, configuration and
/// options.
///
/// The Boolean and timeout settings are kept in ``options`` under Core Data's option keys, as
/// Apple does, so `options` is exactly what the coordinator is given. A new description has
/// type SQLite and automatic lightweight migration on.
///
/// Differences from Apple: ``shouldAddStoreAsynchronously`` is recorded but stores are added
/// inline (``NSPersistentStoreCoordinator/addPersistentStore(with:completionHandler:)``).
open class NSPersistentStoreDescription: NSObject, NSCopying, @unchecked Sendable {
    /// The store type; `NSSQLiteStoreType` by default.
    open var type: String = NSSQLiteStoreType

    /// The model configuration the store holds; `nil` for every entity.
    open var configuration: String?

    /// Where the store lives.
    open var url: URL?

    /// The options the store is added with.
    open private(set) var options: [String: NSObject] = [:]

    /// Whether the store is added asynchronously (recorded; see the type's notes).
    open var shouldAddStoreAsynchronously: Bool = false

    /// Creates a description of a SQLite store with no URL yet.
    public override init() {
        super.init()
        setOption(NSNumber(value: true), forKey: NSMigratePersistentStoresAutomaticallyOption)
        setOption(NSNumber(value: true), forKey: NSInferMappingModelAutomaticallyOption)
    }

    /// Creates a description of the store at `url`.
    public convenience init(url: URL) {
        self.init()
        self.url = url
    }

    /// Sets the option `key` to `option`; `nil` removes it.
    open func setOption(_ option: NSObject?, forKey key: String) {
        options[key] = option
    }

    /// Whether the store opens read-only (`NSReadOnlyPersistentStoreOption`).
    open var isReadOnly: Bool {
        get { bool(NSReadOnlyPersistentStoreOption) ?? false }
        set { setOption(NSNumber(value: newValue), forKey: NSReadOnlyPersistentStoreOption) }
    }

    /// How long the store waits for a lock, in seconds (`NSPersistentStoreTimeoutOption`).
    open var timeout: TimeInterval {
        get { (options[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue ?? 240 }
        set { setOption(NSNumber(value: newValue), forKey: NSPersistentStoreTimeoutOption) }
    }

    /// Whether a store of an older model version is migrated when added
    /// (`NSMigratePersistentStoresAutomaticallyOption`).
    open var shouldMigrateStoreAutomatically: Bool {
        get { bool(NSMigratePersistentStoresAutomaticallyOption) ?? false }
        set { setOption(NSNumber(value: newValue), forKey: NSMigratePersistentStoresAutomaticallyOption) }
    }

    /// Whether the mapping model of such a migration is inferred
    /// (`NSInferMappingModelAutomaticallyOption`).
    open var shouldInferMappingModelAutomatically: Bool {
        get { bool(NSInferMappingModelAutomaticallyOption) ?? false }
        set { setOption(NSNumber(value: newValue), forKey: NSInferMappingModelAutomaticallyOption) }
    }

    /// The SQLite pragmas the store is opened with (`NSSQLitePragmasOption`).
    open var sqlitePragmas: [String: NSObject] {
        guard let pragmas = options[NSSQLitePragmasOption] as? NSDictionary else { return [:] }
        var result: [String: NSObject] = [:]
        for (key, value) in pragmas {
            if let key = key as? String ?? (key as? NSString).map({ $0 as String }), let value = value as? NSObject {
                result[key] = value
            }
        }
        return result
    }

    /// Sets the SQLite pragma `name` to `value`; `nil` removes it.
    open func setValue(_ value: NSObject?, forPragmaNamed name: String) {
        var pragmas = sqlitePragmas
        pragmas[name] = value
        if pragmas.isEmpty {
            setOption(nil, forKey: NSSQLitePragmasOption)
        } else {
            let dictionary = NSMutableDictionary()
            for (key, value) in pragmas { dictionary[NSString(string: key)] = value }
            setOption(dictionary, forKey: NSSQLitePragmasOption)
        }
    }

    private func bool(_ key: String) -> Bool? {
        storeOptionBool(options, key)
    }

    /// A description with the same settings.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSPersistentStoreDescription()
        copy.type = type
        copy.configuration = configuration
        copy.url = url
        copy.options = options
        copy.shouldAddStoreAsynchronously = shouldAddStoreAsynchronously
        return copy
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPersistentStoreDescription else { return false }
        return type == other.type && configuration == other.configuration && url == other.url
            && shouldAddStoreAsynchronously == other.shouldAddStoreAsynchronously
            && NSDictionary(dictionary: options).isEqual(NSDictionary(dictionary: other.options))
    }

    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(type)
        hasher.combine(url)
        hasher.combine(configuration)
        return hasher.finalize()
    }

    open override var description: String {
        "<NSPersistentStoreDescription: type \(type), url \(url?.absoluteString ?? "nil"), configuration \(configuration ?? "nil"), readOnly \(isReadOnly), options \(options)>"
    }
}
