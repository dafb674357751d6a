/// Apple's key-value coding collection operators, applied by ``KeyValueAccess``.
///
/// `left.@op.right`: `left` must be a collection (an array, set or ordered set; `@count` also
/// counts a dictionary's entries); `right` is read from each element. As Apple documents:
/// - `@count`: the number of elements (`right` is ignored).
/// - `@sum`: the sum of `right`, nil and `NSNull` counting as 0; 0 for an empty collection.
///   Integers sum to an integer, any `Decimal` makes the sum a `Decimal`, otherwise a `Double`.
/// - `@avg`: the sum divided by the number of elements (nil counting as 0), as a `Double`
///   (`Decimal` if any value is one); nil for an empty collection.
/// - `@min`, `@max`: the least and greatest value by ``ValueComparison``, skipping nil and
///   `NSNull`; nil when there is none.
/// - `@unionOfObjects`, `@distinctUnionOfObjects`: the values of `right`, skipping nil, without
///   duplicates for the distinct form; an array from an array, a set from a set.
/// - `@unionOfArrays`, `@distinctUnionOfArrays`: the elements are collections; the values of
///   `right` in all of them, concatenated into one array (distinct: without duplicates).
/// - `@unionOfSets`, `@distinctUnionOfSets`: as the array forms, into a set.
///
/// On a value that is not a collection, `@op.key.rest` reads `key` first and applies
/// `@op.rest` to it, so that the Predicate Programming Guide's `@sum.items.price < 1000` works
/// on an order; Apple's KVC would raise. The SQL compilers treat it as `items.@sum.price`.
enum CollectionOperator: String, CaseIterable, Sendable {
    case count = "@count"
    case sum = "@sum"
    case avg = "@avg"
    case min = "@min"
    case max = "@max"
    case unionOfObjects = "@unionOfObjects"
    case distinctUnionOfObjects = "@distinctUnionOfObjects"
    case unionOfArrays = "@unionOfArrays"
    case distinctUnionOfArrays = "@distinctUnionOfArrays"
    case unionOfSets = "@unionOfSets"
    case distinctUnionOfSets = "@distinctUnionOfSets"

    static func apply(_ name: String, path: ArraySlice<String>, to object: Any?) throws -> Any? {
        guard let op = CollectionOperator(rawValue: name) else {
            throw KeyValueCodingError.unknownCollectionOperator(name)
        }
        if ValueComparison.isNull(object) { return op == .count ? 0 : nil }
        if op == .count, let dictionary = KeyValueAccess.dictionary(object) { return dictionary.count }
        guard let collection = CollectionValue(object) else {
            // `@sum.items.price` on an object reads `items` first (Apple's documented example form).
            if op != .count, path.count >= 2, let key = path.first {
                return try apply(name, path: path.dropFirst(), to: KeyValueAccess.value(forKey: key, of: object))
            }
            throw KeyValueCodingError.notACollection(collectionOperator: name, typeName: ValueComparison.typeName(object))
        }
        if op == .count { return collection.elements.count }
        guard !path.isEmpty else { throw KeyValueCodingError.missingKeyPath(collectionOperator: name) }
        let values = try collection.elements.map { try KeyValueAccess.value(forPath: path, of: $0) }
        let present = values.filter { !ValueComparison.isNull($0) }.map { $0! }
        switch op {
        case .count:
            return collection.elements.count
        case .sum:
            return try sum(present, op: name)
        case .avg:
            guard !values.isEmpty else { return nil }
            let total = try NumericValue(sum(present, op: name))!
            return try Arithmetic.divide(total, .integer(Int64(values.count)), function: name, forceFraction: true).boxed
        case .min, .max:
            return try extreme(present, greatest: op == .max, op: name)
        case .unionOfObjects:
            return CollectionValue.make(present, kind: collection.kind == .set ? .set : .array)
        case .distinctUnionOfObjects:
            return CollectionValue.make(CollectionValue(kind: .array, elements: present).distinctElements,
                                        kind: collection.kind == .set ? .set : .array)
        case .unionOfArrays, .distinctUnionOfArrays, .unionOfSets, .distinctUnionOfSets:
            var flattened: [Any] = []
            for element in collection.elements {
                if ValueComparison.isNull(element) { continue }
                guard let inner = CollectionValue(element) else {
                    throw KeyValueCodingError.notACollection(collectionOperator: name, typeName: ValueComparison.typeName(element))
                }
                for item in inner.elements {
                    if let value = try KeyValueAccess.value(forPath: path, of: item), !ValueComparison.isNull(value) {
                        flattened.append(value)
                    }
                }
            }
            switch op {
            case .unionOfArrays: return flattened
            case .distinctUnionOfArrays: return CollectionValue(kind: .array, elements: flattened).distinctElements
            default: return CollectionValue.make(flattened, kind: .set)
            }
        }
    }

    private static func sum(_ values: [Any], op: String) throws -> Any {
        var total = NumericValue.integer(0)
        for value in values {
            guard let number = NumericValue(value) else {
                throw KeyValueCodingError.notANumber(collectionOperator: op, typeName: ValueComparison.typeName(value))
            }
            total = Arithmetic.add(total, number)
        }
        return total.boxed
    }

    private static func extreme(_ values: [Any], greatest: Bool, op: String) throws -> Any? {
        guard var best = values.first else { return nil }
        for value in values.dropFirst() {
            guard let order = ValueComparison.compare(value, best, options: []) else {
                throw KeyValueCodingError.incomparable(
                    collectionOperator: op, typeNames: [ValueComparison.typeName(best), ValueComparison.typeName(value)])
            }
            if order == (greatest ? .orderedDescending : .orderedAscending) { best = value }
        }
        return best
    }
}
