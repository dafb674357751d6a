/// Batch updates as one statement: the rows come from the same selection as a fetch's, so
/// that a batch update's predicate matches exactly the objects a fetch with it returns.
extension SQLFetchCompiler {
    /// One column a batch update sets, and the SQL of its new value over the selected row.
    struct BatchAssignment {
        let column: String
        let value: SQLFragment
    }

    /// `UPDATE table SET column = ocd_u.ocd_v0, …, Z_OPT = Z_OPT + 1 FROM (SELECT t0.Z_PK, value, …
    /// FROM … WHERE …) AS ocd_u WHERE table.Z_PK = ocd_u.ocd_pk RETURNING table.Z_PK, table.Z_ENT,
    /// then the `returning` columns`.
    ///
    /// `assignment(index, compile)` gives the column and new value of the update's value
    /// number `index`; `compile` compiles an expression over the row. It returns nil when a
    /// value has no SQL form the evaluator would agree with, and then so does this method.
    func batchUpdate(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription, valueCount: Int, returning: [String],
                     assignment: (Int, (NSExpression) throws -> SQLOperand) throws -> BatchAssignment?) throws -> SQLStatement? {
        let selection = try self.selection(request, entity: entity)
        let compiler = selection.compiler, scope = selection.scope
        var assignments: [BatchAssignment] = []
        for index in 0..<valueCount {
            guard let assigned = try assignment(index, { try compiler.operand($0, in: scope) }) else { return nil }
            assignments.append(assigned)
        }
        let table = dialect.quote(scope.table)
        let key = mapping.primaryKeyColumn, kind = mapping.entityColumn
        var source = SQLFragment("SELECT ") + compiler.column(scope.alias, key) + " AS ocd_pk"
        for (index, assigned) in assignments.enumerated() { source += SQLFragment(", ") + assigned.value + SQLFragment(" AS ocd_v\(index)") }
        source += " FROM " + compiler.fromClause(of: scope) + whereClause(selection.conditions)
        let sets = assignments.enumerated().map { "\(dialect.quote($1.column)) = ocd_u.ocd_v\($0)" } + ["Z_OPT = Z_OPT + 1"]
        let returned = ([key, kind] + returning).map { table + "." + dialect.quote($0) }
        let statement = SQLFragment("UPDATE \(table) SET " + sets.joined(separator: ", ") + " FROM (") + source
            + SQLFragment(") AS ocd_u WHERE \(table).\(dialect.quote(key)) = ocd_u.ocd_pk RETURNING " + returned.joined(separator: ", "))
        return dialect.finish(statement)
    }
}
