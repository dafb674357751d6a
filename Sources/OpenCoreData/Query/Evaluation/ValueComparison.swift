/// Equality and ordering of predicate values, shared by the evaluator, AST equality and
/// (as a specification) the SQL compilers.
///
/// The rules:
/// - **nil and `NSNull`** are the same null: `null == null` is true, `null == x` is false for
///   any other `x`, and every ordered comparison involving null is false.
/// - **Numbers** of every width compare by value as `NSNumber` does (see ``NumericValue``):
///   `Int8(1) == UInt64(1) == 1.0 == Decimal(1) == true`.
/// - **Strings** (`String`, `Substring`, `NSString`) compare by Unicode canonical equivalence and
///   order by Swift's `String` ordering, after folding for `[c]` and `[d]`; `[n]` disables folding.
/// - **Dates** compare by instant; **Data** and **UUID** compare bytewise (ordering is the
///   lexicographic order of the bytes, as SQLite orders BLOBs); **URLs** by `absoluteString`.
/// - **Collections**: two arrays (or ordered sets) are equal when their elements are pairwise
///   equal; two sets when each holds the other's elements; two dictionaries when they have the
///   same keys and equal values. Collections are never ordered.
/// - **Anything else** is equal when both values are `Hashable` and equal as `AnyHashable`, or are
///   the same object (or `isEqual(_:)` for `NSObject`s).
/// - **Incomparable types** (a string and a number, a date and a number, …) are unequal, and
///   ordered comparisons between them are false; nothing throws. Apple raises for some of these
///   (`compare:` on unrelated classes); we answer false instead.
enum ValueComparison {
    typealias Options = NSComparisonPredicate.Options

    /// Whether two constants are equal as NSNumber and Foundation values compare; used by AST
    /// equality. The same rules as ``isEqual(_:_:options:)`` without string options.
    static func isEqualConstant(_ a: Any?, _ b: Any?) -> Bool {
        isEqual(a, b, options: [])
    }

    /// Flattens nested optionals hidden in `Any` (`Optional<Optional<Int>>.some(nil)` is nil).
    static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        // Checking the dynamic type's metadata first is far cheaper than a protocol cast, which
        // for bridgeable values (Int64, String…) even builds their Foundation object.
        guard _openExistential(value, do: holdsOptional) else { return value }
        if let optional = value as? AnyOptional { return unwrap(optional.wrappedAny) }
        return value
    }


    /// `value` as a `T` when its dynamic type is exactly `T`, without the runtime's cast: a
    /// comparison of metatypes, then a copy out of the existential's inline buffer. nil when the
    /// types differ or `T` is not stored inline in `Any` (larger than three words, more aligned
    /// than a word, or not bitwise takable: the runtime's own rule), so callers fall back to
    /// `as?`. For a concrete `T` the layout checks fold away.
    @inline(__always)
    static func exact<T>(_ value: Any, as type: T.Type) -> T? {
        withUnsafePointer(to: value) { exact(at: $0, as: type) }
    }

    /// ``exact(_:as:)`` of the `Any` at `value`, read where it is (no copy of the existential).
    @inline(__always)
    static func exact<T>(at value: UnsafePointer<Any>, as type: T.Type) -> T? {
        guard MemoryLayout<T>.size <= 3 * MemoryLayout<Int>.size, MemoryLayout<T>.alignment <= MemoryLayout<Int>.alignment,
              _isBitwiseTakable(T.self) else { return nil }
        // An `Any` is three words of inline value followed by its type's metadata: comparing that
        // word costs no dynamic-type lookup. (A value boxed in a further existential doesn't
        // match, and its caller takes the general path.)
        let metadata = unsafeBitCast(type as Any.Type, to: UnsafeRawPointer.self)
        let raw = UnsafeRawPointer(value)
        guard raw.load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UnsafeRawPointer.self) == metadata else { return nil }
        return raw.load(as: T.self)
    }

    /// Whether `value` holds a value of exactly the type `type` stands for, read from the
    /// existential's metadata word: no copy of the value and no dynamic-type lookup. Meant for
    /// value types (their metadata is the existential's); false for nil, for a class instance
    /// boxed under another static type and for a value boxed in a further existential, which
    /// callers check the general way.
    @inline(__always)
    static func holds(_ value: Any?, exactly type: ObjectIdentifier) -> Bool {
        // `Any?` is `Any`'s four words, nil standing as a metadata word no type has.
        guard MemoryLayout<Any?>.size == 4 * MemoryLayout<Int>.size else { return false }
        return withUnsafePointer(to: value) { pointer in
            UnsafeRawPointer(pointer).load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UInt.self) == UInt(bitPattern: type)
        }
    }

    /// Whether `value` is nil or `NSNull`.
    static func isNull(_ value: Any?) -> Bool {
        guard let value = unwrap(value) else { return true }
        return isNSNull(value)
    }

    /// Equality of two values of the same common type (the types stores load and setters
    /// keep), with the answer the general rules give; `nil` when the fast path does not apply.
    @inline(__always)
    static func sameTypeEqual(_ a: Any, _ b: Any) -> Bool? {
        let type = Swift.type(of: a)
        guard type == Swift.type(of: b) else { return nil }
        if let x = exact(a, as: Int64.self), let y = exact(b, as: Int64.self) { return x == y }
        if let x = exact(a, as: String.self), let y = exact(b, as: String.self) { return x == y }
        if let x = exact(a, as: Double.self), let y = exact(b, as: Double.self) { return x.isNaN || y.isNaN ? nil : x == y }
        if let x = exact(a, as: Int32.self), let y = exact(b, as: Int32.self) { return x == y }
        if let x = exact(a, as: Int16.self), let y = exact(b, as: Int16.self) { return x == y }
        if let x = exact(a, as: Bool.self), let y = exact(b, as: Bool.self) { return x == y }
        if let x = exact(a, as: Date.self), let y = exact(b, as: Date.self) { return x == y }
        return nil
    }

    /// Whether `value` is an `NSNull`. Compares the dynamic type instead of casting: on Linux,
    /// `value is NSNull` first bridges a Swift number or string to its Foundation object.
    @inline(__always)
    static func isNSNull(_ value: Any) -> Bool {
        type(of: value) == NSNull.self
    }

    /// The string in `value`, for `String`, `Substring` and `NSString`.
    static func string(_ value: Any?) -> String? {
        switch unwrap(value) {
        case let s as String: return s
        case let s as Substring: return String(s)
        case let s as NSString: return s as String
        default: return nil
        }
    }

    /// Whether `a` equals `b` under the rules above, with string options `[c]`, `[d]`, `[n]`.
    static func isEqual(_ a: Any?, _ b: Any?, options: Options) -> Bool {
        let a = unwrap(a), b = unwrap(b)
        let aNull = isNull(a), bNull = isNull(b)
        if aNull || bNull { return aNull && bNull }
        guard let a, let b else { return false }
        if options.isEmpty, let same = sameTypeEqual(a, b) { return same }
        if let x = NumericValue(a), let y = NumericValue(b) {
            return NumericValue.compare(x, y) == .orderedSame
        }
        if let x = string(a), let y = string(b) {
            return StringMatching.fold(x, options) == StringMatching.fold(y, options)
        }
        if let x = a as? Date, let y = b as? Date { return x == y }
        if let x = a as? Data, let y = b as? Data { return x == y }
        if let x = a as? UUID, let y = b as? UUID { return x == y }
        if let x = a as? URL, let y = b as? URL { return x.absoluteString == y.absoluteString }
        if let x = CollectionValue(a), let y = CollectionValue(b) {
            return collectionsEqual(x, y, options: options)
        }
        if let x = KeyValueAccess.dictionary(a), let y = KeyValueAccess.dictionary(b) {
            return x.count == y.count && x.allSatisfy { key, value in
                y[key].map { isEqual(value, $0, options: options) } ?? false
            }
        }
        if let x = a as? AnyHashable, let y = b as? AnyHashable, x == y { return true }
        if let x = a as? NSObject, let y = b as? NSObject { return x.isEqual(y) }
        return false
    }

    private static func collectionsEqual(_ a: CollectionValue, _ b: CollectionValue, options: Options) -> Bool {
        switch (a.kind, b.kind) {
        case (.set, _), (_, .set):
            let x = a.distinctElements, y = CollectionValue(kind: .array, elements: b.distinctElements)
            return x.count == y.elements.count && x.allSatisfy { y.contains($0, options: options) }
        default:
            return a.elements.count == b.elements.count
                && zip(a.elements, b.elements).allSatisfy { isEqual($0, $1, options: options) }
        }
    }

    /// Orders `a` and `b`, or returns `nil` when they are incomparable (null, mixed types,
    /// collections, NaN).
    static func compare(_ a: Any?, _ b: Any?, options: Options) -> ComparisonResult? {
        let a = unwrap(a), b = unwrap(b)
        if isNull(a) || isNull(b) { return nil }
        guard let a, let b else { return nil }
        if let x = NumericValue(a), let y = NumericValue(b) { return NumericValue.compare(x, y) }
        if let x = string(a), let y = string(b) {
            return order(StringMatching.fold(x, options), StringMatching.fold(y, options))
        }
        if let x = a as? Date, let y = b as? Date { return order(x, y) }
        if let x = a as? Data, let y = b as? Data { return orderBytes(Array(x), Array(y)) }
        if let x = a as? UUID, let y = b as? UUID { return orderBytes(bytes(of: x), bytes(of: y)) }
        if let x = a as? URL, let y = b as? URL { return order(x.absoluteString, y.absoluteString) }
        return nil
    }

    /// Whether the comparison `a op b` holds, for the ordered operators and equality.
    static func holds(_ op: NSComparisonPredicate.Operator, _ a: Any?, _ b: Any?, options: Options) -> Bool {
        switch op {
        case .equalTo: return isEqual(a, b, options: options)
        case .notEqualTo: return !isEqual(a, b, options: options)
        case .lessThan: return compare(a, b, options: options) == .orderedAscending
        case .lessThanOrEqualTo:
            guard let r = compare(a, b, options: options) else { return false }
            return r != .orderedDescending
        case .greaterThan: return compare(a, b, options: options) == .orderedDescending
        case .greaterThanOrEqualTo:
            guard let r = compare(a, b, options: options) else { return false }
            return r != .orderedAscending
        default: return false
        }
    }

    static func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
        x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
    }

    private static func orderBytes(_ x: [UInt8], _ y: [UInt8]) -> ComparisonResult {
        for (p, q) in zip(x, y) where p != q { return p < q ? .orderedAscending : .orderedDescending }
        return order(x.count, y.count)
    }

    private static func bytes(of uuid: UUID) -> [UInt8] {
        withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }

    /// A short type name for error messages: `Int`, `String`, `nil`.
    static func typeName(_ value: Any?) -> String {
        guard let value = unwrap(value) else { return "nil" }
        return String(describing: type(of: value))
    }
}

/// Lets ``ValueComparison/unwrap(_:)`` see through optionals stored in `Any`.
protocol AnyOptional {
    var wrappedAny: Any? { get }
}

extension Optional: AnyOptional {
    var wrappedAny: Any? { self.map { $0 as Any } }
}

/// Whether a value opened from `Any` is an `Optional` (a metadata check, no conformance lookup).
private func holdsOptional<T>(_ value: T) -> Bool { _isOptional(T.self) }

