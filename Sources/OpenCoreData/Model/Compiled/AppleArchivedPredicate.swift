import Foundation

/// Rebuilds archived `NSPredicate`/`NSExpression` objects (as Apple's Foundation writes them into
/// compiled models and keyed archives) into this package's predicate AST.
///
/// Apple archives the private class cluster: `NSComparisonPredicate` (`NSLeftExpression`,
/// `NSRightExpression`, `NSPredicateOperator` with `NSOperatorType`, `NSModifier` and
/// `NSOptions`/`NSFlags`/`NSNegate`), `NSCompoundPredicate` (`NSCompoundPredicateType`,
/// `NSSubpredicates`), `NSTruePredicate`/`NSFalsePredicate`; expressions `NSConstantValueExpression`
/// (`NSConstantValue`), `NSSelfExpression`, `NSVariableExpression` (`NSVariable`),
/// `NSKeyPathExpression` and `NSFunctionExpression` (`NSOperand`, `NSSelectorName`, `NSArguments`),
/// `NSKeyPathSpecifierExpression` (`NSKeyPath`), `NSAggregateExpression` (`NSCollection`),
/// `NSSubqueryExpression` (`NSExpression`, `NSVariable`, `NSSubpredicate`), `NSTernaryExpression`
/// (`NSPredicate`, `NSTrueExpression`, `NSFalseExpression`), `NSAnyKeyExpression` and Core Data's
/// `NSFetchRequestExpression` (`NSFRExpression`, `NSMOCExpression`, `NSCountOnlyFlag`).
/// Block predicates, block expressions and custom-selector operators cannot be archived usefully
/// and are refused with a ``ManagedObjectModelError`` of kind `invalidValue`.
///
/// The archive is read recursively, so its nesting is bounded as the format parser bounds a
/// tree (``PredicateParser/maximumTreeDepth``): a deeper (or cyclic) archive is refused with an
/// `invalidCompiledModel` error instead of overflowing the stack.
struct AppleArchivedPredicate {
    let file: URL
    let element: String?
    /// How deeply the reader has recursed; a class so that the non-mutating readers can count.
    private let nesting = Nesting()

    init(file: URL, element: String?) {
        self.file = file
        self.element = element
    }

    private final class Nesting {
        var level = 0
    }

    /// Runs `read` one level deeper, refusing archives nested deeper than a parsed tree may be.
    private func nested<T>(_ read: () throws -> T) throws -> T {
        guard nesting.level < PredicateParser.maximumTreeDepth else {
            throw ManagedObjectModelError(.invalidCompiledModel,
                                          "archived predicate: nested more than \(PredicateParser.maximumTreeDepth) levels deep",
                                          file: file, element: element)
        }
        nesting.level += 1
        defer { nesting.level -= 1 }
        return try read()
    }

    func predicate(_ node: KeyedArchive.Node) throws -> NSPredicate {
        try nested { try readPredicate(node) }
    }

    func expression(_ node: KeyedArchive.Node) throws -> NSExpression {
        try nested { try readExpression(node) }
    }

    private func readPredicate(_ node: KeyedArchive.Node) throws -> NSPredicate {
        let className = node.className ?? "a non-object"
        switch className {
        case "NSTruePredicate": return NSPredicate(value: true)
        case "NSFalsePredicate": return NSPredicate(value: false)
        case "NSComparisonPredicate": return try comparison(node)
        case "NSCompoundPredicate":
            guard let rawType = node["NSCompoundPredicateType"]?.integer,
                  let type = NSCompoundPredicate.LogicalType(rawValue: UInt(clamping: rawType)) else {
                throw error(.missingField("NSCompoundPredicateType"))
            }
            let subpredicates = try (node["NSSubpredicates"]?.elements ?? []).map(predicate)
            return NSCompoundPredicate(type: type, subpredicates: subpredicates)
        default:
            if node.classNames.contains("NSComparisonPredicate") { return try comparison(node) }
            throw error(.unsupportedPredicate(className))
        }
    }

    private func readExpression(_ node: KeyedArchive.Node) throws -> NSExpression {
        let className = node.className ?? "a non-object"
        switch className {
        case "NSConstantValueExpression":
            return NSExpression(node: .constant(node["NSConstantValue"]?.propertyListValue))
        case "NSSelfExpression":
            return NSExpression(node: .evaluatedObject)
        case "NSAnyKeyExpression":
            return NSExpression(node: .anyKey)
        case "NSVariableExpression":
            guard let name = node["NSVariable"]?.string else { throw error(.missingField("NSVariable")) }
            return NSExpression(node: .variable(name))
        case "NSKeyPathSpecifierExpression":
            guard let path = node["NSKeyPath"]?.string else { throw error(.missingField("NSKeyPath")) }
            return NSExpression(node: .keyPath(path))
        case "NSKeyPathExpression", "NSFunctionExpression":
            return try function(node)
        case "NSAggregateExpression":
            let items = try (node["NSCollection"]?.elements ?? []).map(expressionOrConstant)
            return NSExpression(node: .aggregate(items))
        case "NSSubqueryExpression":
            guard let collection = node["NSExpression"], let subpredicate = node["NSSubpredicate"] else {
                throw error(.missingField("NSSubqueryExpression's NSExpression/NSSubpredicate"))
            }
            guard let variableNode = node["NSVariable"],
                  let variable = variableNode.string ?? variableNode["NSVariable"]?.string else {
                throw error(.missingField("NSSubqueryExpression's NSVariable"))
            }
            return NSExpression(node: .subquery(try expression(collection), variable, try predicate(subpredicate)))
        case "NSTernaryExpression":
            guard let condition = node["NSPredicate"], let whenTrue = node["NSTrueExpression"],
                  let whenFalse = node["NSFalseExpression"] else {
                throw error(.missingField("NSTernaryExpression's NSPredicate/NSTrueExpression/NSFalseExpression"))
            }
            return NSExpression(node: .conditional(try predicate(condition), try expression(whenTrue), try expression(whenFalse)))
        case "NSFetchRequestExpression":
            guard let request = node["NSFRExpression"], let context = node["NSMOCExpression"] else {
                throw error(.missingField("NSFetchRequestExpression's NSFRExpression/NSMOCExpression"))
            }
            return NSFetchRequestExpression(node: .fetch(try expression(request), try expression(context),
                                                         countOnly: node["NSCountOnlyFlag"]?.bool ?? false))
        case "NSSetExpression":
            guard let left = node["NSLeftExpression"], let right = node["NSRightExpression"],
                  let type = node["NSExpressionType"]?.integer else {
                throw error(.missingField("NSSetExpression's NSLeftExpression/NSRightExpression"))
            }
            let (l, r) = (try expression(left), try expression(right))
            switch type {
            case 5: return NSExpression(node: .unionSet(l, r))
            case 6: return NSExpression(node: .intersectSet(l, r))
            case 7: return NSExpression(node: .minusSet(l, r))
            default: throw error(.unsupportedPredicate("NSSetExpression of type \(type)"))
            }
        default:
            if node.classNames.contains("NSFunctionExpression") { return try function(node) }
            throw error(.unsupportedPredicate(className))
        }
    }

    // MARK: Pieces

    private func comparison(_ node: KeyedArchive.Node) throws -> NSPredicate {
        guard let left = node["NSLeftExpression"], let right = node["NSRightExpression"],
              let op = node["NSPredicateOperator"] else {
            throw error(.missingField("NSComparisonPredicate's expressions or operator"))
        }
        if op.className == "NSCustomPredicateOperator" {
            throw error(.unsupportedPredicate("NSCustomPredicateOperator (custom selector)"))
        }
        guard let rawType = op["NSOperatorType"]?.integer,
              var type = NSComparisonPredicate.Operator(rawValue: UInt(clamping: rawType)),
              type != .customSelector else {
            throw error(.unsupportedPredicate("\(op.className ?? "operator") of type \(op["NSOperatorType"]?.integer ?? -1)"))
        }
        if type == .equalTo, op["NSNegate"]?.bool == true { type = .notEqualTo }
        let modifier = NSComparisonPredicate.Modifier(rawValue: UInt(clamping: op["NSModifier"]?.integer ?? 0)) ?? .direct
        let rawOptions = op["NSOptions"]?.integer ?? op["NSFlags"]?.integer ?? 0
        let options = NSComparisonPredicate.Options(rawValue: UInt(clamping: rawOptions) & 0x7)
        return NSComparisonPredicate(leftExpression: try expression(left), rightExpression: try expression(right),
                                     modifier: modifier, type: type, options: options)
    }

    /// `NSKeyPathExpression` and `NSFunctionExpression`: an operand, a selector, arguments.
    private func function(_ node: KeyedArchive.Node) throws -> NSExpression {
        guard let selector = node["NSSelectorName"]?.string else {
            throw error(.missingField("\(node.className ?? "NSFunctionExpression")'s NSSelectorName"))
        }
        let arguments = node["NSArguments"]?.elements ?? []
        let operand = try node["NSOperand"].map(expressionOrConstant)
        if selector == "valueForKeyPath:" || selector == "valueForKey:" {
            guard let first = arguments.first, let path = first["NSKeyPath"]?.string ?? first.string
                ?? first["NSConstantValue"]?.string else {
                throw error(.missingField("the key path of \(node.className ?? "NSKeyPathExpression")"))
            }
            if let operand, case .evaluatedObject = operand.node { return NSExpression(node: .keyPath(path)) }
            if let operand { return NSExpression(node: .keyPathOn(operand, path)) }
            return NSExpression(node: .keyPath(path))
        }
        let args = try arguments.map(expressionOrConstant)
        // Built-in functions are sent to the class `_NSPredicateUtilities`, archived as a constant.
        if let operand, case .constant(let target) = operand.node, (target as? String) == "_NSPredicateUtilities" {
            return NSExpression(node: .function(selector, args))
        }
        if operand == nil { return NSExpression(node: .function(selector, args)) }
        return NSExpression(node: .functionOn(operand!, selector, args))
    }

    /// An archived expression, or a plain value (in aggregates and function arguments) as a constant.
    private func expressionOrConstant(_ node: KeyedArchive.Node) throws -> NSExpression {
        if node.classNames.contains("NSExpression") || (node.className ?? "").hasSuffix("Expression") {
            return try expression(node)
        }
        return NSExpression(node: .constant(node.propertyListValue))
    }

    private enum Problem {
        case missingField(String)
        case unsupportedPredicate(String)
    }

    private func error(_ problem: Problem) -> ManagedObjectModelError {
        switch problem {
        case .missingField(let what):
            return ManagedObjectModelError(.invalidCompiledModel, "archived predicate: missing or malformed \(what)",
                                           file: file, element: element)
        case .unsupportedPredicate(let className):
            return ManagedObjectModelError(.invalidValue, "cannot rebuild an archived \(className)",
                                           file: file, element: element)
        }
    }
}
