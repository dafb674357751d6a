import Foundation

/// What a fetched results controller knows: its configuration, the current arrangement of
/// the results into sections, and its observation of the context.
///
/// `@unchecked Sendable` because the notification observer's closure holds it; it is only
/// used on the context's queue (the controller's API is called there, and the context posts
/// `NSManagedObjectContextObjectsDidChange` there), which serializes every access.
final class FetchedResultsState: @unchecked Sendable {
    let context: NSManagedObjectContext
    let sectionNameKeyPath: String?
    let cacheName: String?
    let describe: () -> FetchedRequestDescription
    let fetch: () throws -> [AnyObject]

    weak var delegate: (any NSFetchedResultsControllerDelegate)?
    /// The controller as the delegate methods take it (the controller keeps it alive).
    weak var view: NSFetchedResultsController<NSFetchRequestResult>?

    /// The current arrangement; nil before the first fetch.
    private(set) var sections: [FetchedResultsSection]?
    /// The index path of every object of the arrangement.
    private var paths: [ObjectIdentifier: IndexPath] = [:]
    /// The object IDs of the arrangement, in order, as they were when it was computed.
    private(set) var objectIDs: [ObjectIdentifier: NSManagedObjectID] = [:]
    /// Set by the delegate's default difference callback: the event still needs the
    /// per-object callbacks.
    var differenceUnhandled = false
    /// Whether the last ``performFetch()`` took its sections from the cache.
    private(set) var lastFetchUsedCache = false

    private var observers: [NSObjectProtocol] = []

    init(context: NSManagedObjectContext, sectionNameKeyPath: String?, cacheName: String?,
         describe: @escaping () -> FetchedRequestDescription, fetch: @escaping () throws -> [AnyObject]) {
        self.context = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        self.describe = describe
        self.fetch = fetch
    }

    deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }

    // MARK: Fetching

    func performFetch() throws {
        context.checkConcurrency("NSFetchedResultsController.performFetch()")
        let request = describe()
        guard !request.sortDescriptors.isEmpty else {
            throw Self.error("An instance of NSFetchedResultsController requires a fetch request with sort descriptors (entity \(request.entityName ?? "nil"))")
        }
        let objects = try fetch()
        let cache = cacheName.map { FetchedResultsCache(name: $0, context: context, request: request, sectionNameKeyPath: sectionNameKeyPath) }
        if let cached = cache?.sections(for: objects) {
            lastFetchUsedCache = true
            install(cached)
        } else {
            lastFetchUsedCache = false
            install(try arrange(objects, strict: true))
            cache?.write(sections ?? [])
        }
        observeContext()
    }

    /// Groups ordered objects into sections by their section names. `strict` (a fetch) throws
    /// when a name reappears after another; otherwise (tracking) such objects join the first
    /// section of their name.
    func arrange(_ objects: [AnyObject], strict: Bool) throws -> [FetchedResultsSection] {
        guard let keyPath = sectionNameKeyPath else {
            return [FetchedResultsSection(name: "", indexTitle: nil, members: objects)]
        }
        var result: [FetchedResultsSection] = []
        var indexOfName: [String: Int] = [:]
        var knownTitles: [String: String?] = [:]
        if !strict { for section in sections ?? [] { knownTitles[section.name] = section.indexTitle } }
        for (offset, object) in objects.enumerated() {
            let name = try sectionName(of: object, keyPath: keyPath)
            if result.last?.name == name {
                result[result.count - 1].members.append(object)
            } else if let existing = indexOfName[name] {
                if strict {
                    throw Self.error("The fetched object at index \(offset) has an out of order section name '\(name)'. Objects must be sorted by section name (sectionNameKeyPath '\(keyPath)' must agree with the first sort descriptor)")
                }
                result[existing].members.append(object)
            } else {
                let title = knownTitles[name] ?? indexTitle(for: name)
                indexOfName[name] = result.count
                result.append(FetchedResultsSection(name: name, indexTitle: title, members: [object]))
            }
        }
        return result
    }

    private func sectionName(of object: AnyObject, keyPath: String) throws -> String {
        let value: Any?
        do {
            value = try KeyValueAccess.value(forKeyPath: keyPath, of: object)
        } catch {
            throw Self.error("NSFetchedResultsController: can't read the sectionNameKeyPath '\(keyPath)' of \(type(of: object)): \(error)")
        }
        guard let value = value.flatMap({ ValueComparison.isNSNull($0) ? nil : $0 }) else { return "" }
        if let string = value as? String { return string }
        return String(describing: value)
    }

    /// The index title of a section: the delegate's, else the controller's default.
    func indexTitle(for name: String) -> String? {
        guard let view else { return name.first.map { String($0).uppercased() } }
        if let delegate { return delegate.controller(view, sectionIndexTitleForSectionName: name) }
        return view.sectionIndexTitle(forSectionName: name)
    }

    /// Makes `sections` the current arrangement.
    func install(_ sections: [FetchedResultsSection]) {
        self.sections = sections
        paths = [:]
        objectIDs = [:]
        for (sectionIndex, section) in sections.enumerated() {
            for (row, object) in section.members.enumerated() {
                let key = ObjectIdentifier(object)
                paths[key] = IndexPath(indexes: [sectionIndex, row])
                if let managed = object as? NSManagedObject { objectIDs[key] = managed.objectID }
            }
        }
    }

    func indexPath(of object: AnyObject) -> IndexPath? {
        paths[ObjectIdentifier(object)]
    }

    static func error(_ message: String) -> NSError {
        NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError, userInfo: [NSLocalizedDescriptionKey: message])
    }

    // MARK: Observation

    /// Follows the context's changes; with a cache, also its saves, after which the cache is
    /// written again (changes tracked before the save could not be cached while unsaved).
    private func observeContext() {
        guard observers.isEmpty else { return }
        let center = NotificationCenter.default
        observers.append(center.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { [weak self] note in
            self?.contextObjectsDidChange(note.userInfo ?? [:])
        })
        guard cacheName != nil else { return }
        observers.append(center.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { [weak self] _ in
            self?.writeCache()
        })
    }

    /// Writes the current arrangement to the cache, if the controller has one and is tracking.
    func writeCache() {
        guard let cacheName, delegate != nil, let sections else { return }
        FetchedResultsCache(name: cacheName, context: context, request: describe(), sectionNameKeyPath: sectionNameKeyPath)
            .write(sections)
    }
}
