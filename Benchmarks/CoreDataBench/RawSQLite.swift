import Foundation
import GRDBSQLite

/// A thin wrapper over SQLite's C API: the "raw" column of the benchmark, and the tool that
/// fills the data sets. Nothing here caches or converts more than the C calls themselves.
final class RawDatabase {
    private(set) var handle: OpaquePointer?
    let path: String

    init(path: String) throws {
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "code \(code)"
            sqlite3_close(db)
            throw BenchError("cannot open \(path): \(message)")
        }
        handle = db
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs one or more statements without results.
    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(handle, sql, nil, nil, &error) != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw BenchError("\(message) in \(sql)")
        }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
              let statement else {
            throw BenchError("\(String(cString: sqlite3_errmsg(handle))) in \(sql)")
        }
        return RawStatement(statement, database: self)
    }

    /// The first column of the first row of `sql`, as an integer.
    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { throw BenchError("no row for \(sql)") }
        return statement.int64(0)
    }

    /// Makes a statement that finds the database locked yield the processor and retry, up to
    /// `busyRetryLimit` times (a few seconds), instead of failing at once with `SQLITE_BUSY`.
    /// Not `sqlite3_busy_timeout`: it sleeps (1 ms, then longer), which on W7's short
    /// transactions would measure the sleeps, not the work.
    func retryWhenBusy() {
        sqlite3_busy_handler(handle, { _, count in
            guard count < busyRetryLimit else { return 0 }
            sched_yield()
            return 1
        }, nil)
    }

    var errorMessage: String { String(cString: sqlite3_errmsg(handle)) }
}

final class RawStatement {
    let handle: OpaquePointer
    private unowned let database: RawDatabase

    init(_ handle: OpaquePointer, database: RawDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    @inline(__always) func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    /// Steps once; `true` when a row is available, `false` when done.
    @inline(__always) func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw BenchError(database.errorMessage)
        }
    }

    @inline(__always) func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    @inline(__always) func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}

/// How many times ``RawDatabase/retryWhenBusy()`` retries one locked statement.
let busyRetryLimit: Int32 = 5_000_000

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A text column, or nil for NULL.
func sqlite3TextColumn(_ statement: RawStatement, _ column: Int32) -> String? {
    sqlite3_column_text(statement.handle, column).map { String(cString: $0) }
}
