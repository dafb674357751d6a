import Foundation

/// A batch update as one SQL statement sets it, for every SQL store: which values the database
/// computes, and the statement.
///
/// A value goes into the SQL when the database computes exactly what the evaluator would: a
/// constant (converted to the attribute's type first, so a wrong type fails with 1550 as it
/// does in every store); integer arithmetic (`+`, `-`, `*`) over the entity's own integer
/// attributes and integer constants, for an integer attribute; the same with floating-point
/// operands for a Double attribute; `now()` or a date attribute, for a date attribute. Any
/// other expression (a string function, a key path across a relationship, a Float or Decimal
/// attribute) has no plan, and the store updates through snapshots, as the other stores do.
struct SQLBatchUpdatePlan {
    /// The new value of one attribute.
    enum NewValue {
        /// The same value for every row, converted to the attribute's type (nil: null).
        case constant(Any?)
        /// An expression over each row's own attributes.
        case computed(NSExpression)
    }

    struct Assignment {
        let attribute: NSAttributeDescription
        let column: SQLAttributeColumn
        let value: NewValue
    }

    let update: StoreBatchUpdate
    /// The table of the update's entity.
    let tableName: String
    /// One per value of the update, in its order.
    let assignments: [Assignment]

    /// The plan of `update` over `schema`, or nil when a value has no SQL form (see above).
    /// A constant of the wrong type throws `NSManagedObjectValidationError` (1550).
    init?(_ update: StoreBatchUpdate, schema: SQLiteSchema) throws {
        guard let mapping = schema.entity(named: update.entity.name ?? "") else { return nil }
        var assignments: [Assignment] = []
        for (attribute, expression) in update.values {
            guard let column = mapping.attributes[attribute.name] else { return nil }
            if case .constant(let value) = expression.node {
                let converted = try BatchValues.converted(value, for: attribute, row: nil)
                assignments.append(Assignment(attribute: attribute, column: column, value: .constant(converted)))
            } else {
                guard Self.computesInSQL(expression, for: attribute.attributeType, entity: update.entity) else { return nil }
                assignments.append(Assignment(attribute: attribute, column: column, value: .computed(expression)))
            }
        }
        self.update = update
        self.tableName = mapping.tableName
        self.assignments = assignments
    }

    /// The attributes whose new values are integers the database computes: a result out of
    /// the attribute's range must fail the update (1550) instead of being stored.
    var computedIntegers: [Assignment] {
        assignments.filter { assignment in
            guard case .computed = assignment.value else { return false }
            switch assignment.attribute.attributeType {
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType: return true
            default: return false
            }
        }
    }

    /// The `UPDATE … RETURNING` statement (``SQLFetchCompiler/batchUpdate(_:entity:valueCount:returning:assignment:)``);
    /// `constant(index, value)` gives what is bound for the constant of assignment `index`.
    /// Nil when the compiler can't translate the predicate: the snapshot path fetches with it
    /// and reports why.
    func statement(mapping: any SQLSchemaMapping, dialect: any SQLDialect, returning: [String],
                   constant: (Int, Any?) throws -> SQLValue) throws -> SQLStatement? {
        let compiler = SQLFetchCompiler(mapping: mapping, dialect: dialect)
        do {
            return try compiler.batchUpdate(update.fetchRequest(resultType: .managedObjectIDResultType), entity: update.entity,
                                            valueCount: assignments.count, returning: returning) { index, compile in
                let assignment = assignments[index]
                switch assignment.value {
                case .constant(let value):
                    return .init(column: assignment.column.column, value: .constant(try constant(index, value)))
                case .computed(let expression):
                    let operand = try compile(expression).fragment
                    let isDouble = assignment.attribute.attributeType == .doubleAttributeType
                    return .init(column: assignment.column.column, value: .computed(isDouble ? dialect.real(operand) : operand))
                }
            }
        } catch is SQLCompileError {
            return nil
        }
    }

    /// Whether the database computes `expression` for an attribute of `type` exactly as the
    /// evaluator would (see the type's comment).
    static func computesInSQL(_ expression: NSExpression, for type: NSAttributeType, entity: NSEntityDescription) -> Bool {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return isArithmetic(expression, entity: entity, integers: true)
        case .doubleAttributeType:
            return isArithmetic(expression, entity: entity, integers: false)
        case .dateAttributeType:
            switch expression.node {
            case .function("now", let arguments): return arguments.isEmpty
            case .keyPath(let path): return entity.attributesByName[path].map { !$0.isTransient && $0.attributeType == .dateAttributeType } ?? false
            default: return false
            }
        default:
            return false
        }
    }

    /// `+`, `-` and `*` over numeric constants and the entity's own numeric attributes (only
    /// integers when `integers`).
    private static func isArithmetic(_ expression: NSExpression, entity: NSEntityDescription, integers: Bool) -> Bool {
        switch expression.node {
        case .constant(let value):
            switch value {
            case is Int, is Int64, is Int32, is Int16, is Int8, is UInt8, is UInt16, is UInt32: return true
            case let double as Double: return !integers && double.isFinite
            default: return false
            }
        case .keyPath(let path):
            guard let attribute = entity.attributesByName[path], !attribute.isTransient else { return false }
            switch attribute.attributeType {
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType: return true
            case .doubleAttributeType: return !integers
            default: return false
            }
        case .function(let name, let arguments):
            return SQLCompiler.nativeArithmetic[name] != nil && arguments.count == 2
                && arguments.allSatisfy { isArithmetic($0, entity: entity, integers: integers) }
        default:
            return false
        }
    }
}
