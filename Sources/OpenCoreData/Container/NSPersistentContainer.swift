/// A container that sets up a Core Data stack: a model, a coordinator, its stores and a view context.
///
/// Differences from Apple:
/// - ``init(name:)`` looks for the model in the places ``modelSearchDirectories(forName:)`` lists
///   (there are no app bundles on Linux), and accepts Xcode's uncompiled `.xcdatamodeld` as well as
///   compiled models.
/// - ``defaultDirectoryURL()`` follows the XDG base-directory rules on Linux.
/// - ``viewContext`` runs its blocks on the main queue, which nothing drains by itself on Linux:
///   a program that uses it from other threads must call `dispatchMain()` or
///   `RunLoop.main.run()`, or have an `async` `main`. Servers should use
///   ``newBackgroundContext()`` and `performBackgroundTask(_:)` instead.
// @unchecked Sendable: the container's own properties are set in `init` (only
// `persistentStoreDescriptions` is mutable, for setting up before loading, as in Apple); the
// coordinator guards itself with its lock and each context is confined to its queue.
open class NSPersistentContainer: NSObject, @unchecked Sendable {
    /// The container's name: the model's name, and the default store file's base name.
    public let name: String

    /// The model of every store of the container.
    public let managedObjectModel: NSManagedObjectModel

    /// The coordinator that routes the contexts' requests to the stores.
    public let persistentStoreCoordinator: NSPersistentStoreCoordinator

    /// The stores ``loadPersistentStores(completionHandler:)`` adds. By default one SQLite store
    /// at `defaultDirectoryURL()/<name>.sqlite`.
    open var persistentStoreDescriptions: [NSPersistentStoreDescription]

    /// The main-queue context connected to the coordinator, for reading and for the user interface.
    public let viewContext: NSManagedObjectContext

    /// Creates a container with the model named `name`, found as described in
    /// ``modelSearchDirectories(forName:)``.
    ///
    /// As in Core Data, a missing model is not fatal here: an error naming the places searched is
    /// written to standard error and the container gets an empty model. Use
    /// ``loadModel(named:)`` to get the error instead.
    public convenience init(name: String) {
        self.init(name: name, modelSearchDirectories: Self.modelSearchDirectories(forName: name))
    }

    /// ``init(name:)`` searching the given folders.
    convenience init(name: String, modelSearchDirectories folders: [URL]) {
        let model: NSManagedObjectModel
        do {
            model = try Self.loadModel(named: name, in: folders)
        } catch {
            FileHandle.standardError.write(Data("CoreData: error: \(error)\n".utf8))
            model = NSManagedObjectModel()
        }
        self.init(name: name, managedObjectModel: model)
    }

    /// Creates a container with `model`. Its coordinator freezes the model.
    public init(name: String, managedObjectModel model: NSManagedObjectModel) {
        self.name = name
        managedObjectModel = model
        persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let storeURL = Self.defaultDirectoryURL().appendingPathComponent(name).appendingPathExtension("sqlite")
        persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
        viewContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        super.init()
        viewContext.persistentStoreCoordinator = persistentStoreCoordinator
    }

    /// The folder of the default store: `$XDG_DATA_HOME/<executable name>`, or
    /// `~/.local/share/<executable name>` when `XDG_DATA_HOME` is unset, empty or relative.
    ///
    /// Differs from Apple, which answers the application's Application Support folder.
    open class func defaultDirectoryURL() -> URL {
        defaultDirectoryURL(environment: ProcessInfo.processInfo.environment, executableName: executableName)
    }

    /// ``defaultDirectoryURL()`` for a given environment and executable name.
    static func defaultDirectoryURL(environment: [String: String], executableName: String) -> URL {
        let base: URL
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            base = URL(fileURLWithPath: dataHome, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true)
                .appendingPathComponent(".local", isDirectory: true)
                .appendingPathComponent("share", isDirectory: true)
        }
        return base.appendingPathComponent(executableName, isDirectory: true)
    }

    /// The running program's file name.
    static var executableName: String {
        if let path = CommandLine.arguments.first, !path.isEmpty {
            return URL(fileURLWithPath: path).lastPathComponent
        }
        return ProcessInfo.processInfo.processName
    }

    /// Adds a store for each of ``persistentStoreDescriptions`` to the coordinator, calling `block`
    /// once per description with `nil` or the error that prevented it.
    ///
    /// The folder of a file store's URL is created first when it is missing. A store type that
    /// is not registered fails with Core Data's `NSPersistentStoreInvalidTypeError` (134000).
    open func loadPersistentStores(completionHandler block: (NSPersistentStoreDescription, Error?) -> Void) {
        for description in persistentStoreDescriptions {
            if let url = description.url, url.isFileURL, description.type != NSInMemoryStoreType,
               url.path != "/dev/null" {
                let folder = url.deletingLastPathComponent()
                do {
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                } catch {
                    block(description, error)
                    continue
                }
            }
            persistentStoreCoordinator.addPersistentStore(with: description, completionHandler: block)
        }
    }

    /// A new private-queue context connected to the coordinator.
    open func newBackgroundContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs `block` on the queue of a new private-queue context and returns at once.
    open func performBackgroundTask(_ block: @escaping @Sendable (NSManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs `block` on the queue of a new private-queue context and returns its result.
    ///
    /// Differs from Apple: declared with typed `throws(E)` instead of `rethrows` (the same at
    /// every call site).
    public func performBackgroundTask<T, E: Error>(_ block: @escaping (NSManagedObjectContext) throws(E) -> T) async throws(E) -> T {
        let context = newBackgroundContext()
        // Apple's block is not @Sendable: it is handed over once, to run on the new queue.
        let handOver = QueueHandOver(value: block)
        return try await context.perform(schedule: .enqueued) { () throws(E) -> T in try handOver.value(context) }
    }
}
