/// Statistics, indexing and casts for ``BuiltinFunctions``.
enum Statistics {
    /// Applies a statistics function (see ``BuiltinFunctions``) to `elements`.
    static func apply(_ name: String, _ elements: [Any]) throws -> Any? {
        switch name {
        case "count:":
            return elements.count
        case "distinct:":
            return CollectionValue(kind: .array, elements: elements).distinctElements
        case "random:":
            return elements.randomElement()
        default:
            break
        }
        let present = elements.filter { !ValueComparison.isNull($0) }
        switch name {
        case "min:", "max:":
            guard var best = present.first else { return nil }
            for value in present.dropFirst() {
                guard let order = ValueComparison.compare(value, best, options: []) else {
                    throw PredicateEvaluationError.wrongArgumentType(
                        function: name, argument: 0, expected: "mutually comparable values",
                        typeName: "\(ValueComparison.typeName(best)) and \(ValueComparison.typeName(value))")
                }
                if order == (name == "max:" ? .orderedDescending : .orderedAscending) { best = value }
            }
            return best
        case "mode:":
            var groups: [(value: Any, count: Int)] = []
            for value in present {
                if let i = groups.firstIndex(where: { ValueComparison.isEqual($0.value, value, options: []) }) {
                    groups[i].count += 1
                } else {
                    groups.append((value, 1))
                }
            }
            let top = groups.map(\.count).max() ?? 0
            return groups.filter { $0.count == top }.map(\.value)
        default:
            break
        }
        let numbers = try present.map { value -> NumericValue in
            guard let number = NumericValue(value) else {
                throw PredicateEvaluationError.wrongArgumentType(
                    function: name, argument: 0, expected: "a collection of numbers", typeName: ValueComparison.typeName(value))
            }
            return number
        }
        let total = numbers.reduce(NumericValue.integer(0), Arithmetic.add)
        switch name {
        case "sum:":
            return total.boxed
        case "average:":
            guard !numbers.isEmpty else { return nil }
            return try Arithmetic.divide(total, .integer(Int64(numbers.count)), function: name, forceFraction: true).boxed
        case "median:":
            guard !numbers.isEmpty else { return nil }
            let sorted = numbers.sorted { NumericValue.compare($0, $1) == .orderedAscending }
            let middle = sorted.count / 2
            if sorted.count % 2 == 1 { return sorted[middle].boxed }
            return try Arithmetic.divide(Arithmetic.add(sorted[middle - 1], sorted[middle]), .integer(2),
                                         function: name, forceFraction: true).boxed
        default: // "stddev:"
            guard !numbers.isEmpty else { return nil }
            let values = numbers.map(\.doubleValue)
            let mean = values.reduce(0, +) / Double(values.count)
            let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
            return variance.squareRoot()
        }
    }
}

extension BuiltinFunctions {
    /// The index of `collection[index]`: a value, or `FIRST`/`LAST`/`SIZE`.
    enum Index {
        case symbol(NSExpression.Symbol)
        case value(Any?)
    }

    /// `collection[index]` (`objectFrom:withIndex:`).
    ///
    /// - Arrays and ordered sets take an integer index (out of range throws) and `FIRST`/`LAST`
    ///   (nil when empty); every collection answers `SIZE`.
    /// - Dictionaries take a string key (nil when missing) and `SIZE`.
    /// - A null collection gives nil.
    static func element(of collection: Any?, at index: Index) throws -> Any? {
        let name = "objectFrom:withIndex:"
        if ValueComparison.isNull(collection) { return nil }
        if case .symbol(.size) = index {
            guard let members = CollectionValue(membershipOf: collection) else {
                throw PredicateEvaluationError.notACollection(construct: "[SIZE]", typeName: ValueComparison.typeName(collection))
            }
            return members.elements.count
        }
        if let dictionary = KeyValueAccess.dictionary(ValueComparison.unwrap(collection)) {
            guard case .value(let key) = index, let key = ValueComparison.string(key) else {
                throw PredicateEvaluationError.wrongArgumentType(
                    function: name, argument: 1, expected: "a string key for a dictionary", typeName: Self.typeName(of: index))
            }
            return dictionary[key].flatMap(ValueComparison.unwrap)
        }
        guard let ordered = CollectionValue(collection) else {
            throw PredicateEvaluationError.notACollection(construct: "[index]", typeName: ValueComparison.typeName(collection))
        }
        guard ordered.kind != .set else {
            throw PredicateEvaluationError.wrongArgumentType(
                function: name, argument: 0, expected: "an array or ordered set for an index other than SIZE",
                typeName: ValueComparison.typeName(collection))
        }
        switch index {
        case .symbol(.first): return ordered.elements.first.flatMap(unwrapNull)
        case .symbol(.last): return ordered.elements.last.flatMap(unwrapNull)
        case .symbol(.size): return ordered.elements.count
        case .value(let value):
            guard let position = NumericValue(value)?.exactInteger else {
                throw PredicateEvaluationError.wrongArgumentType(
                    function: name, argument: 1, expected: "an integer index", typeName: ValueComparison.typeName(value))
            }
            guard position >= 0, position < ordered.elements.count else {
                throw PredicateEvaluationError.indexOutOfRange(index: Int(position), count: ordered.elements.count)
            }
            return unwrapNull(ordered.elements[Int(position)])
        }
    }

    private static func unwrapNull(_ value: Any) -> Any? {
        ValueComparison.isNSNull(value) ? nil : value
    }

    private static func typeName(of index: Index) -> String {
        switch index {
        case .symbol(let symbol): return symbol.rawValue
        case .value(let value): return ValueComparison.typeName(value)
        }
    }

    /// `CAST(value, 'type')` (`castObject:toType:`).
    ///
    /// - `NSDate`: a date is itself; a number (or a numeric string) is seconds since the
    ///   reference date, 2001-01-01 00:00:00 UTC.
    /// - `NSNumber`: a number is itself; a string is parsed (an integer if it is one, otherwise a
    ///   `Double`); a date becomes its seconds since the reference date.
    /// - `NSString`: the value's description (numbers as `NSNumber` prints them, dates in ISO 8601).
    /// - nil stays nil; any other type name or unconvertible value throws
    ///   ``PredicateEvaluationError/invalidCast(typeName:type:)``.
    static func cast(_ value: Any?, to type: String) throws -> Any? {
        guard let value = ValueComparison.unwrap(value), !ValueComparison.isNSNull(value) else { return nil }
        let failure = PredicateEvaluationError.invalidCast(typeName: ValueComparison.typeName(value), type: type)
        switch type {
        case "NSDate", "Date":
            if let date = value as? Date { return date }
            if let number = NumericValue(value) { return Date(timeIntervalSinceReferenceDate: number.doubleValue) }
            if let string = ValueComparison.string(value), let seconds = Double(string.trimmingCharacters(in: .whitespaces)) {
                return Date(timeIntervalSinceReferenceDate: seconds)
            }
            throw failure
        case "NSNumber", "NSDecimalNumber":
            if let number = NumericValue(value) { return value is Bool ? value : number.boxed }
            if let date = value as? Date { return date.timeIntervalSinceReferenceDate }
            if let string = ValueComparison.string(value) {
                let trimmed = string.trimmingCharacters(in: .whitespaces)
                if let integer = Int(trimmed) { return integer }
                if let double = Double(trimmed) { return double }
            }
            throw failure
        case "NSString", "String":
            if let date = value as? Date { return ISO8601DateFormatter().string(from: date) }
            return describe(value)
        default:
            throw failure
        }
    }
}
