/// An expression in a predicate: a constant, a key path, a variable, a function and the rest.
///
/// Apple's `NSExpression` is a class cluster; here it is one class holding an `Node`, so that
/// the evaluator, the formatter and the SQL compilers switch over one enum. The public
/// accessors (`constantValue`, `keyPath`, `function`, `arguments`, …) have Apple's meaning and,
/// like Apple's, trap when asked of an expression of another type.
///
/// Expressions are immutable and therefore `Sendable`.
open class NSExpression: NSObject, NSCopying, @unchecked Sendable {
    /// The kind of an expression, with Apple's raw values.
    public enum ExpressionType: UInt, Sendable {
        case constantValue = 0
        case evaluatedObject = 1
        case variable = 2
        case keyPath = 3
        case function = 4
        case unionSet = 5
        case intersectSet = 6
        case minusSet = 7
        case subquery = 13
        case aggregate = 14
        case anyKey = 15
        case block = 19
        case conditional = 20
        /// Core Data's `NSFetchRequestExpressionType`: `FETCH(request, context, countOnly)`.
        case fetchRequest = 50
    }

    /// The block of a block expression: the evaluated object, the evaluated arguments, the context.
    public typealias Block = @Sendable (Any?, [Any], NSMutableDictionary?) -> Any

    /// The symbolic indexes of `array[FIRST]`, `array[LAST]` and `array[SIZE]`.
    enum Symbol: String, Sendable {
        case first = "FIRST"
        case last = "LAST"
        case size = "SIZE"
    }

    /// The expression tree.
    ///
    /// Conventions the parser, evaluator, formatter and SQL compilers share:
    /// - `a.b.@sum.c` is `.keyPath("a.b.@sum.c")`: collection operators stay in the path string.
    /// - `$x.name`, `SUBQUERY(…).@count`, `FUNCTION(…).key` are `.keyPathOn(base, "name")`.
    /// - arithmetic is a built-in function: `a + b` is `.function("add:to:", [a, b])`, `a - b`
    ///   `"from:subtract:"`, `a * b` `"multiply:by:"`, `a / b` `"divide:by:"`, `a ** b`
    ///   `"raise:toPower:"`; unary minus on a non-literal is `"from:subtract:"` with a constant 0.
    /// - `a[i]` is `.function("objectFrom:withIndex:", [a, i])`, where `i` may be `.symbolic`.
    /// - `CAST(x, 'NSDate')` is `.function("castObject:toType:", [x, constant "NSDate"])`, except
    ///   that a numeric constant `x` folds to a `Date` constant, the form `predicateFormat` prints.
    /// - `FUNCTION(receiver, 'selector:', args…)` is `.functionOn(receiver, "selector:", args)`.
    /// - `{a, b}` is `.aggregate([a, b])`; a constant array from `%@` stays `.constant([…])`.
    /// - `FETCH(request, context, NO)` is `.fetch(request, context, countOnly: false)`
    ///   (Core Data's `NSFetchRequestExpression`).
    indirect enum Node {
        case constant(Any?)
        case evaluatedObject
        case variable(String)
        case keyPath(String)
        case keyPathOn(NSExpression, String)
        case function(String, [NSExpression])
        case functionOn(NSExpression, String, [NSExpression])
        case symbolic(Symbol)
        case aggregate([NSExpression])
        case unionSet(NSExpression, NSExpression)
        case intersectSet(NSExpression, NSExpression)
        case minusSet(NSExpression, NSExpression)
        case subquery(NSExpression, String, NSPredicate)
        case conditional(NSPredicate, NSExpression, NSExpression)
        case block(Block, [NSExpression]?)
        case anyKey
        case fetch(NSExpression, NSExpression, countOnly: Bool)
    }

    /// The tree node.
    let node: Node

    /// The height of the tree under this expression: 1 for a leaf. Computed once from the
    /// children's, so that the parser can bound it (``PredicateParser/maximumTreeDepth``)
    /// without walking the tree.
    let depth: Int

    init(node: Node) {
        self.node = node
        self.depth = 1 + Self.childDepth(of: node)
        super.init()
    }

    /// The greatest depth among the children of `node`, 0 for a leaf.
    private static func childDepth(of node: Node) -> Int {
        func most(_ expressions: [NSExpression]) -> Int { expressions.reduce(0) { max($0, $1.depth) } }
        switch node {
        case .constant, .evaluatedObject, .variable, .keyPath, .symbolic, .anyKey:
            return 0
        case .keyPathOn(let base, _):
            return base.depth
        case .function(_, let arguments):
            return most(arguments)
        case .functionOn(let target, _, let arguments):
            return max(target.depth, most(arguments))
        case .aggregate(let items):
            return most(items)
        case .unionSet(let l, let r), .intersectSet(let l, let r), .minusSet(let l, let r):
            return max(l.depth, r.depth)
        case .subquery(let collection, _, let predicate):
            return max(collection.depth, predicate.depth)
        case .conditional(let predicate, let t, let f):
            return max(predicate.depth, t.depth, f.depth)
        case .block(_, let arguments):
            return most(arguments ?? [])
        case .fetch(let request, let context, _):
            return max(request.depth, context.depth)
        }
    }

    // MARK: Apple's initializers

    /// Creates an expression of the given type that needs no payload (`evaluatedObject`, `anyKey`).
    public convenience init(expressionType type: ExpressionType) {
        switch type {
        case .evaluatedObject: self.init(node: .evaluatedObject)
        case .anyKey: self.init(node: .anyKey)
        default:
            preconditionFailure("NSExpression(expressionType: \(type)) needs a payload; use the specific initializer")
        }
    }

    /// An expression that always returns `obj`.
    public convenience init(forConstantValue obj: Any?) { self.init(node: .constant(obj)) }

    /// An expression that reads `keyPath` from the evaluated object.
    public convenience init(forKeyPath keyPath: String) { self.init(node: .keyPath(keyPath)) }

    /// Creates a key-path expression from a Swift key path to `@Managed` properties
    /// (`\Book.author.name` is `author.name`).
    ///
    /// Differs from Apple: the root must be a managed object class (see
    /// ``NSSortDescriptor/init(keyPath:ascending:)``).
    public convenience init<Root: NSManagedObject, Value>(forKeyPath keyPath: KeyPath<Root, Value>) {
        self.init(node: .keyPath(ManagedKeyPath.key(of: keyPath)))
    }

    /// An expression that reads `$variable` from the substitution variables.
    public convenience init(forVariable string: String) { self.init(node: .variable(string)) }

    /// An expression for the evaluated object (`SELF`).
    public class func expressionForEvaluatedObject() -> NSExpression { NSExpression(node: .evaluatedObject) }

    /// An expression for any key (used by spotlight-style predicates).
    public class func expressionForAnyKey() -> NSExpression { NSExpression(node: .anyKey) }

    /// An aggregate `{a, b, c}` of expressions.
    public convenience init(forAggregate subexpressions: [Any]) {
        self.init(node: .aggregate(subexpressions.map(NSExpression.coerce)))
    }

    /// The union of two collection expressions.
    public convenience init(forUnionSet left: NSExpression, with right: NSExpression) {
        self.init(node: .unionSet(left, right))
    }

    /// The intersection of two collection expressions.
    public convenience init(forIntersectSet left: NSExpression, with right: NSExpression) {
        self.init(node: .intersectSet(left, right))
    }

    /// The elements of `left` not in `right`.
    public convenience init(forMinusSet left: NSExpression, with right: NSExpression) {
        self.init(node: .minusSet(left, right))
    }

    /// `SUBQUERY(expression, $variable, predicate)`.
    public convenience init(forSubquery expression: NSExpression, usingIteratorVariable variable: String, predicate: NSPredicate) {
        self.init(node: .subquery(expression, variable, predicate))
    }

    /// A built-in function such as `sum:`, `add:to:` or `uppercase:` applied to `parameters`.
    public convenience init(forFunction name: String, arguments parameters: [Any]) {
        self.init(node: .function(name, parameters.map(NSExpression.coerce)))
    }

    /// `FUNCTION(target, 'selectorName', arguments…)`.
    public convenience init(forFunction target: NSExpression, selectorName name: String, arguments parameters: [Any]?) {
        self.init(node: .functionOn(target, name, (parameters ?? []).map(NSExpression.coerce)))
    }

    /// `TERNARY(predicate, trueExpression, falseExpression)`.
    public convenience init(forConditional predicate: NSPredicate, trueExpression: NSExpression, falseExpression: NSExpression) {
        self.init(node: .conditional(predicate, trueExpression, falseExpression))
    }

    /// An expression that calls `block`. Evaluates in memory only.
    public convenience init(block: @escaping Block, arguments: [NSExpression]?) {
        self.init(node: .block(block, arguments))
    }

    /// Apple's initializers take `[Any]` of expressions; anything else is wrapped as a constant.
    static func coerce(_ value: Any) -> NSExpression {
        (value as? NSExpression) ?? NSExpression(node: .constant(value))
    }

    // MARK: Apple's accessors

    /// The kind of this expression.
    public var expressionType: ExpressionType {
        switch node {
        case .constant, .symbolic: return .constantValue
        case .evaluatedObject: return .evaluatedObject
        case .variable: return .variable
        case .keyPath: return .keyPath
        case .keyPathOn, .function, .functionOn: return .function
        case .aggregate: return .aggregate
        case .unionSet: return .unionSet
        case .intersectSet: return .intersectSet
        case .minusSet: return .minusSet
        case .subquery: return .subquery
        case .conditional: return .conditional
        case .fetch: return .fetchRequest
        case .block: return .block
        case .anyKey: return .anyKey
        }
    }

    /// The constant of a constant expression.
    public var constantValue: Any? {
        switch node {
        case .constant(let value): return value
        case .symbolic(let symbol): return symbol.rawValue
        default: return wrongType("constantValue")
        }
    }

    /// The key path of a key-path expression.
    public var keyPath: String {
        switch node {
        case .keyPath(let path), .keyPathOn(_, let path): return path
        default: return wrongType("keyPath")
        }
    }

    /// The variable name of a variable expression (and the iterator variable of a subquery).
    public var variable: String {
        switch node {
        case .variable(let name), .subquery(_, let name, _): return name
        default: return wrongType("variable")
        }
    }

    /// The function name (selector) of a function expression.
    public var function: String {
        switch node {
        case .function(let name, _), .functionOn(_, let name, _): return name
        case .keyPathOn: return "valueForKeyPath:"
        default: return wrongType("function")
        }
    }

    /// The receiver of a function or key-path expression.
    public var operand: NSExpression {
        switch node {
        case .functionOn(let target, _, _), .keyPathOn(let target, _): return target
        case .function, .keyPath: return NSExpression(node: .evaluatedObject)
        default: return wrongType("operand")
        }
    }

    /// The arguments of a function or block expression.
    public var arguments: [NSExpression]? {
        switch node {
        case .function(_, let args), .functionOn(_, _, let args): return args
        case .keyPathOn(_, let path): return [NSExpression(node: .constant(path))]
        case .block(_, let args): return args
        default: return wrongType("arguments")
        }
    }

    /// The collection of an aggregate or subquery expression.
    public var collection: Any {
        switch node {
        case .aggregate(let items): return items
        case .subquery(let collection, _, _): return collection
        default: return wrongType("collection")
        }
    }

    /// The predicate of a subquery or conditional expression.
    public var predicate: NSPredicate {
        switch node {
        case .subquery(_, _, let predicate), .conditional(let predicate, _, _): return predicate
        default: return wrongType("predicate")
        }
    }

    /// The left operand of a set expression.
    public var left: NSExpression {
        switch node {
        case .unionSet(let l, _), .intersectSet(let l, _), .minusSet(let l, _): return l
        default: return wrongType("left")
        }
    }

    /// The right operand of a set expression.
    public var right: NSExpression {
        switch node {
        case .unionSet(_, let r), .intersectSet(_, let r), .minusSet(_, let r): return r
        default: return wrongType("right")
        }
    }

    /// The expression a conditional returns when its predicate holds.
    public var trueExpression: NSExpression {
        if case .conditional(_, let t, _) = node { return t }
        return wrongType("trueExpression")
    }

    /// The expression a conditional returns when its predicate fails.
    public var falseExpression: NSExpression {
        if case .conditional(_, _, let f) = node { return f }
        return wrongType("falseExpression")
    }

    /// The block of a block expression.
    public var expressionBlock: Block {
        if case .block(let block, _) = node { return block }
        return wrongType("expressionBlock")
    }

    func wrongType<T>(_ accessor: String) -> T {
        preconditionFailure("NSExpression: \(accessor) is not defined for an expression of type \(expressionType) (\(self))")
    }

    // MARK: Evaluation

    /// Evaluates the expression against `object`, with `$VARIABLE` bindings from `context`.
    ///
    /// Traps with a descriptive message where Apple raises; use
    /// ``expressionValueThrowing(with:variables:)`` for input you do not control.
    open func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        var variables: [String: Any] = [:]
        context?.forEach { key, value in
            if let key = key as? String { variables[key] = value }
        }
        do {
            return try expressionValueThrowing(with: object, variables: variables)
        } catch {
            preconditionFailure("Can't evaluate expression \(self): \(error)")
        }
    }

    /// Evaluates the expression, throwing a ``PredicateEvaluationError`` instead of trapping.
    /// Not in Apple's API.
    public func expressionValueThrowing(with object: Any?, variables: [String: Any] = [:]) throws -> Any? {
        try PredicateEvaluator(variables: variables).value(of: self, with: object)
    }

    /// Forces an expression that was securely decoded to allow evaluation. A no-op here.
    open func allowEvaluation() {}

    // MARK: Description, equality, copying

    /// The expression in Apple's format syntax.
    open override var description: String { PredicateFormatter().format(self) }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSExpression else { return false }
        return ASTEquality.isEqual(self, other)
    }

    open override var hash: Int { description.hashValue }

    /// Expressions are immutable: a copy is the expression itself.
    open func copy(with zone: NSZone? = nil) -> Any { self }
}

extension NSExpression {
    /// Parses an expression in Apple's format syntax, trapping on malformed input as Apple raises.
    public convenience init(format expressionFormat: String, _ args: Any?...) {
        do {
            try self.init(validatingFormat: expressionFormat, argumentArray: args)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// Parses an expression with its format arguments taken from an array.
    public convenience init(format expressionFormat: String, argumentArray arguments: [Any]) {
        do {
            try self.init(validatingFormat: expressionFormat, argumentArray: arguments.map { Optional($0) })
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// Parses an expression and throws a ``PredicateParseError`` when it is malformed.
    /// Not in Apple's API.
    public convenience init(validatingFormat expressionFormat: String, argumentArray arguments: [Any?] = []) throws {
        let parsed = try PredicateParser.parseExpression(expressionFormat, arguments: arguments)
        self.init(node: parsed.node)
    }
}
