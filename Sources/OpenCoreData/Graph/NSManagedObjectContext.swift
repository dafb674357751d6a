// PLACEHOLDER, completed by the object-graph work (helper `graph-core`).
/// A scratch pad of managed objects: it tracks their changes and saves them through a coordinator.
open class NSManagedObjectContext: NSObject, @unchecked Sendable {
    /// How a context confines its work, with Apple's raw values.
    public enum ConcurrencyType: UInt, Sendable {
        case confinementConcurrencyType = 0
        case privateQueueConcurrencyType = 1
        case mainQueueConcurrencyType = 2
    }

    /// The confinement chosen at creation.
    public let concurrencyType: ConcurrencyType

    /// The coordinator the context saves through.
    open var persistentStoreCoordinator: NSPersistentStoreCoordinator?

    /// Creates a context.
    public init(concurrencyType type: ConcurrencyType) {
        concurrencyType = type
        super.init()
    }
}
