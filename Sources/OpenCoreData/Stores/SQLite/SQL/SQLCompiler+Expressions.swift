/// Expressions to scalar SQL operands.
extension SQLCompiler {
    /// The built-in functions computed by the registered `ocd_function` (the evaluator's own
    /// implementation), with the kinds their arguments must have and the kind of their result.
    static let evaluatedFunctions: [String: (arguments: SQLValueKind, result: SQLValueKind)] = [
        "divide:by:": (.number, .number), "modulus:by:": (.number, .number), "raise:toPower:": (.number, .number),
        "sqrt:": (.number, .number), "log:": (.number, .number), "ln:": (.number, .number), "exp:": (.number, .number),
        "floor:": (.number, .number), "ceiling:": (.number, .number), "abs:": (.number, .number), "trunc:": (.number, .number),
        "uppercase:": (.string, .string), "lowercase:": (.string, .string),
    ]

    /// The SQL operators for the arithmetic functions that SQLite computes as the evaluator does
    /// (integers stay integral, an overflow turns to floating point, null gives null).
    static let nativeArithmetic: [String: String] = ["add:to:": " + ", "from:subtract:": " - ", "multiply:by:": " * "]

    /// The scalar value of `expression` for the rows of `scope`.
    func operand(_ expression: NSExpression, in scope: SQLQueryScope) throws -> SQLOperand {
        switch expression.node {
        case .constant(let value):
            return try constantOperand(value, of: expression, element: 0,
                                       orElse: SQLCompileError("the constant \(expression)", "a \(ValueComparison.typeName(value)) has no SQL value here"))
        case .evaluatedObject:
            return objectOperand(of: scope)
        case .keyPath(let path):
            return try scalar(path, in: scope, expression: expression)
        case .keyPathOn(let base, let path):
            switch base.node {
            case .variable(let name):
                if let bound = scope.scope(forVariable: name) { return try scalar(path, in: bound, expression: expression) }
            case .evaluatedObject:
                return try scalar(path, in: scope, expression: expression)
            case .subquery(let collection, let variable, let predicate) where path == "@count":
                return try subqueryCount(collection, variable, predicate, in: scope)
            default:
                break
            }
            throw SQLCompileError("the expression \(expression)", "only key paths of the fetched object or of a SUBQUERY variable compile to SQL")
        case .variable(let name):
            if let bound = scope.scope(forVariable: name) { return objectOperand(of: bound) }
            if let column = resultColumn(name, in: scope) { return column }
            throw SQLCompileError("the variable $\(name)", "substitute variables (withSubstitutionVariables) before fetching")
        case .function(let name, let arguments):
            return try function(name, arguments, in: scope, expression: expression)
        case .functionOn:
            throw SQLCompileError("\(expression)", "FUNCTION() sends a message to an object, which only in-memory evaluation can do")
        case .subquery:
            throw SQLCompileError("\(expression)", "a SUBQUERY compiles to SQL only as SUBQUERY(…).@count")
        case .block:
            throw SQLCompileError("a block expression", "blocks run only in memory")
        case .aggregate, .unionSet, .intersectSet, .minusSet:
            throw SQLCompileError("the collection \(expression)", "a collection is not a single value; use it with IN or BETWEEN")
        case .conditional:
            throw SQLCompileError("\(expression)", "TERNARY does not compile to SQL")
        case .fetch:
            throw SQLCompileError("\(expression)", "FETCH runs a fetch request in a context, which only in-memory evaluation can do")
        case .symbolic, .anyKey:
            throw SQLCompileError("\(expression)", "it has no SQL form")
        }
    }

    /// A named result column (for `havingPredicate`), here or in an enclosing scope.
    private func resultColumn(_ name: String, in scope: SQLQueryScope) -> SQLOperand? {
        var current: SQLQueryScope? = scope
        while let candidate = current {
            if let column = candidate.resultColumns[name] { return column }
            current = candidate.parent
        }
        return nil
    }

    /// A key path read as a single value: an attribute, a to-one ID, or an aggregate of a to-many.
    func scalar(_ path: String, in scope: SQLQueryScope, expression: NSExpression) throws -> SQLOperand {
        if let column = scope.resultColumns[path] { return column }
        switch try resolve(path, in: scope) {
        case .scalar(let operand):
            return operand
        case .toMany(let toMany):
            guard isAggregate(toMany) else {
                throw SQLCompileError("key path '\(path)'", "a to-many key path is not a single value; use ANY, ALL, IN, CONTAINS or a collection operator")
            }
            return try aggregate(toMany)
        }
    }

    /// `rel.@count`, `rel.@sum.x`, `rel.@avg.x`, `rel.@min.x`, `rel.@max.x` as scalar subqueries,
    /// with the evaluator's empty-collection results (count 0, sum 0, average/min/max nil).
    private func aggregate(_ path: SQLToManyPath) throws -> SQLOperand {
        let operation = path.rest[0]
        let source = try toManySource(SQLToManyPath(scope: path.scope, parentAlias: path.parentAlias,
                                                     relationship: path.relationship, rest: [], path: path.path))
        if operation == "@count" {
            guard path.rest.count == 1 else {
                throw SQLCompileError("key path '\(path.path)'", "@count takes no key after it")
            }
            return SQLOperand(fragment: "(" + subquery("COUNT(*)", source, where: nil) + ")", kind: .number)
        }
        guard ["@sum", "@avg", "@min", "@max"].contains(operation) else {
            throw SQLCompileError("key path '\(path.path)'", "the collection operator \(operation) has no SQL form")
        }
        guard path.rest.count >= 2 else {
            throw SQLCompileError("key path '\(path.path)'", "\(operation) needs a key after it")
        }
        let element = try elementOperand(SQLToManyPath(scope: path.scope, parentAlias: path.parentAlias, relationship: path.relationship,
                                                       rest: Array(path.rest.dropFirst()), path: path.path), in: source.scope)
        let value = element.fragment
        switch operation {
        case "@sum", "@avg":
            guard element.kind == .number else {
                throw SQLCompileError("key path '\(path.path)'", "\(operation) needs numbers")
            }
            if operation == "@sum" {
                return SQLOperand(fragment: "(" + subquery("COALESCE(SUM(" + value.sql + "), 0)", source, where: nil) + ")" , kind: .number)
                    .withBindingsFirst(value.bindings)
            }
            let average = dialect.real(SQLFragment("COALESCE(SUM(" + value.sql + "), 0)")).sql + " / NULLIF(COUNT(*), 0)"
            return SQLOperand(fragment: "(" + subquery(average, source, where: nil) + ")", kind: .number).withBindingsFirst(value.bindings)
        default:
            guard hasSQLExtremes(element) else {
                throw SQLCompileError("key path '\(path.path)'", "\(operation) of \(element.kind) values is ordered differently in SQL")
            }
            let function = extreme(operation == "@min" ? "MIN" : "MAX", element)
            return SQLOperand(fragment: "(" + subquery(function.sql, source, where: nil) + ")", kind: element.kind,
                              attribute: element.attribute).withBindingsFirst(value.bindings)
        }
    }

    /// `SUBQUERY(collection, $variable, predicate).@count`.
    private func subqueryCount(_ collection: NSExpression, _ variable: String, _ predicate: NSPredicate, in scope: SQLQueryScope) throws -> SQLOperand {
        guard case .toMany(let path)? = try toManyPath(collection, in: scope), path.rest.isEmpty else {
            throw SQLCompileError("SUBQUERY(\(collection), $\(variable), …)", "the collection must be a to-many relationship")
        }
        let source = try toManySource(path, variable: variable)
        let test = try condition(predicate, in: source.scope)
        return SQLOperand(fragment: "(" + subquery("COUNT(*)", source, where: test) + ")", kind: .number)
    }

    /// Arithmetic and the built-in functions with an SQL form.
    private func function(_ name: String, _ arguments: [NSExpression], in scope: SQLQueryScope, expression: NSExpression) throws -> SQLOperand {
        if name == "now", arguments.isEmpty {
            return SQLOperand(fragment: .bind(.real(Date().timeIntervalSinceReferenceDate)), kind: .date)
        }
        if let count = try collectionCount(name, arguments, in: scope) { return count }
        if let symbol = Self.nativeArithmetic[name], arguments.count == 2 {
            let a = try operand(arguments[0], in: scope), b = try operand(arguments[1], in: scope)
            if a.isNull || b.isNull { return SQLOperand(fragment: "NULL", kind: .number, isNull: true) }
            if a.kind == .number && b.kind == .number {
                return SQLOperand(fragment: (a.fragment + SQLFragment(symbol) + b.fragment).parenthesized, kind: .number)
            }
            return try evaluatedCall(name, [a, b], expected: .number, result: .number, expression: expression)
        }
        if let bitwise = SQLBitwiseOperator(rawValue: name) {
            return try bitwiseOperand(bitwise, arguments, in: scope, expression: expression)
        }
        if let signature = Self.evaluatedFunctions[name] {
            let values = try arguments.map { try operand($0, in: scope) }
            return try evaluatedCall(name, values, expected: signature.arguments, result: signature.result, expression: expression)
        }
        throw SQLCompileError("the function \(expression)", "\(name) has no SQL form")
    }

    /// `flags & 4`, `a | b`, `a ^ b`, `a << n`, `a >> n`, `~a`: the dialect's operators when every
    /// operand is known to be an integer; otherwise the evaluator's function (`ocd_function`),
    /// which refuses a non-integral number as the evaluator does. A null operand gives null.
    private func bitwiseOperand(_ op: SQLBitwiseOperator, _ arguments: [NSExpression], in scope: SQLQueryScope,
                                expression: NSExpression) throws -> SQLOperand {
        let values = try arguments.map { try operand($0, in: scope) }
        guard values.count == (op == .complement ? 1 : 2) else {
            throw SQLCompileError("the function \(expression)", "\(op.rawValue) takes \(op == .complement ? 1 : 2) arguments")
        }
        if values.contains(where: \.isNull) { return SQLOperand(fragment: "NULL", kind: .number, isNull: true) }
        if values.allSatisfy(\.isInteger) {
            return SQLOperand(fragment: dialect.bitwise(op, values.map(\.fragment)), kind: .number, knownInteger: true)
        }
        return try evaluatedCall(op.rawValue, values, expected: .number, result: .number, expression: expression)
    }

    /// `count:(rel)`, `count:(SUBQUERY(…))` and `rel[SIZE]`: the number of elements of a to-many
    /// relationship or subquery; nil for any other function.
    private func collectionCount(_ name: String, _ arguments: [NSExpression], in scope: SQLQueryScope) throws -> SQLOperand? {
        let collection: NSExpression
        switch (name, arguments.count) {
        case ("count:", 1):
            collection = arguments[0]
        case ("objectFrom:withIndex:", 2):
            guard case .symbolic(.size) = arguments[1].node else { return nil }
            collection = arguments[0]
        default:
            return nil
        }
        if case .subquery(let source, let variable, let predicate) = collection.node {
            return try subqueryCount(source, variable, predicate, in: scope)
        }
        guard case .toMany(let path)? = try toManyPath(collection, in: scope), path.rest.isEmpty else { return nil }
        return try aggregate(SQLToManyPath(scope: path.scope, parentAlias: path.parentAlias, relationship: path.relationship,
                                           rest: ["@count"], path: path.path + ".@count"))
    }

    /// `ocd_function('name', args…)`: the evaluator's built-in function, registered in SQL.
    private func evaluatedCall(_ name: String, _ values: [SQLOperand], expected: SQLValueKind, result: SQLValueKind, expression: NSExpression) throws -> SQLOperand {
        for value in values where !value.isNull && value.kind != expected && value.kind != .unknown {
            throw SQLCompileError("the function \(expression)", "\(name) needs \(expected) arguments, not \(value.kind)")
        }
        let call = SQLFragment("\(dialect.functionName(.function))(") + .bind(.text(name)) + ", "
            + .joined(values.map(\.fragment), separator: ", ") + ")"
        return SQLOperand(fragment: call, kind: result)
    }
}

private extension SQLOperand {
    /// The operand whose SQL was built from `bindings`' text at its start: the bindings of an
    /// element expression used inside an aggregate come before the subquery's own.
    func withBindingsFirst(_ bindings: [SQLValue]) -> SQLOperand {
        var copy = self
        copy.fragment.bindings = bindings + copy.fragment.bindings
        return copy
    }
}
