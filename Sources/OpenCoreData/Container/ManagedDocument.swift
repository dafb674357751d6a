import Foundation

/// A document whose contents are one persistent store, in the spirit of UIKit's
/// `UIManagedDocument` and AppKit's `NSPersistentDocument`, without either framework.
///
/// A document is a package (a folder, as `UIManagedDocument` writes it) or a single store
/// file (as `NSPersistentDocument` writes it):
/// - package: `<document>/StoreContent/persistentStore` (``persistentStoreName``), the store
///   type and options in `<document>/DocumentMetadata.plist`, and what
///   ``additionalContent(for:)`` returns in `<document>/AdditionalContent/`;
/// - file: the document file is the store.
///
/// The stack is `UIManagedDocument`'s: ``managedObjectContext`` is a main-queue context whose
/// parent is a private-queue context on the document's coordinator, so a save writes through
/// the parent. Each document has its own ``undoManager`` (set on the context).
///
/// Differs from UIKit and AppKit:
/// - Beyond the completion-handler methods, each operation has a synchronous, throwing form
///   (``open()``, ``save(to:ofType:for:)``, ``close()``, ``revert(toContentsOf:)``); the
///   completion handlers are called before the method returns, with errors passed to
///   ``handleError(_:userInteractionPermitted:)``.
/// - There is no autosaving and no file coordination; ``close()`` saves unsaved changes.
/// - Save-as never writes into an existing file: a destination that exists is refused.
/// - Save-as (``save(to:ofType:for:)`` to another URL) moves the store with
///   `migratePersistentStore(_:to:options:type:)`, which may change the store type. Objects get
///   new IDs there: the contexts are reset, so fetch objects again afterwards.
/// - Call it on the main thread (or the thread that owns the main queue), as UIKit's.
open class ManagedDocument: NSObject {
    /// The document's state, as `UIDocument.State`.
    public struct State: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Open, nothing wrong.
        public static let normal: State = []
        /// Not open (before ``open()`` and after ``close()``).
        public static let closed = State(rawValue: 1 << 0)
        /// Another writer's version conflicts (never set here: there is no file coordination).
        public static let inConflict = State(rawValue: 1 << 1)
        /// The last save failed.
        public static let savingError = State(rawValue: 1 << 2)
        /// Changes can't be made now (while reverting).
        public static let editingDisabled = State(rawValue: 1 << 3)
        /// Progress is being reported (never set here).
        public static let progressAvailable = State(rawValue: 1 << 4)
    }

    /// How a save treats the destination, as `UIDocument.SaveOperation`.
    public enum SaveOperation: Sendable {
        /// The document is new at the URL: it must not exist yet.
        case forCreating
        /// The document's own file is written again.
        case forOverwriting
    }

    /// The document's location.
    public internal(set) var fileURL: URL
    /// Whether the document is a package (a folder) rather than a single store file.
    public let isPackage: Bool
    /// The store type for ``fileType`` (see ``persistentStoreType(forFileType:)``).
    public internal(set) var fileType: String
    /// The model of the document's store.
    public let managedObjectModel: NSManagedObjectModel
    /// The options the store is added with.
    open var persistentStoreOptions: [AnyHashable: Any]?
    /// The model configuration the store is added with.
    open var modelConfiguration: String?
    /// The context to work in: main queue, its parent on the coordinator.
    public let managedObjectContext: NSManagedObjectContext
    /// The document's state.
    public internal(set) var documentState: State = .closed
    /// When the document's store was last written, as the file system says.
    public internal(set) var fileModificationDate: Date?
    /// The last error an operation met (also given to ``handleError(_:userInteractionPermitted:)``).
    public private(set) var lastError: (any Error)?
    /// The store's metadata: read when the document opens, written with every save. Add your
    /// own keys (AppKit's documents keep Spotlight's there).
    open var metadata: [String: Any] = [:]

    let parentContext: NSManagedObjectContext
    /// The document's coordinator (``configurePersistentStoreCoordinator(for:ofType:modelConfiguration:storeOptions:)``
    /// adds the store to it).
    public let coordinator: NSPersistentStoreCoordinator
    var store: NSPersistentStore?

    /// The file name of the store inside a package (`UIManagedDocument`'s default).
    open class var persistentStoreName: String { "persistentStore" }

    /// A closed document at `fileURL` for `model`, a package unless `isPackage` is false, whose
    /// store is of `storeType` (an existing package's `DocumentMetadata.plist` overrides it).
    public init(fileURL: URL, managedObjectModel: NSManagedObjectModel, storeType: String = NSSQLiteStoreType,
                isPackage: Bool = true) {
        self.fileURL = fileURL
        self.managedObjectModel = managedObjectModel
        self.fileType = storeType
        self.isPackage = isPackage
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        parentContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        parentContext.persistentStoreCoordinator = coordinator
        managedObjectContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        managedObjectContext.parent = parentContext
        managedObjectContext.undoManager = UndoManager()
        super.init()
    }

    /// The document's undo manager (the context's).
    open var undoManager: UndoManager? {
        get { managedObjectContext.undoManager }
        set { managedObjectContext.undoManager = newValue }
    }

    /// Whether the contexts hold changes not yet in the store.
    open var hasUnsavedChanges: Bool {
        managedObjectContext.hasChanges || parentContext.performAndWait { parentContext.hasChanges }
    }

    /// The store type for a file type: the type itself when it is a registered store type,
    /// else SQLite. Override to map your own document types.
    open func persistentStoreType(forFileType fileType: String) -> String {
        NSPersistentStoreCoordinator.registeredStoreTypes[fileType] != nil ? fileType : NSSQLiteStoreType
    }

    /// Adds the document's store to the coordinator, as `UIManagedDocument` does; override to
    /// add options or more stores.
    open func configurePersistentStoreCoordinator(for storeURL: URL, ofType fileType: String, modelConfiguration configuration: String?,
                                                  storeOptions: [AnyHashable: Any]?) throws {
        _ = try coordinator.addPersistentStore(ofType: persistentStoreType(forFileType: fileType),
                                                   configurationName: configuration, at: storeURL, options: storeOptions)
    }

    /// Extra content to write beside the store in a package (`Data`, or nil for none).
    open func additionalContent(for absoluteURL: URL) throws -> Any? { nil }

    /// Reads the extra content a package holds (`absoluteURL` is its `AdditionalContent` file).
    open func readAdditionalContent(from absoluteURL: URL) throws {}

    /// Called with the error of a failed operation; the default keeps it in ``lastError``.
    open func handleError(_ error: any Error, userInteractionPermitted: Bool) {
        lastError = error
    }

    // MARK: Locations

    /// The store's URL in a document at `url`.
    func storeURL(in url: URL) -> URL {
        isPackage ? url.appendingPathComponent("StoreContent").appendingPathComponent(Self.persistentStoreName) : url
    }

    private func metadataURL(in url: URL) -> URL { url.appendingPathComponent("DocumentMetadata.plist") }
    private func additionalContentURL(in url: URL) -> URL { url.appendingPathComponent("AdditionalContent") }

    static func error(_ code: Int, _ message: String, url: URL, underlying: (any Error)? = nil) -> NSError {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message, NSFilePathErrorKey: url.path]
        userInfo[NSUnderlyingErrorKey] = underlying
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: userInfo)
    }
}
