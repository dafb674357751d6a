import Foundation

/// A node of a tree of objects, as AppKit's `NSTreeNode`: a represented object, its children
/// and its place in the tree. ``NSTreeController/arrangedObjects`` is a tree of them.
///
/// Differs from AppKit: there is no `mutableChildren`; change the tree through the tree
/// controller (or ``insertChild(_:at:)`` and ``removeFromParent()`` for a tree of your own).
open class NSTreeNode: NSObject {
    /// The object the node stands for (nil for a tree controller's root).
    public let representedObject: Any?
    /// The node above, nil for a root.
    open private(set) weak var parent: NSTreeNode?
    private var childNodes: [NSTreeNode] = []
    private let leaf: Bool?

    /// A node for `representedObject`, without children.
    public init(representedObject: Any?) {
        self.representedObject = representedObject
        self.leaf = nil
        super.init()
    }

    init(representedObject: Any?, isLeaf: Bool?) {
        self.representedObject = representedObject
        self.leaf = isLeaf
        super.init()
    }

    /// The children, nil for a leaf.
    open var children: [NSTreeNode]? { isLeaf ? nil : childNodes }

    /// Whether the node has no children (or was marked a leaf by the tree controller's
    /// `leafKeyPath`).
    open var isLeaf: Bool { leaf ?? childNodes.isEmpty }

    /// The indexes from the root down to this node.
    open var indexPath: IndexPath {
        var indexes: [Int] = []
        var node = self
        while let parent = node.parent {
            indexes.append(parent.childNodes.firstIndex { $0 === node } ?? 0)
            node = parent
        }
        return IndexPath(indexes: indexes.reversed())
    }

    /// The node at `indexPath` below this one (nil when there is none).
    open func descendant(at indexPath: IndexPath) -> NSTreeNode? {
        var node = self
        for index in indexPath {
            guard index >= 0, index < node.childNodes.count else { return nil }
            node = node.childNodes[index]
        }
        return node
    }

    /// Adds `child` at `index` (the end when past it), taking it from its former parent.
    open func insertChild(_ child: NSTreeNode, at index: Int) {
        child.removeFromParent()
        child.parent = self
        childNodes.insert(child, at: max(0, min(index, childNodes.count)))
    }

    /// Takes the node out of its parent's children.
    open func removeFromParent() {
        parent?.childNodes.removeAll { $0 === self }
        parent = nil
    }

    /// Sorts the children by `sortDescriptors` (their represented objects), and theirs with
    /// `recursively`.
    open func sort(with sortDescriptors: [NSSortDescriptor], recursively: Bool) {
        childNodes = NSSortDescriptor.stableSort(childNodes, by: sortDescriptors) { $0.representedObject as Any }
        if recursively { for child in childNodes { child.sort(with: sortDescriptors, recursively: true) } }
    }

    /// Every node below this one, depth first.
    var descendants: [NSTreeNode] {
        childNodes.flatMap { [$0] + $0.descendants }
    }
}
