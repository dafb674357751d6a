/// Batch updates as one statement: the rows come from the same selection as a fetch's, so
/// that a batch update's predicate matches exactly the objects a fetch with it returns.
extension SQLFetchCompiler {
    /// One column a batch update sets, and its new value.
    struct BatchAssignment {
        enum Value {
            /// The same value for every row, bound in the `SET` clause (where PostgreSQL gives
            /// a parameter the column's type).
            case constant(SQLValue)
            /// An expression over the selected row, computed in the selection.
            case computed(SQLFragment)
        }

        let column: String
        let value: Value
    }

    /// `UPDATE table SET column = ?, column = batch_rows.batch_v0, …, "Z_OPT" = "Z_OPT" + 1
    /// FROM (SELECT t0."Z_PK" AS batch_pk, value AS batch_v0, … FROM … WHERE …) AS batch_rows
    /// WHERE table."Z_PK" = batch_rows.batch_pk RETURNING table."Z_PK", table."Z_ENT"`, then
    /// the `returning` columns.
    ///
    /// `assignment(index, compile)` gives the column and new value of the update's value
    /// number `index`; `compile` compiles an expression over the row. It returns nil when a
    /// value has no SQL form the evaluator would agree with, and then so does this method.
    func batchUpdate(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription, valueCount: Int, returning: [String],
                     assignment: (Int, (NSExpression) throws -> SQLOperand) throws -> BatchAssignment?) throws -> SQLStatement? {
        let selection = try self.selection(request, entity: entity)
        let compiler = selection.compiler, scope = selection.scope
        let table = dialect.quote(scope.table)
        let key = mapping.primaryKeyColumn, kind = mapping.entityColumn, version = dialect.quote("Z_OPT")
        var sets: [SQLFragment] = []
        var source = SQLFragment("SELECT ") + compiler.column(scope.alias, key) + " AS batch_pk"
        var computed = 0
        for index in 0..<valueCount {
            guard let assigned = try assignment(index, { try compiler.operand($0, in: scope) }) else { return nil }
            let column = dialect.quote(assigned.column)
            switch assigned.value {
            case .constant(let value):
                sets.append(SQLFragment(column + " = ") + .bind(value))
            case .computed(let value):
                source += SQLFragment(", ") + value + SQLFragment(" AS batch_v\(computed)")
                sets.append(SQLFragment(column + " = batch_rows.batch_v\(computed)"))
                computed += 1
            }
        }
        sets.append(SQLFragment("\(version) = \(version) + 1"))
        source += " FROM " + compiler.fromClause(of: scope) + whereClause(selection.conditions)
        let returned = ([key, kind] + returning).map { table + "." + dialect.quote($0) }
        let statement = SQLFragment("UPDATE \(table) SET ") + .joined(sets, separator: ", ") + " FROM (" + source
            + SQLFragment(") AS batch_rows WHERE \(table).\(dialect.quote(key)) = batch_rows.batch_pk RETURNING " + returned.joined(separator: ", "))
        return dialect.finish(statement)
    }
}
