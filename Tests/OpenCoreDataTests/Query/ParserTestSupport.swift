import Testing
@testable import OpenCoreData

/// A compact, unambiguous rendering of parsed trees, so parser tests can state the whole tree
/// they expect in one string without depending on the formatter.
///
/// - constants: `3` (Int), `2.5` (Double), `true`, `nil`, `"text"`, `[1, 2]` (array),
///   `UInt64(…)`, `<Type value>` for anything else;
/// - `kp(a.b)` key path, `kp(<base>, a.b)` key path on a base, `$x` variable, `SELF`, `ANYKEY`;
/// - `fn(name, args…)` built-in function, `call(<receiver>, sel, args…)` FUNCTION(…);
/// - `{a, b}` aggregate, `FIRST`/`LAST`/`SIZE` symbolic index;
/// - `union(a, b)`, `intersect(a, b)`, `minus(a, b)`, `subquery(c, $x, p)`, `ternary(p, a, b)`;
/// - comparisons `(ANY lhs IN[cd] rhs)`, compounds `AND(p, q)`, `OR(…)`, `NOT(p)`,
///   `TRUEPREDICATE`, `FALSEPREDICATE`.
enum Tree {
    static func dump(_ predicate: NSPredicate) -> String {
        switch predicate.shape {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .block: return "BLOCK"
        case .compound(let compound):
            let name: String
            switch compound.compoundPredicateType {
            case .and: name = "AND"
            case .or: name = "OR"
            case .not: name = "NOT"
            }
            return "\(name)(\(compound.predicates.map(dump).joined(separator: ", ")))"
        case .comparison(let comparison):
            let modifier: String
            switch comparison.comparisonPredicateModifier {
            case .direct: modifier = ""
            case .any: modifier = "ANY "
            case .all: modifier = "ALL "
            }
            var options = ""
            if comparison.options.contains(.caseInsensitive) { options += "c" }
            if comparison.options.contains(.diacriticInsensitive) { options += "d" }
            if comparison.options.contains(.normalized) { options += "n" }
            let optionText = options.isEmpty ? "" : "[\(options)]"
            return "(\(modifier)\(dump(comparison.leftExpression)) \(PredicateFormatter.operatorSymbol(comparison.predicateOperatorType))\(optionText) \(dump(comparison.rightExpression)))"
        }
    }


    static func dump(_ expression: NSExpression) -> String {
        switch expression.node {
        case .constant(let value): return constant(value)
        case .evaluatedObject: return "SELF"
        case .variable(let name): return "$" + name
        case .keyPath(let path): return "kp(\(path))"
        case .keyPathOn(let base, let path): return "kp(\(dump(base)), \(path))"
        case .function(let name, let args): return "fn(\(([name] + args.map(dump)).joined(separator: ", ")))"
        case .functionOn(let receiver, let name, let args):
            return "call(\(([dump(receiver), name] + args.map(dump)).joined(separator: ", ")))"
        case .symbolic(let symbol): return symbol.rawValue
        case .aggregate(let items): return "{\(items.map(dump).joined(separator: ", "))}"
        case .unionSet(let l, let r): return "union(\(dump(l)), \(dump(r)))"
        case .intersectSet(let l, let r): return "intersect(\(dump(l)), \(dump(r)))"
        case .minusSet(let l, let r): return "minus(\(dump(l)), \(dump(r)))"
        case .subquery(let c, let v, let p): return "subquery(\(dump(c)), $\(v), \(dump(p)))"
        case .conditional(let p, let t, let f): return "ternary(\(dump(p)), \(dump(t)), \(dump(f)))"
        case .block: return "BLOCK"
        case .anyKey: return "ANYKEY"
        case .fetch(let r, let c, let n): return "fetch(\(dump(r)), \(dump(c)), \(n))"
        }
    }

    static func constant(_ value: Any?) -> String {
        switch value {
        case nil: return "nil"
        case let v as String: return "\"\(v)\""
        case let v as Bool: return v ? "true" : "false"
        case let v as Int: return String(v)
        case let v as Double: return String(v)
        case let v as UInt64: return "UInt64(\(v))"
        case let v as [Any?]: return "[\(v.map(constant).joined(separator: ", "))]"
        default: return "<\(type(of: value!)) \(value!)>"
        }
    }
}

/// Parses a predicate, recording a test issue (with the parser's message) when it fails.
func parsed(_ format: String, _ arguments: Any?..., sourceLocation: SourceLocation = #_sourceLocation) -> String {
    do {
        return Tree.dump(try PredicateParser.parsePredicate(format, arguments: arguments))
    } catch {
        Issue.record("\(error)", sourceLocation: sourceLocation)
        return "<error>"
    }
}

/// Parses an expression, recording a test issue when it fails.
func parsedExpression(_ format: String, _ arguments: Any?..., sourceLocation: SourceLocation = #_sourceLocation) -> String {
    do {
        return Tree.dump(try PredicateParser.parseExpression(format, arguments: arguments))
    } catch {
        Issue.record("\(error)", sourceLocation: sourceLocation)
        return "<error>"
    }
}

/// The error a malformed predicate format throws, or `nil` if it parses.
func parseError(_ format: String, _ arguments: Any?...) -> PredicateParseError? {
    do {
        _ = try PredicateParser.parsePredicate(format, arguments: arguments)
        return nil
    } catch let error as PredicateParseError {
        return error
    } catch {
        Issue.record("unexpected error type \(type(of: error))")
        return nil
    }
}

/// The error a malformed expression format throws, or `nil` if it parses.
func expressionParseError(_ format: String, _ arguments: Any?...) -> PredicateParseError? {
    do {
        _ = try PredicateParser.parseExpression(format, arguments: arguments)
        return nil
    } catch let error as PredicateParseError {
        return error
    } catch {
        Issue.record("unexpected error type \(type(of: error))")
        return nil
    }
}
