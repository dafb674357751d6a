/// The store classes the coordinator knows, by store type.
///
/// It is the one piece of process-wide mutable state Core Data has (`registerStoreClass(_:type:)`
/// is a class method), so it lives behind a lock. The built-in store types are registered
/// from the start; a file-store or SQL-store issue adds its class to ``builtIn``.
final class StoreTypeRegistry: @unchecked Sendable {
    static let shared = StoreTypeRegistry()

    /// The store classes every process starts with.
    static let builtIn: [String: NSPersistentStore.Type] = [
        NSInMemoryStoreType: InMemoryStore.self,
        NSSQLiteStoreType: SQLiteStore.self,
    ]

    private let lock = NSLock()
    private var classes: [String: NSPersistentStore.Type] = StoreTypeRegistry.builtIn

    /// The class registered for `type`, or `nil`.
    func storeClass(for type: String) -> NSPersistentStore.Type? {
        lock.lock()
        defer { lock.unlock() }
        return classes[type]
    }

    /// Registers `storeClass` for `type`; `nil` removes the registration.
    func register(_ storeClass: NSPersistentStore.Type?, for type: String) {
        lock.lock()
        defer { lock.unlock() }
        classes[type] = storeClass
    }

    /// Every registered type with its class.
    var all: [String: NSPersistentStore.Type] {
        lock.lock()
        defer { lock.unlock() }
        return classes
    }
}
