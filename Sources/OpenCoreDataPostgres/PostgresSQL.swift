import Foundation
import OpenCoreData
import PostgresNIO

/// The SQL text helpers of the PostgreSQL store: quoting (every name, so that Core Data's
/// upper case survives), qualified names, and transactions with bounded retries.
enum PostgresSQL {
    /// `"name"`, with quotes inside doubled.
    static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `"schema"."name"`.
    static func qualified(_ schema: String, _ name: String) -> String {
        quote(schema) + "." + quote(name)
    }

    /// `$first, $first+1, …` for `count` parameters.
    static func placeholders(count: Int, first: Int = 1) -> String {
        (0..<count).map { "$\(first + $0)" }.joined(separator: ", ")
    }
}

extension PostgresStore {
    /// Runs `body` in a transaction on `connection`: committed when it returns, rolled back
    /// when it throws, which rethrows `body`'s own error (not postgres-nio's wrapper). A
    /// deadlock or serialization failure (SQLSTATE 40P01, 40001) runs `body` again, up to
    /// ``retryLimit`` times.
    static func transaction<T: Sendable>(on connection: PostgresConnection, logger: Logger,
                                         _ body: (PostgresConnection) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            try await connection.query("BEGIN", logger: logger)
            do {
                let value = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return value
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                if PostgresErrors.isRetryable(error), attempt <= retryLimit { continue }
                throw error
            }
        }
    }

    /// Runs `body` with a connection of the store's pool, waiting for it on the calling thread.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection, Opened) async throws -> T) throws -> T {
        let opened = try open()
        return try opened.bridge.wait { client in
            try await client.withConnection { connection in try await body(connection, opened) }
        }
    }
}

/// What the server's errors mean to the store.
enum PostgresErrors {
    /// The SQLSTATE of a server error.
    static func sqlState(_ error: Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// Whether the server refused a statement for its text or types (SQLSTATE classes 42,
    /// syntax or access rule, and 22, data exception), not for the data or the connection: a
    /// compiled fetch it refuses is evaluated in memory instead.
    static func isStatementProblem(_ error: Error) -> Bool {
        guard let state = sqlState(error) else { return false }
        return state.hasPrefix("42") || state.hasPrefix("22")
    }

    /// A limit of the server's, such as a value over 1 GB (SQLSTATE class 54).
    static func isProgramLimit(_ error: Error) -> Bool {
        sqlState(error)?.hasPrefix("54") ?? false
    }

    /// A deadlock (40P01) or serialization failure (40001): the transaction may succeed again.
    static func isRetryable(_ error: Error) -> Bool {
        ["40P01", "40001"].contains(sqlState(error) ?? "")
    }

    /// What went wrong decoding a value, for an error that names its table, column and row.
    static func problem(_ error: Error) -> String {
        if let error = error as? PostgresDecodingError {
            return "a \(error.postgresType) value can't be read as \(error.targetType) (\(error.code))"
        }
        return (error as NSError).localizedDescription
    }

    /// A description with the server's message and SQLSTATE when there is one.
    static func describe(_ error: Error) -> String {
        if let error = error as? PSQLError, let info = error.serverInfo {
            return "\(info[.message] ?? "\(error.code)") (SQLSTATE \(info[.sqlState] ?? "?"))"
        }
        return String(reflecting: error)
    }
}
