extension Array {
    /// The elements sorted by `sortDescriptors`: by the first, ties broken by the next, and so
    /// on; elements equal under all of them keep their order (the sort is stable).
    ///
    /// `NSArray.sortedArray(using:)` on Apple platforms.
    public func sortedArray(using sortDescriptors: [NSSortDescriptor]) -> [Element] {
        NSSortDescriptor.stableSort(self, by: sortDescriptors)
    }

    /// Sorts the array in place by `sortDescriptors`, stably.
    ///
    /// `NSMutableArray.sort(using:)` on Apple platforms.
    public mutating func sort(using sortDescriptors: [NSSortDescriptor]) {
        self = NSSortDescriptor.stableSort(self, by: sortDescriptors)
    }
}

extension Sequence {
    /// The elements sorted by `sortDescriptors`, stably. Not in Apple's API: a convenience that
    /// does not clash with Foundation's `sorted(using:)` for `SortComparator`s.
    public func sorted(using sortDescriptors: [NSSortDescriptor]) -> [Element] {
        NSSortDescriptor.stableSort(Array(self), by: sortDescriptors)
    }
}

extension NSSortDescriptor {
    /// A stable sort: ties under every descriptor keep their original order.
    static func stableSort<Element>(_ elements: [Element], by descriptors: [NSSortDescriptor]) -> [Element] {
        stableSort(elements, by: descriptors) { $0 }
    }

    /// A stable sort of `elements` by the descriptors applied to `value(element)` (a tree
    /// node's represented object, for instance).
    static func stableSort<Element>(_ elements: [Element], by descriptors: [NSSortDescriptor],
                                    value: (Element) -> Any) -> [Element] {
        guard !descriptors.isEmpty else { return elements }
        return elements.enumerated().sorted { x, y in
            for descriptor in descriptors {
                switch descriptor.compare(value(x.element), to: value(y.element)) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return x.offset < y.offset
        }.map(\.element)
    }
}

extension NSArray {
    /// The elements sorted by `sortDescriptors`, stably.
    ///
    /// Takes OpenCoreData's ``NSSortDescriptor``; swift-corelibs-foundation's own overload takes
    /// its key-path-only descriptor.
    public func sortedArray(using sortDescriptors: [NSSortDescriptor]) -> [Any] {
        NSSortDescriptor.stableSort(Array(self), by: sortDescriptors)
    }
}

extension NSMutableArray {
    /// Sorts the array in place by `sortDescriptors`, stably.
    public func sort(using sortDescriptors: [NSSortDescriptor]) {
        let sorted = NSSortDescriptor.stableSort(Array(self), by: sortDescriptors)
        setArray(sorted)
    }
}

extension NSSet {
    /// The elements sorted by `sortDescriptors`, stably (in the set's enumeration order for ties).
    public func sortedArray(using sortDescriptors: [NSSortDescriptor]) -> [Any] {
        NSSortDescriptor.stableSort(allObjects, by: sortDescriptors)
    }
}

extension NSOrderedSet {
    /// The elements sorted by `sortDescriptors`, stably.
    public func sortedArray(using sortDescriptors: [NSSortDescriptor]) -> [Any] {
        NSSortDescriptor.stableSort(array, by: sortDescriptors)
    }
}

extension NSMutableOrderedSet {
    /// Sorts the ordered set in place by `sortDescriptors`, stably.
    public func sort(using sortDescriptors: [NSSortDescriptor]) {
        let sorted = NSSortDescriptor.stableSort(array, by: sortDescriptors)
        removeAllObjects()
        addObjects(from: sorted)
    }
}
