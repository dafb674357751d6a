import Foundation
import GRDB
import GRDBSQLite
import Testing
@testable import OpenCoreData

/// The store's direct binding of statement parameters (`Statement.rebind(_:)`), which the
/// save's row writers and the batched key reads use instead of GRDB's arguments.
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
