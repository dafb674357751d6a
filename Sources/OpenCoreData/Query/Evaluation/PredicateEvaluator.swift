/// The in-memory evaluator of the query AST: what `evaluate(with:)`, `expressionValue(with:context:)`
/// and the in-memory store use, and the reference the SQL compilers must agree with.
///
/// Values are compared by ``ValueComparison`` and read by ``KeyValueAccess``. The semantics:
/// - **Comparisons** `< <= > >= == !=` follow ``ValueComparison``: null equals only null,
///   numbers compare across types, incomparable values are unequal and never ordered.
/// - **`BEGINSWITH`, `ENDSWITH`, `LIKE`, `MATCHES`** need two strings; otherwise they are false.
///   See ``StringMatching`` for `[c]`, `[d]`, `[n]`, the `LIKE` wildcards and `MATCHES`.
/// - **`CONTAINS`**: a string left side is searched for the right string; a collection left side
///   (or a dictionary's values) is searched for the right value; anything else is false.
/// - **`IN`**: a string right side means "left is a substring of right" (Apple's rule); a
///   collection right side (or a dictionary's values) means membership; null means false; any
///   other value throws ``PredicateEvaluationError/notACollection(construct:typeName:)``.
/// - **`UTI-CONFORMS-TO`, `UTI-EQUALS`** need two strings (type identifiers), otherwise they
///   are false; see ``TypeIdentifierConformance`` for the known types.
/// - **`BETWEEN`**: the right side must be a collection of exactly two bounds;
///   `x BETWEEN {lo, hi}` is `x >= lo AND x <= hi`.
/// - **Modifiers**: `ANY` is true when some element of the left collection satisfies the
///   comparison (false for an empty collection), `ALL` when every element does (true for an
///   empty collection); `NONE` is `NOT ANY`. A null left side counts as an empty collection, any
///   other non-collection throws.
/// - **A to-many key path without a modifier** is compared as a whole, as Apple's in-memory
///   evaluation does: `children.name == "x"` compares the array (or set) of names with `"x"` and
///   is false; use `ANY children.name == "x"`. `CONTAINS` and `IN` do test membership.
/// - **Compound predicates** short-circuit; AND of nothing is true, OR of nothing is false.
/// - **Expressions**: see ``value(of:with:)``; functions in ``BuiltinFunctions``.
struct PredicateEvaluator {
    var variables: [String: Any]

    init(variables: [String: Any]) {
        self.variables = variables
    }

    // MARK: Predicates

    func evaluate(_ predicate: NSPredicate, with object: Any?) throws -> Bool {
        switch predicate.shape {
        case .constant(let value):
            return value
        case .block(let block):
            return block(object, variables)
        case .compound(let compound):
            switch compound.compoundPredicateType {
            case .and:
                for sub in compound.predicates where !(try evaluate(sub, with: object)) { return false }
                return true
            case .or:
                for sub in compound.predicates where try evaluate(sub, with: object) { return true }
                return false
            case .not:
                return !(try evaluate(compound.predicates[0], with: object))
            }
        case .comparison(let comparison):
            return try evaluate(comparison, with: object)
        }
    }

    private func evaluate(_ predicate: NSComparisonPredicate, with object: Any?) throws -> Bool {
        let left = try value(of: predicate.leftExpression, with: object)
        let right = try value(of: predicate.rightExpression, with: object)
        let op = predicate.predicateOperatorType, options = predicate.options
        switch predicate.comparisonPredicateModifier {
        case .direct:
            return try Self.compare(left, op, right, options: options)
        case .any, .all:
            let name = predicate.comparisonPredicateModifier == .any ? "ANY" : "ALL"
            var elements: [Any] = []
            if !ValueComparison.isNull(left) {
                guard let collection = CollectionValue(left) else {
                    throw PredicateEvaluationError.notACollection(construct: name, typeName: ValueComparison.typeName(left))
                }
                elements = collection.elements
            }
            if predicate.comparisonPredicateModifier == .any {
                for element in elements where try Self.compare(element, op, right, options: options) { return true }
                return false
            }
            for element in elements where !(try Self.compare(element, op, right, options: options)) { return false }
            return true
        }
    }

    /// Applies one operator to two evaluated values.
    static func compare(_ left: Any?, _ op: NSComparisonPredicate.Operator, _ right: Any?,
                        options: NSComparisonPredicate.Options) throws -> Bool {
        switch op {
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .equalTo, .notEqualTo:
            return ValueComparison.holds(op, left, right, options: options)
        case .beginsWith, .endsWith, .like, .matches:
            guard let string = ValueComparison.string(left), let other = ValueComparison.string(right) else { return false }
            switch op {
            case .beginsWith: return StringMatching.beginsWith(string, other, options)
            case .endsWith: return StringMatching.endsWith(string, other, options)
            case .like: return StringMatching.like(string, other, options)
            default: return try StringMatching.matches(string, other, options)
            }
        case .contains:
            if let string = ValueComparison.string(left) {
                guard let part = ValueComparison.string(right) else { return false }
                return StringMatching.contains(string, part, options)
            }
            return CollectionValue(membershipOf: left)?.contains(right, options: options) ?? false
        case .in:
            if let string = ValueComparison.string(right) {
                guard let part = ValueComparison.string(left) else { return false }
                return StringMatching.contains(string, part, options)
            }
            if ValueComparison.isNull(right) { return false }
            guard let collection = CollectionValue(membershipOf: right) else {
                throw PredicateEvaluationError.notACollection(construct: "IN", typeName: ValueComparison.typeName(right))
            }
            return collection.contains(left, options: options)
        case .between:
            guard let bounds = CollectionValue(right), bounds.kind != .set, bounds.elements.count == 2 else {
                throw PredicateEvaluationError.invalidBetweenBounds(typeName: ValueComparison.typeName(right))
            }
            return ValueComparison.holds(.greaterThanOrEqualTo, left, bounds.elements[0], options: options)
                && ValueComparison.holds(.lessThanOrEqualTo, left, bounds.elements[1], options: options)
        case .utiConformsTo, .utiEquals:
            guard let type = ValueComparison.string(left), let other = ValueComparison.string(right) else { return false }
            return op == .utiEquals ? TypeIdentifierConformance.equals(type, other)
                : TypeIdentifierConformance.conforms(type, to: other)
        case .customSelector:
            throw PredicateEvaluationError.unsupported(construct: "a custom selector comparison")
        }
    }

    // MARK: Expressions

    /// The value of `expression` for `object`.
    ///
    /// - constants are themselves; `SELF` is the object; `$name` is the substitution variable
    ///   (unbound throws); key paths are read with ``KeyValueAccess``.
    /// - `{a, b}` evaluates to an array, nil elements becoming `NSNull`.
    /// - `UNION`, `INTERSECT`, `MINUS` need collections (null counts as empty) and give sets.
    /// - `SUBQUERY(c, $x, p)` keeps the elements of `c` for which `p` holds with `$x` bound to
    ///   the element (which is also `SELF` inside `p`); an array from an array, a set from a set.
    /// - `TERNARY(p, a, b)` is `a` when `p` holds for the object, else `b`.
    /// - a block expression gets the object, its evaluated arguments and the variables.
    /// - `ANYKEY` throws: it is meaningful only to Spotlight.
    /// - `FETCH(request, context, countOnly)` runs the request in the context: the results, or
    ///   their count as a number.
    func value(of expression: NSExpression, with object: Any?) throws -> Any? {
        switch expression.node {
        case .constant(let value):
            return ValueComparison.unwrap(value)
        case .evaluatedObject:
            return ValueComparison.unwrap(object)
        case .variable(let name):
            guard let value = variables[name] else { throw PredicateEvaluationError.unboundVariable(name: name) }
            return ValueComparison.unwrap(value)
        case .keyPath(let path):
            return try read(path, of: object)
        case .keyPathOn(let base, let path):
            return try read(path, of: value(of: base, with: object))
        case .function(let name, let arguments):
            return try BuiltinFunctions(evaluator: self).call(name, arguments, with: object)
        case .functionOn(let target, let selector, let arguments):
            let receiver = try value(of: target, with: object)
            let values = try arguments.map { try value(of: $0, with: object) }
            return try BuiltinFunctions(evaluator: self).perform(selector, on: receiver, arguments: values)
        case .symbolic(let symbol):
            return symbol.rawValue
        case .aggregate(let items):
            return try items.map { try value(of: $0, with: object) ?? NSNull() }
        case .unionSet(let left, let right):
            let (l, r) = try setOperands("UNION", left, right, object)
            return CollectionValue.make(l.elements + r.elements, kind: .set)
        case .intersectSet(let left, let right):
            let (l, r) = try setOperands("INTERSECT", left, right, object)
            return CollectionValue.make(l.elements.filter { r.contains($0) }, kind: .set)
        case .minusSet(let left, let right):
            let (l, r) = try setOperands("MINUS", left, right, object)
            return CollectionValue.make(l.elements.filter { !r.contains($0) }, kind: .set)
        case .subquery(let collectionExpression, let variable, let predicate):
            let source = try collection("SUBQUERY", try value(of: collectionExpression, with: object))
            var inner = self
            var kept: [Any] = []
            for element in source.elements {
                inner.variables[variable] = element
                if try inner.evaluate(predicate, with: element) { kept.append(element) }
            }
            return CollectionValue.make(kept, kind: source.kind == .set ? .set : .array)
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return try value(of: evaluate(predicate, with: object) ? whenTrue : whenFalse, with: object)
        case .block(let block, let arguments):
            let values = try (arguments ?? []).map { try value(of: $0, with: object) ?? NSNull() }
            let context = NSMutableDictionary()
            for (key, value) in variables { context[key] = value }
            return ValueComparison.unwrap(block(object, values, context))
        case .anyKey:
            throw PredicateEvaluationError.unsupported(construct: "ANYKEY")
        case .fetch(let requestExpression, let contextExpression, let countOnly):
            let request = try value(of: requestExpression, with: object)
            let context = try value(of: contextExpression, with: object)
            guard let fetchable = request as? FetchExpressionRequest else {
                throw PredicateEvaluationError.wrongArgumentType(function: "FETCH", argument: 0, expected: "a fetch request",
                                                                 typeName: ValueComparison.typeName(request))
            }
            guard let context = context as? NSManagedObjectContext else {
                throw PredicateEvaluationError.wrongArgumentType(function: "FETCH", argument: 1, expected: "a managed object context",
                                                                 typeName: ValueComparison.typeName(context))
            }
            return try fetchable.results(in: context, countOnly: countOnly)
        }
    }

    /// Reads a key path, attaching the path to key-value coding errors.
    func read(_ path: String, of object: Any?) throws -> Any? {
        do {
            return try KeyValueAccess.value(forKeyPath: path, of: object)
        } catch let error as KeyValueCodingError {
            throw PredicateEvaluationError.keyValueCoding(error, keyPath: path)
        }
    }

    /// `value` as a collection for `construct`; null is an empty array.
    func collection(_ construct: String, _ value: Any?) throws -> CollectionValue {
        if ValueComparison.isNull(value) { return CollectionValue(kind: .array, elements: []) }
        guard let collection = CollectionValue(value) else {
            throw PredicateEvaluationError.notACollection(construct: construct, typeName: ValueComparison.typeName(value))
        }
        return collection
    }

    private func setOperands(_ construct: String, _ left: NSExpression, _ right: NSExpression,
                             _ object: Any?) throws -> (CollectionValue, CollectionValue) {
        (try collection(construct, value(of: left, with: object)),
         try collection(construct, value(of: right, with: object)))
    }
}
