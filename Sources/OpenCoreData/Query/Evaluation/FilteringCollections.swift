// Foundation's collection filters, taking OpenCoreData's `NSPredicate`. swift-corelibs-foundation
// declares the same methods for its own predicate class, which cannot be built on Linux; these
// overloads win because their argument is the `NSPredicate` that Apple code names.
//
// Each evaluates the predicate on every element with `evaluate(with:)`, which traps where Apple
// raises (an unknown key, a type mismatch); filter with `evaluateThrowing(with:)` yourself to
// handle such input.

extension NSArray {
    /// The elements that match `predicate`, in order.
    public func filtered(using predicate: NSPredicate) -> [Any] {
        filter { predicate.evaluate(with: $0) }
    }
}

extension NSMutableArray {
    /// Keeps only the elements that match `predicate`, in order.
    public func filter(using predicate: NSPredicate) {
        let kept = filtered(using: predicate)
        if kept.count != count { setArray(kept) }
    }
}

extension NSSet {
    /// The elements that match `predicate`.
    public func filtered(using predicate: NSPredicate) -> Set<AnyHashable> {
        var result = Set<AnyHashable>()
        for element in self where predicate.evaluate(with: element) {
            if let hashable = element as? AnyHashable { result.insert(hashable) }
        }
        return result
    }
}

extension NSMutableSet {
    /// Removes the elements that do not match `predicate`.
    public func filter(using predicate: NSPredicate) {
        let rejected = allObjects.filter { !predicate.evaluate(with: $0) }
        for element in rejected { remove(element) }
    }
}

extension NSOrderedSet {
    /// The elements that match `predicate`, in order.
    public func filtered(using predicate: NSPredicate) -> NSOrderedSet {
        NSOrderedSet(array: array.filter { predicate.evaluate(with: $0) })
    }
}

extension NSMutableOrderedSet {
    /// Removes the elements that do not match `predicate`, keeping the others in order.
    public func filter(using predicate: NSPredicate) {
        var rejected = IndexSet()
        for (index, element) in array.enumerated() where !predicate.evaluate(with: element) {
            rejected.insert(index)
        }
        if !rejected.isEmpty { removeObjects(at: rejected) }
    }
}
