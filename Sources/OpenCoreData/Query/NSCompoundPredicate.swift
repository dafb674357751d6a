/// A predicate that combines others with AND, OR or NOT.
open class NSCompoundPredicate: NSPredicate, @unchecked Sendable {
    /// The logical connective of a compound predicate, with Apple's raw values.
    public enum LogicalType: UInt, Sendable {
        case not = 0
        case and = 1
        case or = 2
    }

    /// The connective.
    public let compoundPredicateType: LogicalType

    /// The operands, as `NSPredicate` instances. Typed `[Any]` as in Apple's API.
    public var subpredicates: [Any] { predicates }

    /// The operands, typed.
    let predicates: [NSPredicate]

    /// Creates a compound predicate. A NOT predicate takes exactly one subpredicate.
    public init(type: LogicalType, subpredicates: [NSPredicate]) {
        precondition(type != .not || subpredicates.count == 1,
                     "A NOT compound predicate takes exactly one subpredicate, not \(subpredicates.count)")
        compoundPredicateType = type
        predicates = subpredicates
        super.init(subclassDepth: 1 + subpredicates.reduce(0) { max($0, $1.depth) })
    }

    /// Creates an AND predicate; with no subpredicates it is true.
    public convenience init(andPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .and, subpredicates: subpredicates)
    }

    /// Creates an OR predicate; with no subpredicates it is false.
    public convenience init(orPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .or, subpredicates: subpredicates)
    }

    /// Creates a NOT predicate.
    public convenience init(notPredicateWithSubpredicate predicate: NSPredicate) {
        self.init(type: .not, subpredicates: [predicate])
    }

    override var shape: Shape { .compound(self) }
}
