/// Predicates to two-valued SQL conditions.
extension SQLCompiler {
    typealias Operator = NSComparisonPredicate.Operator
    typealias Options = NSComparisonPredicate.Options

    /// The condition selecting the rows of `scope` for which `predicate` holds.
    func condition(_ predicate: NSPredicate, in scope: SQLQueryScope) throws -> SQLFragment {
        switch predicate.shape {
        case .constant(let value):
            return value ? trueCondition : falseCondition
        case .block:
            throw SQLCompileError("a block predicate", "blocks run only in memory")
        case .compound(let compound):
            let negated = compound.compoundPredicateType == .not
            let parts = try negating(negated) { try compound.predicates.map { try condition($0, in: scope).parenthesized } }
            switch compound.compoundPredicateType {
            case .and: return parts.isEmpty ? trueCondition : .joined(parts, separator: " AND ")
            case .or: return parts.isEmpty ? falseCondition : .joined(parts, separator: " OR ")
            case .not: return "NOT " + parts[0]
            }
        case .comparison(let comparison):
            return try condition(comparison, in: scope)
        }
    }

    private func condition(_ predicate: NSComparisonPredicate, in scope: SQLQueryScope) throws -> SQLFragment {
        let op = predicate.predicateOperatorType
        if op == .customSelector {
            throw SQLCompileError("a custom selector comparison", "only the built-in operators compile to SQL")
        }
        switch predicate.comparisonPredicateModifier {
        case .any, .all:
            let isAny = predicate.comparisonPredicateModifier == .any
            guard case .toMany(let path)? = try toManyPath(predicate.leftExpression, in: scope) else {
                throw SQLCompileError("\(isAny ? "ANY" : "ALL") \(predicate.leftExpression)",
                                      "the modifier needs a key path through a to-many relationship")
            }
            let source = try toManySource(path)
            let element = try elementOperand(path, in: source.scope)
            let test = try negating(!isAny) { try apply(op, element, predicate.rightExpression, options: predicate.options, in: scope) }
            if isAny { return "EXISTS (" + subquery("1", source, where: test) + ")" }
            return "NOT EXISTS (" + subquery("1", source, where: "NOT " + test.parenthesized) + ")"
        case .direct:
            break
        }
        // A to-many left side: `children CONTAINS %@`, `children.name CONTAINS 'x'` test membership.
        if case .toMany(let path)? = try toManyPath(predicate.leftExpression, in: scope) {
            guard op == .contains else {
                throw SQLCompileError("\(predicate)", "a to-many key path is compared without ANY, ALL or a collection operator")
            }
            let right = try operand(predicate.rightExpression, in: scope)
            return try membership(of: right, in: path, options: predicate.options)
        }
        // `x IN children`, `x IN children.name`.
        if op == .in, case .toMany(let path)? = try toManyPath(predicate.rightExpression, in: scope) {
            let left = try operand(predicate.leftExpression, in: scope)
            return try membership(of: left, in: path, options: predicate.options)
        }
        // `%@ CONTAINS name` with a constant collection is `name IN %@`.
        if op == .contains, case .constant(let value) = predicate.leftExpression.node,
           ValueComparison.string(value) == nil, let collection = CollectionValue(membershipOf: ValueComparison.unwrap(value)) {
            let right = try operand(predicate.rightExpression, in: scope)
            return try inList(right, try constantElements(collection, of: predicate.leftExpression), options: predicate.options)
        }
        let left = try operand(predicate.leftExpression, in: scope)
        return try apply(op, left, predicate.rightExpression, options: predicate.options, in: scope)
    }

    /// The key path of `expression` when it crosses a to-many relationship without an aggregate.
    func toManyPath(_ expression: NSExpression, in scope: SQLQueryScope) throws -> SQLResolvedPath? {
        switch expression.node {
        case .keyPath(let path):
            if scope.resultColumns[path] != nil { return nil }
            if case .toMany(let toMany) = try resolve(path, in: scope), !isAggregate(toMany) { return .toMany(toMany) }
        case .keyPathOn(let base, let path):
            if case .variable(let name) = base.node, let bound = scope.scope(forVariable: name),
               case .toMany(let toMany) = try resolve(path, in: bound), !isAggregate(toMany) {
                return .toMany(toMany)
            }
        default:
            break
        }
        return nil
    }

    func isAggregate(_ path: SQLToManyPath) -> Bool {
        path.rest.first?.hasPrefix("@") == true
    }

    /// The value of each destination of a to-many path: the object, or `rest` read from it.
    func elementOperand(_ path: SQLToManyPath, in inner: SQLQueryScope) throws -> SQLOperand {
        if path.rest.isEmpty { return objectOperand(of: inner) }
        switch try resolve(path.rest.joined(separator: "."), in: inner) {
        case .scalar(let operand): return operand
        case .toMany:
            throw SQLCompileError("key path '\(path.path)'", "it crosses more than one to-many relationship")
        }
    }

    /// Whether `value` equals some element of a to-many path.
    private func membership(of value: SQLOperand, in path: SQLToManyPath, options: Options) throws -> SQLFragment {
        let source = try toManySource(path)
        let element = try elementOperand(path, in: source.scope)
        let test = compare(element, .equalTo, value, options: options)
        return "EXISTS (" + subquery("1", source, where: test) + ")"
    }

    /// Fails for a comparison of binary data kept in Apple's external-data form (behind a marker
    /// byte, or in a file; ``SQLiteValueCoding/ExternalData``) other than a test for nil: SQL
    /// sees only the stored form, so any other comparison would give a wrong result.
    /// `right` is `nil` for an operator other than a comparison.
    private func rejectExternalData(_ op: Operator, _ left: SQLOperand, _ right: SQLOperand?) throws {
        let sides: [(SQLOperand?, SQLOperand?)] = [(left, right), (right, left)]
        for (side, other) in sides {
            guard let attribute = side?.attribute, attribute.storesBinaryDataExternally else { continue }
            if op == .equalTo || op == .notEqualTo, other?.isNull == true { continue }
            throw SQLCompileError("a comparison of '\(attribute.name)'",
                                  "binary data that allows external storage can only be tested for nil in SQL")
        }
    }

    /// `left op right` for an already compiled left side.
    func apply(_ op: Operator, _ left: SQLOperand, _ rightExpression: NSExpression, options: Options, in scope: SQLQueryScope) throws -> SQLFragment {
        switch op {
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .equalTo, .notEqualTo: break
        default: try rejectExternalData(op, left, nil)
        }
        switch op {
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .equalTo, .notEqualTo:
            let right = try operand(rightExpression, in: scope)
            try rejectExternalData(op, left, right)
            return compare(left, op, right, options: options)
        case .beginsWith, .endsWith, .like, .matches, .contains, .utiConformsTo, .utiEquals:
            return stringTest(op, left, try operand(rightExpression, in: scope), options: options)
        case .in:
            if case .aggregate(let items) = rightExpression.node {
                return try inList(left, items.map { try operand($0, in: scope) }, options: options)
            }
            if case .constant(let value) = rightExpression.node, ValueComparison.string(value) == nil,
               !ValueComparison.isNull(value) {
                guard let collection = CollectionValue(membershipOf: ValueComparison.unwrap(value)) else {
                    throw SQLCompileError("IN \(rightExpression)", "the right side is not a collection")
                }
                return try inList(left, try constantElements(collection, of: rightExpression), options: options)
            }
            let right = try operand(rightExpression, in: scope)
            if right.isNull { return falseCondition }
            return stringTest(.in, left, right, options: options)
        case .between:
            let bounds: [SQLOperand]
            switch rightExpression.node {
            case .aggregate(let items):
                bounds = try items.map { try operand($0, in: scope) }
            case .constant(let value):
                guard let collection = CollectionValue(ValueComparison.unwrap(value)), collection.kind != .set else {
                    throw SQLCompileError("BETWEEN \(rightExpression)", "the bounds must be a collection of two values")
                }
                bounds = try constantElements(collection, of: rightExpression)
            default:
                throw SQLCompileError("BETWEEN \(rightExpression)", "the bounds must be a constant collection or {lower, upper}")
            }
            guard bounds.count == 2 else {
                throw SQLCompileError("BETWEEN \(rightExpression)", "the bounds must be exactly two values")
            }
            return compare(left, .greaterThanOrEqualTo, bounds[0], options: options).parenthesized + " AND "
                + compare(left, .lessThanOrEqualTo, bounds[1], options: options).parenthesized
        case .customSelector:
            throw SQLCompileError("a custom selector comparison", "only the built-in operators compile to SQL")
        }
    }

    /// The elements of `collection`, the value of the constant `expression`, as operands.
    func constantElements(_ collection: CollectionValue, of expression: NSExpression) throws -> [SQLOperand] {
        try collection.elements.enumerated().map { index, value in
            try constantOperand(value, of: expression, element: index,
                                orElse: SQLCompileError("the constant \(value)", "a \(ValueComparison.typeName(value)) has no SQL value"))
        }
    }

    /// A constant (element `element` of the constant `expression`'s collection, or its single
    /// value for 0) as an operand, bound to its parameter when compiling for a whole shape;
    /// throws `error` when it has no SQL form.
    func constantOperand(_ value: Any?, of expression: NSExpression, element: Int,
                         orElse error: @autoclosure () -> SQLCompileError) throws -> SQLOperand {
        if SQLConstant.isUnsavedObject(value) { return unsavedObjectOperand(value) }
        guard let operand = SQLConstant.operand(value) else { throw error() }
        return numbering?.parameterized(operand, of: expression, element: element) ?? operand
    }

    /// A temporary object ID: bound as primary key 0, which no stored row has, so it equals nothing.
    func unsavedObjectOperand(_ value: Any?) -> SQLOperand {
        let entity = (ValueComparison.unwrap(value) as? NSManagedObjectID)?.entity
            ?? (ValueComparison.unwrap(value) as? NSManagedObject)?.objectID.entity
        return SQLOperand(fragment: .bind(.integer(0)), kind: .object(root: entity?.rootEntity.name ?? ""))
    }

    /// `left op right` for the comparison operators, with the evaluator's null and kind rules.
    func compare(_ left: SQLOperand, _ op: Operator, _ right: SQLOperand, options: Options) -> SQLFragment {
        if left.isNull || right.isNull {
            let other = left.isNull ? right : left
            switch op {
            case .equalTo: return other.isNull ? trueCondition : other.fragment + " IS NULL"
            case .notEqualTo: return other.isNull ? falseCondition : other.fragment + " IS NOT NULL"
            default: return falseCondition
            }
        }
        guard left.kind.isCompatible(with: right.kind) else {
            return op == .notEqualTo ? trueCondition : falseCondition
        }
        let kind = left.kind == .unknown ? right.kind : left.kind
        if left.isDecimal || right.isDecimal {
            return predicateCall(op, left, right, options: options.union(SQLFunctions.decimalOperands))
        }
        if kind.comparesNatively {
            switch op {
            case .equalTo: return dialect.isNotDistinct(left.fragment, right.fragment)
            case .notEqualTo: return dialect.isDistinct(left.fragment, right.fragment)
            default:
                if case .object = kind { return falseCondition }
                let symbol = [Operator.lessThan: " < ", .lessThanOrEqualTo: " <= ", .greaterThan: " > ", .greaterThanOrEqualTo: " >= "][op] ?? " = "
                return twoValued(left.fragment + SQLFragment(symbol) + right.fragment)
            }
        }
        // URLs compare by their absolute string, without string options.
        return predicateCall(op, left, right, options: kind == .url ? [] : options)
    }

    /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES` and `IN` with a string: false
    /// unless both sides may be strings.
    func stringTest(_ op: Operator, _ left: SQLOperand, _ right: SQLOperand, options: Options) -> SQLFragment {
        for side in [left, right] where side.isNull || !(side.kind == .string || side.kind == .unknown) {
            return falseCondition
        }
        return predicateCall(op, left, right, options: options)
    }

    /// `ocd_predicate(op, left, right, options)`: the evaluator's comparison, registered as a
    /// SQL function (``SQLFunctions``).
    func predicateCall(_ op: Operator, _ left: SQLOperand, _ right: SQLOperand, options: Options) -> SQLFragment {
        dialect.booleanCall(SQLFragment("\(dialect.functionName(.predicate))(\(op.rawValue), ") + left.fragment + ", " + right.fragment
                            + SQLFragment(", \(options.rawValue))"))
    }

    /// Whether `left` equals one of `elements`.
    func inList(_ left: SQLOperand, _ elements: [SQLOperand], options: Options) throws -> SQLFragment {
        if left.isNull { return elements.contains(where: \.isNull) ? trueCondition : falseCondition }
        var tests: [SQLFragment] = []
        var native: [SQLOperand] = []
        for element in elements {
            if element.isNull { tests.append(left.fragment + " IS NULL"); continue }
            guard left.kind.isCompatible(with: element.kind) else { continue }
            let kind = left.kind == .unknown ? element.kind : left.kind
            if kind.comparesNatively && !left.isDecimal && !element.isDecimal {
                native.append(element)
            } else {
                tests.append(compare(left, .equalTo, element, options: options))
            }
        }
        if !native.isEmpty {
            tests.insert(twoValued(left.fragment + " IN (" + .joined(native.map(\.fragment), separator: ", ") + ")"), at: 0)
        }
        if tests.isEmpty { return falseCondition }
        return tests.count == 1 ? tests[0] : .joined(tests.map(\.parenthesized), separator: " OR ")
    }
}
