import Foundation

/// A controller of one content object, as AppKit's `NSObjectController`, without AppKit.
///
/// The model-controller half of Cocoa bindings: content set directly, fetched from a managed
/// object context ("entity mode": ``entityName`` and ``managedObjectContext``), or bound to a
/// key path of another controller (``bind(_:to:withKeyPath:options:)``), with `add`, `remove`
/// and a selection. ``NSArrayController`` and ``NSTreeController`` build on it.
///
/// Differs from AppKit:
/// - There is no key-value observing. A controller posts ``didChangeNotification`` (and yields
///   on ``changes``) after its content, arrangement or selection changed, naming the keys.
/// - Actions (`add(_:)`, `remove(_:)`, `fetch(_:)`) act at once; AppKit defers them to the
///   next turn of the run loop.
/// - Errors AppKit would present (a failed fetch) are kept in ``lastError``.
/// - Use a controller on its context's queue, as the context's objects are used; it follows
///   the context's `NSManagedObjectContextObjectsDidChange` notifications, which are posted
///   there.
open class NSObjectController: NSObject, KeyValueCoding {
    /// Posted by a controller after its content, arrangement or selection changed.
    public static let didChangeNotification = Notification.Name("NSObjectControllerDidChange")
    /// In ``didChangeNotification``'s `userInfo`: the changed keys (`Set<String>`: "content",
    /// "arrangedObjects", "selection", "selectionIndexes", "selectionIndexPaths").
    public static let changedKeysKey = "changedKeys"

    var storedContent: Any?
    var binding: ControllerBinding?
    private var contextObserver: NSObjectProtocol?
    /// The context's changes reported while ``fetch(with:merge:)`` runs, nil when none runs.
    ///
    /// Handled as they come, the event's inserted objects would join the content before the
    /// fetch replaced it, in the notification's order, and the selection would follow the first
    /// of them rather than the first arranged object.
    private var changesDuringFetch: [ContextObjectChanges]?

    /// A controller whose content is `content`.
    public init(content: Any?) {
        storedContent = content
        super.init()
    }

    /// A controller without content.
    public override convenience init() {
        self.init(content: nil)
    }

    deinit {
        if let contextObserver { NotificationCenter.default.removeObserver(contextObserver) }
        binding?.stop()
    }

    // MARK: Content

    /// The content object (for an array controller, the content array).
    open var content: Any? {
        get { storedContent }
        set {
            storedContent = newValue
            contentDidChange()
        }
    }

    /// The class of the objects ``newObject()`` makes outside entity mode (AppKit's default:
    /// `NSMutableDictionary`).
    ///
    /// Differs from AppKit: Swift can make an instance of a class it knows only at run time
    /// through a `required init()`, so the class is `NSMutableDictionary` (or a subclass) or a
    /// class adopting ``ControllerObjectInitializable``; for others, override ``newObject()``.
    open var objectClass: AnyClass = NSMutableDictionary.self
    /// The entity whose objects are the content, in entity mode.
    open var entityName: String?
    /// The context the content is fetched from and new objects are inserted into; setting it
    /// with ``automaticallyPreparesContent`` fetches the content.
    open var managedObjectContext: NSManagedObjectContext? {
        didSet {
            observeContext()
            if automaticallyPreparesContent, managedObjectContext !== oldValue { prepareContent() }
        }
    }
    /// The predicate of the fetch that prepares the content, in entity mode.
    open var fetchPredicate: NSPredicate?
    /// Whether the content is prepared when the context is set, and (in entity mode) follows
    /// the context: objects of the entity inserted there join the content, deleted ones leave.
    open var automaticallyPreparesContent = false
    /// Accepted for AppKit's sake: fetched objects are faults until used in any case.
    open var usesLazyFetching = false
    /// Whether `add`, `insert` and `remove` may change the content.
    open var isEditable = true
    /// The error of the last fetch made by ``fetch(_:)`` or ``prepareContent()`` (AppKit
    /// presents it), nil after a successful one.
    open private(set) var lastError: (any Error)?

    /// Whether the controller fetches its content from a context (an entity name and a context).
    var isEntityMode: Bool { entityName != nil && managedObjectContext != nil && binding == nil }

    /// The entity of entity mode.
    var entity: NSEntityDescription? {
        guard let entityName, let model = managedObjectContext?.persistentStoreCoordinator?.managedObjectModel else { return nil }
        return model.entitiesByName[entityName]
    }

    /// Prepares the content: in entity mode, fetches it; otherwise makes a new object as the
    /// content when there is none.
    open func prepareContent() {
        if isEntityMode {
            fetch(nil)
        } else if storedContent == nil, binding == nil {
            content = newObject()
        }
    }

    /// A new object for the content: in entity mode inserted into the context, otherwise an
    /// instance of ``objectClass``.
    ///
    /// Traps, naming the entity, when ``entityName`` is not an entity of the context's model
    /// (AppKit raises).
    open func newObject() -> Any {
        if let context = managedObjectContext, let entityName {
            guard entity != nil else {
                preconditionFailure("\(Swift.type(of: self)).newObject(): no entity named '\(entityName)' in the context's model")
            }
            return NSEntityDescription.insertNewObject(forEntityName: entityName, into: context)
        }
        if let type = objectClass as? any ControllerObjectInitializable.Type { return type.init() }
        if objectClass is NSMutableDictionary.Type { return NSMutableDictionary() }
        preconditionFailure("\(Swift.type(of: self)).newObject(): can't make an instance of \(objectClass); adopt ControllerObjectInitializable or override newObject()")
    }

    // MARK: Fetching

    /// The request ``fetch(_:)`` runs: the entity and ``fetchPredicate``.
    open func defaultFetchRequest() -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName ?? "")
        request.predicate = fetchPredicate
        return request
    }

    /// Fetches the content with ``defaultFetchRequest()``; an error is kept in ``lastError``.
    open func fetch(_ sender: Any?) {
        do {
            try fetch(with: nil, merge: false)
            lastError = nil
        } catch {
            lastError = error
        }
    }

    /// Fetches the content with `fetchRequest` (nil: ``defaultFetchRequest()``). With `merge`,
    /// the objects join the current content instead of replacing it.
    open func fetch(with fetchRequest: NSFetchRequest<NSFetchRequestResult>?, merge: Bool) throws {
        guard let context = managedObjectContext else {
            throw Self.error("\(Swift.type(of: self)) has no managed object context to fetch from")
        }
        guard entityName != nil || fetchRequest != nil else {
            throw Self.error("\(Swift.type(of: self)) has no entity name to fetch")
        }
        // The fetch processes the context's pending changes first, and the context reports
        // them while it runs: they wait until the fetched objects are in.
        let outerChanges = changesDuringFetch
        changesDuringFetch = []
        let fetched = Result { try context.fetch(fetchRequest ?? defaultFetchRequest()) }
        let reported = changesDuringFetch ?? []
        changesDuringFetch = outerChanges
        switch fetched {
        case .success(let objects):
            setFetchedObjects(objects.map { $0 as Any }, merge: merge)
            // The fetch already counts the event's inserted objects (those its request
            // matches); deleted ones may still be in merged content.
            for changes in reported { contextChanged(changes.withoutInsertions) }
        case .failure(let error):
            // The content stays as it was: the changes apply to it as they came.
            for changes in reported { apply(changes) }
            throw error
        }
    }

    /// Installs fetched objects: an object controller takes the first.
    func setFetchedObjects(_ objects: [Any], merge: Bool) {
        if merge, storedContent != nil { return }
        content = objects.first
    }

    static func error(_ message: String) -> NSError {
        NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError, userInfo: [NSLocalizedDescriptionKey: message])
    }

    // MARK: Adding and removing

    /// Whether ``NSObjectController/add(_:)`` may add an object.
    open var canAdd: Bool { isEditable }
    /// Whether ``remove(_:)`` may remove the selection.
    open var canRemove: Bool { isEditable && !selectedObjects.isEmpty }

    /// Makes a new object (``newObject()``) and adds it (``addObject(_:)``).
    open func add(_ sender: Any?) {
        guard canAdd else { return }
        addObject(newObject())
    }

    /// Removes the selected objects (``removeObject(_:)``).
    open func remove(_ sender: Any?) {
        guard canRemove else { return }
        for object in selectedObjects { removeObject(object) }
    }

    /// Makes `object` the content.
    open func addObject(_ object: Any) {
        content = object
    }

    /// Removes `object` when it is the content; in entity mode it is also deleted from the
    /// context.
    open func removeObject(_ object: Any) {
        guard let current = storedContent, ControllerContent.isSame(current, object) else { return }
        deleteIfEntityMode(object)
        content = nil
    }

    /// Deletes `object` from the context when the controller is in entity mode.
    func deleteIfEntityMode(_ object: Any) {
        guard isEntityMode, let managed = object as? NSManagedObject, let context = managedObjectContext else { return }
        context.delete(managed)
    }

    // MARK: Selection

    /// The selected objects: an object controller's content is always selected.
    open var selectedObjects: [Any] { storedContent.map { [$0] } ?? [] }

    /// The selection as one value that answers keys (AppKit's selection proxy).
    open var selection: ControllerSelection { ControllerSelection(objects: selectedObjects) }

    // MARK: Key-value coding

    /// The controller's keys, so that bindings can name them in key paths ("selection.name",
    /// "arrangedObjects", "selectedObjects", "content").
    open func value(forKey key: String) -> Any? {
        switch key {
        case "content": return content
        case "selection": return selection
        case "selectedObjects": return selectedObjects
        case "canAdd": return canAdd
        case "canRemove": return canRemove
        case "isEditable", "editable": return isEditable
        default: return nil
        }
    }

    // MARK: Bindings

    /// The bindings' names (AppKit's `exposedBindings`).
    open var exposedBindings: [NSBindingName] { [.contentObject] }

    /// Installs content read through a binding: an object controller takes it as it is (and
    /// says nothing when it is the same).
    func setBoundContent(_ value: Any?) {
        switch (storedContent, value) {
        case (nil, nil): return
        case let (current?, new?) where ControllerContent.isSame(current, new): return
        default: content = value
        }
    }

    /// The context changed objects while the content is bound: an array controller that
    /// rearranges automatically arranges again when some are in its content.
    func boundObjectsDidChange(_ changes: ContextObjectChanges) {}

    // MARK: Change notifications

    /// Called when the content changed: the subclasses rearrange; then observers hear of it.
    func contentDidChange() {
        notify(["content"])
    }

    /// Posts ``didChangeNotification`` with `keys`.
    func notify(_ keys: Set<String>) {
        NotificationCenter.default.post(name: Self.didChangeNotification, object: self,
                                        userInfo: [Self.changedKeysKey: keys])
    }

    /// The controller's changes as an asynchronous sequence: the changed keys of every
    /// ``didChangeNotification`` from now on. Beyond AppKit. Ends when the iterating task is
    /// cancelled.
    public var changes: AsyncStream<Set<String>> {
        let (stream, continuation) = AsyncStream.makeStream(of: Set<String>.self)
        let token = NotificationCenter.default.addObserver(forName: Self.didChangeNotification, object: self, queue: nil) { note in
            continuation.yield(note.userInfo?[Self.changedKeysKey] as? Set<String> ?? [])
        }
        let observer = ObserverToken(token)
        continuation.onTermination = { _ in NotificationCenter.default.removeObserver(observer.token) }
        return stream
    }

    // MARK: Following the context

    private func observeContext() {
        if let contextObserver { NotificationCenter.default.removeObserver(contextObserver) }
        contextObserver = nil
        guard let context = managedObjectContext else { return }
        let target = WeakController(self)
        contextObserver = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context,
                                                                 queue: nil) { note in
            target.controller?.contextObjectsDidChange(note.userInfo ?? [:])
        }
    }

    /// Follows one `NSManagedObjectContextObjectsDidChange` of the context.
    func contextObjectsDidChange(_ userInfo: [AnyHashable: Any]) {
        // A bound controller follows its binding's object instead (``ControllerBinding``).
        guard binding == nil, automaticallyPreparesContent, isEntityMode else { return }
        let changes = ContextObjectChanges(userInfo)
        if changesDuringFetch != nil {
            changesDuringFetch?.append(changes)
        } else {
            apply(changes)
        }
    }

    /// Follows `changes` of the context: after `reset()` every object is gone and the content is
    /// fetched again; otherwise ``contextChanged(_:)``.
    private func apply(_ changes: ContextObjectChanges) {
        if changes.invalidatedAll {
            fetch(nil)
        } else {
            contextChanged(changes)
        }
    }

    /// Entity mode with ``automaticallyPreparesContent``: an object controller drops its
    /// content when it is deleted and takes an inserted object of its entity when it has none.
    func contextChanged(_ changes: ContextObjectChanges) {
        if let current = storedContent as? NSManagedObject, changes.deleted.contains(ObjectIdentifier(current)) {
            content = nil
        }
        if storedContent == nil, let inserted = changes.inserted.first(where: belongsToEntity) {
            content = inserted
        }
    }

    /// Whether `object` is an object of the controller's entity (or a subentity) that matches
    /// ``fetchPredicate``.
    func belongsToEntity(_ object: NSManagedObject) -> Bool {
        guard let entity, object.managedObjectContext === managedObjectContext, !object.isDeleted,
              object.entity.isKindOf(entity: entity) else { return false }
        guard let fetchPredicate else { return true }
        return (try? fetchPredicate.evaluateThrowing(with: object)) ?? false
    }
}

/// A class whose instances a controller can make with ``NSObjectController/newObject()`` when
/// it is the controller's ``NSObjectController/objectClass``. Beyond AppKit (Objective-C makes
/// any class with `alloc`/`init`; Swift needs a `required init()`).
public protocol ControllerObjectInitializable: AnyObject {
    init()
}

/// How controllers find an object in their content.
enum ControllerContent {
    /// Whether `a` and `b` are the same content object: the same instance for classes (AppKit
    /// compares with `isEqual:`, which for dictionaries compares contents, and never ends on
    /// a dictionary that contains itself), equal values otherwise.
    static func isSame(_ a: Any, _ b: Any) -> Bool {
        if Swift.type(of: a) is AnyClass, Swift.type(of: b) is AnyClass { return (a as AnyObject) === (b as AnyObject) }
        return ValueComparison.isEqualConstant(a, b)
    }

    /// Whether two lists hold the same content objects in the same order.
    static func isSame(_ a: [Any], _ b: [Any]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { isSame($0, $1) }
    }
}

/// The objects of one `NSManagedObjectContextObjectsDidChange`.
struct ContextObjectChanges {
    private(set) var inserted: [NSManagedObject]
    let deleted: Set<ObjectIdentifier>
    let updated: Set<ObjectIdentifier>
    /// The context was reset: every object it had is invalid.
    let invalidatedAll: Bool

    init(_ userInfo: [AnyHashable: Any]) {
        invalidatedAll = userInfo[NSInvalidatedAllObjectsKey] != nil
        func objects(_ key: String) -> Set<NSManagedObject> { userInfo[key] as? Set<NSManagedObject> ?? [] }
        // In a stable order (the sets are unordered): as their IDs were made, so objects
        // inserted in one event are in the order they were inserted.
        inserted = objects(NSInsertedObjectsKey).sorted { $0.objectID.key.precedes($1.objectID.key) }
        deleted = Set(objects(NSDeletedObjectsKey).union(objects(NSInvalidatedObjectsKey)).map(ObjectIdentifier.init))
        updated = Set(objects(NSUpdatedObjectsKey).union(objects(NSRefreshedObjectsKey)).map(ObjectIdentifier.init))
    }

    /// The same changes without the inserted objects.
    var withoutInsertions: ContextObjectChanges {
        var changes = self
        changes.inserted = []
        return changes
    }

}

/// A controller held weakly by a notification observer. `@unchecked Sendable`: the controller
/// is only read on its context's queue, where the context posts its notifications.
final class WeakController: @unchecked Sendable {
    weak var controller: NSObjectController?
    init(_ controller: NSObjectController) { self.controller = controller }
}

/// A notification observer token crossing into a termination handler. `@unchecked Sendable`:
/// it is only passed back to `NotificationCenter`, which is thread-safe.
final class ObserverToken: @unchecked Sendable {
    let token: NSObjectProtocol
    init(_ token: NSObjectProtocol) { self.token = token }
}
