import Foundation
import GRDB

/// Fetches with predicates, sort descriptors and dictionary results, compiled to SQL
/// (`SQL/`): the rows, their order, the window, counts and dictionaries all come from SQLite.
/// A construct the compiler can't translate exactly fails the fetch with an error naming it.
extension SQLiteStore {
    /// The schema as the SQL compiler sees it.
    var compilerMapping: SQLiteCompilerMapping {
        SQLiteCompilerMapping(schema: schema, model: managedObjectModel, externalDataDirectory: externalDataDirectory)
    }

    /// Runs `request` through the SQL compiler on `queue`; rows `cache` holds at their current
    /// `Z_OPT` are not decoded again. Object, ID and count fetches compile once per shape
    /// (``SQLStatementCache``) and run with their own constants.
    func compiledFetch(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription, queue: DatabaseQueue,
                       cache: SQLiteRowCache?) throws -> StoreFetchResult {
        do {
            switch request.resultType {
            case .countResultType:
                let statement = try statement(for: request, entity: entity) { try $0.count(request, entity: entity) }
                return .count(try queue.inDatabase { db in
                    try Int.fetchOne(db.cachedStatement(sql: statement.sql), arguments: statement.arguments) ?? 0
                })
            case .managedObjectIDResultType:
                let statement = try statement(for: request, entity: entity) { try $0.objects(request, entity: entity) }
                guard let table = schema.entity(named: entity.name ?? "")?.tableName else {
                    throw SQLCompileError("entity '\(entity.name ?? "?")'", "the store's schema has no table for it")
                }
                return .objectIDs(try queue.inDatabase { db in
                    try readObjectIDs(sql: statement.sql, arguments: statement.bindings.map(\.databaseValue), table: table, db: db)
                })
            case .dictionaryResultType:
                let mapping = compilerMapping
                let (statement, columns) = try SQLFetchCompiler(mapping: mapping, dialect: dialect).dictionaries(request, entity: entity)
                return .dictionaries(try queue.inDatabase { db in
                    try Row.fetchAll(db, sql: statement.sql, arguments: statement.arguments).map { row in
                        try columns.dictionary(from: row, mapping: mapping, store: self)
                    }
                })
            default:
                guard let layout = layout(for: entity) else { return .snapshots([]) }
                let statement = try statement(for: request, entity: entity) {
                    try $0.objects(request, entity: entity, columns: Array(layout.columns.dropFirst(2)))
                }
                return .snapshots(try queue.inDatabase { db in
                    try readSnapshots(layout, sql: statement.sql, arguments: statement.bindings.map(\.databaseValue), db: db, reusing: cache)
                })
            }
        } catch let error as SQLiteColumnValueError {
            throw SQLiteRowErrors.unreadableRow(table: error.table, column: error.column, primaryKey: nil, error.problem, store: self)
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw PersistentStoreErrors.fetchFailed(error, entity: entity, store: self)
        }
    }

    /// `compile`'s statement for `request`: from the statement cache when a request of its shape
    /// was compiled before, else compiled with its constants numbered and cached; a request
    /// without a shape (``SQLRequestShape``) is compiled on its own, as every request was before.
    func statement(for request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription,
                   _ compile: (SQLFetchCompiler) throws -> SQLStatement) throws -> SQLStatement {
        let (schema, statements) = schemaAndStatements
        let compiler = {
            SQLFetchCompiler(mapping: SQLiteCompilerMapping(schema: schema, model: self.managedObjectModel,
                                                            externalDataDirectory: self.externalDataDirectory),
                             dialect: self.dialect)
        }
        guard let shape = SQLRequestShape(request, entity: entity) else { return try compile(compiler()) }
        return try statements.statement(for: shape) { shape in
            var numbered = compiler()
            let numbering = SQLParameterNumbering(shape)
            numbered.numbering = numbering
            let template = try compile(numbered)
            return (template, numbering.isComplete)
        }
    }
}

/// The SQLite store's schema (``SQLiteSchema``) as the SQL compiler's ``SQLSchemaMapping``.
struct SQLiteCompilerMapping: SQLSchemaMapping {
    let schema: SQLiteSchema
    let model: NSManagedObjectModel?
    /// Where the store keeps externally stored binary data (``SQLiteStore/externalDataDirectory``).
    var externalDataDirectory: URL? = nil

    private func mapping(_ entity: NSEntityDescription?) throws -> SQLEntityMapping {
        guard let name = entity?.name, let mapping = schema.entity(named: name) else {
            throw SQLCompileError("entity '\(entity?.name ?? "?")'", "the store's schema has no table for it")
        }
        return mapping
    }

    func tableName(for entity: NSEntityDescription) throws -> String {
        try mapping(entity).tableName
    }

    func columnName(for attribute: NSAttributeDescription) throws -> String {
        guard let column = try mapping(attribute.entity).attributes[attribute.name]?.column else {
            throw SQLCompileError("attribute '\(attribute.name)'", "the store's schema has no column for it")
        }
        return column
    }

    func foreignKeyColumnName(for relationship: NSRelationshipDescription) throws -> String {
        guard let key = try mapping(relationship.entity).toOne[relationship.name] else {
            throw SQLCompileError("relationship '\(relationship.name)'", "the store's schema has no foreign key for it")
        }
        return key.column
    }

    func joinTable(for relationship: NSRelationshipDescription) throws -> (table: String, sourceColumn: String, destinationColumn: String) {
        guard case .joinTable(let name, let source, let destination, _)? = try mapping(relationship.entity).toMany[relationship.name] else {
            throw SQLCompileError("relationship '\(relationship.name)'", "the store's schema has no join table for it")
        }
        return (name, source, destination)
    }

    func destinationKeyColumnName(for relationship: NSRelationshipDescription) throws -> String {
        guard case .destinationKey(_, let column, _, _)? = try mapping(relationship.entity).toMany[relationship.name] else {
            throw SQLCompileError("relationship '\(relationship.name)'", "the store's schema has no destination key column for it")
        }
        return column
    }

    func entityNumber(for entity: NSEntityDescription) throws -> Int64 {
        try mapping(entity).number
    }

    func entity(forNumber number: Int64) -> NSEntityDescription? {
        schema.entity(number: number).flatMap { model?.entitiesByName[$0.name] }
    }

    /// Through ``SQLiteValueCoding``, with the attribute's column (its value transformer). A
    /// value the attribute can't hold throws ``SQLiteColumnValueError`` naming table and column.
    func attributeValue(_ value: SQLValue, of attribute: NSAttributeDescription) throws -> Any? {
        let entityMapping = try? mapping(attribute.entity)
        let column = entityMapping?.attributes[attribute.name]
        do {
            if let column {
                return try SQLiteValueCoding.value(value.databaseValue, column: column, externalDataDirectory: externalDataDirectory)
            }
            return try SQLiteValueCoding.value(value.databaseValue, type: attribute.attributeType)
        } catch {
            throw SQLiteColumnValueError(table: entityMapping?.tableName ?? "?", column: column?.column ?? attribute.name, problem: error.description)
        }
    }
}
