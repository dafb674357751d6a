import Foundation
import GRDB
import GRDBSQLite
import Testing
@testable import OpenCoreData

/// The store's direct binding of statement parameters (`Statement.rebind(_:)` and the row
/// writers' `ParameterBinder`), used instead of GRDB's arguments by saves and batched key reads.
@Suite struct SQLiteStatementBindingTests {
    @Test func rebindingBindsEveryValueAndLeavesParametersPastThemNull() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            let statement = try db.makeStatement(sql: "SELECT ?, ?, ?")
            func row(_ values: [DatabaseValue]) throws -> [DatabaseValue] {
                try statement.rebind(values)
                #expect(try statement.stepRow(db))
                return (0..<3).map { DatabaseValue(sqliteStatement: statement.sqliteStatement, index: CInt($0)) }
            }
            let full: [DatabaseValue] = [1.databaseValue, "a".databaseValue, 2.5.databaseValue]
            #expect(try row(full) == full)
            // Fewer values than parameters: the earlier row's bindings do not linger.
            #expect(try row([7.databaseValue]) == [7.databaseValue, .null, .null])
            #expect(try row([Data([1, 2]).databaseValue, .null, 9.databaseValue]) == [Data([1, 2]).databaseValue, .null, 9.databaseValue])
            #expect(try row([]) == [.null, .null, .null])
        }
    }

    /// The row writers' binder: values go to the next parameters as they come, and a run binds
    /// NULL to the parameters past them, so a row never inherits an earlier row's values.
    @Test func theBinderRunsWithEveryParameterBoundAndNoneLeftOver() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t (a, b, c)")
            let statement = try db.makeStatement(sql: "INSERT INTO t VALUES (?, ?, ?)")
            var full = ParameterBinder(statement)
            try full.append(1.databaseValue)
            try full.append("b".databaseValue)
            try full.append(2.5.databaseValue)
            try full.run(db)
            var short = ParameterBinder(statement)
            try short.append(2.databaseValue)
            try short.run(db)
            let rows = try Row.fetchAll(db, sql: "SELECT a, b, c FROM t ORDER BY a")
            #expect(rows.map { [$0[0], $0[1], $0[2]] as [DatabaseValue] } == [
                [1.databaseValue, "b".databaseValue, 2.5.databaseValue],
                [2.databaseValue, .null, .null],
            ])
        }
    }

    /// A value SQLite refuses (a text longer than the connection allows) throws with the
    /// statement's SQL: it never leaves the parameter holding the earlier row's value.
    @Test func aRefusedValueThrowsInsteadOfKeepingTheEarlierBinding() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            let statement = try db.makeStatement(sql: "SELECT ?, ?")
            try statement.rebind(["kept".databaseValue, 1.databaseValue])
            #expect(try statement.stepRow(db))
            sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, 16)
            #expect {
                try statement.rebind([String(repeating: "x", count: 64).databaseValue, 2.databaseValue])
            } throws: { error in
                (error as? DatabaseError)?.resultCode == .SQLITE_TOOBIG && (error as? DatabaseError)?.sql == "SELECT ?, ?"
            }
        }
    }
}
