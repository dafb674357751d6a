/// A logical condition that constrains a search or filters objects in memory.
///
/// OpenCoreData declares its own `NSPredicate` family because swift-corelibs-foundation
/// disables `NSPredicate(format:)` on Linux. The whole query language is one AST:
/// - `NSComparisonPredicate` (two expressions and an operator),
/// - `NSCompoundPredicate` (and, or, not),
/// - the `true`/`false` constants and block predicates, which are plain `NSPredicate` instances.
///
/// The parser builds that tree, the in-memory evaluator walks it, `predicateFormat` prints it,
/// and the SQL stores compile it. Predicates are immutable and therefore `Sendable`.
///
/// Differences from Apple: `evaluate(with:)` on a predicate that cannot be evaluated (an unknown
/// key on a non-dictionary object, a type mismatch) traps with a message that names the problem;
/// ``evaluateThrowing(with:substitutionVariables:)`` reports the same as a thrown error.
open class NSPredicate: NSObject, NSCopying, @unchecked Sendable {
    /// The plain predicates that have no subclass: constants and blocks.
    enum BaseKind {
        case value(Bool)
        case block(@Sendable (Any?, [String: Any]?) -> Bool)
    }

    /// The base-class payload; `nil` for subclasses, which describe themselves through ``shape``.
    let baseKind: BaseKind?

    /// The height of the tree under this predicate (expressions included): 1 for a leaf.
    let depth: Int

    /// Creates a predicate that always evaluates to `value` (`TRUEPREDICATE`/`FALSEPREDICATE`).
    public init(value: Bool) {
        baseKind = .value(value)
        depth = 1
        super.init()
    }

    /// Creates a predicate that evaluates a block.
    ///
    /// Block predicates evaluate in memory only; a SQL store refuses them at fetch time.
    public init(block: @escaping @Sendable (Any?, [String: Any]?) -> Bool) {
        baseKind = .block(block)
        depth = 1
        super.init()
    }

    /// The designated initializer of the subclasses, with the depth of their tree.
    init(subclassDepth: Int) {
        baseKind = nil
        depth = subclassDepth
        super.init()
    }

    /// The node this predicate is, for the code that walks the tree.
    enum Shape {
        case constant(Bool)
        case block(@Sendable (Any?, [String: Any]?) -> Bool)
        case comparison(NSComparisonPredicate)
        case compound(NSCompoundPredicate)
    }

    /// The node this predicate is. Subclasses override it.
    var shape: Shape {
        switch baseKind {
        case .value(let value): return .constant(value)
        case .block(let block): return .block(block)
        case nil: preconditionFailure("NSPredicate subclass \(type(of: self)) must override shape")
        }
    }

    // MARK: Evaluation

    /// Returns whether `object` matches the predicate.
    ///
    /// Traps with a descriptive message where Apple raises an exception; use
    /// ``evaluateThrowing(with:substitutionVariables:)`` for input you do not control.
    open func evaluate(with object: Any?) -> Bool {
        evaluate(with: object, substitutionVariables: nil)
    }

    /// Returns whether `object` matches the predicate after substituting `$VARIABLE`s.
    open func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        do {
            return try evaluateThrowing(with: object, substitutionVariables: bindings)
        } catch {
            preconditionFailure("Can't evaluate predicate \(predicateFormat): \(error)")
        }
    }

    /// Returns whether `object` matches the predicate, throwing instead of trapping.
    ///
    /// Not in Apple's API: it reports unknown keys, unbound variables and wrong argument
    /// types as a ``PredicateEvaluationError``.
    public func evaluateThrowing(with object: Any?, substitutionVariables bindings: [String: Any]? = nil) throws -> Bool {
        try PredicateEvaluator(variables: bindings ?? [:]).evaluate(self, with: object)
    }

    /// Returns a copy of the predicate with its `$VARIABLE`s replaced by constant values.
    public func withSubstitutionVariables(_ variables: [String: Any]) -> Self {
        // The substitution keeps the node kind, so the cast to `Self` holds.
        Substitution(variables: variables).substitute(self) as! Self
    }

    /// Forces a predicate that was securely decoded to allow evaluation. A no-op here: our
    /// predicates are never decoded with evaluation disabled.
    open func allowEvaluation() {}

    // MARK: Description

    /// The predicate in Apple's canonical format syntax, which parses back to an equal predicate.
    open var predicateFormat: String {
        PredicateFormatter().format(self)
    }

    open override var description: String { predicateFormat }

    // MARK: Equality and copying

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPredicate else { return false }
        return ASTEquality.isEqual(self, other)
    }

    open override var hash: Int { predicateFormat.hashValue }

    /// Predicates are immutable: a copy is the predicate itself.
    open func copy(with zone: NSZone? = nil) -> Any { self }
}

/// The initializers that parse Apple's format syntax.
///
/// They live in a protocol extension because a Swift class initializer cannot return an
/// instance of a subclass, and `NSPredicate(format:)` must return an `NSComparisonPredicate`
/// or an `NSCompoundPredicate` as Apple's does.
public protocol _PredicateFormatInitializable {}

extension NSPredicate: _PredicateFormatInitializable {}

extension _PredicateFormatInitializable where Self: NSPredicate {
    /// Parses `predicateFormat`, substituting `%@`, `%K`, `%d`, `%f` and the rest from `args`.
    ///
    /// A malformed format traps with the message of the ``PredicateParseError`` (column and
    /// what was expected), as Apple raises. Use ``init(validatingFormat:_:)`` for user input.
    /// Arguments are `Any?` rather than `CVarArg` so that arrays, sets, dates and optionals can be
    /// passed on Linux, where they are not `CVarArg`.
    public init(format predicateFormat: String, _ args: Any?...) {
        self.init(trappingFormat: predicateFormat, arguments: args)
    }

    /// Parses `predicateFormat`, taking the format arguments from an array.
    public init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        self.init(trappingFormat: predicateFormat, arguments: (arguments ?? []).map { Optional($0) })
    }

    init(trappingFormat predicateFormat: String, arguments: [Any?]) {
        do {
            try self.init(validatingFormat: predicateFormat, argumentArray: arguments)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// Parses `predicateFormat` and throws a ``PredicateParseError`` naming the column and what
    /// was expected when it is malformed. Not in Apple's API.
    public init(validatingFormat predicateFormat: String, _ args: Any?...) throws {
        try self.init(validatingFormat: predicateFormat, argumentArray: args)
    }

    /// Parses `predicateFormat` with arguments from an array, throwing on malformed input.
    public init(validatingFormat predicateFormat: String, argumentArray arguments: [Any?]) throws {
        let parsed = try PredicateParser.parsePredicate(predicateFormat, arguments: arguments)
        guard let result = parsed as? Self else {
            throw PredicateParseError(
                format: predicateFormat, column: 1,
                message: "the format parses to \(type(of: parsed)), not \(Self.self)")
        }
        self = result
    }
}
