import GRDB

/// Registering the compiler's functions and collations on a GRDB connection, and converting
/// between ``SQLValue`` and GRDB's values.
extension SQLFunctions {
    /// Registers `ocd_predicate`, `ocd_function`, the sort collations, `ocd_value`, the
    /// decimal functions and Apple's trigger functions (``registerAppleTriggerFunctions(on:)``)
    /// on `db`. The SQLite
    /// store calls it for every connection it opens (`Configuration.prepareDatabase`).
    static func register(on db: Database) {
        db.add(function: DatabaseFunction(predicate, argumentCount: 4, pure: true) { arguments in
            guard let op = arguments[0].storage.int64, let options = arguments[3].storage.int64 else {
                throw SQLCompileError("\(predicate)()", "the operator and options must be integers")
            }
            return try evaluatePredicate(operator: op, SQLValue(arguments[1]), SQLValue(arguments[2]), options: options) ? 1 : 0
        })
        db.add(function: DatabaseFunction(function, argumentCount: nil, pure: true) { arguments in
            guard case .string(let name)? = arguments.first?.storage else {
                throw SQLCompileError("\(function)()", "the first argument must name a function")
            }
            return try evaluateFunction(name, arguments.dropFirst().map(SQLValue.init)).databaseValue
        })
        for comparison in SortComparison.allCases {
            db.add(collation: DatabaseCollation(collationName(comparison)) { a, b in collate(comparison, a, b) })
        }
        db.add(collation: DatabaseCollation(valueCollation) { a, b in collateValues(a, b) })
        db.add(collation: DatabaseCollation(decimalCollation) { a, b in collateDecimals(a, b) })
        db.add(function: DatabaseFunction(Registered.decimalText.rawValue, argumentCount: 1, pure: true) { arguments in
            decimalText(SQLValue(arguments[0])).databaseValue
        })
        db.add(function: DatabaseFunction(Registered.decimalMinimum.rawValue, argumentCount: 1, pure: true, aggregate: DecimalExtreme<LeastDecimal>.self))
        db.add(function: DatabaseFunction(Registered.decimalMaximum.rawValue, argumentCount: 1, pure: true, aggregate: DecimalExtreme<GreatestDecimal>.self))
        registerAppleTriggerFunctions(on: db)
    }
}

extension SQLValue {
    /// The value of a GRDB database value.
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let v): self = .integer(v)
        case .double(let v): self = .real(v)
        case .string(let v): self = .text(v)
        case .blob(let v): self = .blob(v)
        }
    }

    /// The GRDB database value.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let v): return v.databaseValue
        case .real(let v): return v.databaseValue
        case .text(let v): return v.databaseValue
        case .blob(let v): return v.databaseValue
        // Filled in by the statement cache before any statement runs.
        case .parameter: return .null
        }
    }
}

extension SQLStatement {
    /// The bindings as GRDB statement arguments.
    var arguments: StatementArguments {
        StatementArguments(bindings.map(\.databaseValue))
    }
}

private extension DatabaseValue.Storage {
    var int64: Int64? {
        if case .int64(let v) = self { return v }
        return nil
    }
}

/// Which end `ocd_decimal_min` and `ocd_decimal_max` keep.
private protocol DecimalExtremeEnd { static var greatest: Bool { get } }
private enum LeastDecimal: DecimalExtremeEnd { static var greatest: Bool { false } }
private enum GreatestDecimal: DecimalExtremeEnd { static var greatest: Bool { true } }

/// `ocd_decimal_min` / `ocd_decimal_max`: the column value of the least or greatest decimal
/// of a group.
private struct DecimalExtreme<End: DecimalExtremeEnd>: DatabaseAggregate {
    var best: SQLValue?
    mutating func step(_ dbValues: [DatabaseValue]) {
        let value = SQLValue(dbValues[0])
        if SQLFunctions.isBetterDecimal(value, than: best, greatest: End.greatest) { best = value }
    }
    func finalize() -> (any DatabaseValueConvertible)? { best?.databaseValue }
}

extension Array where Element == SQLResultColumn {
    /// The dictionary result of one selected row: each column's values (one, or two for an
    /// object ID) decoded into its entry; NULL leaves the entry out.
    func dictionary(from row: Row, mapping: any SQLSchemaMapping, store: NSPersistentStore) throws -> [String: Any] {
        var result: [String: Any] = [:]
        var index = 0
        for column in self {
            let width = column.fragments.count
            let values = (index..<index + width).map { SQLValue(row[$0] as DatabaseValue) }
            index += width
            if let value = try column.decoding.decode(values, mapping: mapping, store: store) { result[column.name] = value }
        }
        return result
    }
}
