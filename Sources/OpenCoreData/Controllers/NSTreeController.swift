import Foundation

/// A controller of a tree of objects, as AppKit's `NSTreeController`, without AppKit: root
/// objects (the content), their children through ``childrenKeyPath``, the arrangement as a
/// tree of ``NSTreeNode``s sorted by ``sortDescriptors``, and a selection of index paths.
///
/// The roots are set directly, fetched in entity mode (``NSObjectController/entityName``,
/// ``NSObjectController/managedObjectContext`` and usually a ``NSObjectController/fetchPredicate``
/// such as `parent == nil`), or bound to another controller. Children are read from each
/// object's ``childrenKeyPath``: a to-many relationship of a managed object (changed through
/// `mutableSetValue(forKey:)` or `mutableOrderedSetValue(forKey:)`), or an `NSMutableArray`.
///
/// Differs from AppKit: the tree is rebuilt after every change (there is no key-value
/// observing of the objects); a managed object reached again below itself (a cycle) gets no
/// children there (Foundation on Linux bridges `NSDictionary` and `NSArray` contents to Swift
/// deeply, so plain dictionaries and arrays must not contain themselves). See
/// ``NSObjectController`` for the rest.
open class NSTreeController: NSObjectController {
    private var root = NSTreeNode(representedObject: nil, isLeaf: false)
    private var selectedPaths: [IndexPath] = []

    /// A controller whose roots are `content` (an array or a set).
    public override init(content: Any?) {
        super.init(content: nil)
        storedContent = NSArrayController.array(content)
        rebuild()
    }

    /// The key of each object's children (a to-many relationship or an array).
    open var childrenKeyPath: String? { didSet { rearrangeObjects() } }
    /// The key of each object's number of children (read by ``countKeyPath(for:)`` only).
    open var countKeyPath: String?
    /// The key of each object's "is a leaf" flag: a leaf gets no children and no child added.
    open var leafKeyPath: String? { didSet { rearrangeObjects() } }
    /// The sort descriptors applied at every level; setting them rearranges.
    open var sortDescriptors: [NSSortDescriptor] = [] { didSet { rearrangeObjects() } }
    /// Whether the controller keeps something selected when it can.
    open var avoidsEmptySelection = true
    /// Whether the selected objects stay selected when the tree changes.
    open var preservesSelection = true
    /// Whether added and inserted objects become the selection.
    open var selectsInsertedObjects = true
    /// Whether a selection of several objects always reads ``NSBindingSelectionMarker/multipleValues``.
    open var alwaysUsesMultipleValuesMarker = false

    /// The key path of `node`'s children (AppKit lets subclasses vary it per node).
    open func childrenKeyPath(for node: NSTreeNode) -> String? { childrenKeyPath }
    /// The key path of `node`'s child count.
    open func countKeyPath(for node: NSTreeNode) -> String? { countKeyPath }
    /// The key path of `node`'s leaf flag.
    open func leafKeyPath(for node: NSTreeNode) -> String? { leafKeyPath }

    // MARK: Content and arrangement

    /// The root objects (kept as an array).
    open override var content: Any? {
        get { storedContent }
        set {
            storedContent = NSArrayController.array(newValue)
            contentDidChange()
        }
    }

    private var roots: [Any] { storedContent as? [Any] ?? [] }

    /// The arranged tree: a root node (no represented object) whose children are the roots.
    open var arrangedObjects: NSTreeNode { root }

    /// Builds the tree again from the roots and the objects' children, keeping the selected
    /// objects selected.
    open func rearrangeObjects() {
        rearrange(notifying: ["arrangedObjects", "selection", "selectionIndexPaths"])
    }

    override func contentDidChange() {
        rearrange(notifying: ["content", "arrangedObjects", "selection", "selectionIndexPaths"])
    }

    /// Builds the tree again, keeps the selection, and posts `keys`.
    private func rearrange(notifying keys: Set<String>) {
        let previouslySelected = selectedObjects
        rebuild()
        reselect(previouslySelected)
        notify(keys)
    }

    private func rebuild() {
        let newRoot = NSTreeNode(representedObject: nil, isLeaf: false)
        var path = Set<ObjectIdentifier>()
        for object in NSSortDescriptor.stableSort(roots, by: sortDescriptors) {
            newRoot.insertChild(node(for: object, path: &path), at: Int.max)
        }
        root = newRoot
    }

    /// The node of `object` with its children, skipping objects already on `path` (a cycle).
    private func node(for object: Any, path: inout Set<ObjectIdentifier>) -> NSTreeNode {
        let isLeaf = leafKeyPath.flatMap { (try? KeyValueAccess.value(forKeyPath: $0, of: object)) as? Bool }
        let node = NSTreeNode(representedObject: object, isLeaf: isLeaf)
        guard isLeaf != true else { return node }
        let identity = Swift.type(of: object) is AnyClass ? ObjectIdentifier(object as AnyObject) : nil
        if let identity {
            guard path.insert(identity).inserted else { return node }
        }
        defer { if let identity { path.remove(identity) } }
        for child in NSSortDescriptor.stableSort(children(of: object), by: sortDescriptors) {
            node.insertChild(self.node(for: child, path: &path), at: Int.max)
        }
        return node
    }

    /// The children of `object` through ``childrenKeyPath``.
    private func children(of object: Any) -> [Any] {
        guard let childrenKeyPath else { return [] }
        return NSArrayController.array(try? KeyValueAccess.value(forKeyPath: childrenKeyPath, of: object))
    }

    // MARK: Selection

    /// The selected index paths, in order.
    open var selectionIndexPaths: [IndexPath] { selectedPaths }
    /// The first selected index path.
    open var selectionIndexPath: IndexPath? { selectedPaths.first }

    /// Selects the nodes at `indexPaths` (paths with no node are dropped); returns whether the
    /// selection changed.
    @discardableResult
    open func setSelectionIndexPaths(_ indexPaths: [IndexPath]) -> Bool {
        let valid = Array(Set(indexPaths.filter { !$0.isEmpty && root.descendant(at: $0) != nil })).sorted()
        guard valid != selectedPaths else { return false }
        selectedPaths = valid
        notify(["selection", "selectionIndexPaths"])
        return true
    }

    /// Selects the node at `indexPath` only (nil: nothing).
    @discardableResult
    open func setSelectionIndexPath(_ indexPath: IndexPath?) -> Bool {
        setSelectionIndexPaths(indexPath.map { [$0] } ?? [])
    }

    /// Adds `indexPaths` to the selection.
    @discardableResult
    open func addSelectionIndexPaths(_ indexPaths: [IndexPath]) -> Bool {
        setSelectionIndexPaths(selectedPaths + indexPaths)
    }

    /// Removes `indexPaths` from the selection.
    @discardableResult
    open func removeSelectionIndexPaths(_ indexPaths: [IndexPath]) -> Bool {
        setSelectionIndexPaths(selectedPaths.filter { !indexPaths.contains($0) })
    }

    /// The selected nodes.
    open var selectedNodes: [NSTreeNode] { selectedPaths.compactMap(root.descendant(at:)) }

    /// The selected nodes' represented objects.
    open override var selectedObjects: [Any] { selectedNodes.compactMap(\.representedObject) }

    open override var selection: ControllerSelection {
        ControllerSelection(objects: selectedObjects, alwaysUsesMultipleValuesMarker: alwaysUsesMultipleValuesMarker)
    }

    /// The index path of `object`'s first node in the tree, depth first.
    func indexPath(of object: Any) -> IndexPath? {
        root.descendants.first { node in node.representedObject.map { ControllerContent.isSame($0, object) } ?? false }?.indexPath
    }

    private func reselect(_ objects: [Any]) {
        var paths = preservesSelection ? objects.compactMap(indexPath(of:))
                                       : selectedPaths.filter { root.descendant(at: $0) != nil }
        if paths.isEmpty, avoidsEmptySelection, let first = root.children?.first { paths = [first.indexPath] }
        selectedPaths = Array(Set(paths)).sorted()
    }

    // MARK: Adding, inserting, moving and removing

    open override var canAdd: Bool { isEditable && (binding == nil || binding?.acceptsObjects == true) }
    /// Whether ``insert(_:)`` may insert an object.
    open var canInsert: Bool { canAdd }
    /// Whether ``insertChild(_:)`` may add a child: one selected node, not a leaf.
    open var canInsertChild: Bool {
        guard isEditable, childrenKeyPath != nil, selectedNodes.count == 1, let node = selectedNodes.first else { return false }
        return leafKeyPath.flatMap { (try? KeyValueAccess.value(forKeyPath: $0, of: node.representedObject)) as? Bool } != true
    }
    /// Whether ``addChild(_:)`` may add a child.
    open var canAddChild: Bool { canInsertChild }

    /// Makes a new object and inserts it where the selection is (at the end of the roots when
    /// nothing is selected).
    open func insert(_ sender: Any?) {
        guard canInsert else { return }
        insert(newObject(), atArrangedObjectIndexPath: selectionIndexPath ?? IndexPath(index: root.children?.count ?? 0))
    }

    /// Makes a new object and adds it after the selected node's siblings (at the end of the
    /// roots when nothing is selected).
    open override func add(_ sender: Any?) {
        guard canAdd else { return }
        var path = selectionIndexPath ?? IndexPath(index: 0)
        let parentPath = path.dropLast()
        path = parentPath.appending(root.descendant(at: parentPath)?.children?.count ?? 0)
        insert(newObject(), atArrangedObjectIndexPath: path)
    }

    /// Makes a new object and adds it as the last child of the selected node.
    open func insertChild(_ sender: Any?) {
        guard canInsertChild, let node = selectedNodes.first else { return }
        insert(newObject(), atArrangedObjectIndexPath: node.indexPath.appending(node.children?.count ?? 0))
    }

    /// Makes a new object and adds it as the last child of the selected node.
    open func addChild(_ sender: Any?) {
        insertChild(sender)
    }

    /// Adds `object` as the tree's last root (AppKit's `addObject:`).
    open override func addObject(_ object: Any) {
        insert(object, atArrangedObjectIndexPath: IndexPath(index: root.children?.count ?? 0))
    }

    /// Inserts `object` at `indexPath`: among the roots for a one-index path, else among the
    /// children of the node at the path's parent (which must exist).
    open func insert(_ object: Any, atArrangedObjectIndexPath indexPath: IndexPath) {
        insert(contentsOf: [object], atArrangedObjectIndexPaths: [indexPath])
    }

    /// Inserts `objects` at `indexPaths`, one for one.
    open func insert(contentsOf objects: [Any], atArrangedObjectIndexPaths indexPaths: [IndexPath]) {
        guard isEditable else { return }
        for (object, path) in zip(objects, indexPaths) where !path.isEmpty {
            // A path whose parent is not in the tree inserts nothing.
            guard let parent = root.descendant(at: path.dropLast()) else { continue }
            attach(object, under: parent, at: path[path.count - 1])
        }
        let previouslySelected = selectedObjects
        rebuild()
        if selectsInsertedObjects {
            selectedPaths = Array(Set(objects.compactMap(indexPath(of:)))).sorted()
        } else {
            reselect(previouslySelected)
        }
        notify(["content", "arrangedObjects", "selection", "selectionIndexPaths"])
    }

    /// Removes the node at `indexPath` and its object (see ``remove(atArrangedObjectIndexPaths:)``).
    open func remove(atArrangedObjectIndexPath indexPath: IndexPath) {
        remove(atArrangedObjectIndexPaths: [indexPath])
    }

    /// Removes the nodes at `indexPaths`: their objects leave the roots or their parents'
    /// children, and in entity mode are deleted from the context (with their children as the
    /// model's delete rules say).
    open func remove(atArrangedObjectIndexPaths indexPaths: [IndexPath]) {
        guard isEditable else { return }
        let nodes = indexPaths.compactMap(root.descendant(at:)).filter { $0 !== root }
        guard !nodes.isEmpty else { return }
        let previouslySelected = selectedObjects
        let removed = nodes.compactMap(\.representedObject)
        for node in nodes {
            guard let object = node.representedObject else { continue }
            detach(object, from: node.parent)
            deleteIfEntityMode(object)
        }
        rebuild()
        reselect(previouslySelected.filter { object in !removed.contains { ControllerContent.isSame($0, object) } })
        notify(["content", "arrangedObjects", "selection", "selectionIndexPaths"])
    }

    /// Removes the selected nodes.
    open override func remove(_ sender: Any?) {
        guard canRemove else { return }
        remove(atArrangedObjectIndexPaths: selectedPaths)
    }

    /// Removes `object` wherever it is in the tree.
    open override func removeObject(_ object: Any) {
        guard let path = indexPath(of: object) else { return }
        remove(atArrangedObjectIndexPath: path)
    }

    /// Moves `node` to `indexPath` (see the method for several nodes).
    open func move(_ node: NSTreeNode, to indexPath: IndexPath) {
        move([node], to: indexPath)
    }

    /// Moves `nodes` to consecutive places from `startingIndexPath`: each object leaves its
    /// parent's children (or the roots) and joins the new parent's. A node is not moved below
    /// itself.
    open func move(_ nodes: [NSTreeNode], to startingIndexPath: IndexPath) {
        guard isEditable, !startingIndexPath.isEmpty, let targetParent = root.descendant(at: startingIndexPath.dropLast()) else { return }
        var index = startingIndexPath[startingIndexPath.count - 1]
        for node in nodes {
            guard let object = node.representedObject else { continue }
            var ancestor: NSTreeNode? = targetParent
            var inside = false
            while let current = ancestor { if current === node { inside = true }; ancestor = current.parent }
            guard !inside else { continue }
            detach(object, from: node.parent, moving: true)
            attach(object, under: targetParent, at: index)
            index += 1
        }
        contentDidChange()
    }

    /// Puts `object` among the roots (no parent, or the root node) or among `parent`'s
    /// object's children, at `index` where the order is kept.
    private func attach(_ object: Any, under parent: NSTreeNode?, at index: Int) {
        guard let parent, let owner = parent.representedObject else {
            if let binding {
                binding.add(object, at: index)
            }
            var list = roots
            list.insert(object, at: max(0, min(index, list.count)))
            storedContent = list
            return
        }
        guard let childrenKeyPath else { return }
        if let managed = owner as? NSManagedObject, let relation = managed.entity.relationshipsByName[childrenKeyPath], relation.isToMany,
           let child = object as? NSManagedObject {
            if relation.isOrdered {
                let ordered = managed.mutableOrderedSetValue(forKey: childrenKeyPath)
                ordered.insert(child, at: max(0, min(index, ordered.count)))
            } else {
                managed.mutableSetValue(forKey: childrenKeyPath).add(child)
            }
        } else if let array = (try? KeyValueAccess.value(forKeyPath: childrenKeyPath, of: owner)) as? NSMutableArray {
            array.insert(object, at: max(0, min(index, array.count)))
        } else if let dictionary = owner as? NSMutableDictionary {
            var list = NSArrayController.array(dictionary[childrenKeyPath])
            list.insert(object, at: max(0, min(index, list.count)))
            dictionary[childrenKeyPath] = NSMutableArray(array: list)
        }
    }

    /// Takes `object` out of the roots or out of `parent`'s object's children (only `moving`
    /// it: a binding that deletes removed objects keeps it).
    private func detach(_ object: Any, from parent: NSTreeNode?, moving: Bool = false) {
        guard let parent, let owner = parent.representedObject else {
            binding?.remove(object, moving: moving)
            storedContent = roots.filter { !ControllerContent.isSame($0, object) }
            return
        }
        guard let childrenKeyPath else { return }
        if let managed = owner as? NSManagedObject, let relation = managed.entity.relationshipsByName[childrenKeyPath], relation.isToMany,
           let child = object as? NSManagedObject {
            if relation.isOrdered {
                managed.mutableOrderedSetValue(forKey: childrenKeyPath).remove(child)
            } else {
                managed.mutableSetValue(forKey: childrenKeyPath).remove(child)
            }
        } else if let array = (try? KeyValueAccess.value(forKeyPath: childrenKeyPath, of: owner)) as? NSMutableArray {
            if let index = (0..<array.count).first(where: { ControllerContent.isSame(array[$0], object) }) {
                array.removeObject(at: index)
            }
        } else if let dictionary = owner as? NSMutableDictionary {
            dictionary[childrenKeyPath] = NSMutableArray(array: NSArrayController.array(dictionary[childrenKeyPath])
                .filter { !ControllerContent.isSame($0, object) })
        }
    }

    // MARK: Keys, bindings and the context

    open override func value(forKey key: String) -> Any? {
        switch key {
        case "arrangedObjects": return root
        case "selectionIndexPaths": return selectedPaths
        case "selectionIndexPath": return selectionIndexPath
        case "selectedNodes": return selectedNodes
        case "sortDescriptors": return sortDescriptors
        case "canInsert": return canInsert
        case "canInsertChild": return canInsertChild
        case "canAddChild": return canAddChild
        default: return super.value(forKey: key)
        }
    }

    open override var exposedBindings: [NSBindingName] { [.contentArray, .contentSet] }

    override func setFetchedObjects(_ objects: [Any], merge: Bool) {
        guard merge else {
            content = objects
            return
        }
        content = roots + objects.filter { object in !roots.contains { ControllerContent.isSame($0, object) } }
    }

    override func setBoundContent(_ value: Any?) {
        let merged = NSArrayController.merged(roots, with: NSArrayController.array(value), ordered: binding?.relationship?.isOrdered == true)
        guard !ControllerContent.isSame(merged, roots) else { return }
        content = merged
    }

    /// Entity mode with ``NSObjectController/automaticallyPreparesContent``: inserted objects
    /// of the entity that match the fetch predicate become roots, deleted ones leave, and the
    /// tree is built again when an object in it changed (its children may have).
    override func contextChanged(_ changes: ContextObjectChanges) {
        let current = roots
        let goneIDs = Set(current.compactMap { ($0 as? NSManagedObject).map(ObjectIdentifier.init) }.filter(changes.deleted.contains))
        let arriving = changes.inserted.filter { object in belongsToEntity(object) && !current.contains { ($0 as AnyObject) === object } }
        let inTree = root.descendants.contains { node in
            (node.representedObject as? NSManagedObject).map { changes.updated.contains(ObjectIdentifier($0)) || changes.deleted.contains(ObjectIdentifier($0)) } ?? false
        }
        guard !goneIDs.isEmpty || !arriving.isEmpty || inTree else { return }
        content = current.filter { !goneIDs.contains(ObjectIdentifier($0 as AnyObject)) } + arriving
    }
}
