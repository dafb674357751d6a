/// Compiles the query AST (DESIGN decision 1) to SQL with bound parameters, for a SQL store's
/// schema (``SQLSchemaMapping``) and dialect (``SQLDialect``).
///
/// The contract is the in-memory evaluator's semantics (``PredicateEvaluator``,
/// ``ValueComparison``): a compiled predicate selects exactly the rows the evaluator would keep.
/// What can't be compiled so is refused with a ``SQLCompileError`` naming the construct.
///
/// How the evaluator's rules are kept:
/// - every condition compiled under `NOT` is two-valued (never SQL's NULL/unknown), so `NOT`
///   agrees: ordered comparisons with null are false there (`COALESCE(a < b, 0)`). Elsewhere
///   (WHERE, HAVING, AND/OR of them) SQL already treats unknown as false, so comparisons stay
///   bare and can use indexes;
/// - equality is `IS` / `IS NOT` (null equals only null);
/// - values of different kinds (a string and a number, a date and a number) are never equal or
///   ordered, decided at compile time from attribute types and constant types;
/// - strings (whose comparison folds `[c]`/`[d]` and uses Unicode canonical equivalence) and
///   the string operators are compared by the registered function `ocd_predicate`, which calls
///   the evaluator itself (``SQLFunctions``); strings are sorted with the collation of the sort
///   descriptor's selector, and grouped, made distinct and taken MIN/MAX of with the
///   evaluator's own order (``valueOrdered(_:)``), never SQLite's BINARY order;
/// - key paths across to-one relationships are LEFT JOINs (a missing destination reads null);
///   to-many relationships become correlated subqueries.
/// One compiler compiles one statement: it hands out table aliases `t0`, `t1`, ….
final class SQLCompiler {
    let mapping: any SQLSchemaMapping
    let dialect: any SQLDialect
    private var nextAlias = 0
    /// How many `NOT`s enclose the condition being compiled.
    private var negationDepth = 0
    /// When compiling a statement for every request of a shape (``SQLStatementCache``): the
    /// numbers of the request's constants, bound instead of their values.
    var numbering: SQLParameterNumbering?

    init(mapping: any SQLSchemaMapping, dialect: any SQLDialect = SQLiteDialect()) {
        self.mapping = mapping
        self.dialect = dialect
    }

    /// Compiles `body`'s conditions for a place under `NOT` when `negated`.
    func negating<T>(_ negated: Bool, _ body: () throws -> T) rethrows -> T {
        if negated { negationDepth += 1 }
        defer { if negated { negationDepth -= 1 } }
        return try body()
    }

    /// `condition`, made two-valued (unknown → false) when it is compiled under `NOT`.
    func twoValued(_ condition: SQLFragment) -> SQLFragment {
        negationDepth > 0 ? dialect.nullAsFalse(condition) : condition
    }

    /// A new table alias.
    func makeAlias() -> String {
        defer { nextAlias += 1 }
        return "t\(nextAlias)"
    }

    /// `alias.column`, the column quoted as the dialect needs.
    func column(_ alias: String, _ name: String) -> SQLFragment {
        SQLFragment(alias + "." + dialect.quote(name))
    }

    /// The primary key of a scope's row, as an object operand.
    func objectOperand(of scope: SQLQueryScope) -> SQLOperand {
        SQLOperand(fragment: column(scope.alias, mapping.primaryKeyColumn), kind: .object(root: scope.entity.rootEntity.name ?? ""))
    }

    /// The operand's SQL for GROUP BY, DISTINCT, MIN and MAX, where values must compare as the
    /// evaluator compares them (``ValueComparison``): strings and URLs through the value
    /// collation (``SQLFunctions/valueCollation``), other kinds natively.
    func valueOrdered(_ operand: SQLOperand) -> SQLFragment {
        switch operand.kind {
        case .string, .url: return dialect.collate(operand.fragment, SQLFunctions.valueCollation)
        default: return operand.fragment
        }
    }

    /// `MIN(x)` or `MAX(x)` (`function` is `"MIN"` or `"MAX"`) with the evaluator's order:
    /// strings and URLs through the value collation, decimals (REAL or exact text in a blob)
    /// through the decimal aggregates, which return the extreme's own column value.
    func extreme(_ function: String, _ operand: SQLOperand) -> SQLFragment {
        if operand.isDecimal && !operand.isNull {
            let name = dialect.functionName(function == "MIN" ? .decimalMinimum : .decimalMaximum)
            return SQLFragment(name + "(") + operand.fragment + ")"
        }
        return SQLFragment(function + "(") + valueOrdered(operand) + ")"
    }

    /// The operand's SQL for ORDER BY with `compare:` where numbers must sort by value: a
    /// decimal through its text and the decimal collation, anything else as it is.
    func numericallyOrdered(_ operand: SQLOperand) -> SQLFragment {
        guard operand.isDecimal && !operand.isNull else { return operand.fragment }
        return dialect.collate(SQLFragment(dialect.functionName(.decimalText) + "(") + operand.fragment + ")", SQLFunctions.decimalCollation)
    }

    /// Whether MIN and MAX of values of `operand` (through ``extreme(_:_:)``) give the
    /// evaluator's `min:`/`@min` and `max:`/`@max`. Not for data and UUIDs, nor for values of
    /// unknown kind.
    func hasSQLExtremes(_ operand: SQLOperand) -> Bool {
        if operand.isNull { return true }
        switch operand.kind {
        case .number, .date, .object, .string, .url: return true
        case .data, .uuid, .unknown: return false
        }
    }

    var trueCondition: SQLFragment { SQLFragment(dialect.trueLiteral) }
    var falseCondition: SQLFragment { SQLFragment(dialect.falseLiteral) }

    // MARK: Scopes

    /// The root scope of a fetch of `entity`.
    func rootScope(for entity: NSEntityDescription) throws -> SQLQueryScope {
        SQLQueryScope(entity: entity, alias: makeAlias(), table: try mapping.tableName(for: entity), variable: nil, parent: nil)
    }

    /// The `FROM` clause of a scope: its table and its joins.
    func fromClause(of scope: SQLQueryScope) -> SQLFragment {
        var from = SQLFragment(dialect.quote(scope.table) + " AS " + scope.alias)
        for join in scope.joins { from += " " + join }
        return from
    }

    /// The condition restricting a scope's rows to `entity` (and its subentities when asked);
    /// nil when every row of the table qualifies.
    func entityCondition(alias: String, entity: NSEntityDescription, includingSubentities: Bool) throws -> SQLFragment? {
        if entity.superentity == nil && (includingSubentities || entity.subentities.isEmpty) { return nil }
        let numbers = try mapping.entityNumbers(for: entity, includingSubentities: includingSubentities)
        let column = self.column(alias, mapping.entityColumn)
        if numbers.count == 1 { return column + " = " + .bind(.integer(numbers[0])) }
        return column + " IN (" + .joined(numbers.map { .bind(.integer($0)) }, separator: ", ") + ")"
    }

    /// The alias of the destination of a to-one relationship from `alias`, joining it on first use.
    func joinToOne(_ relationship: NSRelationshipDescription, from alias: String, in scope: SQLQueryScope) throws -> (alias: String, entity: NSEntityDescription) {
        guard let destination = relationship.destinationEntity else {
            throw SQLCompileError("relationship '\(relationship.name)'", "it has no destination entity")
        }
        let key = alias + "." + relationship.name
        if let existing = scope.joinAliases[key] { return (existing, destination) }
        let joined = makeAlias()
        let table = try mapping.tableName(for: destination)
        let foreignKey = try mapping.foreignKeyColumnName(for: relationship)
        scope.joins.append("LEFT JOIN " + SQLFragment(dialect.quote(table)) + " AS " + SQLFragment(joined)
                           + " ON " + column(joined, mapping.primaryKeyColumn) + " = " + column(alias, foreignKey))
        scope.joinAliases[key] = joined
        return (joined, destination)
    }

    // MARK: Key paths

    /// Resolves a key path read from `scope`'s row.
    ///
    /// Attributes and to-one relationships give scalars (to-ones through LEFT JOINs);
    /// the first to-many relationship stops the walk and gives a ``SQLToManyPath`` with the
    /// rest of the path. `@op.rel.key` is read as `rel.@op.key`, as the evaluator does.
    func resolve(_ path: String, in scope: SQLQueryScope) throws -> SQLResolvedPath {
        var components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if components.count >= 3, components[0].hasPrefix("@"), components[0] != "@count" {
            components = [components[1], components[0]] + components[2...]
        }
        var alias = scope.alias
        var entity = scope.entity
        for (index, key) in components.enumerated() {
            let isLast = index == components.count - 1
            if key.hasPrefix("@") {
                throw SQLCompileError("key path '\(path)'", "the collection operator \(key) applies to a to-many relationship only")
            }
            if let attribute = entity.attributesByName[key] {
                guard isLast else {
                    throw SQLCompileError("key path '\(path)'", "it continues after the attribute '\(key)'")
                }
                guard let kind = SQLValueKind(attribute.attributeType) else {
                    throw SQLCompileError("key path '\(path)'", "\(attribute.attributeType.xcodeName) attributes can't be compared in SQL")
                }
                if attribute.isTransient {
                    return .scalar(SQLOperand(fragment: "NULL", kind: kind, isNull: true, attribute: attribute))
                }
                let value = dialect.attributeValue(column(alias, try mapping.columnName(for: attribute)), type: attribute.attributeType)
                return .scalar(SQLOperand(fragment: value, kind: kind, attribute: attribute))
            }
            if let relationship = entity.relationshipsByName[key] {
                if relationship.isToMany {
                    return .toMany(SQLToManyPath(scope: scope, parentAlias: alias, relationship: relationship,
                                                 rest: Array(components[(index + 1)...]), path: path))
                }
                if isLast {
                    let root = relationship.destinationEntity?.rootEntity.name ?? ""
                    return .scalar(SQLOperand(fragment: column(alias, try mapping.foreignKeyColumnName(for: relationship)), kind: .object(root: root)))
                }
                (alias, entity) = try joinToOne(relationship, from: alias, in: scope)
                continue
            }
            if key == "objectID" && isLast {
                return .scalar(SQLOperand(fragment: column(alias, mapping.primaryKeyColumn), kind: .object(root: entity.rootEntity.name ?? "")))
            }
            if entity.propertiesByName[key] != nil {
                throw SQLCompileError("key path '\(path)'", "'\(key)' is a fetched property, which SQL can't read")
            }
            throw SQLCompileError.unknownKey(key, entity: entity)
        }
        return .scalar(SQLOperand(fragment: column(alias, mapping.primaryKeyColumn), kind: .object(root: entity.rootEntity.name ?? "")))
    }

    /// The rows of a to-many relationship of the row `path.parentAlias`: a new scope over the
    /// destination, its `FROM` source and the correlation with the parent row.
    func toManySource(_ path: SQLToManyPath, variable: String? = nil) throws -> SQLToManySource {
        let relationship = path.relationship
        guard let destination = relationship.destinationEntity else {
            throw SQLCompileError("relationship '\(relationship.name)'", "it has no destination entity")
        }
        let inner = SQLQueryScope(entity: destination, alias: makeAlias(), table: try mapping.tableName(for: destination),
                                  variable: variable, parent: path.scope)
        var source: SQLFragment
        var correlation: SQLFragment
        if let inverse = relationship.inverseRelationship, !inverse.isToMany {
            source = SQLFragment(dialect.quote(inner.table) + " AS " + inner.alias)
            correlation = column(inner.alias, try mapping.foreignKeyColumnName(for: inverse)) + " = " + column(path.parentAlias, mapping.primaryKeyColumn)
        } else if relationship.inverseRelationship != nil {
            let join = try mapping.joinTable(for: relationship)
            let joinAlias = makeAlias()
            source = SQLFragment(dialect.quote(join.table) + " AS " + joinAlias + " JOIN " + dialect.quote(inner.table) + " AS " + inner.alias)
                + " ON " + column(inner.alias, mapping.primaryKeyColumn) + " = " + column(joinAlias, join.destinationColumn)
            correlation = column(joinAlias, join.sourceColumn) + " = " + column(path.parentAlias, mapping.primaryKeyColumn)
        } else {
            source = SQLFragment(dialect.quote(inner.table) + " AS " + inner.alias)
            correlation = column(inner.alias, try mapping.destinationKeyColumnName(for: relationship)) + " = " + column(path.parentAlias, mapping.primaryKeyColumn)
        }
        if let restriction = try entityCondition(alias: inner.alias, entity: destination, includingSubentities: true) {
            correlation = correlation + " AND " + restriction
        }
        return SQLToManySource(scope: inner, source: source, correlation: correlation)
    }

    /// `SELECT selection FROM <to-many rows> WHERE correlation [AND condition]`, assembled after
    /// the condition was compiled (so that its joins are known).
    func subquery(_ selection: String, _ source: SQLToManySource, where condition: SQLFragment?) -> SQLFragment {
        var fragment = SQLFragment("SELECT " + selection + " FROM ") + source.source
        for join in source.scope.joins { fragment += " " + join }
        fragment += " WHERE " + source.correlation
        if let condition { fragment += " AND " + condition.parenthesized }
        return fragment
    }
}

/// The rows one part of a statement reads: the fetch's entity, or a to-many relationship's
/// destinations in a subquery. Owns the LEFT JOINs that key paths from its rows add.
final class SQLQueryScope {
    let entity: NSEntityDescription
    let alias: String
    let table: String
    /// The `SUBQUERY` variable naming this scope's row.
    let variable: String?
    let parent: SQLQueryScope?
    var joins: [SQLFragment] = []
    var joinAliases: [String: String] = [:]
    /// The result columns a `havingPredicate` names, by name.
    var resultColumns: [String: SQLOperand] = [:]

    init(entity: NSEntityDescription, alias: String, table: String, variable: String?, parent: SQLQueryScope?) {
        self.entity = entity
        self.alias = alias
        self.table = table
        self.variable = variable
        self.parent = parent
    }

    /// The scope bound to `$name`, here or in an enclosing scope.
    func scope(forVariable name: String) -> SQLQueryScope? {
        variable == name ? self : parent?.scope(forVariable: name)
    }
}

/// A resolved key path: a scalar, or the point where it crosses a to-many relationship.
enum SQLResolvedPath {
    case scalar(SQLOperand)
    case toMany(SQLToManyPath)
}

/// A key path that crosses a to-many relationship: `relationship` of the row `parentAlias`,
/// then `rest` (empty: the destination objects; `@count`, `@sum.x`…: an aggregate; `x.y`:
/// a value of each destination).
struct SQLToManyPath {
    let scope: SQLQueryScope
    let parentAlias: String
    let relationship: NSRelationshipDescription
    let rest: [String]
    let path: String
}

/// A correlated source of to-many destinations.
struct SQLToManySource {
    let scope: SQLQueryScope
    let source: SQLFragment
    let correlation: SQLFragment
}
