/// Routes the object graph's requests to the persistent stores.
///
/// A coordinator owns a frozen model and a list of stores. It adds and removes stores, finds
/// the stores a request affects (by model configuration and by `affectedStores`), merges the
/// results of several stores, and saves changes that span stores: every store checks its part
/// first, then each saves.
///
/// Its aspects live in separate files: store management (`+Stores`), metadata (`+Metadata`),
/// migration (`+Migration`) and the context's interface (`+Requests`).
///
/// Every operation on the stores runs under the coordinator's recursive lock
/// (`operationLock`), so the contexts of many queues share one coordinator safely. One kind
/// runs outside it, as on Apple's connection pool: a fetch from one SQLite store in WAL mode
/// reads on a connection of the store's own once the lock has chosen the store, so it neither
/// waits for nor holds up other contexts' saves (and holding the lock with ``lock()`` does not
/// hold such fetches up either).
///
/// Differences from Apple: `perform` and `performAndWait` run the block inline, on the caller's
/// thread, under the coordinator's lock.
// @unchecked Sendable: the store list has its own lock (and changes under `operationLock`);
// the stores and everything reached through them are used only under `operationLock`, except a
// fetch of a store whose `fetchesOutsideCoordinatorLock` is true (the SQLite store's reader pool
// and row cache have their own locks); the model is frozen (immutable) before the coordinator
// exists.
open class NSPersistentStoreCoordinator: NSObject, @unchecked Sendable {
    /// The model of every store of this coordinator. Adding the coordinator freezes it.
    public let managedObjectModel: NSManagedObjectModel

    /// The stores, in the order they were added. Changed under `operationLock`; read without
    /// it (under the list's own lock), so that choosing the stores of a fetch does not wait for
    /// another context's save.
    open internal(set) var persistentStores: [NSPersistentStore] {
        get { stores.withLock { $0 } }
        set { withLock { stores.withLock { $0 = newValue } } }
    }

    /// Storage of ``persistentStores``.
    private let stores = Locked<[NSPersistentStore]>([])

    /// The coordinator's name, for debugging. Read and written under `operationLock`.
    open var name: String? {
        get { withLock { storedName } }
        set { withLock { storedName = newValue } }
    }

    /// Storage of ``name``; touched only under ``operationLock``.
    private var storedName: String?

    /// Serializes every operation on the stores. Recursive, so a block run by ``perform(_:)``
    /// may call the coordinator again.
    let operationLock = NSRecursiveLock()

    /// Creates a coordinator for `model`, which becomes immutable.
    ///
    /// `required`, so that class methods and convenience initializers in extensions can call
    /// `self.init(managedObjectModel:)`, as Apple code does. A subclass that declares its own
    /// designated initializer must implement this one too.
    public required init(managedObjectModel model: NSManagedObjectModel) {
        managedObjectModel = model
        super.init()
        model.freeze()
        LoadedModels.shared.add(model)
    }

    // MARK: Locking

    /// Takes the coordinator's lock. (Deprecated by Apple in favour of `performAndWait(_:)`.)
    open func lock() { operationLock.lock() }

    /// Releases the coordinator's lock.
    open func unlock() { operationLock.unlock() }

    /// Takes the coordinator's lock if no other thread holds it.
    open func tryLock() -> Bool { operationLock.try() }

    /// Runs `block` under the coordinator's lock. Differs from Apple: inline, not on a queue.
    open func perform(_ block: () -> Void) {
        withLock(block)
    }

    /// Runs `block` under the coordinator's lock and returns when it is done.
    open func performAndWait(_ block: () -> Void) {
        withLock(block)
    }

    /// Runs `body` under the coordinator's lock and returns its result.
    public func performAndWait<T>(_ body: () throws -> T) rethrows -> T {
        try withLock(body)
    }

    /// `body` under ``operationLock``.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        operationLock.lock()
        defer { operationLock.unlock() }
        return try body()
    }

    // MARK: Store types

    /// The registered store types and their classes. The built-in in-memory type is always there.
    ///
    /// Differs from Apple, which returns `[String: NSValue]` wrapping the classes.
    open class var registeredStoreTypes: [String: NSPersistentStore.Type] {
        StoreTypeRegistry.shared.all
    }

    /// Registers `storeClass` (an ``NSPersistentStore`` subclass) for `storeType`; `nil` removes
    /// the registration. Stores of that type are then made with the class's
    /// `init(persistentStoreCoordinator:configurationName:at:options:)`.
    ///
    /// Traps when `storeClass` is not an ``NSPersistentStore`` subclass, as Apple raises.
    open class func registerStoreClass(_ storeClass: AnyClass?, type storeType: String) {
        guard let storeClass else {
            StoreTypeRegistry.shared.register(nil, for: storeType)
            return
        }
        guard let persistentStoreClass = storeClass as? NSPersistentStore.Type else {
            preconditionFailure("registerStoreClass: \(storeClass) is not a subclass of NSPersistentStore (store type '\(storeType)')")
        }
        StoreTypeRegistry.shared.register(persistentStoreClass, for: storeType)
    }

    // MARK: Routing

    /// Whether `store` holds objects of `entity` (its configuration lists the entity).
    func store(_ store: NSPersistentStore, holds entity: NSEntityDescription) -> Bool {
        guard let name = entity.name else { return false }
        let members = managedObjectModel.entities(forConfigurationName: store.configurationName) ?? []
        return members.contains { $0.name == name }
    }

    /// The store whose identifier is `identifier`, if it is one of this coordinator's.
    func store(withIdentifier identifier: String?) -> NSPersistentStore? {
        guard let identifier else { return nil }
        return persistentStores.first { $0.identifier == identifier }
    }

    /// The store an ID belongs to, if it is one of this coordinator's.
    func store(of objectID: NSManagedObjectID) -> NSPersistentStore? {
        // The store the ID was made by, when it is still one of ours (no string comparisons).
        if let store = objectID.persistentStore, persistentStores.contains(where: { $0 === store }),
           store.identifier == objectID.storeIdentifier {
            return store
        }
        return store(withIdentifier: objectID.storeIdentifier)
    }

    open override var description: String {
        "<NSPersistentStoreCoordinator\(name.map { " \($0)" } ?? ""): \(persistentStores.count) store(s)>"
    }
}
