import Foundation

/// A fetch request reduced to what its compiled SQL depends on (its shape) and the values of its
/// constants, so that requests differing only in constant values share one compiled statement
/// (``SQLStatementCache``).
///
/// The key holds the request's structure (entity, result type, subentities, sort descriptors,
/// limit and offset, every predicate node with its operator, options, key paths and variable
/// names) and, for each constant, only what the compiler decides on: its kind, whether it is
/// null, an integer, an exact decimal or an unsaved object, and for a collection its kind and
/// each element's. Equal keys therefore compile to the same SQL text; each constant's bound value
/// is a numbered parameter of the statement (``SQLValue/parameter(_:)``), filled from
/// ``values``. A request the walk can't vouch for (a block, `now()`, a constant without an SQL
/// form, an expression object used twice) has no shape and is compiled on its own.
struct SQLRequestShape {
    /// Equal keys compile to equal statements, up to the values of their parameters.
    ///
    /// Bytes, not a `String`: it is built for every fetch, and appending to a string (and
    /// formatting numbers in decimal) cost about a fifth of what a small indexed fetch of a
    /// hundred rows spends outside SQLite. Numbers take eight bytes each, so an entry can't run
    /// into the next one.
    private(set) var key: [UInt8] = []
    /// The value bound for each parameter number; nil where a constant binds nothing (null, an
    /// unsaved object).
    private(set) var values: [SQLValue?] = []
    /// The first parameter number of each constant expression (a collection's elements take
    /// consecutive numbers), by the expression's identity.
    private var numbers: [ObjectIdentifier: Int] = [:]

    /// The shape of an object, ID or count fetch of `entity`; nil for other result types and for
    /// requests whose SQL could depend on more than the key holds.
    init?(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription) {
        key.reserveCapacity(128)
        switch request.resultType {
        case .managedObjectResultType: mark("o")
        case .managedObjectIDResultType: mark("i")
        case .countResultType: mark("c")
        default: return nil
        }
        append(entity.name ?? "")
        mark(request.includesSubentities ? "s" : "-")
        mark("l")
        appendNumber(request.fetchLimit)
        mark("o")
        appendNumber(request.fetchOffset)
        for descriptor in request.sortDescriptors ?? [] {
            guard let path = descriptor.key, let selector = descriptor.selector.map(NSStringFromSelector) else { return nil }
            mark(descriptor.ascending ? "A" : "D")
            append(path)
            append(selector)
        }
        mark("|")
        if let predicate = request.predicate {
            guard add(predicate) else { return nil }
        }
    }

    /// The first parameter number of the constant `expression`, nil when the walk did not see it.
    func number(of expression: NSExpression) -> Int? {
        numbers[ObjectIdentifier(expression)]
    }

    // MARK: The walk

    /// A string of the key, length first so that no content can run into the next entry.
    private mutating func append(_ string: String) {
        appendNumber(string.utf8.count)
        key.append(contentsOf: string.utf8)
    }

    /// A number of the key: its eight bytes.
    private mutating func appendNumber<N: BinaryInteger>(_ number: N) {
        withUnsafeBytes(of: Int64(truncatingIfNeeded: number).littleEndian) { key.append(contentsOf: $0) }
    }

    /// A one-character marker of the key (ASCII).
    private mutating func mark(_ marker: Unicode.Scalar) {
        key.append(UInt8(ascii: marker))
    }

    private mutating func add(_ predicate: NSPredicate) -> Bool {
        switch predicate.shape {
        case .constant(let value):
            mark(value ? "T" : "F")
            return true
        case .block:
            return false
        case .compound(let compound):
            mark("(")
            appendNumber(compound.compoundPredicateType.rawValue)
            appendNumber(compound.predicates.count)
            for part in compound.predicates where !add(part) { return false }
            mark(")")
            return true
        case .comparison(let comparison):
            guard comparison.predicateOperatorType != .customSelector else { return false }
            mark("<")
            appendNumber(comparison.predicateOperatorType.rawValue)
            appendNumber(comparison.comparisonPredicateModifier.rawValue)
            appendNumber(comparison.options.rawValue)
            guard add(comparison.leftExpression), add(comparison.rightExpression) else { return false }
            mark(">")
            return true
        }
    }

    private mutating func add(_ expression: NSExpression) -> Bool {
        switch expression.node {
        case .constant(let value):
            return addConstant(value, of: expression)
        case .evaluatedObject:
            mark("E")
        case .variable(let name):
            mark("$")
            append(name)
        case .keyPath(let path):
            mark("K")
            append(path)
        case .keyPathOn(let base, let path):
            mark("P")
            append(path)
            return add(base)
        case .function(let name, let arguments):
            // now() binds the time of compilation: never shared.
            if name == "now" { return false }
            mark("f")
            append(name)
            return addAll(arguments)
        case .symbolic(let symbol):
            mark("S")
            append(symbol.rawValue)
        case .aggregate(let items):
            mark("a")
            return addAll(items)
        case .subquery(let collection, let variable, let predicate):
            mark("q")
            append(variable)
            guard add(collection), add(predicate) else { return false }
            mark(";")
        case .functionOn, .unionSet, .intersectSet, .minusSet, .conditional, .block, .anyKey, .fetch:
            // None of these compiles to SQL: the compiler reports them.
            return false
        }
        return true
    }

    private mutating func addAll(_ expressions: [NSExpression]) -> Bool {
        mark("[")
        appendNumber(expressions.count)
        for expression in expressions where !add(expression) { return false }
        mark("]")
        return true
    }

    /// A constant: numbered, and described by what the compiler reads of it.
    private mutating func addConstant(_ value: Any?, of expression: NSExpression) -> Bool {
        let id = ObjectIdentifier(expression)
        // The compiler finds a constant's number by its expression: one object in two places
        // could hold only one number.
        if numbers[id] != nil { return false }
        numbers[id] = values.count
        if let scalar = Self.scalar(value) {
            append(scalar.signature)
            values.append(scalar.value)
            return true
        }
        guard let members = CollectionValue(membershipOf: ValueComparison.unwrap(value)) else { return false }
        // IN and CONTAINS read dictionaries' values, BETWEEN no dictionary: the key tells them apart.
        let kind = CollectionValue(ValueComparison.unwrap(value)).map { "\($0.kind)" } ?? "dictionary"
        mark("{")
        append(kind)
        appendNumber(members.elements.count)
        for element in members.elements {
            guard let scalar = Self.scalar(element) else { return false }
            append(scalar.signature)
            values.append(scalar.value)
        }
        mark("}")
        return true
    }

    /// What the compiler decides on for a single constant (its kind, and the root entity of an
    /// object), to go in a key.
    private struct Signature {
        /// `u` (an unsaved object), `n` (null) or `v` (a bound value).
        var tag: Unicode.Scalar
        /// For a bound value: its SQLite type (`i`, `r`, `t`, `b`) and its kind (`x` an exact
        /// decimal, `#` a number, `s`, `d`, `D`, `U`, `L`, `o` an object, `?`).
        var type: Unicode.Scalar = "-", kind: Unicode.Scalar = "-"
        /// The root entity's name, for an object.
        var entity: String? = nil
    }

    private mutating func append(_ signature: Signature) {
        mark(signature.tag)
        mark(signature.type)
        mark(signature.kind)
        if let entity = signature.entity { append(entity) } else { appendNumber(-1) }
    }

    /// What the compiler decides on for a single constant, and the value it binds; nil for a
    /// collection or a value without an SQL form. Mirrors ``SQLCompiler/operand(_:in:)``.
    private static func scalar(_ value: Any?) -> (signature: Signature, value: SQLValue?)? {
        if SQLConstant.isUnsavedObject(value) {
            let entity = (ValueComparison.unwrap(value) as? NSManagedObjectID)?.entity
                ?? (ValueComparison.unwrap(value) as? NSManagedObject)?.objectID.entity
            return (Signature(tag: "u", entity: entity?.rootEntity.name ?? ""), nil)
        }
        guard let operand = SQLConstant.operand(value) else { return nil }
        if operand.isNull { return (Signature(tag: "n"), nil) }
        guard operand.fragment.sql == "?", operand.fragment.bindings.count == 1 else { return nil }
        let bound = operand.fragment.bindings[0]
        var signature = Signature(tag: "v")
        switch bound {
        case .integer: signature.type = "i"
        case .real: signature.type = "r"
        case .text: signature.type = "t"
        case .blob: signature.type = "b"
        case .null, .parameter: return nil
        }
        switch operand.kind {
        case .number: signature.kind = operand.isExactDecimalConstant ? "x" : "#"
        case .string: signature.kind = "s"
        case .date: signature.kind = "d"
        case .data: signature.kind = "D"
        case .uuid: signature.kind = "U"
        case .url: signature.kind = "L"
        case .object(let root):
            signature.kind = "o"
            signature.entity = root
        case .unknown: signature.kind = "?"
        }
        return (signature, bound)
    }
}

/// The constants of a request being compiled into a statement for its whole shape
/// (``SQLStatementCache``): each binds its parameter number instead of its value.
final class SQLParameterNumbering {
    let shape: SQLRequestShape
    /// False once a constant the shape did not number was bound by value: the statement then
    /// holds for this request only.
    private(set) var isComplete = true

    init(_ shape: SQLRequestShape) {
        self.shape = shape
    }

    /// `operand`, the value of element `element` of the constant `expression` (0 for a single
    /// value), binding its parameter. It stays known as an integer when its value is one, so
    /// that the compiler decides as it would on the value.
    func parameterized(_ operand: SQLOperand, of expression: NSExpression, element: Int) -> SQLOperand {
        guard operand.fragment.bindings.count == 1 else { return operand }
        guard let first = shape.number(of: expression) else {
            isComplete = false
            return operand
        }
        var numbered = operand
        numbered.knownInteger = operand.isInteger
        numbered.fragment.bindings = [.parameter(first + element)]
        return numbered
    }
}
