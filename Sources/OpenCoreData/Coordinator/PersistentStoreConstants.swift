/// Core Data's store types, metadata keys, store options and coordinator notifications, with
/// Apple's names and string values.

// MARK: Store types

/// The in-memory store type.
public let NSInMemoryStoreType = "InMemory"
/// The SQLite store type.
public let NSSQLiteStoreType = "SQLite"
/// The XML store type. (Apple offers it on macOS only; here it is available everywhere.)
public let NSXMLStoreType = "XML"
/// The binary store type.
public let NSBinaryStoreType = "Binary"

// MARK: Metadata keys

/// The metadata key of the store type (a `String`).
public let NSStoreTypeKey = "NSStoreType"
/// The metadata key of the store's UUID (a `String`), which is also the store's identifier.
public let NSStoreUUIDKey = "NSStoreUUID"
/// The metadata key of the version of the version-hash algorithm (an `Int`, 3).
public let NSStoreModelVersionHashesVersionKey = "NSStoreModelVersionHashesVersion"
/// The metadata key of the framework version that wrote the store.
public let NSPersistenceFrameworkVersionKey = "NSPersistenceFrameworkVersion"
/// The metadata key of the model's checksum.
public let NSStoreModelVersionChecksumKey = "NSStoreModelVersionChecksumKey"

// MARK: Store options

/// The option that bounds how long a store waits for a lock, in seconds (an `NSNumber`).
public let NSPersistentStoreTimeoutOption = "NSPersistentStoreTimeoutOption"
/// The option holding SQLite pragmas (a dictionary of pragma name → value).
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"
/// The option that runs `ANALYZE` when a SQLite store is opened.
public let NSSQLiteAnalyzeOption = "NSSQLiteAnalyzeOption"
/// The option that runs `VACUUM` at each save of a SQLite store.
public let NSSQLiteManualVacuumOption = "NSSQLiteManualVacuumOption"
/// The option that migrates a store of an older model version automatically (a `Bool`).
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
/// The option that lets the coordinator infer a mapping model (a `Bool`).
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"
/// The option that skips the model version check when a store is opened (a `Bool`).
public let NSIgnorePersistentStoreVersioningOption = "NSIgnorePersistentStoreVersioningOption"
/// The option that validates an XML store against its DTD when it is read (a `Bool`).
public let NSValidateXMLStoreOption = "NSValidateXMLStoreOption"
/// The option that turns on persistent history tracking (a `Bool`).
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"
/// The option that posts remote-change notifications for the store (a `Bool`).
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationOptionKey"
/// The file-protection option (ignored on Linux).
public let NSPersistentStoreFileProtectionKey = "NSPersistentStoreFileProtectionKey"
/// The option that lets `destroyPersistentStore` delete a store that can't be opened (a `Bool`).
public let NSPersistentStoreForceDestroyOption = "NSPersistentStoreForceDestroyOption"
/// The option bounding the number of SQLite connections a store opens (an `NSNumber`).
public let NSPersistentStoreConnectionPoolMaxSizeKey = "NSPersistentStoreConnectionPoolMaxSizeKey"
/// The option that defers the cleanup part of a lightweight migration (a `Bool`).
public let NSPersistentStoreDeferredLightweightMigrationOptionKey = "NSPersistentStoreDeferredLightweightMigrationOptionKey"
/// The option listing the classes the binary store may decode in transformable values.
public let NSBinaryStoreSecureDecodingClasses = "NSBinaryStoreSecureDecodingClasses"
/// The option that lets the binary store decode values insecurely, as older stores did (a `Bool`).
public let NSBinaryStoreInsecureDecodingCompatibilityOption = "NSBinaryStoreInsecureDecodingCompatibilityOption"

// MARK: Notifications

extension Notification.Name {
    /// Posted after stores were added to or removed from a coordinator; the userInfo holds
    /// ``NSAddedPersistentStoresKey`` and ``NSRemovedPersistentStoresKey``.
    public static let NSPersistentStoreCoordinatorStoresDidChange =
        Notification.Name("NSPersistentStoreCoordinatorStoresDidChangeNotification")
    /// Posted before stores are added to or removed from a coordinator.
    public static let NSPersistentStoreCoordinatorStoresWillChange =
        Notification.Name("NSPersistentStoreCoordinatorStoresWillChangeNotification")
    /// Posted before a store is removed from a coordinator; the object is the store.
    public static let NSPersistentStoreCoordinatorWillRemoveStore =
        Notification.Name("NSPersistentStoreCoordinatorWillRemoveStoreNotification")
}

/// The userInfo key of the stores a `Notification.Name.NSPersistentStoreCoordinatorStoresDidChange` added.
public let NSAddedPersistentStoresKey = "added"
/// The userInfo key of the stores a `Notification.Name.NSPersistentStoreCoordinatorStoresDidChange` removed.
public let NSRemovedPersistentStoresKey = "removed"
/// The userInfo key of a store whose UUID changed (by migration): old store, new store.
public let NSUUIDChangedPersistentStoresKey = "changedUUID"

/// Reads a Boolean store option given as `Bool` or `NSNumber`.
func storeOptionBool(_ options: [AnyHashable: Any]?, _ key: String) -> Bool? {
    switch options?[key] {
    case let value as Bool: return value
    case let value as NSNumber: return value.boolValue
    case let value as String: return (value as NSString).boolValue
    default: return nil
    }
}
