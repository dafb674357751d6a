import Foundation

/// A controller of an array of objects, as AppKit's `NSArrayController`, without AppKit: the
/// content, its arrangement (filtered by ``filterPredicate``, sorted by ``sortDescriptors``)
/// and a selection of arranged objects.
///
/// The content is set directly, fetched in entity mode (``NSObjectController/entityName`` and
/// ``NSObjectController/managedObjectContext``), or bound to another controller
/// (``NSObjectController/bind(_:to:withKeyPath:options:)``, e.g. `selection.students`).
///
/// As AppKit's: objects added or inserted go at the end of (or at the given index in) the
/// arrangement, which is filtered and sorted again by ``rearrangeObjects()``, or after every
/// change with ``automaticallyRearrangesObjects``. In entity mode, removed objects are deleted
/// from the context; with ``NSObjectController/automaticallyPreparesContent`` the content
/// follows the context (inserted objects of the entity join, deleted ones leave).
///
/// Differs from AppKit: ``arrangedObjects`` is an `[Any]`; see ``NSObjectController`` for the
/// rest (notifications instead of key-value observing, actions that act at once).
open class NSArrayController: NSObjectController {
    private var arranged: [Any] = []
    private var selected = IndexSet()

    /// A controller whose content is `content` (an array or a set).
    public override init(content: Any?) {
        super.init(content: nil)
        storedContent = Self.array(content)
        arranged = arrange(contentObjects)
        reselect([], near: nil)
    }

    /// The sort descriptors of the arrangement; setting them rearranges.
    open var sortDescriptors: [NSSortDescriptor] = [] {
        didSet { rearrangeObjects() }
    }
    /// The predicate objects must match to be arranged; setting it rearranges.
    open var filterPredicate: NSPredicate? {
        didSet { if !isClearingFilter { rearrangeObjects() } }
    }
    /// Whether every change of the content (and, in entity mode, of its objects) rearranges.
    open var automaticallyRearrangesObjects = false
    /// Whether the controller keeps something selected when it can (after removals, when
    /// content arrives).
    open var avoidsEmptySelection = true
    /// Whether the selected objects stay selected when the arrangement changes.
    open var preservesSelection = true
    /// Whether added and inserted objects become the selection.
    open var selectsInsertedObjects = true
    /// Whether adding or inserting objects clears ``filterPredicate`` (so that they show).
    open var clearsFilterPredicateOnInsertion = true
    /// Whether a selection of several objects always reads ``NSBindingSelectionMarker/multipleValues``.
    open var alwaysUsesMultipleValuesMarker = false

    private var isClearingFilter = false

    // MARK: Content and arrangement

    /// The content array (a set or an ordered set given as content is kept as an array).
    open override var content: Any? {
        get { storedContent }
        set {
            storedContent = Self.array(newValue)
            contentDidChange()
        }
    }

    /// The content as an array.
    var contentObjects: [Any] { storedContent as? [Any] ?? [] }

    static func array(_ value: Any?) -> [Any] {
        guard let value = ValueComparison.unwrap(value) else { return [] }
        if let managed = value as? ManagedRelationshipCollection { return managed.list.objects }
        return CollectionValue(value)?.elements ?? [value]
    }

    /// The arranged objects: the content filtered and sorted, then changed by additions and
    /// removals until the next ``rearrangeObjects()``.
    open var arrangedObjects: [Any] { arranged }

    /// `objects` filtered by ``filterPredicate`` and sorted by ``sortDescriptors`` (stable).
    open func arrange(_ objects: [Any]) -> [Any] {
        var result = objects
        if let filterPredicate {
            result = result.filter { (try? filterPredicate.evaluateThrowing(with: $0)) ?? false }
        }
        return NSSortDescriptor.stableSort(result, by: sortDescriptors)
    }

    /// Arranges the content again, keeping the selected objects selected
    /// (``preservesSelection``).
    open func rearrangeObjects() {
        rearrange(notifying: ["arrangedObjects", "selection", "selectionIndexes"])
    }

    override func contentDidChange() {
        rearrange(notifying: ["content", "arrangedObjects", "selection", "selectionIndexes"])
    }

    /// Arranges the content again, keeps the selection, and posts `keys`.
    private func rearrange(notifying keys: Set<String>) {
        let previouslySelected = selectedObjects
        let firstSelected = selected.first
        arranged = arrange(contentObjects)
        reselect(previouslySelected, near: firstSelected)
        notify(keys)
    }

    /// The selection after the arrangement changed: the same objects where they are
    /// (``preservesSelection``), else the same indexes; then, when empty and
    /// ``avoidsEmptySelection``, the object at the old first index (or the last one).
    private func reselect(_ objects: [Any], near index: Int?) {
        var indexes = IndexSet()
        if preservesSelection {
            for object in objects { if let found = arrangedIndex(of: object) { indexes.insert(found) } }
        } else {
            indexes = selected.filteredIndexSet { $0 < arranged.count }
        }
        if indexes.isEmpty, avoidsEmptySelection, !arranged.isEmpty {
            indexes.insert(min(index ?? 0, arranged.count - 1))
        }
        selected = indexes
    }

    func arrangedIndex(of object: Any) -> Int? {
        arranged.firstIndex { ControllerContent.isSame($0, object) }
    }

    private func contentIndex(of object: Any) -> Int? {
        contentObjects.firstIndex { ControllerContent.isSame($0, object) }
    }

    override func setFetchedObjects(_ objects: [Any], merge: Bool) {
        guard merge else {
            content = objects
            return
        }
        var merged = contentObjects
        for object in objects where contentIndex(of: object) == nil { merged.append(object) }
        content = merged
    }

    override func setBoundContent(_ value: Any?) {
        let merged = Self.merged(contentObjects, with: Self.array(value), ordered: binding?.relationship?.isOrdered == true)
        guard !ControllerContent.isSame(merged, contentObjects) else { return }
        content = merged
    }

    /// The content after reading `incoming` through a binding: an ordered relationship's order
    /// as it is; otherwise objects already in the content keep their places and newcomers
    /// follow in the order read (a set has no order of its own).
    static func merged(_ current: [Any], with incoming: [Any], ordered: Bool) -> [Any] {
        if ordered { return incoming }
        var kept = current.filter { old in incoming.contains { ControllerContent.isSame($0, old) } }
        for object in incoming where !kept.contains(where: { ControllerContent.isSame($0, object) }) {
            kept.append(object)
        }
        return kept
    }


    // MARK: Adding, inserting and removing

    open override var canAdd: Bool { isEditable && (binding == nil || binding?.acceptsObjects == true) }
    /// Whether ``insert(_:)`` may insert an object.
    open var canInsert: Bool { canAdd }

    /// Adds `object` at the end of the arrangement (see ``add(contentsOf:)``).
    open override func addObject(_ object: Any) {
        add(contentsOf: [object])
    }

    /// Adds `objects` to the content and at the end of the arrangement; with
    /// ``selectsInsertedObjects`` they become the selection.
    open func add(contentsOf objects: [Any]) {
        clearFilterForInsertion()
        insert(contentsOf: objects, atArrangedObjectIndexes: IndexSet(arranged.count..<(arranged.count + objects.count)))
    }

    /// Makes a new object (``NSObjectController/newObject()``) and inserts it at the first
    /// selected index (the end of the arrangement when nothing is selected).
    open func insert(_ sender: Any?) {
        guard canInsert else { return }
        insert(newObject(), atArrangedObjectIndex: selected.first ?? arranged.count)
    }

    /// Inserts `object` into the content and at `index` of the arrangement.
    open func insert(_ object: Any, atArrangedObjectIndex index: Int) {
        insert(contentsOf: [object], atArrangedObjectIndexes: IndexSet(integer: index))
    }

    /// Inserts `objects` into the content and at `indexes` of the arrangement (indexes past
    /// the end append). Clears ``filterPredicate`` first with ``clearsFilterPredicateOnInsertion``.
    open func insert(contentsOf objects: [Any], atArrangedObjectIndexes indexes: IndexSet) {
        guard !objects.isEmpty else { return }
        let previouslySelected = selectedObjects
        let firstSelected = selected.first
        clearFilterForInsertion()
        var content = contentObjects
        var positions = Array(indexes)
        while positions.count < objects.count { positions.append((positions.last ?? arranged.count - 1) + 1) }
        for (object, index) in zip(objects, positions) {
            let at = min(index, arranged.count)
            if let binding {
                binding.add(object, at: at)
            }
            content.append(object)
            arranged.insert(object, at: at)
        }
        storedContent = content
        if automaticallyRearrangesObjects { arranged = arrange(contentObjects) }
        let inserted = IndexSet(objects.compactMap(arrangedIndex(of:)))
        if selectsInsertedObjects, !inserted.isEmpty {
            selected = inserted
        } else {
            // Not selecting them, or none shows (filtered out by a rearrangement).
            reselect(previouslySelected, near: firstSelected)
        }
        notify(["content", "arrangedObjects", "selection", "selectionIndexes"])
    }

    /// With ``clearsFilterPredicateOnInsertion``, drops the filter and arranges the content
    /// again, so that inserted objects show.
    private func clearFilterForInsertion() {
        guard clearsFilterPredicateOnInsertion, filterPredicate != nil else { return }
        let previouslySelected = selectedObjects
        let firstSelected = selected.first
        isClearingFilter = true
        filterPredicate = nil
        isClearingFilter = false
        arranged = arrange(contentObjects)
        reselect(previouslySelected, near: firstSelected)
    }


    /// Removes `object` from the content and the arrangement (see ``remove(contentsOf:)``).
    open override func removeObject(_ object: Any) {
        remove(contentsOf: [object])
    }

    /// Removes `objects` from the content and the arrangement: from the bound relationship,
    /// or, in entity mode, deleting them from the context. With ``avoidsEmptySelection`` the
    /// object that took the first removed one's place is selected.
    open func remove(contentsOf objects: [Any]) {
        guard isEditable, !objects.isEmpty else { return }
        let firstSelected = selected.first
        let keep = selectedObjects.filter { object in !objects.contains { ControllerContent.isSame($0, object) } }
        for object in objects {
            binding?.remove(object)
            deleteIfEntityMode(object)
        }
        storedContent = contentObjects.filter { object in !objects.contains { ControllerContent.isSame($0, object) } }
        arranged.removeAll { object in objects.contains { ControllerContent.isSame($0, object) } }
        if automaticallyRearrangesObjects { arranged = arrange(contentObjects) }
        reselect(keep, near: firstSelected)
        notify(["content", "arrangedObjects", "selection", "selectionIndexes"])
    }

    /// Removes the arranged object at `index`.
    open func remove(atArrangedObjectIndex index: Int) {
        remove(atArrangedObjectIndexes: IndexSet(integer: index))
    }

    /// Removes the arranged objects at `indexes` (indexes past the end are ignored).
    open func remove(atArrangedObjectIndexes indexes: IndexSet) {
        remove(contentsOf: indexes.filter { $0 < arranged.count }.map { arranged[$0] })
    }

    /// Removes the selected objects.
    open override func remove(_ sender: Any?) {
        guard canRemove else { return }
        remove(atArrangedObjectIndexes: selected)
    }

    // MARK: Selection

    /// The indexes of the selected objects in ``arrangedObjects``.
    open var selectionIndexes: IndexSet { selected }

    /// Selects the arranged objects at `indexes` (indexes past the end are dropped); returns
    /// whether the selection changed.
    @discardableResult
    open func setSelectionIndexes(_ indexes: IndexSet) -> Bool {
        let valid = indexes.filteredIndexSet { $0 >= 0 && $0 < arranged.count }
        guard valid != selected else { return false }
        selected = valid
        notify(["selection", "selectionIndexes"])
        return true
    }

    /// The first selected index, or `NSNotFound`.
    open var selectionIndex: Int { selected.first ?? NSNotFound }

    /// Selects the arranged object at `index` only.
    @discardableResult
    open func setSelectionIndex(_ index: Int) -> Bool {
        setSelectionIndexes(index == NSNotFound ? IndexSet() : IndexSet(integer: index))
    }

    /// Adds `indexes` to the selection.
    @discardableResult
    open func addSelectionIndexes(_ indexes: IndexSet) -> Bool {
        setSelectionIndexes(selected.union(indexes))
    }

    /// Removes `indexes` from the selection.
    @discardableResult
    open func removeSelectionIndexes(_ indexes: IndexSet) -> Bool {
        setSelectionIndexes(selected.subtracting(indexes))
    }

    /// The selected objects, in arrangement order.
    open override var selectedObjects: [Any] { selected.compactMap { $0 < arranged.count ? arranged[$0] : nil } }

    /// Selects `objects` (those arranged).
    @discardableResult
    open func setSelectedObjects(_ objects: [Any]) -> Bool {
        setSelectionIndexes(IndexSet(objects.compactMap(arrangedIndex(of:))))
    }

    /// Adds `objects` to the selection.
    @discardableResult
    open func addSelectedObjects(_ objects: [Any]) -> Bool {
        addSelectionIndexes(IndexSet(objects.compactMap(arrangedIndex(of:))))
    }

    /// Removes `objects` from the selection.
    @discardableResult
    open func removeSelectedObjects(_ objects: [Any]) -> Bool {
        removeSelectionIndexes(IndexSet(objects.compactMap(arrangedIndex(of:))))
    }

    /// Whether there is an arranged object after the selection.
    open var canSelectNext: Bool { (selected.last ?? -1) + 1 < arranged.count }
    /// Whether there is an arranged object before the selection.
    open var canSelectPrevious: Bool { (selected.first ?? 0) > 0 }

    /// Selects the object after the last selected one.
    open func selectNext(_ sender: Any?) {
        guard canSelectNext else { return }
        setSelectionIndex((selected.last ?? -1) + 1)
    }

    /// Selects the object before the first selected one.
    open func selectPrevious(_ sender: Any?) {
        guard canSelectPrevious, let first = selected.first else { return }
        setSelectionIndex(first - 1)
    }

    open override var selection: ControllerSelection {
        ControllerSelection(objects: selectedObjects, alwaysUsesMultipleValuesMarker: alwaysUsesMultipleValuesMarker)
    }

    // MARK: Keys, bindings and the context

    open override func value(forKey key: String) -> Any? {
        switch key {
        case "arrangedObjects": return arranged
        case "selectionIndexes": return selected
        case "selectionIndex": return selectionIndex
        case "sortDescriptors": return sortDescriptors
        case "filterPredicate": return filterPredicate
        case "canInsert": return canInsert
        case "canSelectNext": return canSelectNext
        case "canSelectPrevious": return canSelectPrevious
        default: return super.value(forKey: key)
        }
    }

    open override var exposedBindings: [NSBindingName] { [.contentArray, .contentSet] }

    override func boundObjectsDidChange(_ changes: ContextObjectChanges) {
        guard automaticallyRearrangesObjects, contentTouched(by: changes) else { return }
        rearrangeObjects()
    }

    /// Whether `changes` changed an object of the content. Objects inserted in the event count
    /// too: an object the controller inserted and then changed (named as it was added) is
    /// reported inserted, not updated.
    private func contentTouched(by changes: ContextObjectChanges) -> Bool {
        let inserted = Set(changes.inserted.map(ObjectIdentifier.init))
        return contentObjects.contains { object in
            guard let managed = object as? NSManagedObject else { return false }
            let key = ObjectIdentifier(managed)
            return changes.updated.contains(key) || inserted.contains(key)
        }
    }

    /// Entity mode with ``NSObjectController/automaticallyPreparesContent``: inserted objects
    /// of the entity that match the fetch predicate join the content (at the end of the
    /// arrangement), deleted ones leave; with ``automaticallyRearrangesObjects`` changed
    /// objects are arranged again.
    override func contextChanged(_ changes: ContextObjectChanges) {
        let current = contentObjects
        let gone = current.filter { ($0 as? NSManagedObject).map { changes.deleted.contains(ObjectIdentifier($0)) } ?? false }
        let arriving = changes.inserted.filter { object in belongsToEntity(object) && !current.contains { ($0 as AnyObject) === object } }
        let touched = contentTouched(by: changes)
        guard !gone.isEmpty || !arriving.isEmpty || (touched && automaticallyRearrangesObjects) else { return }
        let previouslySelected = selectedObjects
        let firstSelected = selected.first
        let goneIDs = Set(gone.map { ObjectIdentifier($0 as AnyObject) })
        storedContent = current.filter { !goneIDs.contains(ObjectIdentifier($0 as AnyObject)) } + arriving
        arranged.removeAll { goneIDs.contains(ObjectIdentifier($0 as AnyObject)) }
        arranged.append(contentsOf: arriving as [Any])
        if automaticallyRearrangesObjects { arranged = arrange(contentObjects) }
        reselect(previouslySelected, near: firstSelected)
        notify(["content", "arrangedObjects", "selection", "selectionIndexes"])
    }
}
