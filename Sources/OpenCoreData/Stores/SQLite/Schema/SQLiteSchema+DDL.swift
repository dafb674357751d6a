import Foundation

extension SQLiteSchema {
    /// The names of Core Data's bookkeeping tables.
    static let primaryKeyTable = "Z_PRIMARYKEY"
    static let metadataTable = "Z_METADATA"
    static let modelCacheTable = "Z_MODELCACHE"

    /// The statements that create the whole schema, in the order Core Data runs them:
    /// bookkeeping tables, entity tables, join tables, then indexes.
    func createStatements(dialect: some SQLDialect) -> [String] {
        Self.bookkeepingStatements(dialect: dialect)
            + tables.map { createTable($0, dialect: dialect) }
            + joinTables.map { createJoinTable($0, dialect: dialect) }
            + tables.flatMap { $0.indexes.map { createIndex($0, dialect: dialect) } }
            + joinTables.map { createIndex($0.reverseIndex, dialect: dialect) }
    }

    /// `Z_PRIMARYKEY`, `Z_METADATA` and `Z_MODELCACHE`, exactly as Apple declares them.
    static func bookkeepingStatements(dialect: some SQLDialect) -> [String] {
        let integer = dialect.typeName(.integer), varchar = dialect.typeName(.varchar), blob = dialect.typeName(.blob)
        return [
            "CREATE TABLE \(dialect.quote(primaryKeyTable)) (Z_ENT \(dialect.primaryKeyDeclaration), Z_NAME \(varchar), Z_SUPER \(integer), Z_MAX \(integer))",
            "CREATE TABLE \(dialect.quote(metadataTable)) (Z_VERSION \(dialect.primaryKeyDeclaration), Z_UUID \(varchar)(255), Z_PLIST \(blob))",
            "CREATE TABLE \(dialect.quote(modelCacheTable)) (Z_CONTENT \(blob))",
        ]
    }

    /// `CREATE TABLE ZCAR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, … )`.
    func createTable(_ table: SQLTableMapping, dialect: some SQLDialect) -> String {
        let integer = dialect.typeName(.integer)
        let columns = ["Z_PK \(dialect.primaryKeyDeclaration)", "Z_ENT \(integer)", "Z_OPT \(integer)"]
            + table.columns.map { "\(dialect.quote($0.name)) \(dialect.typeName($0.type))" }
        return "CREATE TABLE \(dialect.quote(table.name)) ( \(columns.joined(separator: ", ")) )"
    }

    /// `CREATE TABLE Z_1TAGS ( Z_1NOTES INTEGER, Z_2TAGS INTEGER, PRIMARY KEY (Z_1NOTES, Z_2TAGS) )`.
    func createJoinTable(_ table: SQLJoinTableMapping, dialect: some SQLDialect) -> String {
        let integer = dialect.typeName(.integer)
        let columns = ([table.firstColumn, table.secondColumn] + table.orderColumns).map { "\(dialect.quote($0)) \(integer)" }
        let key = "PRIMARY KEY (\(dialect.columnList([table.firstColumn, table.secondColumn])))"
        return "CREATE TABLE \(dialect.quote(table.name)) ( \((columns + [key]).joined(separator: ", ")) )"
    }

    /// `CREATE [UNIQUE] INDEX name ON table (terms)`.
    func createIndex(_ index: SQLIndexDefinition, dialect: some SQLDialect) -> String {
        let terms = index.terms.map { term -> String in
            let parts = term.split(separator: " ", maxSplits: 1).map(String.init)
            return ([dialect.quote(parts[0])] + parts.dropFirst()).joined(separator: " ")
        }
        return "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(dialect.quote(index.name)) ON \(dialect.quote(index.table)) (\(terms.joined(separator: ", ")))"
    }

    /// The `Z_PRIMARYKEY` rows of a new store: `(Z_ENT, Z_NAME, Z_SUPER, 0)` per entity.
    var primaryKeyRows: [(entity: Int64, name: String, superEntity: Int64)] {
        entities.map { ($0.number, $0.name, $0.superNumber) }
    }
}
