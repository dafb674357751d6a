/// A collection read from any array, set or ordered set, Swift or Foundation.
///
/// Arrays (`[T]`, `NSArray`) are ordered, sets (`Set<T>`, `NSSet`) are not, `NSOrderedSet` is
/// ordered and distinct. Dictionaries are not collections here, except where Apple says their
/// values are used (`IN`, `CONTAINS`): see ``init(membershipOf:)``. Strings are never collections.
struct CollectionValue {
    enum Kind: Sendable { case array, set, orderedSet }

    var kind: Kind
    /// The elements, with nested optionals flattened; `nil` elements become `NSNull`.
    var elements: [Any]

    init(kind: Kind, elements: [Any]) {
        self.kind = kind
        self.elements = elements
    }

    /// Reads `value` as a collection, or returns `nil` when it is not one.
    init?(_ value: Any?) {
        guard let value = ValueComparison.unwrap(value) else { return nil }
        if value is String || value is NSString { return nil }
        if let ordered = value as? NSOrderedSet {
            self.init(kind: .orderedSet, elements: ordered.array.map(CollectionValue.element))
        } else if let set = value as? Set<AnyHashable> {
            self.init(kind: .set, elements: set.map { CollectionValue.element($0.base) })
        } else if let array = value as? [Any] {
            self.init(kind: .array, elements: array.map(CollectionValue.element))
        } else if let set = value as? NSSet {
            self.init(kind: .set, elements: set.allObjects.map(CollectionValue.element))
        } else {
            return nil
        }
    }

    /// Reads `value` as the right-hand side of `IN` or the left-hand side of `CONTAINS`:
    /// a collection, or a dictionary whose values are used (Apple's documented rule).
    init?(membershipOf value: Any?) {
        if let collection = CollectionValue(value) {
            self = collection
        } else if let dictionary = KeyValueAccess.dictionary(ValueComparison.unwrap(value)) {
            self.init(kind: .array, elements: dictionary.values.map(CollectionValue.element))
        } else {
            return nil
        }
    }

    private static func element(_ value: Any) -> Any {
        ValueComparison.unwrap(value) ?? NSNull()
    }

    /// Whether the collection holds `value`, by ``ValueComparison/isEqual(_:_:options:)``.
    func contains(_ value: Any?, options: NSComparisonPredicate.Options = []) -> Bool {
        elements.contains { ValueComparison.isEqual($0, value, options: options) }
    }

    /// The elements without duplicates, in first-seen order.
    var distinctElements: [Any] {
        var result: [Any] = []
        for element in elements where !result.contains(where: { ValueComparison.isEqual($0, element, options: []) }) {
            result.append(element)
        }
        return result
    }

    /// Builds a Swift value of this collection's kind: `[Any]` for arrays, `Set<AnyHashable>`
    /// for sets and `NSOrderedSet` for ordered sets. A set whose elements are not all hashable
    /// is returned as a duplicate-free array.
    static func make(_ elements: [Any], kind: Kind) -> Any {
        switch kind {
        case .array:
            return elements
        case .orderedSet:
            return NSOrderedSet(array: CollectionValue(kind: .array, elements: elements).distinctElements)
        case .set:
            var set = Set<AnyHashable>()
            for element in elements {
                guard let hashable = element as? AnyHashable else {
                    return CollectionValue(kind: .array, elements: elements).distinctElements
                }
                set.insert(hashable)
            }
            return set
        }
    }
}
