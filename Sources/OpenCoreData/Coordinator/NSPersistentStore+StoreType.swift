extension NSPersistentStore {
    /// A store type, as the typed API of iOS 15 and macOS 12 spells it (`.sqlite`, `.inMemory`).
    public struct StoreType: RawRepresentable, Hashable, Sendable {
        /// The type's string, as the `NS…StoreType` constants spell it.
        public let rawValue: String

        /// The store type named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `NSSQLiteStoreType`.
        public static let sqlite = StoreType(rawValue: NSSQLiteStoreType)
        /// `NSBinaryStoreType`.
        public static let binary = StoreType(rawValue: NSBinaryStoreType)
        /// `NSInMemoryStoreType`.
        public static let inMemory = StoreType(rawValue: NSInMemoryStoreType)
        /// `NSXMLStoreType`.
        public static let xml = StoreType(rawValue: NSXMLStoreType)
    }
}

extension NSPersistentStoreCoordinator {
    /// Adds a store of `type`: the typed form of
    /// ``addPersistentStore(ofType:configurationName:at:options:)``.
    @discardableResult
    public func addPersistentStore(type: NSPersistentStore.StoreType, configuration: String? = nil, at storeURL: URL,
                                   options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        try addPersistentStore(ofType: type.rawValue, configurationName: configuration, at: storeURL, options: options)
    }

    /// The metadata of the store of `type` at `url`: the typed form of
    /// ``metadataForPersistentStore(ofType:at:options:)``.
    public class func metadataForPersistentStore(type: NSPersistentStore.StoreType, at url: URL,
                                                 options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        try metadataForPersistentStore(ofType: type.rawValue, at: url, options: options)
    }

    /// Moves `store` to `url` as a store of `type`: the typed form of
    /// ``migratePersistentStore(_:to:options:type:)``.
    @discardableResult
    public func migratePersistentStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil,
                                       type: NSPersistentStore.StoreType) throws -> NSPersistentStore {
        try migratePersistentStore(store, to: url, options: options, type: type.rawValue)
    }

    /// Deletes the store of `type` at `url`: the typed form of
    /// ``destroyPersistentStore(at:ofType:options:)``.
    public func destroyPersistentStore(at url: URL, type: NSPersistentStore.StoreType, options: [AnyHashable: Any]? = nil) throws {
        try destroyPersistentStore(at: url, ofType: type.rawValue, options: options)
    }
}
