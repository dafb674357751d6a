import Foundation

/// The section and row (or item) accessors of a two-index path, as UIKit and AppKit add them on
/// Apple platforms.
///
/// swift-corelibs-foundation's `IndexPath` has neither `init(row:section:)`,
/// `init(item:section:)` nor `section`, `row` and `item`, which fetched-results code uses;
/// OpenCoreData adds them here with UIKit's meaning: index 0 is the section, index 1 the row
/// (or item). Like UIKit, reading them on a path without two indexes traps.
extension IndexPath {
    /// A path to the row `row` of section `section`.
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// A path to the item `item` of section `section`.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The section: the path's first index.
    public var section: Int {
        get { checkedIndex(0, "section") }
        set { self[0] = newValue }
    }

    /// The row in the section: the path's second index.
    public var row: Int {
        get { checkedIndex(1, "row") }
        set { self[1] = newValue }
    }

    /// The item in the section: the path's second index (`row` under another name).
    public var item: Int {
        get { checkedIndex(1, "item") }
        set { self[1] = newValue }
    }

    private func checkedIndex(_ position: Int, _ name: String) -> Int {
        precondition(count == 2, "IndexPath.\(name): an index path for use with sections must have exactly two indexes, not \(count)")
        return self[position]
    }
}
