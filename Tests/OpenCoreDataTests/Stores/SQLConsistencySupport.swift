import Foundation
import GRDB
import Testing
@testable import OpenCoreData
import OpenCoreDataPostgres

/// A model for the SQL compiler and consistency tests, built in code, whose key names cover the
/// real-world corpus's common shapes.
///
/// - `Item`: many attribute types; `parent` ↔ `items` (one-to-many on itself), `tags` ↔
///   `Tag.items` (many-to-many), `category` ↔ `Category.items`, `tasks` ↔ `Task.item`,
///   `owner` ↔ `Person.items`; subentity `SpecialItem` (`level`).
/// - `Tag` (`name`), `Category` (`name`), `Task` (`title`, `isCompleted`, `price`),
///   `Person` (`firstName`, `lastName`, `age`).
enum SQLTestModel {
    static func make() -> NSManagedObjectModel {
        let item = entity("Item", [
            attribute("name", .stringAttributeType), attribute("title", .stringAttributeType),
            attribute("age", .integer32AttributeType), attribute("price", .doubleAttributeType),
            attribute("amount", .decimalAttributeType), attribute("quantity", .integer16AttributeType),
            attribute("sortOrder", .integer64AttributeType), attribute("isCompleted", .booleanAttributeType),
            attribute("date", .dateAttributeType), attribute("createdAt", .dateAttributeType),
            attribute("email", .stringAttributeType), attribute("status", .stringAttributeType),
            attribute("syncStatus", .integer16AttributeType), attribute("rating", .floatAttributeType),
            attribute("id", .UUIDAttributeType), attribute("website", .URIAttributeType),
            attribute("payload", .binaryDataAttributeType), attribute("firstName", .stringAttributeType),
            attribute("lastName", .stringAttributeType), attribute("score", .integer64AttributeType),
        ])
        let special = entity("SpecialItem", [attribute("level", .integer16AttributeType)])
        let tag = entity("Tag", [attribute("name", .stringAttributeType)])
        let category = entity("Category", [attribute("name", .stringAttributeType)])
        let task = entity("Task", [attribute("title", .stringAttributeType), attribute("isCompleted", .booleanAttributeType),
                                   attribute("price", .doubleAttributeType)])
        let person = entity("Person", [attribute("firstName", .stringAttributeType), attribute("lastName", .stringAttributeType),
                                       attribute("age", .integer32AttributeType)])
        pair(item, "items", toMany: true, item, "parent", toMany: false)
        pair(item, "tags", toMany: true, tag, "items", toMany: true)
        pair(item, "category", toMany: false, category, "items", toMany: true)
        pair(item, "tasks", toMany: true, task, "item", toMany: false)
        pair(item, "owner", toMany: false, person, "items", toMany: true)
        item.subentities = [special]
        let model = NSManagedObjectModel()
        model.entities = [item, special, tag, category, task, person]
        return model
    }

    private static func pair(_ a: NSEntityDescription, _ aName: String, toMany aMany: Bool,
                             _ b: NSEntityDescription, _ bName: String, toMany bMany: Bool) {
        let forward = NSRelationshipDescription(), backward = NSRelationshipDescription()
        forward.name = aName
        forward.maxCount = aMany ? 0 : 1
        forward.destinationEntity = b
        backward.name = bName
        backward.maxCount = bMany ? 0 : 1
        backward.destinationEntity = a
        forward.inverseRelationship = backward
        backward.inverseRelationship = forward
        a.properties += [forward]
        b.properties += [backward]
    }

    private static func entity(_ name: String, _ properties: [NSPropertyDescription]) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.properties = properties
        return entity
    }

    private static func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        return attribute
    }
}

/// Core Data's schema names (DESIGN decision 5) for the tests: `Z<ROOT>` tables, `Z<NAME>`
/// columns, `Z_<n><NAME>` join tables and columns, `Z_ENT` numbered with roots in alphabetical
/// order, each followed depth-first by its subentities.
struct TestSchemaMapping: SQLSchemaMapping {
    let model: NSManagedObjectModel
    let numbers: [String: Int64]

    init(model: NSManagedObjectModel) {
        self.model = model
        var numbers: [String: Int64] = [:]
        var next: Int64 = 1
        func visit(_ entity: NSEntityDescription) {
            numbers[entity.name!] = next
            next += 1
            for sub in entity.subentities.sorted(by: { $0.name! < $1.name! }) { visit(sub) }
        }
        for root in model.entities.filter({ $0.superentity == nil }).sorted(by: { $0.name! < $1.name! }) { visit(root) }
        self.numbers = numbers
    }

    func tableName(for entity: NSEntityDescription) throws -> String { "Z" + entity.rootEntity.name!.uppercased() }
    func columnName(for attribute: NSAttributeDescription) throws -> String { "Z" + attribute.name.uppercased() }
    func foreignKeyColumnName(for relationship: NSRelationshipDescription) throws -> String { "Z" + relationship.name.uppercased() }
    func entityNumber(for entity: NSEntityDescription) throws -> Int64 { numbers[entity.name!]! }
    func entity(forNumber number: Int64) -> NSEntityDescription? {
        numbers.first { $0.value == number }.flatMap { model.entitiesByName[$0.key] }
    }
    func attributeValue(_ value: SQLValue, of attribute: NSAttributeDescription) throws -> Any? {
        try SQLiteValueCoding.value(value.databaseValue, type: attribute.attributeType)
    }

    private func joinColumn(_ relationship: NSRelationshipDescription) -> String {
        "Z_\(numbers[relationship.entity.name!]!)\(relationship.name.uppercased())"
    }

    func destinationKeyColumnName(for relationship: NSRelationshipDescription) throws -> String {
        "Z\(numbers[relationship.entity.name!]!)\(relationship.name.uppercased())"
    }

    func joinTable(for relationship: NSRelationshipDescription) throws -> (table: String, sourceColumn: String, destinationColumn: String) {
        let inverse = relationship.inverseRelationship!
        let key = { (r: NSRelationshipDescription) in "\(r.entity.name!).\(r.name)" }
        let owner = key(relationship) < key(inverse) ? relationship : inverse
        return ("Z_\(numbers[owner.entity.name!]!)\(owner.name.uppercased())", joinColumn(inverse), joinColumn(relationship))
    }

    /// The DDL of the schema.
    func createStatements() throws -> [String] {
        var statements: [String] = []
        var joinTables: Set<String> = []
        for root in model.entities where root.superentity == nil {
            var columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
            for entity in [root] + root.allSubentities {
                for attribute in entity.attributes where attribute.entity === entity {
                    columns.append("\"\(try columnName(for: attribute))\" \(sqlType(attribute.attributeType))")
                }
                for relationship in entity.relationshipsByName.values where relationship.entity === entity {
                    if !relationship.isToMany {
                        columns.append("\"\(try foreignKeyColumnName(for: relationship))\" INTEGER")
                    } else if relationship.inverseRelationship?.isToMany == true {
                        let join = try joinTable(for: relationship)
                        if joinTables.insert(join.table).inserted {
                            statements.append("CREATE TABLE \"\(join.table)\" (\"\(join.sourceColumn)\" INTEGER, \"\(join.destinationColumn)\" INTEGER, PRIMARY KEY (\"\(join.sourceColumn)\", \"\(join.destinationColumn)\"))")
                        }
                    }
                }
            }
            statements.append("CREATE TABLE \"\(try tableName(for: root))\" (\(columns.joined(separator: ", ")))")
        }
        return statements
    }

    private func sqlType(_ type: NSAttributeType) -> String {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType: return "INTEGER"
        case .dateAttributeType: return "TIMESTAMP"
        case .doubleAttributeType, .floatAttributeType: return "FLOAT"
        case .decimalAttributeType: return "DECIMAL"
        case .stringAttributeType, .URIAttributeType: return "VARCHAR"
        default: return "BLOB"
        }
    }
}

extension NSEntityDescription {
    /// The entity's own and inherited attributes.
    fileprivate var attributes: [NSAttributeDescription] { Array(attributesByName.values) }
}

/// The same rows in an in-memory store, in a SQLite database with the test schema, in a real
/// SQLite store and (when a test server runs) in a PostgreSQL store, and fetches run against all.
final class SQLConsistencyFixture {
    let model = SQLTestModel.make()
    let coordinator: NSPersistentStoreCoordinator
    let store: NSPersistentStore
    let mapping: TestSchemaMapping
    let database: DatabaseQueue
    private(set) var ids: [String: NSManagedObjectID] = [:]
    /// The real SQLite store holding the same rows (same primary keys), in its own coordinator.
    let sqliteCoordinator: NSPersistentStoreCoordinator
    private(set) var sqliteStore: NSPersistentStore!
    /// The PostgreSQL store holding the same rows, when a test server runs.
    private(set) var postgresStore: NSPersistentStore?
    private var postgresCoordinator: NSPersistentStoreCoordinator?
    private let directory: URL

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Extra tags (`x0`, `x1`, …) with the given names, each tagging the given item, beyond the
    /// standard rows: the string-ordering cases.
    let extraTags: [(name: String?, item: String?)]

    init(extraTags: [(name: String?, item: String?)] = []) throws {
        self.extraTags = extraTags
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        mapping = TestSchemaMapping(model: model)
        var configuration = Configuration()
        configuration.prepareDatabase { db in SQLFunctions.register(on: db) }
        database = try DatabaseQueue(configuration: configuration)
        sqliteCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("SQLConsistency-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let statements = try mapping.createStatements()
        try database.write { db in for statement in statements { try db.execute(sql: statement) } }
        try insertData()
        try copyToSQLite()
        sqliteStore = try copy(into: sqliteCoordinator, type: NSSQLiteStoreType, at: directory.appendingPathComponent("Items.sqlite"))
        if let url = StoreTypesUnderTest.location(NSPostgreSQLStoreType, directory.appendingPathComponent("Items.pg")),
           StoreTypesUnderTest.all.contains(NSPostgreSQLStoreType) {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            postgresStore = try copy(into: coordinator, type: NSPostgreSQLStoreType, at: url)
            postgresCoordinator = coordinator
        }
    }

    /// Saves every row into a real store of `type` at `url` through `coordinator`, with the same keys.
    private func copy(into coordinator: NSPersistentStoreCoordinator, type: String, at url: URL) throws -> NSPersistentStore {
        let target = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: nil)
        var snapshots: [ObjectSnapshot] = []
        for entity in model.entities {
            snapshots += try store.allSnapshots(of: entity)
        }
        snapshots.sort { $0.objectID.primaryKey! < $1.objectID.primaryKey! }
        let newIDs = try coordinator.permanentObjectIDs(for: snapshots.map { (entity($0.objectID.entity.name!), target) })
        var byOld: [NSManagedObjectID: NSManagedObjectID] = [:]
        for (snapshot, id) in zip(snapshots, newIDs) {
            guard id.primaryKey == snapshot.objectID.primaryKey else {
                throw SQLCompileError("the \(type) copy", "keys differ: \(id) for \(snapshot.objectID)")
            }
            byOld[snapshot.objectID] = id
        }
        let copies = snapshots.map { snapshot in
            ObjectSnapshot(objectID: byOld[snapshot.objectID]!,
                           values: snapshot.values.mapValues { ($0 as? NSManagedObjectID).map { byOld[$0]! as Any } ?? $0 },
                           toMany: snapshot.toMany.mapValues { $0.map { byOld[$0]! } })
        }
        try coordinator.save(StoreSaveChanges(inserted: copies))
        return target
    }

    /// The primary keys the real SQLite store returns, in order, and its count.
    func sqliteStoreKeys(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> ([Int64], Int) {
        try storeKeys(request, sqliteStore)
    }

    /// The primary keys `store` returns, in order, and its count.
    func storeKeys(_ request: NSFetchRequest<NSFetchRequestResult>, _ store: NSPersistentStore) throws -> ([Int64], Int) {
        let copy = request.copy() as! NSFetchRequest<NSFetchRequestResult>
        copy.entity = model.entitiesByName[request.entity!.name!]
        copy.resultType = .managedObjectIDResultType
        guard case .objectIDs(let ids) = try store.executeFetch(copy) else { return ([], -1) }
        copy.resultType = .countResultType
        guard case .count(let count) = try store.executeFetch(copy) else { return ([], -1) }
        return (ids.map { $0.primaryKey! }, count)
    }

    func entity(_ name: String) -> NSEntityDescription { model.entitiesByName[name]! }

    static let base = Date(timeIntervalSinceReferenceDate: 600_000_000)
    /// A decimal REAL can't hold, which the SQLite store keeps as text.
    static let preciseDecimal = Decimal(string: "12.345678901234567890123")!

    /// Items with varied values (nils, case, diacritics, numbers of every width), their tags,
    /// categories, tasks and owners.
    private func insertData() throws {
        var rows: [(key: String, entity: String, values: [String: Any])] = [
            ("alice", "Item", ["name": "Alice", "title": "Ms", "age": Int32(30), "price": 9.5, "amount": Decimal(string: "12.25")!,
                               "quantity": Int16(3), "sortOrder": Int64(2), "isCompleted": true, "date": Self.base,
                               "createdAt": Self.base.addingTimeInterval(-86_400), "email": "alice@example.com", "status": "open",
                               "syncStatus": Int16(1), "rating": Float(4.5), "id": SampleArgument.fixedUUID,
                               "website": URL(string: "https://alice.example.com")!, "payload": Data([1, 2, 3]),
                               "firstName": "Alice", "lastName": "Smith", "score": Int64(100)]),
            ("bob", "Item", ["name": "bob", "age": Int32(17), "price": 20.0, "quantity": Int16(0), "sortOrder": Int64(1),
                             "isCompleted": false, "date": Self.base.addingTimeInterval(3600), "email": "BOB@EXAMPLE.ORG",
                             "status": "closed", "syncStatus": Int16(0), "rating": Float(2), "firstName": "Bob", "lastName": "Jones",
                             "score": Int64(-5), "payload": Data([9])]),
            ("cafe", "Item", ["name": "Café", "title": "Dr", "age": Int32(45), "price": 0.0, "amount": Decimal(7),
                              "sortOrder": Int64(3), "isCompleted": true, "status": "open", "syncStatus": Int16(2),
                              "firstName": "Zoë", "lastName": "Émile", "score": Int64(100), "email": "cafe@x.fr"]),
            ("empty", "Item", ["name": "", "age": Int32(0), "sortOrder": Int64(5), "status": "", "syncStatus": Int16(1)]),
            ("none", "Item", [:]),
            ("john", "SpecialItem", ["name": "John", "title": "Mr", "age": Int32(61), "price": 105.25, "quantity": Int16(12),
                                     "sortOrder": Int64(4), "isCompleted": false, "date": Self.base.addingTimeInterval(-3600),
                                     "level": Int16(3), "status": "OPEN", "firstName": "John", "lastName": "Smith",
                                     "email": "john@example.com", "score": Int64(7), "amount": Decimal(100)]),
            ("ann", "SpecialItem", ["name": "ann-marie", "age": Int32(30), "price": 9.5, "level": Int16(1), "sortOrder": Int64(6),
                                    "amount": SQLConsistencyFixture.preciseDecimal,
                                    "isCompleted": true, "lastName": "smith"]),
            ("swift", "Tag", ["name": "swift"]), ("ios", "Tag", ["name": "iOS"]), ("db", "Tag", ["name": "Databases"]),
            ("work", "Category", ["name": "Work"]), ("home", "Category", ["name": "home"]),
            ("t1", "Task", ["title": "Write", "isCompleted": true, "price": 5.0]),
            ("t2", "Task", ["title": "Read", "isCompleted": false, "price": 15.0]),
            ("t3", "Task", ["title": "Ship", "isCompleted": true, "price": 30.0]),
            ("t4", "Task", ["title": "Plan", "isCompleted": false]),
            ("p1", "Person", ["firstName": "Ada", "lastName": "Lovelace", "age": Int32(36)]),
            ("p2", "Person", ["firstName": "Alan", "lastName": "Turing", "age": Int32(41)]),
        ]
        rows += extraTags.enumerated().map { index, tag in ("x\(index)", "Tag", tag.name.map { ["name": $0] } ?? [:]) }
        let idList = try coordinator.permanentObjectIDs(for: rows.map { (entity($0.entity), store) })
        for (row, id) in zip(rows, idList) { ids[row.key] = id }
        // Relationships.
        func link(_ key: String, _ name: String, _ target: String) {
            let index = rows.firstIndex { $0.key == key }!
            rows[index].values[name] = ids[target]!
        }
        link("bob", "parent", "alice"); link("cafe", "parent", "alice"); link("ann", "parent", "john")
        link("alice", "category", "work"); link("bob", "category", "home"); link("john", "category", "work")
        link("alice", "owner", "p1"); link("cafe", "owner", "p2"); link("john", "owner", "p1")
        link("t1", "item", "alice"); link("t2", "item", "alice"); link("t3", "item", "john"); link("t4", "item", "bob")
        var tags: [String: [String]] = ["alice": ["swift", "ios"], "bob": ["swift"], "john": ["db", "ios", "swift"], "ann": ["db"]]
        for (index, tag) in extraTags.enumerated() {
            if let item = tag.item { tags[item, default: []].append("x\(index)") }
        }
        var snapshots: [ObjectSnapshot] = []
        for row in rows {
            var snapshot = ObjectSnapshot(objectID: ids[row.key]!, values: row.values)
            for relationship in entity(row.entity).relationshipsByName.values where relationship.isToMany {
                snapshot.toMany[relationship.name] = []
            }
            snapshots.append(snapshot)
        }
        // Fill both sides of the to-many relationships from the to-ones and the tag lists.
        func add(_ owner: String, _ relationship: String, _ member: String) {
            let index = snapshots.firstIndex { $0.objectID == ids[owner]! }!
            snapshots[index].toMany[relationship, default: []].append(ids[member]!)
        }
        for row in rows {
            for (name, inverse) in [("parent", "items"), ("category", "items"), ("owner", "items"), ("item", "tasks")] {
                if let target = row.values[name] as? NSManagedObjectID, let key = ids.first(where: { $0.value == target })?.key {
                    add(key, inverse, row.key)
                }
            }
        }
        for (item, names) in tags.sorted(by: { $0.key < $1.key }) {
            for tag in names { add(item, "tags", tag); add(tag, "items", item) }
        }
        try coordinator.save(StoreSaveChanges(inserted: snapshots))
    }

    /// Writes every row of the in-memory store into the SQLite database with the same keys.
    private func copyToSQLite() throws {
        try database.write { db in
            for entity in model.entities {
                for snapshot in try store.allSnapshots(of: entity) {
                    var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
                    var values: [DatabaseValue] = [snapshot.objectID.primaryKey!.databaseValue,
                                                   try mapping.entityNumber(for: entity).databaseValue, 1.databaseValue]
                    for (name, attribute) in entity.attributesByName {
                        guard let value = snapshot.values[name] else { continue }
                        columns.append(try mapping.columnName(for: attribute))
                        values.append(Self.encode(value))
                    }
                    for (name, relationship) in entity.relationshipsByName {
                        if !relationship.isToMany, let target = snapshot.values[name] as? NSManagedObjectID {
                            columns.append(try mapping.foreignKeyColumnName(for: relationship))
                            values.append(target.primaryKey!.databaseValue)
                        } else if relationship.isToMany, relationship.inverseRelationship?.isToMany == true {
                            let join = try mapping.joinTable(for: relationship)
                            for target in snapshot.toMany[name] ?? [] {
                                try db.execute(sql: "INSERT OR IGNORE INTO \"\(join.table)\" (\"\(join.sourceColumn)\", \"\(join.destinationColumn)\") VALUES (?, ?)",
                                               arguments: [snapshot.objectID.primaryKey!, target.primaryKey!])
                            }
                        }
                    }
                    let table = try mapping.tableName(for: entity)
                    let sql = "INSERT INTO \"\(table)\" (\(columns.map { "\"\($0)\"" }.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
                    try db.execute(sql: sql, arguments: StatementArguments(values))
                }
            }
        }
    }

    /// A snapshot value in the column conventions of DESIGN decision 5.
    static func encode(_ value: Any) -> DatabaseValue {
        switch value {
        case let v as Bool: return (v ? 1 : 0).databaseValue
        case let v as Int16: return Int64(v).databaseValue
        case let v as Int32: return Int64(v).databaseValue
        case let v as Int64: return v.databaseValue
        case let v as Double: return v.databaseValue
        case let v as Float: return Double(v).databaseValue
        case let v as Decimal:
            // As the SQLite store writes it: REAL when lossless, else the text in a blob.
            let double = NSDecimalNumber(decimal: v).doubleValue
            return Decimal(string: "\(double)") == v ? double.databaseValue : Data(v.description.utf8).databaseValue
        case let v as String: return v.databaseValue
        case let v as Date: return v.timeIntervalSinceReferenceDate.databaseValue
        case let v as Data: return v.databaseValue
        case let v as UUID: return withUnsafeBytes(of: v.uuid) { Data($0) }.databaseValue
        case let v as URL: return v.absoluteString.databaseValue
        default: return .null
        }
    }

    // MARK: Running fetches

    func request(_ entityName: String, _ predicate: OpenCoreData.NSPredicate?, sort: [OpenCoreData.NSSortDescriptor] = []) -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
        request.entity = entity(entityName)
        request.predicate = predicate
        request.sortDescriptors = sort
        return request
    }

    /// The primary keys the in-memory store returns, in order.
    func memoryKeys(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> [Int64] {
        let copy = request.copy() as! NSFetchRequest<NSFetchRequestResult>
        copy.resultType = .managedObjectIDResultType
        guard case .objectIDs(let ids) = try store.executeFetch(copy) else { return [] }
        return ids.map { $0.primaryKey! }
    }

    /// The primary keys the compiled SQL returns, in order.
    func sqlKeys(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> [Int64] {
        let statement = try SQLFetchCompiler(mapping: mapping).objects(request, entity: request.entity!)
        return try database.read { db in
            try Int64.fetchAll(db, sql: statement.sql, arguments: statement.arguments)
        }
    }

    /// The count the compiled SQL returns.
    func sqlCount(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> Int {
        let statement = try SQLFetchCompiler(mapping: mapping).count(request, entity: request.entity!)
        return try database.read { db in try Int.fetchOne(db, sql: statement.sql, arguments: statement.arguments) ?? -1 }
    }

    /// The dictionaries the compiled SQL returns.
    func sqlDictionaries(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> [[String: Any]] {
        let (statement, columns) = try SQLFetchCompiler(mapping: mapping).dictionaries(request, entity: request.entity!)
        return try database.read { db in
            try Row.fetchAll(db, sql: statement.sql, arguments: statement.arguments).map { row in
                try columns.dictionary(from: row, mapping: mapping, store: store)
            }
        }
    }

    /// `name = function(keyPath)` for `propertiesToFetch` (`count:`, `min:`, `sum:`…).
    static func aggregate(_ name: String, _ function: String, _ keyPath: String) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)])
        return description
    }

    /// Requires the same dictionaries from memory, the compiled SQL and the SQLite store (and
    /// some rows).
    func expectSameDictionaries(_ request: NSFetchRequest<NSFetchRequestResult>, sourceLocation: SourceLocation = #_sourceLocation) throws {
        request.resultType = .dictionaryResultType
        let memory = try memoryDictionaries(request)
        #expect(!memory.isEmpty, sourceLocation: sourceLocation)
        for (source, rows) in [("SQL", try sqlDictionaries(request)), ("SQLite store", try sqliteStoreDictionaries(request))] {
            #expect(rows.count == memory.count && ValueComparison.isEqual(rows, memory, options: []),
                    "memory \(memory)\n\(source) \(rows)", sourceLocation: sourceLocation)
        }
    }

    /// The dictionaries the real SQLite store returns.
    func sqliteStoreDictionaries(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> [[String: Any]] {
        guard case .dictionaries(let rows) = try sqliteStore.executeFetch(request) else { return [] }
        return rows
    }

    func memoryDictionaries(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> [[String: Any]] {
        guard case .dictionaries(let rows) = try store.executeFetch(request) else { return [] }
        return rows
    }

    /// What a consistency check found.
    enum Outcome: Equatable {
        /// The in-memory store can't run it (unknown key, bad input): not applicable.
        case notApplicable
        /// SQLite refused it with a compile error naming the construct.
        case refused(String)
        /// Both ran and agreed.
        case agreed
        /// They disagreed (or SQLite failed otherwise): a bug.
        case disagreed(String)
    }

    /// Runs one request against both stores.
    func check(_ request: NSFetchRequest<NSFetchRequestResult>) -> Outcome {
        let memory: [Int64]
        do { memory = try memoryKeys(request) } catch { return .notApplicable }
        do {
            let sql = try sqlKeys(request)
            if sql != memory { return .disagreed("memory \(memory), SQL \(sql)") }
            let count = try sqlCount(request)
            if count != memory.count { return .disagreed("memory count \(memory.count), SQL count \(count)") }
        } catch let error as SQLCompileError {
            if (try? sqliteStoreKeys(request)) != nil { return .disagreed("the SQLite store answered what the compiler refused") }
            return .refused(error.description)
        } catch {
            return .disagreed("SQL failed: \(error)")
        }
        do {
            let (keys, count) = try sqliteStoreKeys(request)
            if keys != memory || count != memory.count {
                return .disagreed("memory \(memory), SQLite store \(keys) counting \(count)")
            }
        } catch {
            return .disagreed("SQL failed: \(error)")
        }
        // What SQL answers, the PostgreSQL store answers alike. Arguments that are IDs of the
        // in-memory store's objects name no object of another coordinator's store (SQL compares
        // their keys alone), so those requests are the SQLite side's only.
        guard let postgresStore, !(request.predicate.map { String(describing: $0).contains("x-coredata:") } ?? false) else { return .agreed }
        do {
            let (keys, count) = try storeKeys(request, postgresStore)
            if keys != memory || count != memory.count {
                return .disagreed("memory \(memory), PostgreSQL store \(keys) counting \(count)")
            }
            return .agreed
        } catch {
            return .disagreed("the PostgreSQL store failed: \(error)")
        }
    }
}
