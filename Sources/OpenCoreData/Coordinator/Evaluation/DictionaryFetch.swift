/// A dictionary-result fetch over matching rows: `propertiesToFetch`, aggregates,
/// `propertiesToGroupBy`, `havingPredicate`, `returnsDistinctResults`, then offset and limit.
///
/// The rules, as Core Data's SQL store applies them:
/// - `propertiesToFetch` items are attribute or relationship names, key paths,
///   ``NSPropertyDescription``s, or ``NSExpressionDescription``s. `nil` fetches every
///   attribute and to-one relationship. A to-many relationship can't be fetched.
/// - An expression description whose expression is one of the aggregate functions (`sum:`,
///   `count:`, `min:`, `max:`, `average:`, `median:`, `mode:`, `stddev:`) over an expression is
///   computed per group of rows; other expressions are evaluated per row.
/// - With aggregates and no `propertiesToGroupBy`, all rows form one group. With groups, every
///   fetched property that is not an aggregate must be one of the group-by properties.
/// - Nil values are left out of the dictionaries; relationships give object IDs. A number an
///   expression description gives is converted to its `expressionResultType` when that is a
///   numeric type (`average:` with `.integer64AttributeType` gives an `Int64`).
/// - `havingPredicate` is evaluated on each result dictionary, with its entries also bound as
///   variables, so it may name an expression description as `count > 1` or `$count > 1`.
/// - Sort descriptors order the rows; when one names a result key that is not an entity
///   property (an expression description), the descriptors order the dictionaries instead.
struct DictionaryFetch {
    let request: NSFetchRequest<NSFetchRequestResult>
    let entity: NSEntityDescription
    let evaluation: FetchEvaluation

    static let aggregateFunctions: Set<String> = ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"]

    /// One output entry.
    enum Column {
        /// A key path read on each row (attribute, to-one relationship, dotted path).
        case keyPath(name: String, path: String)
        /// An expression evaluated on each row.
        case expression(name: String, NSExpression)
        /// An aggregate function over an expression's values in a group.
        case aggregate(name: String, function: String, argument: NSExpression)

        var name: String {
            switch self {
            case .keyPath(let name, _), .expression(let name, _), .aggregate(let name, _, _): return name
            }
        }

        var isAggregate: Bool {
            if case .aggregate = self { return true }
            return false
        }
    }

    func run(on rows: [SnapshotKeyValueAdapter]) throws -> [[String: Any]] {
        let columns = try request.propertiesToFetch.map { try $0.map(column) } ?? defaultColumns()
        let groupBy = try (request.propertiesToGroupBy ?? []).map(column)
        var results: [[String: Any]]
        if groupBy.isEmpty && !columns.contains(where: \.isAggregate) {
            results = try rows.map { row in try dictionary(columns, firstRow: row, group: [row]) }
        } else {
            let groupNames = Set(groupBy.map(\.name))
            if let stray = columns.first(where: { !$0.isAggregate && !groupNames.contains($0.name) }) {
                throw PersistentStoreErrors.make(
                    NSCoreDataError,
                    "Property '\(stray.name)' of a fetch of entity '\(entity.name ?? "?")' must be an aggregate or one of propertiesToGroupBy: SELECT clauses in queries with GROUP BY components can only contain properties named in the GROUP BY or aggregate functions.")
            }
            results = try groups(of: rows, by: groupBy).map { group in
                try dictionary(columns, firstRow: group.first, group: group)
            }
        }
        let propertyNames = Set(entity.propertiesByName.keys)
        let descriptors = request.sortDescriptors ?? []
        if descriptors.contains(where: { descriptor in
            guard let key = descriptor.key, let first = key.split(separator: ".").first else { return false }
            return !propertyNames.contains(String(first))
        }) {
            results = try FetchEvaluation.sort(results, by: descriptors)
        }
        if let having = request.havingPredicate {
            results = try results.filter { try having.evaluateThrowing(with: $0, substitutionVariables: $0) }
        }
        if request.returnsDistinctResults {
            var distinct: [[String: Any]] = []
            for result in results where !distinct.contains(where: { ValueComparison.isEqual($0, result, options: []) }) {
                distinct.append(result)
            }
            results = distinct
        }
        return FetchWindow(request).apply(to: results)
    }

    /// Every attribute and to-one relationship, as Core Data fetches with no `propertiesToFetch`.
    private func defaultColumns() -> [Column] {
        entity.properties.compactMap { property in
            if property is NSAttributeDescription { return .keyPath(name: property.name, path: property.name) }
            if let relationship = property as? NSRelationshipDescription, !relationship.isToMany {
                return .keyPath(name: property.name, path: property.name)
            }
            return nil
        }
    }

    /// The column a `propertiesToFetch` or `propertiesToGroupBy` item stands for.
    private func column(_ item: Any) throws -> Column {
        switch item {
        case let description as NSExpressionDescription:
            guard let expression = description.expression else {
                throw invalid("expression description '\(description.name)' has no expression")
            }
            if case .function(let function, let arguments) = expression.node,
               Self.aggregateFunctions.contains(function), arguments.count == 1 {
                return .aggregate(name: description.name, function: function, argument: arguments[0])
            }
            return .expression(name: description.name, expression)
        case let property as NSPropertyDescription:
            return try keyPathColumn(property.name)
        case let name as String:
            return try keyPathColumn(name)
        default:
            throw invalid("\(item) is neither a property description nor a key path")
        }
    }

    private func keyPathColumn(_ path: String) throws -> Column {
        let first = String(path.split(separator: ".", maxSplits: 1).first ?? "")
        if let relationship = entity.relationshipsByName[first], relationship.isToMany, !path.contains("@") {
            throw invalid("to-many relationship '\(first)' can't be fetched into a dictionary")
        }
        if !SnapshotKeyValueAdapter.inheritanceTree(of: entity, hasProperty: first) {
            throw invalid("entity '\(entity.name ?? "?")' has no property '\(first)'")
        }
        return .keyPath(name: path, path: path)
    }

    private func invalid(_ message: String) -> NSError {
        PersistentStoreErrors.make(NSCoreDataError, "Invalid propertiesToFetch or propertiesToGroupBy: \(message).")
    }

    /// The rows split by the values of `keys`, groups in order of first appearance.
    private func groups(of rows: [SnapshotKeyValueAdapter], by keys: [Column]) throws -> [[SnapshotKeyValueAdapter]] {
        guard !keys.isEmpty else { return [rows] }
        var groupKeys: [[Any?]] = []
        var groups: [[SnapshotKeyValueAdapter]] = []
        for row in rows {
            let key = try keys.map { try value(of: $0, on: row) }
            if let index = groupKeys.firstIndex(where: { existing in
                zip(existing, key).allSatisfy { ValueComparison.isEqual($0, $1, options: []) }
            }) {
                groups[index].append(row)
            } else {
                groupKeys.append(key)
                groups.append([row])
            }
        }
        return groups
    }

    /// One result dictionary: per-row columns from `firstRow`, aggregates over `group`.
    private func dictionary(_ columns: [Column], firstRow: SnapshotKeyValueAdapter?, group: [SnapshotKeyValueAdapter]) throws -> [String: Any] {
        var result: [String: Any] = [:]
        for column in columns {
            let value: Any?
            if case .aggregate(_, let function, let argument) = column {
                value = try aggregate(function, of: argument, over: group)
            } else if let firstRow {
                value = try self.value(of: column, on: firstRow)
            } else {
                value = nil
            }
            guard let value = StoreValueMapping.plain(value), !ValueComparison.isNSNull(value) else { continue }
            result[column.name] = resultTypes[column.name].map { Self.coerce(value, to: $0) } ?? value
        }
        return result
    }

    /// The declared `expressionResultType` of each expression description, by name.
    private var resultTypes: [String: NSAttributeType] {
        var types: [String: NSAttributeType] = [:]
        for case let description as NSExpressionDescription in request.propertiesToFetch ?? []
        where description.expressionResultType != .undefinedAttributeType {
            types[description.name] = description.expressionResultType
        }
        return types
    }

    /// A number converted to a numeric attribute type (integers truncate toward zero, as SQL's
    /// CAST does); other values, and numbers for other types, are returned as they are.
    static func coerce(_ value: Any, to type: NSAttributeType) -> Any {
        guard let number = NumericValue(value), !(value is Bool) else { return value }
        let integer = number.exactInteger ?? Int64(exactly: number.doubleValue.rounded(.towardZero))
        switch type {
        case .integer16AttributeType: return integer.flatMap { Int16(exactly: $0) } ?? value
        case .integer32AttributeType: return integer.flatMap { Int32(exactly: $0) } ?? value
        case .integer64AttributeType: return integer ?? value
        case .doubleAttributeType: return number.doubleValue
        case .floatAttributeType: return Float(number.doubleValue)
        case .decimalAttributeType: return number.decimalValue ?? value
        default: return value
        }
    }

    /// A per-row column's value on `row`.
    private func value(of column: Column, on row: SnapshotKeyValueAdapter) throws -> Any? {
        switch column {
        case .keyPath(_, let path):
            return try KeyValueAccess.value(forKeyPath: path, of: row)
        case .expression(_, let expression):
            return try StoreValueMapping.resolvingObjectConstants(in: expression, with: evaluation.resolver)
                .expressionValueThrowing(with: row)
        case .aggregate(_, let function, let argument):
            return try aggregate(function, of: argument, over: [row])
        }
    }

    /// `function` applied to the non-nil values of `argument` over `rows`. An empty group
    /// counts 0 and has no other aggregate (SQL's NULL).
    private func aggregate(_ function: String, of argument: NSExpression, over rows: [SnapshotKeyValueAdapter]) throws -> Any? {
        var values: [Any] = []
        for row in rows {
            let value = ValueComparison.unwrap(try argument.expressionValueThrowing(with: row))
            if let value, !ValueComparison.isNSNull(value) { values.append(StoreValueMapping.plain(value) ?? value) }
        }
        if values.isEmpty { return function == "count:" ? 0 : nil }
        return try NSExpression(forFunction: function, arguments: [NSExpression(forConstantValue: values)])
            .expressionValueThrowing(with: nil)
    }
}
