/// Compiles whole fetch requests to statements: object and ID fetches, counts, and dictionary
/// fetches with `propertiesToFetch`, aggregates, `propertiesToGroupBy`, `havingPredicate` and
/// `returnsDistinctResults`, all in SQL.
///
/// Results come in the in-memory store's order: the sort descriptors, then the primary key
/// (groups and distinct rows by the first row of each, `MIN(Z_PK)`).
struct SQLFetchCompiler {
    let mapping: any SQLSchemaMapping
    var dialect: any SQLDialect = SQLiteDialect()
    /// When compiling for every request of a shape (``SQLStatementCache``): the numbers of the
    /// request's constants, bound instead of their values.
    var numbering: SQLParameterNumbering? = nil

    /// The rows a request selects, before the result columns are chosen.
    struct Selection {
        let compiler: SQLCompiler
        let scope: SQLQueryScope
        var conditions: [SQLFragment]
    }

    func selection(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription) throws -> Selection {
        let compiler = SQLCompiler(mapping: mapping, dialect: dialect)
        compiler.numbering = numbering
        let scope = try compiler.rootScope(for: entity)
        var conditions: [SQLFragment] = []
        if let restriction = try compiler.entityCondition(alias: scope.alias, entity: entity, includingSubentities: request.includesSubentities) {
            conditions.append(restriction)
        }
        if let predicate = request.predicate {
            conditions.append(try compiler.condition(predicate, in: scope))
        }
        return Selection(compiler: compiler, scope: scope, conditions: conditions)
    }

    func whereClause(_ conditions: [SQLFragment]) -> SQLFragment {
        conditions.isEmpty ? "" : " WHERE " + .joined(conditions.map(\.parenthesized), separator: " AND ")
    }

    // MARK: Objects, IDs, counts

    /// `SELECT t0.Z_PK, t0.Z_ENT[, t0.<columns>…]` of the matching rows, sorted and windowed.
    /// The store reads snapshots (or IDs) from the selected columns.
    /// With `keysOnly`, `SELECT t0.Z_PK` alone, for a request whose rows are all of one entity;
    /// with `asRecord`, the selected columns as one record, `SELECT ROW(t0.Z_PK, …)` (PostgreSQL).
    func objects(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription, columns: [String] = [],
                 keysOnly: Bool = false, asRecord: Bool = false) throws -> SQLStatement {
        let selection = try self.selection(request, entity: entity)
        let compiler = selection.compiler, alias = selection.scope.alias
        let order = try FetchEvaluation.rowSortDescriptors(of: request, entity: entity).map { try sortTerm($0, compiler, selection.scope) }
        let selected = keysOnly ? [mapping.primaryKeyColumn] : [mapping.primaryKeyColumn, mapping.entityColumn] + columns
        let list = selected.map { compiler.column(alias, $0).sql }.joined(separator: ", ")
        var statement = SQLFragment("SELECT " + (asRecord ? "ROW(" + list + ")" : list) + " FROM ")
        statement += compiler.fromClause(of: selection.scope)
        statement += whereClause(selection.conditions)
        statement += " ORDER BY " + .joined(order + [dialect.orderTerm(compiler.column(alias, mapping.primaryKeyColumn), ascending: true)], separator: ", ")
        statement += dialect.limitClause(limit: request.fetchLimit, offset: request.fetchOffset)
        return dialect.finish(statement)
    }

    /// `SELECT COUNT(*)` of the matching rows, after the offset and limit.
    func count(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription) throws -> SQLStatement {
        let selection = try self.selection(request, entity: entity)
        let compiler = selection.compiler
        var rows = SQLFragment("FROM ") + compiler.fromClause(of: selection.scope) + whereClause(selection.conditions)
        if request.fetchLimit > 0 || request.fetchOffset > 0 {
            rows = "FROM (SELECT " + compiler.column(selection.scope.alias, mapping.primaryKeyColumn) + " " + rows
                + dialect.limitClause(limit: request.fetchLimit, offset: request.fetchOffset) + ") AS counted"
        }
        return dialect.finish("SELECT COUNT(*) " + rows)
    }

    /// The ORDER BY term of a sort descriptor over rows.
    private func sortTerm(_ descriptor: NSSortDescriptor, _ compiler: SQLCompiler, _ scope: SQLQueryScope) throws -> SQLFragment {
        guard let key = descriptor.key else {
            throw SQLCompileError("a sort descriptor without a key", "it sorts the objects themselves")
        }
        guard let selector = descriptor.selector.map(NSStringFromSelector), let comparison = SortComparison(rawValue: selector) else {
            throw SQLCompileError("the sort descriptor on '\(key)'", "a comparator block sorts only in memory")
        }
        let value = try compiler.scalar(key, in: scope, expression: NSExpression(forKeyPath: key))
        return try orderTerm(value, comparison, ascending: descriptor.ascending, key: key, compiler)
    }

    /// Strings sort with the collation of the descriptor's selector (which runs
    /// ``SortComparison``, as the in-memory sort does); URLs, which only `compare:` orders, by
    /// their absolute strings as ``ValueComparison`` orders them; decimals by value (REAL and
    /// exact text in a blob alike); the other kinds natively.
    private func orderTerm(_ value: SQLOperand, _ comparison: SortComparison, ascending: Bool, key: String, _ compiler: SQLCompiler) throws -> SQLFragment {
        switch value.kind {
        case .string:
            return dialect.orderTerm(dialect.collate(value.fragment, SQLFunctions.collationName(comparison)), ascending: ascending)
        case .url, .number, .date, .data, .uuid:
            guard comparison == .compare else {
                throw SQLCompileError("the sort descriptor on '\(key)' with \(comparison.rawValue)", "\(comparison.rawValue) compares strings only, not \(value.kind) values")
            }
            return dialect.orderTerm(value.kind == .url ? compiler.valueOrdered(value) : compiler.numericallyOrdered(value), ascending: ascending)
        case .object, .unknown:
            throw SQLCompileError("the sort descriptor on '\(key)'", "\(value.kind) values have no order")
        }
    }

    // MARK: Dictionaries

    /// A dictionary fetch: the statement and how to read each result entry from its columns.
    func dictionaries(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription) throws -> (SQLStatement, [SQLResultColumn]) {
        let selection = try self.selection(request, entity: entity)
        let compiler = selection.compiler, scope = selection.scope
        let items: [Any] = request.propertiesToFetch ?? entity.properties.filter { property in
            property is NSAttributeDescription || (property as? NSRelationshipDescription).map { !$0.isToMany } == true
        }
        let columns = try items.map { try resultColumn($0, compiler, scope, entity) }
        let groupBy = try (request.propertiesToGroupBy ?? []).map { try resultColumn($0, compiler, scope, entity) }
        let aggregated = !groupBy.isEmpty || columns.contains(where: \.isAggregate)
        if aggregated {
            let groupNames = Set(groupBy.map(\.name))
            if let stray = columns.first(where: { !$0.isAggregate && !groupNames.contains($0.name) }) {
                throw PersistentStoreErrors.make(
                    NSCoreDataError,
                    "Property '\(stray.name)' of a fetch of entity '\(entity.name ?? "?")' must be an aggregate or one of propertiesToGroupBy: SELECT clauses in queries with GROUP BY components can only contain properties named in the GROUP BY or aggregate functions.")
            }
        }
        for column in columns where column.decoding != .objectID && column.isComparable {
            scope.resultColumns[column.name] = column.operand
        }
        let distinctByGrouping = request.returnsDistinctResults && !aggregated
        for column in distinctByGrouping ? columns : groupBy where !column.isComparable {
            throw SQLCompileError("\(distinctByGrouping ? "distinct results with" : "propertiesToGroupBy") '\(column.name)'",
                                  "\(column.operand.attribute?.attributeType.xcodeName ?? "such") values can't be grouped in SQL")
        }
        // Grouped (and made distinct) by the evaluator's equality, not SQLite's BINARY one.
        var grouping: [SQLFragment] = groupBy.flatMap { $0.groupingFragments(compiler) }
        if distinctByGrouping { grouping = columns.flatMap { $0.groupingFragments(compiler) } }
        let grouped = aggregated || distinctByGrouping

        var order: [SQLFragment] = []
        let columnNames = Set(columns.map(\.name))
        for descriptor in request.sortDescriptors ?? [] {
            guard let key = descriptor.key else {
                throw SQLCompileError("a sort descriptor without a key", "it sorts the objects themselves")
            }
            if grouped && !columnNames.contains(key) {
                throw SQLCompileError("the sort descriptor on '\(key)'", "a grouped or distinct dictionary fetch sorts only by fetched properties")
            }
            order.append(try sortTerm(descriptor, compiler, scope))
        }
        let primaryKey = compiler.column(scope.alias, mapping.primaryKeyColumn)
        order.append(dialect.orderTerm(grouped ? "MIN(" + primaryKey + ")" : primaryKey, ascending: true))

        var having: SQLFragment? = nil
        if let predicate = request.havingPredicate {
            guard grouped else {
                throw SQLCompileError("havingPredicate \(predicate)", "a having predicate needs propertiesToGroupBy or aggregates")
            }
            having = try compiler.condition(predicate, in: scope)
        }

        let distinctKeyword = request.returnsDistinctResults && aggregated ? "DISTINCT " : ""
        var statement = SQLFragment("SELECT " + distinctKeyword) + .joined(columns.flatMap(\.fragments), separator: ", ") + " FROM "
        statement += compiler.fromClause(of: scope)
        statement += whereClause(selection.conditions)
        if !grouping.isEmpty { statement += " GROUP BY " + .joined(grouping, separator: ", ") }
        if let having { statement += " HAVING " + having }
        statement += " ORDER BY " + .joined(order, separator: ", ")
        statement += dialect.limitClause(limit: request.fetchLimit, offset: request.fetchOffset)
        return (dialect.finish(statement), columns)
    }

    /// The result column of a `propertiesToFetch` or `propertiesToGroupBy` item.
    private func resultColumn(_ item: Any, _ compiler: SQLCompiler, _ scope: SQLQueryScope, _ entity: NSEntityDescription) throws -> SQLResultColumn {
        switch item {
        case let description as NSExpressionDescription:
            guard let expression = description.expression else {
                throw invalid("expression description '\(description.name)' has no expression")
            }
            if case .function(let function, let arguments) = expression.node,
               DictionaryFetch.aggregateFunctions.contains(function), arguments.count == 1 {
                let argument = try compiler.operand(arguments[0], in: scope)
                let sql: String
                switch function {
                case "sum:", "average:":
                    guard argument.kind == .number || argument.isNull else {
                        throw SQLCompileError("\(description.name) = \(expression)", "\(function) needs numbers")
                    }
                    sql = function == "sum:" ? "SUM" : "AVG"
                case "count:": sql = "COUNT"
                case "min:", "max:":
                    guard compiler.hasSQLExtremes(argument) else {
                        throw SQLCompileError("\(description.name) = \(expression)", "\(function) of \(argument.kind) values is ordered differently in SQL")
                    }
                    sql = function == "min:" ? "MIN" : "MAX"
                default:
                    throw SQLCompileError("\(description.name) = \(expression)", "\(function) has no SQL form")
                }
                let fragment = sql == "MIN" || sql == "MAX" ? compiler.extreme(sql, argument) : SQLFragment(sql + "(") + argument.fragment + ")"
                let decoding: SQLResultDecoding = (sql == "MIN" || sql == "MAX") ? .value(argument.kind, argument.attribute) : .value(.number, nil)
                return SQLResultColumn(name: description.name, fragments: [fragment], decoding: decoding, isAggregate: true,
                                       operand: SQLOperand(fragment: fragment, kind: sql == "MIN" || sql == "MAX" ? argument.kind : .number))
            }
            let value = try compiler.operand(expression, in: scope)
            return SQLResultColumn(name: description.name, fragments: [value.fragment], decoding: .value(value.kind, value.attribute),
                                   isAggregate: false, operand: value)
        case let property as NSPropertyDescription:
            return try keyPathColumn(property.name, compiler, scope, entity)
        case let name as String:
            return try keyPathColumn(name, compiler, scope, entity)
        default:
            throw invalid("\(item) is neither a property description nor a key path")
        }
    }

    private func keyPathColumn(_ path: String, _ compiler: SQLCompiler, _ scope: SQLQueryScope, _ entity: NSEntityDescription) throws -> SQLResultColumn {
        if let attribute = entity.attributesByName[path], attribute.attributeType == .transformableAttributeType {
            // Read only: selected and decoded through the store's value table, never compared.
            let fragment = attribute.isTransient ? SQLFragment("NULL") : compiler.column(scope.alias, try mapping.columnName(for: attribute))
            return SQLResultColumn(name: path, fragments: [fragment], decoding: .value(.unknown, attribute), isAggregate: false,
                                   operand: SQLOperand(fragment: fragment, kind: .unknown, isNull: attribute.isTransient, attribute: attribute),
                                   isComparable: false)
        }
        let first = String(path.split(separator: ".", maxSplits: 1).first ?? "")
        if let relationship = entity.relationshipsByName[first], relationship.isToMany, !path.contains("@") {
            throw invalid("to-many relationship '\(first)' can't be fetched into a dictionary")
        }
        if entity.propertiesByName[first] == nil {
            throw invalid("entity '\(entity.name ?? "?")' has no property '\(first)'")
        }
        let value = try compiler.scalar(path, in: scope, expression: NSExpression(forKeyPath: path))
        if case .object = value.kind {
            // A to-one: the destination's primary key and entity, through its join.
            var alias = scope.alias
            var current = entity
            for key in path.split(separator: ".").map(String.init) {
                guard let relationship = current.relationshipsByName[key], !relationship.isToMany else {
                    throw invalid("'\(path)' does not end in a to-one relationship")
                }
                (alias, current) = try compiler.joinToOne(relationship, from: alias, in: scope)
            }
            return SQLResultColumn(name: path, fragments: [compiler.column(alias, mapping.primaryKeyColumn), compiler.column(alias, mapping.entityColumn)],
                                   decoding: .objectID, isAggregate: false, operand: value)
        }
        return SQLResultColumn(name: path, fragments: [value.fragment], decoding: .value(value.kind, value.attribute),
                               isAggregate: false, operand: value)
    }

    private func invalid(_ message: String) -> NSError {
        PersistentStoreErrors.make(NSCoreDataError, "Invalid propertiesToFetch or propertiesToGroupBy: \(message).")
    }
}

/// One entry of a dictionary result: its name, the selected SQL (two columns for an object ID)
/// and how to turn the column values back into the entry's value.
struct SQLResultColumn {
    let name: String
    let fragments: [SQLFragment]
    let decoding: SQLResultDecoding
    let isAggregate: Bool
    let operand: SQLOperand
    /// False for values SQL can select but not compare, group or sort (transformable
    /// attributes, whose column holds an encoding of the value).
    var isComparable = true

    /// The SQL this entry is grouped by (GROUP BY, or distinct results): its columns, compared
    /// as the evaluator compares values.
    func groupingFragments(_ compiler: SQLCompiler) -> [SQLFragment] {
        decoding == .objectID ? fragments : [compiler.valueOrdered(SQLOperand(fragment: fragments[0], kind: operand.kind))]
    }
}

/// How a result column's values become Swift values.
enum SQLResultDecoding: Equatable {
    /// A value of the given kind; read as the attribute's type when there is one.
    case value(SQLValueKind, NSAttributeDescription?)
    /// A destination's primary key and `Z_ENT`, read as an object ID.
    case objectID
}
