import Foundation

/// Predicates, expressions, sort descriptors and fetch requests in Apple's archived form, as
/// ``AppleArchivedPredicate`` and ``AppleCompiledModelReader`` read them and Foundation's
/// `NSKeyedUnarchiver` decodes them.
///
/// - `NSComparisonPredicate` (`NSLeftExpression`, `NSRightExpression`, `NSPredicateOperator`),
///   the operator in the class Foundation gives its family: `NSComparisonPredicateOperator`
///   (`<`, `<=`, `>`, `>=`; options under `NSOptions`), `NSEqualityPredicateOperator` (`==`, `!=`
///   with `NSNegate`), `NSMatchingPredicateOperator`, `NSLikePredicateOperator` and
///   `NSSubstringPredicateOperator` (`BEGINSWITH`, `ENDSWITH`, `CONTAINS` with `NSPosition`;
///   options under `NSFlags`), `NSInPredicateOperator`, `NSBetweenPredicateOperator`;
///   `NSCompoundPredicate` (`NSCompoundPredicateType`, `NSSubpredicates`),
///   `NSTruePredicate`, `NSFalsePredicate`.
/// - Expressions with `NSExpressionType`: `NSConstantValueExpression` (`NSConstantValue`),
///   `NSSelfExpression`, `NSVariableExpression` (`NSVariable`), `NSKeyPathExpression` (the
///   function `valueForKeyPath:` on `NSOperand` with an `NSKeyPathSpecifierExpression`
///   argument), `NSFunctionExpression` (built-in functions sent to `_NSPredicateUtilities`),
///   `NSAggregateExpression` (`NSCollection`), `NSSetExpression`, `NSSubqueryExpression`,
///   `NSTernaryExpression`, `NSAnyKeyExpression`.
///
/// Differs from Apple: block predicates and expressions, custom selectors, `FIRST`/`LAST`/`SIZE`
/// index symbols, `FETCH` expressions and the UTI operators are refused (they do not occur in
/// models Xcode writes).
extension AppleCompiledModelWriter {

    mutating func predicate(_ predicate: NSPredicate, element: String) throws -> Int {
        switch predicate.shape {
        case .constant(let value):
            return object(value ? "NSTruePredicate" : "NSFalsePredicate", ["NSPredicate", "NSObject"], [])
        case .block:
            throw unsupported("a block predicate", element: element)
        case .compound(let compound):
            let index = archive.reserveObject()
            var members: [Value] = []
            for case let sub as NSPredicate in compound.subpredicates { members.append(.uid(try self.predicate(sub, element: element))) }
            let list = object("NSArray", ["NSObject"], [("NS.objects", .array(members))])
            archive.finishObject(at: index, classes: ["NSCompoundPredicate", "NSPredicate", "NSObject"], fields: [
                ("NSCompoundPredicateType", .integer(Int64(compound.compoundPredicateType.rawValue))),
                ("NSSubpredicates", .uid(list)),
            ])
            return index
        case .comparison(let comparison):
            let index = archive.reserveObject()
            let left = try expression(comparison.leftExpression, element: element)
            let right = try expression(comparison.rightExpression, element: element)
            let op = try predicateOperator(comparison, element: element)
            archive.finishObject(at: index, classes: ["NSComparisonPredicate", "NSPredicate", "NSObject"], fields: [
                ("NSLeftExpression", .uid(left)),
                ("NSRightExpression", .uid(right)),
                ("NSPredicateOperator", .uid(op)),
            ])
            return index
        }
    }

    private mutating func predicateOperator(_ comparison: NSComparisonPredicate, element: String) throws -> Int {
        let type = comparison.predicateOperatorType
        var fields: [(String, Value)] = [
            ("NSOperatorType", .integer(Int64(type.rawValue))),
            ("NSModifier", .integer(Int64(comparison.comparisonPredicateModifier.rawValue))),
        ]
        let options = Value.integer(Int64(comparison.options.rawValue))
        let string = ["NSStringPredicateOperator", "NSPredicateOperator", "NSObject"]
        let className: String
        var chain = ["NSPredicateOperator", "NSObject"]
        switch type {
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            className = "NSComparisonPredicateOperator"
            fields.append(("NSOptions", options))
        case .equalTo, .notEqualTo:
            className = "NSEqualityPredicateOperator"
            fields += [("NSNegate", .bool(type == .notEqualTo)), ("NSOptions", options)]
        case .matches:
            (className, chain) = ("NSMatchingPredicateOperator", string)
            fields.append(("NSFlags", options))
        case .like:
            (className, chain) = ("NSLikePredicateOperator", string)
            fields.append(("NSFlags", options))
        case .beginsWith, .endsWith, .contains:
            (className, chain) = ("NSSubstringPredicateOperator", string)
            fields += [("NSFlags", options), ("NSPosition", .integer(type == .beginsWith ? 0 : type == .endsWith ? 1 : 2))]
        case .in:
            className = "NSInPredicateOperator"
            fields.append(("NSFlags", options))
        case .between:
            className = "NSBetweenPredicateOperator"
        default:
            throw unsupported("the comparison \(comparison.predicateFormat)", element: element)
        }
        return object(className, chain, fields)
    }

    mutating func expression(_ expression: NSExpression, element: String) throws -> Int {
        let expressionChain = ["NSExpression", "NSObject"]
        func typed(_ type: Int64, _ fields: [(String, Value)]) -> [(String, Value)] {
            [("NSExpressionType", .integer(type))] + fields
        }
        switch expression.node {
        case .constant(let value):
            let index = archive.reserveObject()
            let constant = try value.map { try archive.encode($0, depth: 0) } ?? 0
            archive.finishObject(at: index, classes: ["NSConstantValueExpression"] + expressionChain,
                                 fields: typed(0, [("NSConstantValue", .uid(constant))]))
            return index
        case .evaluatedObject:
            return object("NSSelfExpression", expressionChain, typed(1, []))
        case .anyKey:
            return object("NSAnyKeyExpression", expressionChain, typed(15, []))
        case .variable(let name):
            return object("NSVariableExpression", expressionChain, typed(2, [("NSVariable", .uid(archive.inline(.string(name))))]))
        case .keyPath(let path):
            return try keyPath(path, on: nil, element: element)
        case .keyPathOn(let base, let path):
            return try keyPath(path, on: base, element: element)
        case .function(let name, let arguments):
            let index = archive.reserveObject()
            let target = object("NSConstantValueExpression", expressionChain,
                                typed(0, [("NSConstantValue", .uid(archive.inline(.string("_NSPredicateUtilities"))))]))
            let list = try expressions(arguments, element: element)
            archive.finishObject(at: index, classes: ["NSFunctionExpression"] + expressionChain, fields: typed(4, [
                ("NSOperand", .uid(target)), ("NSSelectorName", .uid(archive.inline(.string(name)))), ("NSArguments", .uid(list)),
            ]))
            return index
        case .functionOn(let target, let name, let arguments):
            let index = archive.reserveObject()
            let operand = try self.expression(target, element: element)
            let list = try expressions(arguments, element: element)
            archive.finishObject(at: index, classes: ["NSFunctionExpression"] + expressionChain, fields: typed(4, [
                ("NSOperand", .uid(operand)), ("NSSelectorName", .uid(archive.inline(.string(name)))), ("NSArguments", .uid(list)),
            ]))
            return index
        case .aggregate(let items):
            let index = archive.reserveObject()
            let list = try expressions(items, element: element)
            archive.finishObject(at: index, classes: ["NSAggregateExpression"] + expressionChain, fields: typed(14, [("NSCollection", .uid(list))]))
            return index
        case .unionSet(let left, let right), .intersectSet(let left, let right), .minusSet(let left, let right):
            let type: Int64 = if case .unionSet = expression.node { 5 } else if case .intersectSet = expression.node { 6 } else { 7 }
            let index = archive.reserveObject()
            let l = try self.expression(left, element: element)
            let r = try self.expression(right, element: element)
            archive.finishObject(at: index, classes: ["NSSetExpression"] + expressionChain,
                                 fields: typed(type, [("NSLeftExpression", .uid(l)), ("NSRightExpression", .uid(r))]))
            return index
        case .subquery(let collection, let variable, let condition):
            let index = archive.reserveObject()
            let c = try self.expression(collection, element: element)
            let v = object("NSVariableExpression", expressionChain, typed(2, [("NSVariable", .uid(archive.inline(.string(variable))))]))
            let p = try predicate(condition, element: element)
            archive.finishObject(at: index, classes: ["NSSubqueryExpression"] + expressionChain, fields: typed(13, [
                ("NSExpression", .uid(c)), ("NSVariable", .uid(v)), ("NSSubpredicate", .uid(p)),
            ]))
            return index
        case .conditional(let condition, let whenTrue, let whenFalse):
            let index = archive.reserveObject()
            let p = try predicate(condition, element: element)
            let t = try self.expression(whenTrue, element: element)
            let f = try self.expression(whenFalse, element: element)
            archive.finishObject(at: index, classes: ["NSTernaryExpression"] + expressionChain, fields: typed(20, [
                ("NSPredicate", .uid(p)), ("NSTrueExpression", .uid(t)), ("NSFalseExpression", .uid(f)),
            ]))
            return index
        case .symbolic, .block, .fetch:
            throw unsupported("the expression \(expression.description)", element: element)
        }
    }

    /// `valueForKeyPath:` (`valueForKey:` for one key) on `base` (the evaluated object when `nil`).
    private mutating func keyPath(_ path: String, on base: NSExpression?, element: String) throws -> Int {
        let expressionChain = ["NSExpression", "NSObject"]
        let index = archive.reserveObject()
        let operand = try base.map { try expression($0, element: element) }
            ?? object("NSSelfExpression", expressionChain, [("NSExpressionType", .integer(1))])
        let specifier = object("NSKeyPathSpecifierExpression", expressionChain,
                               [("NSExpressionType", .integer(10)), ("NSKeyPath", .uid(archive.inline(.string(path))))])
        let arguments = object("NSArray", ["NSObject"], [("NS.objects", .array([.uid(specifier)]))])
        let selector = path.contains(".") || path.contains("@") ? "valueForKeyPath:" : "valueForKey:"
        archive.finishObject(at: index, classes: ["NSKeyPathExpression", "NSFunctionExpression"] + expressionChain, fields: [
            ("NSExpressionType", .integer(3)), ("NSOperand", .uid(operand)),
            ("NSSelectorName", .uid(archive.inline(.string(selector)))), ("NSArguments", .uid(arguments)),
        ])
        return index
    }

    private mutating func expressions(_ items: [NSExpression], element: String) throws -> Int {
        let index = archive.reserveObject()
        var members: [Value] = []
        for item in items { members.append(.uid(try expression(item, element: element))) }
        archive.finishObject(at: index, classes: ["NSArray", "NSObject"], fields: [("NS.objects", .array(members))])
        return index
    }

    /// A fetch request (a template, or a fetched property's): its entity, predicate, sort
    /// descriptors, limits, flags and property lists, under the keys ``AppleCompiledModelReader`` reads.
    mutating func fetchRequest(_ request: NSFetchRequest<NSFetchRequestResult>, element: String) throws -> Int {
        let index = archive.reserveObject()
        var fields: [(String, Value)] = []
        if let entity = request.entity {
            fields.append(("NSEntity", .uid(try self.entity(entity))))
        } else if let name = request.entityName {
            fields.append(("NSEntity", .uid(archive.inline(.string(name)))))
        }
        if let predicate = request.predicate { fields.append(("NSPredicate", .uid(try self.predicate(predicate, element: element)))) }
        if let sorts = request.sortDescriptors, !sorts.isEmpty {
            var members: [Value] = []
            for sort in sorts {
                guard let key = sort.key else { throw unsupported("a sort descriptor without a key", element: element) }
                members.append(.uid(object("NSSortDescriptor", ["NSObject"], [
                    ("NSKey", .uid(archive.inline(.string(key)))), ("NSAscending", .bool(sort.ascending)),
                    ("NSSelector", .uid(archive.inline(.string(sort.selector.map(NSStringFromSelector) ?? "compare:")))),
                ])))
            }
            fields.append(("NSSortDescriptors", .uid(object("NSArray", ["NSObject"], [("NS.objects", .array(members))]))))
        }
        fields += [
            ("NSFetchLimit", .integer(Int64(request.fetchLimit))),
            ("NSFetchOffset", .integer(Int64(request.fetchOffset))),
            ("NSBatchSize", .integer(Int64(request.fetchBatchSize))),
            ("NSResultType", .integer(Int64(request.resultType.rawValue))),
        ]
        var flags: Int64 = 0
        if request.returnsDistinctResults { flags |= 0x1 }
        if request.includesSubentities { flags |= 0x2 }
        if request.includesPropertyValues { flags |= 0x4 }
        if request.returnsObjectsAsFaults { flags |= 0x8 }
        if request.includesPendingChanges { flags |= 0x10 }
        if request.shouldRefreshRefetchedObjects { flags |= 0x20 }
        fields += [("NSHasFetchRequestFlags", .bool(true)), ("NSFetchRequestFlags", .integer(flags))]
        for (key, list) in [("NSValuesToFetch", request.propertiesToFetch), ("NSValuesToGroupBy", request.propertiesToGroupBy)] {
            guard let list else { continue }
            let names = list.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name }
            guard names.count == list.count else { throw unsupported("an expression in \(key)", element: element) }
            fields.append((key, .uid(nameArray(names))))
        }
        if let having = request.havingPredicate { fields.append(("NSHavingPredicate", .uid(try predicate(having, element: element)))) }
        if let paths = request.relationshipKeyPathsForPrefetching, !paths.isEmpty {
            fields.append(("NSRelationshipKeyPathsForPrefetching", .uid(nameArray(paths))))
        }
        archive.finishObject(at: index, classes: ["NSFetchRequest", "NSPersistentStoreRequest", "NSObject"], fields: fields)
        return index
    }

    private mutating func nameArray(_ names: [String]) -> Int {
        let members = names.map { Value.uid(archive.inline(.string($0))) }
        return object("NSArray", ["NSObject"], [("NS.objects", .array(members))])
    }

    /// An object of `className` (then `superclasses`) whose fields reference objects already written.
    private mutating func object(_ className: String, _ superclasses: [String], _ fields: [(String, Value)]) -> Int {
        let index = archive.reserveObject()
        archive.finishObject(at: index, classes: [className] + superclasses, fields: fields)
        return index
    }
}
