import Testing
@testable import OpenCoreData

/// The SQL text and bound values the compiler generates for each construct, and the
/// constructs it refuses.
@Suite struct SQLCompilerTests {
    static let model = SQLTestModel.make()
    static let mapping = TestSchemaMapping(model: model)

    /// The WHERE clause (without the entity restriction) and bindings for `format` on Item.
    private func compile(_ format: String, _ arguments: [Any] = [], entity: String = "Item") throws -> SQLFragment {
        let compiler = SQLCompiler(mapping: Self.mapping)
        let scope = try compiler.rootScope(for: Self.model.entitiesByName[entity]!)
        let condition = try compiler.condition(NSPredicate(format: format, argumentArray: arguments), in: scope)
        let joins = scope.joins.map(\.sql).joined(separator: " ")
        return SQLFragment((joins.isEmpty ? "" : joins + " | ") + condition.sql, condition.bindings)
    }

    @Test(arguments: [
        ("age == 30", #"t0.ZAGE IS ?"#, [SQLValue.integer(30)]),
        ("age != 30", #"t0.ZAGE IS NOT ?"#, [.integer(30)]),
        ("age > 30", #"t0.ZAGE > ?"#, [.integer(30)]),
        ("price <= 9.5", #"t0.ZPRICE <= ?"#, [.real(9.5)]),
        ("isCompleted == YES", #"t0.ZISCOMPLETED IS ?"#, [.integer(1)]),
        ("name == nil", #"t0.ZNAME IS NULL"#, []),
        ("nil != name", #"t0.ZNAME IS NOT NULL"#, []),
        ("age < nil", "0", []),
        ("age == 'x'", "0", []),
        ("age != 'x'", "1", []),
        ("name == 'Ann'", #"ocd_predicate(4, t0.ZNAME, ?, 0)"#, [.text("Ann")]),
        ("name ==[cd] 'ann'", #"ocd_predicate(4, t0.ZNAME, ?, 3)"#, [.text("ann")]),
        ("name BEGINSWITH[c] 'a'", #"ocd_predicate(8, t0.ZNAME, ?, 1)"#, [.text("a")]),
        ("name ENDSWITH 'n'", #"ocd_predicate(9, t0.ZNAME, ?, 0)"#, [.text("n")]),
        ("name CONTAINS[d] 'e'", #"ocd_predicate(99, t0.ZNAME, ?, 2)"#, [.text("e")]),
        ("name LIKE 'A*'", #"ocd_predicate(7, t0.ZNAME, ?, 0)"#, [.text("A*")]),
        ("name MATCHES '[a-z]+'", #"ocd_predicate(6, t0.ZNAME, ?, 0)"#, [.text("[a-z]+")]),
        ("name IN 'Ann Bob'", #"ocd_predicate(10, t0.ZNAME, ?, 0)"#, [.text("Ann Bob")]),
        ("age BEGINSWITH '1'", "0", []),
        ("age IN {1, 2, nil}", #"(t0.ZAGE IN (?, ?)) OR (t0.ZAGE IS NULL)"#, [.integer(1), .integer(2)]),
        ("age BETWEEN {1, 5}", #"(t0.ZAGE >= ?) AND (t0.ZAGE <= ?)"#, [.integer(1), .integer(5)]),
        ("TRUEPREDICATE", "1", []),
        ("NOT (age > 1 OR FALSEPREDICATE)", #"NOT ((COALESCE(t0.ZAGE > ?, 0)) OR (0))"#, [.integer(1)]),
        ("age + 1 > price * 2", #"(t0.ZAGE + ?) > (t0.ZPRICE * ?)"#, [.integer(1), .integer(2)]),
        ("age / 2 == 3", #"ocd_function(?, t0.ZAGE, ?) IS ?"#, [.text("divide:by:"), .integer(2), .integer(3)]),
        ("parent.name == 'x'", #"LEFT JOIN ZITEM AS t1 ON t1.Z_PK = t0.ZPARENT | ocd_predicate(4, t1.ZNAME, ?, 0)"#, [.text("x")]),
        ("parent.age > 1 AND parent.parent.age > 2",
         #"LEFT JOIN ZITEM AS t1 ON t1.Z_PK = t0.ZPARENT LEFT JOIN ZITEM AS t2 ON t2.Z_PK = t1.ZPARENT | (t1.ZAGE > ?) AND (t2.ZAGE > ?)"#,
         [.integer(1), .integer(2)]),
        ("parent == nil", #"t0.ZPARENT IS NULL"#, []),
        ("ANY tasks.price > 10", #"EXISTS (SELECT 1 FROM ZTASK AS t1 WHERE t1.ZITEM = t0.Z_PK AND (t1.ZPRICE > ?))"#, [.integer(10)]),
        ("ALL tasks.price > 10", #"NOT EXISTS (SELECT 1 FROM ZTASK AS t1 WHERE t1.ZITEM = t0.Z_PK AND (NOT (COALESCE(t1.ZPRICE > ?, 0))))"#, [.integer(10)]),
        ("NONE tasks.price > 10", #"NOT (EXISTS (SELECT 1 FROM ZTASK AS t1 WHERE t1.ZITEM = t0.Z_PK AND (COALESCE(t1.ZPRICE > ?, 0))))"#, [.integer(10)]),
        ("ANY tags.name == 'a'", #"EXISTS (SELECT 1 FROM Z_2TAGS AS t2 JOIN ZTAG AS t1 ON t1.Z_PK = t2.Z_2TAGS WHERE t2.Z_5ITEMS = t0.Z_PK AND (ocd_predicate(4, t1.ZNAME, ?, 0)))"#, [.text("a")]),
        ("tasks.@count > 1", #"(SELECT COUNT(*) FROM ZTASK AS t1 WHERE t1.ZITEM = t0.Z_PK) > ?"#, [.integer(1)]),
        ("tasks.@sum.price == 0", #"(SELECT COALESCE(SUM(t1.ZPRICE), 0) FROM ZTASK AS t1 WHERE t1.ZITEM = t0.Z_PK) IS ?"#, [.integer(0)]),
        ("tasks.@avg.price == nil", #"(SELECT CAST(COALESCE(SUM(t1.ZPRICE), 0) AS REAL) / NULLIF(COUNT(*), 0) FROM ZTASK AS t1 WHERE t1.ZITEM = t0.Z_PK) IS NULL"#, []),
        ("tasks.@max.title == 'x'", #"ocd_predicate(4, (SELECT MAX(t1.ZTITLE COLLATE ocd_value) FROM ZTASK AS t1 WHERE t1.ZITEM = t0.Z_PK), ?, 0)"#, [.text("x")]),
        ("tasks.@max.price > 1", #"(SELECT MAX(t1.ZPRICE) FROM ZTASK AS t1 WHERE t1.ZITEM = t0.Z_PK) > ?"#, [.integer(1)]),
        ("SUBQUERY(tasks, $t, $t.isCompleted == YES).@count > 0",
         #"(SELECT COUNT(*) FROM ZTASK AS t1 WHERE t1.ZITEM = t0.Z_PK AND (t1.ZISCOMPLETED IS ?)) > ?"#, [.integer(1), .integer(0)]),
        ("items.@count == 0", #"(SELECT COUNT(*) FROM ZITEM AS t1 WHERE t1.ZPARENT = t0.Z_PK) IS ?"#, [.integer(0)]),
        ("tasks.title CONTAINS 'x'", #"EXISTS (SELECT 1 FROM ZTASK AS t1 WHERE t1.ZITEM = t0.Z_PK AND (ocd_predicate(4, t1.ZTITLE, ?, 0)))"#, [.text("x")]),
    ] as [(String, String, [SQLValue])])
    func generatedSQL(format: String, sql: String, bindings: [SQLValue]) throws {
        let fragment = try compile(format)
        #expect(fragment.sql == sql)
        #expect(fragment.bindings == bindings)
    }

    @Test func constantsBindInTheStoreConventions() throws {
        let date = Date(timeIntervalSinceReferenceDate: 1000.5)
        #expect(try compile("date == %@", [date]).bindings == [.real(1000.5)])
        let uuid = SampleArgument.fixedUUID
        #expect(try compile("id == %@", [uuid]).bindings == [.blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })])
        #expect(try compile("website == %@", [URL(string: "https://a.b/c")!]).sql == #"ocd_predicate(4, t0.ZWEBSITE, ?, 0)"#)
        #expect(try compile("amount == %@", [Decimal(string: "1.5")!]).bindings == [.real(1.5)])
        #expect(try compile("payload == %@", [Data([1, 2])]).bindings == [.blob(Data([1, 2]))])
        #expect(try compile("date == %@", [1000]).sql == "0", "a number never equals a date")
    }

    @Test func valuesAreNeverSplicedIntoTheText() throws {
        let hostile = "x'); DROP TABLE ZITEM; --"
        let fragment = try compile("name == %@ OR ANY tags.name BEGINSWITH %@", [hostile, hostile])
        #expect(!fragment.sql.contains("DROP"))
        #expect(fragment.bindings == [.text(hostile), .text(hostile)])
    }

    @Test func objectConstantsBindTheirPrimaryKey() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model)
        let store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let person = NSManagedObjectID(entity: Self.model.entitiesByName["Person"]!, store: store, primaryKey: 7)
        #expect(try compile("owner == %@", [person]).sql == #"t0.ZOWNER IS ?"#)
        #expect(try compile("owner == %@", [person]).bindings == [.integer(7)])
        #expect(try compile("parent == %@", [person]).sql == "0", "a Person is never an Item's parent")
        let temporary = NSManagedObjectID(temporaryFor: Self.model.entitiesByName["Person"]!)
        #expect(try compile("owner == %@", [temporary]).bindings == [.integer(0)])
        let tag = NSManagedObjectID(entity: Self.model.entitiesByName["Tag"]!, store: store, primaryKey: 3)
        #expect(try compile("%@ IN tags", [tag]).sql
                == #"EXISTS (SELECT 1 FROM Z_2TAGS AS t2 JOIN ZTAG AS t1 ON t1.Z_PK = t2.Z_2TAGS WHERE t2.Z_5ITEMS = t0.Z_PK AND (t1.Z_PK IS ?))"#)
    }

    @Test(arguments: [
        ("FUNCTION(name, 'length') > 1", "FUNCTION"),
        ("tasks.price > 1", "to-many key path"),
        ("ANY name == 'x'", "ANY"),
        ("ALL parent.name == 'x'", "ALL"),
        ("nosuchkey == 1", "nosuchkey"),
        ("name.length > 1", "name.length"),
        ("random() < 1", "random"),
        ("TERNARY(age > 1, 1, 0) == 1", "TERNARY"),
        ("$VAR == 1", "$VAR"),
        ("tasks.@sum.title == 1", "@sum needs numbers"),
        ("age BETWEEN {1, 2, 3}", "BETWEEN"),
        ("SUBQUERY(parent, $p, $p.age > 1).@count > 0", "SUBQUERY"),
        ("ANY {1} UNION tags == 1", "UNION"),
    ])
    func refusals(format: String, construct: String) throws {
        let error = try #require(throws: SQLCompileError.self) { try compile(format) }
        #expect(error.description.contains(construct), "\(error)")
    }

    @Test func fetchStatementsSortWindowAndRestrictEntities() throws {
        let compiler = SQLFetchCompiler(mapping: Self.mapping)
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "SpecialItem")
        request.entity = Self.model.entitiesByName["SpecialItem"]
        request.predicate = NSPredicate(format: "age > 1")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false, selector: Selector("caseInsensitiveCompare:")),
                                   NSSortDescriptor(key: "age", ascending: true)]
        request.fetchLimit = 5
        request.fetchOffset = 2
        let statement = try compiler.objects(request, entity: request.entity!)
        #expect(statement.sql == #"SELECT t0.Z_PK, t0.Z_ENT FROM ZITEM AS t0 WHERE (t0.Z_ENT = ?) AND (t0.ZAGE > ?) ORDER BY t0.ZNAME COLLATE ocd_caseInsensitiveCompare DESC, t0.ZAGE ASC, t0.Z_PK ASC LIMIT ? OFFSET ?"#)
        #expect(statement.bindings == [.integer(3), .integer(1), .integer(5), .integer(2)], "Z_ENT 3: Item 2, then SpecialItem")
        let count = try compiler.count(request, entity: request.entity!)
        #expect(count.sql == #"SELECT COUNT(*) FROM (SELECT t0.Z_PK FROM ZITEM AS t0 WHERE (t0.Z_ENT = ?) AND (t0.ZAGE > ?) LIMIT ? OFFSET ?) AS counted"#)
        request.entity = Self.model.entitiesByName["Item"]
        request.includesSubentities = true
        request.fetchLimit = 0
        request.fetchOffset = 0
        #expect(try compiler.count(request, entity: request.entity!).sql == #"SELECT COUNT(*) FROM ZITEM AS t0 WHERE (t0.ZAGE > ?)"#)
        request.includesSubentities = false
        #expect(try compiler.count(request, entity: request.entity!).sql.contains(#"t0.Z_ENT = ?"#))
    }

    @Test func dictionaryStatements() throws {
        let compiler = SQLFetchCompiler(mapping: Self.mapping)
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        request.entity = Self.model.entitiesByName["Item"]
        request.resultType = .dictionaryResultType
        let total = NSExpressionDescription()
        total.name = "total"
        total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "price")])
        request.propertiesToFetch = ["status", "category", total]
        request.propertiesToGroupBy = ["status", "category"]
        request.havingPredicate = NSPredicate(format: "total > 5")
        request.sortDescriptors = [NSSortDescriptor(key: "total", ascending: false)]
        let (statement, columns) = try compiler.dictionaries(request, entity: request.entity!)
        #expect(statement.sql == #"SELECT t0.ZSTATUS, t1.Z_PK, t1.Z_ENT, SUM(t0.ZPRICE) FROM ZITEM AS t0 LEFT JOIN ZCATEGORY AS t1 ON t1.Z_PK = t0.ZCATEGORY GROUP BY t0.ZSTATUS COLLATE ocd_value, t1.Z_PK, t1.Z_ENT HAVING SUM(t0.ZPRICE) > ? ORDER BY SUM(t0.ZPRICE) DESC, MIN(t0.Z_PK) ASC"#)
        #expect(statement.bindings == [.integer(5)])
        #expect(columns.map(\.name) == ["status", "category", "total"])
        #expect(columns[1].decoding == .objectID)
    }
}
