import Foundation
import OpenCoreData

/// The tables of a model in a PostgreSQL schema: Core Data's shape (`Z_PK`, `Z_ENT`, `Z_OPT`,
/// `Z<ATTR>` columns, `Z_<n><REL>` join tables, `Z_PRIMARYKEY`, `Z_METADATA`) with the names the
/// SQLite store gives them, and each attribute in its native type (``PostgresValueCoding``).
///
/// Every name is quoted, so that it keeps Core Data's upper case. Keys and foreign keys are
/// `BIGINT`, entity numbers and versions `INTEGER`, order columns (`Z_FOK_…`) `BIGINT`.
/// Indexes keep Core Data's names and columns; their SQLite collations are left out.
/// The statements create what is missing (`IF NOT EXISTS`), so running them again changes
/// nothing.
public struct PostgresSchemaDefinition: Sendable {
    /// The PostgreSQL schema (a plain identifier, see ``PostgresStoreLocation``).
    public let schema: String
    let layout: SQLiteSchema

    /// The definition of `model`'s entities (those of `configurationName`, when given).
    public init(model: NSManagedObjectModel, configurationName: String? = nil, schema: String) {
        self.schema = schema
        layout = SQLiteSchema(model: model, configurationName: configurationName)
    }

    /// `"schema"."name"`.
    func qualified(_ name: String) -> String { PostgresSQL.qualified(schema, name) }

    func quote(_ identifier: String) -> String { PostgresSQL.quote(identifier) }

    /// The statements, in order: the schema, `Z_PRIMARYKEY`, `Z_METADATA`, the entity tables,
    /// the join tables, the indexes.
    public var statements: [String] {
        var statements = ["CREATE SCHEMA IF NOT EXISTS \(quote(schema))"]
        statements.append(PostgresPrimaryKeyTable(schema: schema).createStatement)
        statements.append("CREATE TABLE IF NOT EXISTS \(qualified("Z_METADATA")) (\"Z_VERSION\" INTEGER PRIMARY KEY, \"Z_UUID\" VARCHAR(255), \"Z_PLIST\" BYTEA)")
        for table in layout.tables {
            let types = attributeTypes(of: table)
            let columns = ["\"Z_PK\" BIGINT PRIMARY KEY", "\"Z_ENT\" INTEGER NOT NULL", "\"Z_OPT\" INTEGER NOT NULL DEFAULT 1"]
                + table.columns.map { column in "\(quote(column.name)) \(columnType(column, attributeType: types[column.name]))" }
            statements.append("CREATE TABLE IF NOT EXISTS \(qualified(table.name)) (\(columns.joined(separator: ", ")))")
        }
        for table in layout.joinTables {
            let columns = ([table.firstColumn, table.secondColumn] + table.orderColumns).map { "\(quote($0)) BIGINT" }
            let key = "PRIMARY KEY (\(quote(table.firstColumn)), \(quote(table.secondColumn)))"
            statements.append("CREATE TABLE IF NOT EXISTS \(qualified(table.name)) (\((columns + [key]).joined(separator: ", ")))")
        }
        for index in layout.tables.flatMap(\.indexes) + layout.joinTables.map(\.reverseIndex) {
            let terms = index.terms.map { term -> String in
                let parts = term.split(separator: " ").map(String.init)
                let direction = parts.dropFirst().last { ["ASC", "DESC"].contains($0.uppercased()) }
                // Nulls first ascending (last descending), the order compiled fetches sort in
                // (PostgreSQLDialect.orderTerm), so the index serves their ORDER BY either way.
                let descending = direction?.uppercased() == "DESC"
                return quote(parts.first ?? term) + (descending ? " DESC NULLS LAST" : " ASC NULLS FIRST")
            }
            statements.append("CREATE \(index.isUnique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(quote(index.name)) ON \(qualified(index.table)) "
                + "(\(terms.joined(separator: ", ")))")
        }
        return statements
    }

    /// The `Z_PRIMARYKEY` rows: every entity with its superentity's number.
    public var primaryKeyRows: [(number: Int64, name: String, superNumber: Int64)] {
        layout.entities.map { ($0.number, $0.name, $0.superNumber) }
    }

    /// The attribute type of each attribute column of `table` (from every entity stored in it).
    private func attributeTypes(of table: SQLTableMapping) -> [String: NSAttributeType] {
        var types: [String: NSAttributeType] = [:]
        for entity in layout.entities where entity.tableName == table.name {
            for column in entity.attributes.values { types[column.column] = column.attributeType }
        }
        return types
    }

    /// An attribute column's native type; other columns (keys, entity numbers, orders) by kind.
    private func columnType(_ column: SQLColumnDefinition, attributeType: NSAttributeType?) -> String {
        if let attributeType, let type = PostgresValueCoding.columnType(for: attributeType) { return type }
        switch column.type {
        case .integer: return "BIGINT"
        case .decimal: return "NUMERIC"
        case .float, .timestamp: return "DOUBLE PRECISION"
        case .varchar: return "TEXT"
        case .blob: return "BYTEA"
        }
    }
}
