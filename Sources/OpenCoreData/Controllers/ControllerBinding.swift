import Foundation

/// A controller's content binding: the content is the value at a key path of another
/// controller (the "students of the selected class" of the seed's program is an array
/// controller's `contentSet` bound to `selection.students` of the classes controller).
///
/// When the key path ends in a to-many relationship of the single selected managed object,
/// the bound controller changes that relationship: added objects join it, removed ones leave
/// it (and are deleted with ``NSBindingOption/deletesObjectsOnRemove``). Otherwise the content
/// is read-only. The binding follows the source controller's ``NSObjectController/didChangeNotification``
/// and, through its context's `NSManagedObjectContextObjectsDidChange`, the managed object
/// whose key it reads (the selected class, whose `students` or `monitor` changed).
final class ControllerBinding {
    let name: NSBindingName
    let source: NSObjectController
    let keyPath: String
    let deletesObjectsOnRemove: Bool
    private let target: WeakController
    private var observer: NSObjectProtocol?
    private var contextObserver: NSObjectProtocol?
    /// Not `weak`: a weak reference would slow every retain of the context.
    private var observedContext: NSManagedObjectContext? {
        get { observedContextReference.object }
        set { observedContextReference = UnretainedReference(newValue) }
    }

    private var observedContextReference = UnretainedReference<NSManagedObjectContext>(nil)

    /// The managed object whose key (the key path's last) is read: when the context reports
    /// it changed or deleted, the content is read again.
    private(set) var observed: NSManagedObject?
    /// The managed object whose to-many relationship is the content, and the relationship.
    private(set) var owner: NSManagedObject?
    private(set) var relationship: NSRelationshipDescription?

    init(name: NSBindingName, source: NSObjectController, keyPath: String, options: [NSBindingOption: Any]?,
         target: NSObjectController) {
        self.name = name
        self.source = source
        self.keyPath = keyPath
        self.deletesObjectsOnRemove = options?[.deletesObjectsOnRemove] as? Bool ?? false
        let weakTarget = WeakController(target)
        self.target = weakTarget
        observer = NotificationCenter.default.addObserver(forName: NSObjectController.didChangeNotification, object: source,
                                                          queue: nil) { _ in
            weakTarget.controller?.reloadBoundContent()
        }
    }

    func stop() {
        if let observer { NotificationCenter.default.removeObserver(observer) }
        if let contextObserver { NotificationCenter.default.removeObserver(contextObserver) }
        observer = nil
        contextObserver = nil
    }

    /// Follows the context of the object read from (none when there is no such object).
    private func observeContext(of object: NSManagedObject?) {
        let context = object?.managedObjectContext
        guard context !== observedContext || (context != nil && contextObserver == nil) else { return }
        if let contextObserver { NotificationCenter.default.removeObserver(contextObserver) }
        contextObserver = nil
        observedContext = context
        guard let context else { return }
        let target = self.target
        contextObserver = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context,
                                                                 queue: nil) { note in
            guard let controller = target.controller, let binding = controller.binding else { return }
            binding.contextObjectsDidChange(ContextObjectChanges(note.userInfo ?? [:]), target: controller)
        }
    }

    /// The content now: the relationship's objects when the key path ends in a to-many
    /// relationship of one selected managed object, else the value at the key path (nil for a
    /// selection marker).
    func currentContent() -> Any? {
        owner = nil
        relationship = nil
        observed = nil
        let prefix: String?, lastKey: String
        if let dot = keyPath.lastIndex(of: ".") {
            prefix = String(keyPath[..<dot])
            lastKey = String(keyPath[keyPath.index(after: dot)...])
        } else {
            prefix = nil
            lastKey = keyPath
        }
        var base: Any? = source
        if let prefix { base = try? KeyValueAccess.value(forKeyPath: prefix, of: source) }
        if let selection = base as? ControllerSelection { base = selection.object }
        observed = base as? NSManagedObject
        observeContext(of: observed)
        if let object = base as? NSManagedObject, !object.isDeleted,
           let relation = object.entity.relationshipsByName[lastKey], relation.isToMany {
            owner = object
            relationship = relation
            return relation.isOrdered ? object.mutableOrderedSetValue(forKey: lastKey).array
                                      : object.mutableSetValue(forKey: lastKey).allObjects
        }
        guard base != nil else { return nil }
        let value = try? KeyValueAccess.value(forKeyPath: keyPath, of: source)
        return value.flatMap { $0 is NSBindingSelectionMarker ? nil : $0 }
    }

    /// Whether objects can be added: the content is a relationship of one object.
    var acceptsObjects: Bool { owner != nil }

    /// Adds `object` to the relationship (at `index` of an ordered one, when given).
    func add(_ object: Any, at index: Int? = nil) {
        guard let owner, let relationship, let managed = object as? NSManagedObject else { return }
        if relationship.isOrdered {
            let ordered = owner.mutableOrderedSetValue(forKey: relationship.name)
            ordered.insert(managed, at: min(index ?? ordered.count, ordered.count))
        } else {
            owner.mutableSetValue(forKey: relationship.name).add(managed)
        }
    }

    /// Removes `object` from the relationship, deleting it with ``deletesObjectsOnRemove``
    /// unless it is only `moving` elsewhere.
    func remove(_ object: Any, moving: Bool = false) {
        guard let owner, let relationship, let managed = object as? NSManagedObject else { return }
        if relationship.isOrdered {
            owner.mutableOrderedSetValue(forKey: relationship.name).remove(managed)
        } else {
            owner.mutableSetValue(forKey: relationship.name).remove(managed)
        }
        if deletesObjectsOnRemove, !moving { managed.managedObjectContext?.delete(managed) }
    }

    /// The context changed: the content is read again when the object read from changed or
    /// went away.
    func contextObjectsDidChange(_ changes: ContextObjectChanges, target: NSObjectController) {
        if let observed {
            let key = ObjectIdentifier(observed)
            if changes.invalidatedAll || changes.updated.contains(key) || changes.deleted.contains(key) { target.reloadBoundContent() }
        }
        target.boundObjectsDidChange(changes)
    }
}

extension NSObjectController {
    /// Binds the controller's content to `keyPath` of `observable`, another controller, as
    /// AppKit's `bind(_:to:withKeyPath:options:)` does for the content bindings
    /// (``NSBindingName/contentObject``, ``NSBindingName/contentArray``,
    /// ``NSBindingName/contentSet``). A binding replaces the previous one.
    ///
    /// Differs from AppKit: only controllers can be observed (there is no key-value observing
    /// of other objects), and the key path is read through the controller's keys
    /// (`selection`, `selectedObjects`, `arrangedObjects`, `content`). Traps, naming the
    /// binding, for another binding name or an observable that is not a controller.
    public func bind(_ binding: NSBindingName, to observable: Any, withKeyPath keyPath: String,
                     options: [NSBindingOption: Any]? = nil) {
        guard [.contentObject, .contentArray, .contentSet].contains(binding) else {
            preconditionFailure("\(Swift.type(of: self)).bind: '\(binding.rawValue)' is not a content binding (contentObject, contentArray, contentSet)")
        }
        guard let source = observable as? NSObjectController else {
            preconditionFailure("\(Swift.type(of: self)).bind(\(binding.rawValue)): only a controller can be observed, not \(Swift.type(of: observable))")
        }
        self.binding?.stop()
        self.binding = ControllerBinding(name: binding, source: source, keyPath: keyPath, options: options, target: self)
        reloadBoundContent()
    }

    /// Removes the content binding named `binding`; the content stays as it is.
    public func unbind(_ binding: NSBindingName) {
        guard self.binding?.name == binding else { return }
        self.binding?.stop()
        self.binding = nil
    }

    /// Reads the bound content again.
    func reloadBoundContent() {
        guard let binding else { return }
        setBoundContent(binding.currentContent())
    }
}
