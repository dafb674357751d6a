import Foundation
import OpenCoreData
import PostgresNIO

/// Core Data's `Z_PRIMARYKEY` table in a PostgreSQL schema: one row per entity (`Z_ENT`,
/// `Z_NAME`, `Z_SUPER`, `Z_MAX`), from which primary keys are handed out in ranges.
///
/// Many processes on many hosts insert at once, so a range is taken with one statement,
/// `UPDATE … SET "Z_MAX" = "Z_MAX" + n … RETURNING "Z_MAX"`, in a transaction of its own: the
/// row lock serializes concurrent allocations for a moment only (not for a whole save), and
/// no two callers ever get overlapping keys. Keys handed out are never reused, even when their
/// objects are never saved, as in the SQLite store. (A PostgreSQL sequence per entity would do
/// too, but would leave `Z_MAX` behind the keys in use, and Core Data's readers take `Z_MAX`
/// as the largest key.)
///
/// Names are quoted everywhere, so that they keep Core Data's upper case.
public struct PostgresPrimaryKeyTable: Sendable {
    /// The PostgreSQL schema holding the table (a plain identifier, see ``PostgresStoreLocation``).
    public let schema: String

    public init(schema: String) {
        self.schema = schema
    }

    /// `"schema"."Z_PRIMARYKEY"`.
    var qualifiedName: String { PostgresSQL.qualified(schema, "Z_PRIMARYKEY") }

    /// `CREATE TABLE IF NOT EXISTS` of the table (its schema must exist).
    var createStatement: String {
        "CREATE TABLE IF NOT EXISTS \(qualifiedName) (\"Z_ENT\" INTEGER PRIMARY KEY, \"Z_NAME\" VARCHAR, "
            + "\"Z_SUPER\" INTEGER NOT NULL DEFAULT 0, \"Z_MAX\" BIGINT NOT NULL DEFAULT 0)"
    }

    /// Creates the schema and the table where missing.
    public func create(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(PostgresSQL.quote(schema))"), logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: createStatement), logger: logger)
    }

    /// Adds the row of each entity that has none (`number`, `name`, superentity's number, 0 for
    /// a root); rows that exist keep their `Z_MAX`.
    public func register(_ entities: [(number: Int64, name: String, superNumber: Int64)], on connection: PostgresConnection,
                         logger: Logger) async throws {
        for entity in entities {
            try await connection.query("""
                INSERT INTO \(unescaped: qualifiedName) ("Z_ENT", "Z_NAME", "Z_SUPER", "Z_MAX") \
                VALUES (\(entity.number), \(entity.name), \(entity.superNumber), 0) ON CONFLICT ("Z_ENT") DO NOTHING
                """, logger: logger)
        }
    }

    /// Takes `count` (at least 1) keys of root entity `number`: the first and last of the
    /// range. Throws `NSCoreDataError` (134060) when the entity has no row.
    public func allocate(_ count: Int, forEntity number: Int64, on connection: PostgresConnection,
                         logger: Logger) async throws -> ClosedRange<Int64> {
        guard count > 0 else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError, userInfo: [
                NSLocalizedDescriptionKey: "Asked for \(count) primary keys of entity \(number); ask for at least one.",
            ])
        }
        let rows = try await connection.query("""
            UPDATE \(unescaped: qualifiedName) SET "Z_MAX" = "Z_MAX" + \(Int64(count)) WHERE "Z_ENT" = \(number) RETURNING "Z_MAX"
            """, logger: logger)
        var last: Int64?
        for try await row in rows { last = try row.decode(Int64.self) }
        guard let last else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError, userInfo: [
                NSLocalizedDescriptionKey: "\(qualifiedName) has no row for entity \(number): its store was not set up for this model.",
            ])
        }
        return (last - Int64(count) + 1)...last
    }

    /// Every row, by entity number (Core Data's `Z_PRIMARYKEY` shape, as the SQLite store reports it).
    public func rows(on connection: PostgresConnection, logger: Logger) async throws -> [SQLiteStoreEntityRow] {
        let rows = try await connection.query("""
            SELECT "Z_ENT"::bigint, "Z_NAME", "Z_SUPER"::bigint, "Z_MAX" FROM \(unescaped: qualifiedName) ORDER BY "Z_ENT"
            """, logger: logger)
        var result: [SQLiteStoreEntityRow] = []
        for try await row in rows {
            let (number, name, superNumber, max) = try row.decode((Int64, String, Int64, Int64).self)
            result.append(SQLiteStoreEntityRow(entityNumber: number, name: name, superEntityNumber: superNumber, maxPrimaryKey: max))
        }
        return result
    }
}
