/// Describes how to order objects by a key path, ascending or descending, with a comparison
/// selector or a comparator.
///
/// OpenCoreData declares its own `NSSortDescriptor` because swift-corelibs-foundation makes
/// `init(key:ascending:)` unavailable on Linux (it has no key-value coding). Keys are read with
/// the evaluator's key-value coding (``KeyValueAccess``): dictionaries, ``KeyValueCoding``
/// adopters, Swift values by reflection, and collection operators such as `items.@count`.
/// Numbers compare across widths as `NSNumber` does.
///
/// Differences from Apple:
/// - the selector names one of `compare:`, `caseInsensitiveCompare:`, `localizedCompare:`,
///   `localizedCaseInsensitiveCompare:` and `localizedStandardCompare:`; any other traps at
///   initialization with a message naming the supported ones, as no message is sent to values;
/// - values that cannot be compared (a string with a number) trap with a message naming both,
///   where Apple raises an unrecognized-selector exception;
/// - `NSNull` sorts like `nil`, before every other value;
/// - an unknown key traps with a message naming the key and the object's type.
open class NSSortDescriptor: NSObject, NSCopying, @unchecked Sendable {
    /// How two values are ordered: a named comparison or a caller's comparator.
    private enum Ordering {
        case selector(SortComparison)
        case comparator(Comparator)
    }

    /// The key path of the compared property, or `nil` to compare the objects themselves.
    public let key: String?

    /// Whether values sort in ascending order.
    public let ascending: Bool

    private let ordering: Ordering

    /// Creates a descriptor that orders by `key` with `compare:`.
    public convenience init(key: String?, ascending: Bool) {
        self.init(key: key, ascending: ascending, selector: nil)
    }

    /// Creates a descriptor that orders by `key` with the comparison method `selector`
    /// (`compare:` when `nil`).
    public init(key: String?, ascending: Bool, selector: Selector?) {
        let name = selector.map(NSStringFromSelector) ?? SortComparison.compare.rawValue
        guard let comparison = SortComparison(rawValue: name) else {
            let supported = SortComparison.allCases.map(\.rawValue).joined(separator: ", ")
            preconditionFailure("NSSortDescriptor: unsupported selector \(name) for key \(key ?? "SELF"); supported: \(supported)")
        }
        self.key = key
        self.ascending = ascending
        self.ordering = .selector(comparison)
        super.init()
    }

    /// Creates a descriptor that orders by `key` with `cmptr`. The comparator is not called
    /// when either value is `nil`: `nil` sorts first.
    public init(key: String?, ascending: Bool, comparator cmptr: @escaping Comparator) {
        self.key = key
        self.ascending = ascending
        self.ordering = .comparator(cmptr)
        super.init()
    }

    /// Creates a descriptor that orders by the property `keyPath` names, with `compare:`.
    ///
    /// Differs from Apple: the root must be a managed object class and the path must read
    /// `@Managed` properties (see ``NSManagedObject``'s `@Managed`); Linux key paths carry no
    /// key string, so it is found by applying the key path to a probe object.
    public convenience init<Root: NSManagedObject, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool) {
        self.init(key: ManagedKeyPath.key(of: keyPath), ascending: ascending)
    }

    /// Creates a descriptor that orders by the property `keyPath` names, with `cmptr`.
    public convenience init<Root: NSManagedObject, Value>(
        keyPath: KeyPath<Root, Value>, ascending: Bool, comparator cmptr: @escaping Comparator
    ) {
        self.init(key: ManagedKeyPath.key(of: keyPath), ascending: ascending, comparator: cmptr)
    }

    /// The comparison method's selector; `nil` for a comparator-based descriptor.
    public var selector: Selector? {
        if case .selector(let comparison) = ordering { return NSSelectorFromString(comparison.rawValue) }
        return nil
    }

    /// The comparator that orders two values (not objects: the key is not applied), ascending.
    public var comparator: Comparator {
        switch ordering {
        case .comparator(let comparator): return comparator
        case .selector(let comparison): return { comparison.compare($0, $1) }
        }
    }

    /// A descriptor with the same key and comparison and the opposite order. Typed `Any` as
    /// in Apple's API.
    public var reversedSortDescriptor: Any {
        switch ordering {
        case .selector(let comparison):
            return NSSortDescriptor(key: key, ascending: !ascending, selector: NSSelectorFromString(comparison.rawValue))
        case .comparator(let comparator):
            return NSSortDescriptor(key: key, ascending: !ascending, comparator: comparator)
        }
    }

    /// Orders two objects by the values at `key`, reversed when the descriptor is descending.
    open func compare(_ object1: Any, to object2: Any) -> ComparisonResult {
        let result = compareValues(value(in: object1), value(in: object2))
        guard !ascending else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    /// Forces a descriptor that was securely decoded to allow evaluation. A no-op here.
    open func allowEvaluation() {}

    private func compareValues(_ a: Any?, _ b: Any?) -> ComparisonResult {
        switch ordering {
        case .selector(let comparison):
            return comparison.compare(a, b)
        case .comparator(let comparator):
            // nil first, as with selectors; the comparator only sees values.
            switch (SortComparison.nonNull(a), SortComparison.nonNull(b)) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case let (x?, y?): return comparator(x, y)
            }
        }
    }

    private func value(in object: Any) -> Any? {
        guard let key else { return object }
        do {
            return try KeyValueAccess.value(forKeyPath: key, of: object)
        } catch {
            preconditionFailure("NSSortDescriptor: can't read the key path \(key) of \(type(of: object)): \(error)")
        }
    }

    // MARK: Description, equality, copying

    open override var description: String {
        let selectorName = selector.map(NSStringFromSelector) ?? "compareObject:toObject:"
        return "(\(key ?? "SELF"), \(ascending ? "ascending" : "descending"), \(selectorName))"
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSSortDescriptor else { return false }
        if other === self { return true }
        guard key == other.key, ascending == other.ascending else { return false }
        switch (ordering, other.ordering) {
        case let (.selector(x), .selector(y)): return x == y
        default: return false
        }
    }

    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(key)
        hasher.combine(ascending)
        return hasher.finalize()
    }

    /// Sort descriptors are immutable: a copy is the descriptor itself.
    open func copy(with zone: NSZone? = nil) -> Any { self }
}
