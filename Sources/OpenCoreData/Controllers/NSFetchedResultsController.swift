import Foundation

/// Manages the results of a fetch request for display: the fetched objects, grouped into
/// sections, kept up to date with the context's changes and reported to a delegate.
///
/// Give it a fetch request with at least one sort descriptor, call ``performFetch()``, then
/// read ``fetchedObjects`` and ``sections``. With a ``delegate`` the controller follows the
/// context's `NSManagedObjectContextObjectsDidChange` notifications (its own changes at
/// `processPendingChanges()`, saves merged from other contexts, parent saves merged by
/// `automaticallyMergesChangesFromParent`, refreshes) and reports insertions, deletions, moves
/// and updates; without a delegate it keeps the results of the last fetch, as on Apple.
///
/// Differences from Apple:
/// - `ResultType` has no `NSFetchRequestResult` constraint, like ``NSFetchRequest``: the
///   delegate methods take `NSFetchedResultsController<NSFetchRequestResult>`, and a Swift
///   protocol existential can't satisfy a constraint of its own protocol on Linux.
/// - A request without sort descriptors, a `sectionNameKeyPath` the objects are not sorted by
///   (a section name that reappears after another: Apple's "out of order section name") and
///   an unknown section key path make ``performFetch()`` throw an `NSError`
///   (`NSCocoaErrorDomain`, `NSCoreDataError`) where Apple raises at init or logs and fails.
/// - When the tracked changes would split a section (the section key no longer agrees with
///   the sort), the objects of that name are gathered in its first section, so `sections`
///   and `fetchedObjects` always agree.
/// - Tracking covers managed-object results (`resultType` `.managedObjectResultType`);
///   `fetchLimit` and `fetchOffset` apply to ``performFetch()`` only, as on Apple. Objects
///   invalidated by `reset()` stay until the next ``performFetch()``.
/// - Sections of objects whose section key is nil are named "" (index title nil); non-string
///   values are named by their `description`.
open class NSFetchedResultsController<ResultType>: NSObject {
    /// The state shared with the controller's `NSFetchRequestResult`-typed view.
    let state: FetchedResultsState

    /// The view of this controller typed as Apple's delegate methods take it, when this
    /// controller is typed otherwise (kept alive here; the state refers to it weakly).
    private var erasedView: NSFetchedResultsController<NSFetchRequestResult>?

    /// The fetch request. For the view passed to the delegate of a controller of another
    /// result type, a copy made when the controller was created.
    public let fetchRequest: NSFetchRequest<ResultType>

    /// Creates a controller of `fetchRequest`'s results in `context`, grouped into sections by
    /// `sectionNameKeyPath` (one section when nil), with its section information cached on
    /// disk under `name` (no cache when nil).
    public init(fetchRequest: NSFetchRequest<ResultType>, managedObjectContext context: NSManagedObjectContext,
                sectionNameKeyPath: String?, cacheName name: String?) {
        self.fetchRequest = fetchRequest
        self.state = FetchedResultsState(
            context: context, sectionNameKeyPath: sectionNameKeyPath, cacheName: name,
            describe: { FetchedRequestDescription(fetchRequest) },
            fetch: { try context.fetch(fetchRequest).map { $0 as AnyObject } })
        super.init()
        if let erased = self as? NSFetchedResultsController<NSFetchRequestResult> {
            state.view = erased
        } else {
            let copy = NSFetchRequest<NSFetchRequestResult>()
            copy.copySettings(from: fetchRequest)
            let view = NSFetchedResultsController<NSFetchRequestResult>(sharing: state, fetchRequest: copy)
            erasedView = view
            state.view = view
        }
    }

    /// A controller over existing state: the delegate's view of a typed controller.
    init(sharing state: FetchedResultsState, fetchRequest: NSFetchRequest<ResultType>) {
        self.state = state
        self.fetchRequest = fetchRequest
        super.init()
    }

    /// The context the request is fetched in and whose changes are tracked.
    public var managedObjectContext: NSManagedObjectContext { state.context }

    /// The key path whose string value names each object's section; nil for one section.
    public var sectionNameKeyPath: String? { state.sectionNameKeyPath }

    /// The name of the on-disk cache of the section information; nil for no cache.
    public var cacheName: String? { state.cacheName }

    /// The object told about changes of the results. Without one, changes are not tracked.
    /// Held weakly (Apple: `unowned(unsafe)`).
    public var delegate: (any NSFetchedResultsControllerDelegate)? {
        get { state.delegate }
        set { state.delegate = newValue }
    }

    /// Runs the fetch request and computes the sections (or loads them from the cache).
    /// Throws the fetch's errors, and an `NSCoreDataError` when the request has no sort
    /// descriptors or the objects are not sorted by their section names.
    open func performFetch() throws {
        try state.performFetch()
    }

    /// The fetched objects in order (the sections' objects one after another); nil before
    /// ``performFetch()``.
    open var fetchedObjects: [ResultType]? {
        state.sections.map { sections in sections.flatMap(\.members).map(Self.typed) }
    }

    /// The sections; nil before ``performFetch()``. Without a `sectionNameKeyPath` there is one
    /// section (named "") holding every object, even when there are none.
    open var sections: [any NSFetchedResultsSectionInfo]? {
        state.sections
    }

    /// The object at `indexPath` (section, row). Traps for a path outside the sections, as
    /// Apple raises.
    open func object(at indexPath: IndexPath) -> ResultType {
        let sections = state.sections ?? []
        precondition(indexPath.count == 2 && sections.indices.contains(indexPath[0])
                     && sections[indexPath[0]].members.indices.contains(indexPath[1]),
                     "NSFetchedResultsController: no object at index path \(indexPath) (\(sections.count) sections)")
        return Self.typed(sections[indexPath[0]].members[indexPath[1]])
    }

    /// The index path of `object` in the results, or nil when it is not among them.
    open func indexPath(forObject object: ResultType) -> IndexPath? {
        state.indexPath(of: object as AnyObject)
    }

    /// The section index title of a section name: its first letter, capitalized (nil for "").
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }

    /// The index titles of the sections, in order, each once.
    open var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        return (state.sections ?? []).compactMap(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// The section of the section index title `title` (at `sectionIndex` in
    /// ``sectionIndexTitles``): the first section with that index title. When no section has
    /// it, the section at `sectionIndex` (clamped to the sections).
    open func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        let sections = state.sections ?? []
        if let match = sections.firstIndex(where: { $0.indexTitle == title }) { return match }
        return max(0, min(sectionIndex, sections.count - 1))
    }

    /// Deletes the cached section information named `name`, or every cache when nil.
    open class func deleteCache(withName name: String?) {
        FetchedResultsCache.delete(named: name)
    }

    /// Equal to its delegate view and to itself: controllers are equal when they share state.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSObject else { return false }
        return (other as? FetchedResultsStateHolder)?.sharedState === state
    }

    open override var hash: Int { ObjectIdentifier(state).hashValue }

    private static func typed(_ object: AnyObject) -> ResultType {
        guard let result = object as? ResultType else {
            preconditionFailure("NSFetchedResultsController: a fetched \(type(of: object)) is not a \(ResultType.self)")
        }
        return result
    }
}

/// Reaches the shared state of a controller of any result type (for `isEqual`).
protocol FetchedResultsStateHolder: AnyObject {
    var sharedState: FetchedResultsState { get }
}

extension NSFetchedResultsController: FetchedResultsStateHolder {
    var sharedState: FetchedResultsState { state }
}

/// The parts of the fetch request the controller reads, taken when needed (the request may
/// change between fetches).
struct FetchedRequestDescription {
    var entityName: String?
    var entity: NSEntityDescription?
    var predicate: NSPredicate?
    var sortDescriptors: [NSSortDescriptor]
    var includesSubentities: Bool
    var resultType: NSFetchRequestResultType
    var fetchLimit: Int
    var fetchOffset: Int

    init<T>(_ request: NSFetchRequest<T>) {
        entityName = request.entity?.name ?? request.entityName
        entity = request.entity
        predicate = request.predicate
        sortDescriptors = request.sortDescriptors ?? []
        includesSubentities = request.includesSubentities
        resultType = request.resultType
        fetchLimit = request.fetchLimit
        fetchOffset = request.fetchOffset
    }
}
