import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// `relationshipKeyPathsForPrefetching`: one statement per key path step, then none while
/// walking; the same results as without prefetching on every store.
@Suite struct PrefetchingTests {
    /// Department → employees (name, salary, department name), sorted, read through KVC.
    private func walk(_ departments: [NSManagedObject]) -> [String] {
        departments.map { department in
            let employees = (department.value(forKey: "employees") as? Set<NSManagedObject> ?? [])
                .map { "\($0.value(forKey: "name") as? String ?? "?")/\($0.value(forKey: "salary") as? Int64 ?? -1)/\(($0.value(forKey: "department") as? NSManagedObject)?.value(forKey: "name") as? String ?? "-")" }
                .sorted()
            return "\(department.value(forKey: "name") as? String ?? "?"): \(employees.joined(separator: ", "))"
        }
    }

    @Test func oneStatementPerKeyPathThenNone() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let request = fixture.request("Department")
        request.relationshipKeyPathsForPrefetching = ["employees", "employees.department"]
        let (departments, statements) = try fixture.selects { try context.fetch(request) }
        #expect(statements.count == 3, "the fetch, employees, then employees.department")
        // No statement splices the source keys: a step binds them as one parameter, or, when
        // its sources are every department (the one-pass read), names none.
        #expect(statements[1].contains("IS NOT NULL") && !statements[1].contains("json_each"), "\(statements[1])")
        #expect(statements[2].contains("json_each(?)"), "\(statements[2])")
        let (walked, walking) = fixture.selects { walk(departments) }
        #expect(walking.isEmpty)
        #expect(walked == ["Empty: ", "Sales: Ann/100/Sales, Bob/200/Sales, Cid/300/Sales", "Tech: Dee/400/Tech, Eve/50/Tech"])
    }

    /// A fetch of every department reads the employee table in one pass (`NOT INDEXED`, no
    /// `ORDER BY`): employees saved alternately come as several runs per department, and each
    /// department still gets all of its own. A fetch with a predicate or a limit looks its
    /// departments up through the key's index, as before, and a later step (`employees.department`)
    /// too; every way gives the same relationships.
    @Test func prefetchingEveryObjectReadsTheDestinationTableInOnePass() throws {
        let fixture = try SQLiteStatementFixture(standardData: false)
        let writer = fixture.context()
        let departments = insert("Department", named: ["A", "B", "C"], into: writer)
        for (index, employee) in insert("Employee", named: (0..<9).map { "e\($0)" }, into: writer).enumerated() {
            employee.setValue(Int64(index), forKey: "salary")
            employee.setValue(departments[index % 2], forKey: "department")   // C has none
        }
        try writer.save()
        fixture.forgetCachedRows()
        let expected = ["A: e0/0/A, e2/2/A, e4/4/A, e6/6/A, e8/8/A", "B: e1/1/B, e3/3/B, e5/5/B, e7/7/B", "C: "]

        let all = fixture.request("Department")
        all.relationshipKeyPathsForPrefetching = ["employees", "employees.department"]
        let everyContext = fixture.context()
        let (every, everyStatements) = try fixture.selects { try everyContext.fetch(all) }
        #expect(everyStatements.count == 3)
        #expect(everyStatements[1].contains("NOT INDEXED") && !everyStatements[1].contains("ORDER BY"), "\(everyStatements[1])")
        #expect(!everyStatements[2].contains("NOT INDEXED"), "a later step's sources are not every object")
        let (walked, walking) = fixture.selects { walk(every) }
        #expect(walked == expected)
        #expect(walking.isEmpty)

        // A to-many step after a shared prefix: its sources are the departments reached, not
        // every department, though the prefix's first step was.
        let again = fixture.request("Department")
        again.relationshipKeyPathsForPrefetching = ["employees.department", "employees.department.employees"]
        fixture.forgetCachedRows()
        let againContext = fixture.context()
        let (_, againStatements) = try fixture.selects { try againContext.fetch(again) }
        #expect(againStatements.count == 4)
        #expect(againStatements.enumerated().allSatisfy { $0.element.contains("NOT INDEXED") == ($0.offset == 1) }, "\(againStatements)")

        let limited = fixture.request("Department")
        limited.fetchLimit = 2
        let filtered = fixture.request("Department")
        filtered.predicate = NSPredicate(format: "name != 'C'")
        for request in [limited, filtered] {
            request.relationshipKeyPathsForPrefetching = ["employees"]
            fixture.forgetCachedRows()
            let context = fixture.context()
            let (some, statements) = try fixture.selects { try context.fetch(request) }
            #expect(statements.count == 2 && !statements[1].contains("NOT INDEXED") && statements[1].contains("ORDER BY"))
            #expect(walk(some) == Array(expected.prefix(2)))
        }
    }

    /// The one-pass read selects every employee with a department key, binding no list of
    /// departments: an employee whose key names no department (a row written by another
    /// program, here also unreadable: its entity number names no entity) is skipped undecoded,
    /// not loaded, filed under a department or failing the prefetch; a key that is not an
    /// integer (1.5, which reads as 1 through `sqlite3_column_int64`) names no department; one
    /// without a key is not read at all. Every department still gets exactly its own employees.
    @Test func theOnePassReadSkipsRowsOfNoSource() throws {
        let fixture = try SQLiteStatementFixture(standardData: false)
        let writer = fixture.context()
        let departments = insert("Department", named: ["A", "B"], into: writer)
        for (index, employee) in insert("Employee", named: ["e0", "e1", "ghost", "half", "loner"], into: writer).enumerated() {
            employee.setValue(Int64(index), forKey: "salary")
            if index < 4 { employee.setValue(departments[index % 2], forKey: "department") }
        }
        try writer.save()
        let keyOfA = try #require(departments[0].objectID.primaryKey)
        try fixture.store.openDatabase().write { db in
            try db.execute(sql: "UPDATE ZEMPLOYEE SET ZDEPARTMENT = 999, Z_ENT = 999 WHERE ZNAME = 'ghost'")
            try db.execute(sql: "UPDATE ZEMPLOYEE SET ZDEPARTMENT = ? WHERE ZNAME = 'half'", arguments: [Double(keyOfA) + 0.5])
        }
        fixture.forgetCachedRows()

        let request = fixture.request("Department")
        request.relationshipKeyPathsForPrefetching = ["employees"]
        let context = fixture.context()
        let (fetched, statements) = try fixture.selects { try context.fetch(request) }
        #expect(statements.count == 2)
        #expect(statements[1].contains("NOT INDEXED") && statements[1].contains("IS NOT NULL") && !statements[1].contains("json_each"),
                "\(statements[1])")
        let (walked, walking) = fixture.selects { walk(fetched) }
        #expect(walked == ["A: e0/0/A", "B: e1/1/B"])
        #expect(walking.isEmpty)
        let registered = context.registeredObjects.compactMap { $0.faultFlag ? nil : $0.value(forKey: "name") as? String }
        #expect(Set(registered) == ["A", "B", "e0", "e1"], "the ghost's and half's rows were read but not loaded")
    }

    /// The SQL stores give each source's to-many destinations as positions in their snapshots
    /// too, the same lists as their IDs, whichever statement read them: the one-pass read (a
    /// department's employees in several runs), the read by the sources' keys, and the join
    /// table (a course two students take, one snapshot at one position in both lists). A to-one
    /// read (an employee's department, one snapshot for all of its employees) gives none: the
    /// context fills no list for it.
    @Test(arguments: FaultLoadingTests.sqlStoreTypes)
    func theSQLStoresGiveDestinationsAsPositionsToo(storeType: String) throws {
        let fixture = CompanyFixture(storeType: storeType)
        let store = try fixture.addStore()
        let writer = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        writer.persistentStoreCoordinator = fixture.coordinator
        let departments = insert("Department", named: ["A", "B", "C"], into: writer)
        let employees = insert("Employee", named: (0..<7).map { "e\($0)" }, into: writer)
        for (index, employee) in employees.enumerated() { employee.setValue(departments[index % 2], forKey: "department") }
        try writer.save()
        let toMany = try #require(fixture.entity("Department").relationshipsByName["employees"])
        let toOne = try #require(fixture.entity("Employee").relationshipsByName["department"])
        for (sources, coverEntity) in [(departments, true), (departments, false), ([departments[1]], false)] {
            let result = try store.prefetch(toMany, for: sources.map(\.objectID), sourcesCoverEntity: coverEntity)
            try Self.expectPositionsMatch(result)
        }
        let byDepartment = try store.prefetch(toMany, for: departments.map(\.objectID), sourcesCoverEntity: true)
        #expect(byDepartment.destinations[departments[0].objectID]?.count == 4)
        #expect(byDepartment.destinations[departments[2].objectID] == [])
        let byEmployee = try store.prefetch(toOne, for: employees.map(\.objectID))
        #expect(byEmployee.snapshots.count == 2 && byEmployee.destinations.count == 7)
        #expect(byEmployee.destinationPositions == nil)

        try Self.withSchool(storeType) { school, schoolStore in
            let reader = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            reader.persistentStoreCoordinator = school
            let students = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Student"))
            let courses = try #require(school.managedObjectModel.entitiesByName["Student"]?.relationshipsByName["courses"])
            let taken = try schoolStore.prefetch(courses, for: students.map(\.objectID))
            try Self.expectPositionsMatch(taken)
            #expect(taken.snapshots.count == 3, "Art, Math and Music once each")
            #expect(taken.destinations.values.map(\.count).sorted() == [0, 2, 2])
        }
    }

    /// Expects `result`'s positions to list the same destinations as its IDs, and each
    /// destination once among its snapshots.
    private static func expectPositionsMatch(_ result: RelationshipPrefetch) throws {
        let positions = try #require(result.destinationPositions)
        #expect(positions.mapValues { $0.map { result.snapshots[$0].objectID } } == result.destinations)
        #expect(Set(result.snapshots.map(\.objectID)).count == result.snapshots.count, "each destination once")
    }

    /// Joining the parts of several stores keeps every list and snapshot but drops the
    /// positions, which point into each part's own snapshots; an empty part changes nothing.
    /// Changing a part's lists or snapshots (a store subclass filtering what it read) drops
    /// them too.
    @Test func joiningOrChangingPartsDropsThePositions() throws {
        let fixture = try SQLiteStatementFixture(standardData: false)
        let writer = fixture.context()
        let departments = insert("Department", named: ["A", "B"], into: writer)
        for (index, employee) in insert("Employee", named: ["e0", "e1", "e2"], into: writer).enumerated() {
            employee.setValue(departments[index % 2], forKey: "department")
        }
        try writer.save()
        let employees = try #require(fixture.coordinator.managedObjectModel.entitiesByName["Department"]?.relationshipsByName["employees"])
        let first = try fixture.store.prefetch(employees, for: [departments[0].objectID])
        let second = try fixture.store.prefetch(employees, for: [departments[1].objectID])
        var joined = RelationshipPrefetch()
        joined.append(first)
        #expect(joined.destinationPositions != nil && joined.snapshots.count == 2)
        joined.append(RelationshipPrefetch())
        #expect(joined.destinationPositions != nil)
        joined.append(second)
        #expect(joined.destinationPositions == nil)
        #expect(joined.snapshots.count == 3 && joined.destinations.count == 2)
        #expect(joined.destinations[departments[1].objectID] == second.destinations[departments[1].objectID])

        var filtered = first
        filtered.snapshots.removeLast()
        #expect(filtered.destinationPositions == nil)
        var relisted = first
        relisted.destinations[departments[0].objectID]?.reverse()
        #expect(relisted.destinationPositions == nil)
    }

    /// A prefetch whose sources live in two stores joins the stores' parts (without positions)
    /// and still fills every source's list, each with its own destinations.
    @Test func aPrefetchOverTwoStoresFillsEverySourcesList() throws {
        let fixture = CompanyFixture(storeType: NSSQLiteStoreType)
        let stores = [try fixture.addStore(), try fixture.addStore()]
        let writer = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        writer.persistentStoreCoordinator = fixture.coordinator
        let departments = insert("Department", named: ["A", "B"], into: writer)
        let employees = insert("Employee", named: ["a1", "a2", "b1"], into: writer)
        for (employee, department) in zip(employees, [0, 0, 1]) {
            employee.setValue(departments[department], forKey: "department")
            writer.assign(employee, to: stores[department])
        }
        for (department, store) in zip(departments, stores) { writer.assign(department, to: store) }
        try writer.save()

        let reader = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        reader.persistentStoreCoordinator = fixture.coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Department")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        request.relationshipKeyPathsForPrefetching = ["employees"]
        let fetched = try reader.fetch(request)
        #expect(fetched.allSatisfy { !$0.isToManyFault("employees") }, "the prefetch filled every list")
        #expect(walk(fetched) == ["A: a1/-1/A, a2/-1/A", "B: b1/-1/B"])
    }

    /// A destination the context already holds, with an unsaved change, is the one a prefetched
    /// list holds, and keeps its change, on every store.
    @Test(arguments: StoreTypesUnderTest.all)
    func aPrefetchedListHoldsTheContextsOwnChangedObject(storeType: String) throws {
        let fixture = CompanyFixture(storeType: storeType)
        try fixture.addStore()
        let writer = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        writer.persistentStoreCoordinator = fixture.coordinator
        let department = insert("Department", named: ["A"], into: writer)[0]
        for employee in insert("Employee", named: ["a1", "a2"], into: writer) { employee.setValue(department, forKey: "department") }
        try writer.save()

        let reader = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        reader.persistentStoreCoordinator = fixture.coordinator
        let byName = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        byName.predicate = NSPredicate(format: "name == 'a2'")
        let changed = try #require(try reader.fetch(byName).first)
        changed.setValue(Int64(999), forKey: "salary")
        let request = NSFetchRequest<NSManagedObject>(entityName: "Department")
        request.relationshipKeyPathsForPrefetching = ["employees"]
        let fetched = try #require(try reader.fetch(request).first)
        let list = try #require(fetched.value(forKey: "employees") as? Set<NSManagedObject>)
        #expect(list.count == 2)
        #expect(list.contains { $0 === changed })
        #expect(changed.value(forKey: "salary") as? Int64 == 999 && changed.hasChanges)
        #expect(list.allSatisfy { reader.registeredObject(for: $0.objectID) === $0 })
    }

    /// New objects of `entity` in `context`, named `names`.
    private func insert(_ entity: String, named names: [String], into context: NSManagedObjectContext) -> [NSManagedObject] {
        names.map { name in
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            object.setValue(name, forKey: "name")
            return object
        }
    }

    @Test func toOnePrefetch() throws {
        let fixture = try SQLiteStatementFixture()
        let context = fixture.context()
        let request = fixture.request("Employee")
        request.relationshipKeyPathsForPrefetching = ["department"]
        let (employees, statements) = try fixture.selects { try context.fetch(request) }
        #expect(statements.count == 2)
        let (names, walking) = fixture.selects {
            employees.map { ($0.value(forKey: "department") as? NSManagedObject)?.value(forKey: "name") as? String ?? "?" }
        }
        #expect(names == ["Sales", "Sales", "Sales", "Tech", "Tech"])
        #expect(walking.isEmpty)
    }

    /// To-one keys are read straight into IDs, each column remembering its last destination:
    /// rows whose destinations alternate (and a row with none) still each get their own, fetched
    /// plainly or prefetched; and a to-many prefetch files every source's run of rows.
    @Test func alternatingToOneDestinationsReadRowByRow() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Alternating.sqlite")
        func open() throws -> NSManagedObjectContext {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SQLiteHostileRowTests.model())
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        do {
            let context = try open()
            let shelves = ["Top", "Bottom"].map { name in
                let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
                shelf.setValue(name, forKey: "name")
                return shelf
            }
            for index in 0..<7 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue("i\(index)", forKey: "name")
                item.setValue(index == 6 ? nil : shelves[index % 2], forKey: "shelf")
            }
            try context.save()
        }
        for prefetching in [[], ["shelf"]] {
            let context = try open()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            request.relationshipKeyPathsForPrefetching = prefetching
            let shelves = try context.fetch(request).map { ($0.value(forKey: "shelf") as? NSManagedObject)?.value(forKey: "name") as? String ?? "-" }
            #expect(shelves == ["Top", "Bottom", "Top", "Bottom", "Top", "Bottom", "-"], "prefetching \(prefetching)")
        }
        let context = try open()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Shelf")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
        request.relationshipKeyPathsForPrefetching = ["items"]
        let items = try context.fetch(request).map { shelf in
            (shelf.value(forKey: "items") as? Set<NSManagedObject> ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
        #expect(items == [["i0", "i2", "i4"], ["i1", "i3", "i5"]])
    }

    @Test func unknownKeyPathThrows() throws {
        let fixture = try SQLiteStatementFixture()
        let request = fixture.request("Department")
        request.relationshipKeyPathsForPrefetching = ["budget"]
        #expect(throws: NSError.self) { try fixture.context().fetch(request) }
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func prefetchedEqualsUnprefetched(storeType: String) throws {
        let fixture = CompanyFixture(storeType: storeType)
        try fixture.addStore()
        try fixture.insertStandardData()
        func fetch(prefetching keyPaths: [String]?) throws -> [String] {
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = fixture.coordinator
            let request = NSFetchRequest<NSManagedObject>(entityName: "Department")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            request.relationshipKeyPathsForPrefetching = keyPaths
            return walk(try context.fetch(request))
        }
        let plain = try fetch(prefetching: nil)
        #expect(plain.count == 3)
        #expect(try fetch(prefetching: ["employees"]) == plain)
        #expect(try fetch(prefetching: ["employees.department", "employees"]) == plain)
    }

    /// Students ↔ courses, many-to-many (a join table in SQLite).
    private static func schoolModel() -> NSManagedObjectModel {
        func entity(_ name: String) -> NSEntityDescription {
            let entity = NSEntityDescription()
            entity.name = name
            let attribute = NSAttributeDescription()
            attribute.name = "name"
            attribute.attributeType = .stringAttributeType
            entity.properties = [attribute]
            return entity
        }
        let student = entity("Student"), course = entity("Course")
        let courses = NSRelationshipDescription(), students = NSRelationshipDescription()
        courses.name = "courses"; courses.maxCount = 0; courses.destinationEntity = course
        students.name = "students"; students.maxCount = 0; students.destinationEntity = student
        courses.inverseRelationship = students
        students.inverseRelationship = courses
        student.properties += [courses]
        course.properties += [students]
        let model = NSManagedObjectModel()
        model.entities = [course, student]
        return model
    }

    /// Runs `body` with a coordinator of the school model and its store of `storeType`, in a
    /// new directory (or schema), after ``saveSchool(through:)``.
    private static func withSchool(_ storeType: String, _ body: (NSPersistentStoreCoordinator, NSPersistentStore) throws -> Void) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: schoolModel())
        let store = try coordinator.addPersistentStore(ofType: storeType, configurationName: nil,
                                                       at: StoreTypesUnderTest.location(storeType, directory.appendingPathComponent("School")))
        try saveSchool(through: coordinator)
        try body(coordinator, store)
    }

    /// Saves three courses and three students (Ada takes Art and Math, Bo Math and Music, Cy
    /// nothing) through `coordinator`.
    static func saveSchool(through coordinator: NSPersistentStoreCoordinator) throws {
        let writer = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        let courses = ["Art", "Math", "Music"].map { name -> NSManagedObject in
            let course = NSEntityDescription.insertNewObject(forEntityName: "Course", into: writer)
            course.setValue(name, forKey: "name")
            return course
        }
        for (name, taken) in [("Ada", [0, 1]), ("Bo", [1, 2]), ("Cy", [])] {
            let student = NSEntityDescription.insertNewObject(forEntityName: "Student", into: writer)
            student.setValue(name, forKey: "name")
            student.setValue(Set(taken.map { courses[$0] }), forKey: "courses")
        }
        try writer.save()
    }

    /// Many-to-many prefetching gives each source its own destinations, shared destinations
    /// once, on every store (a join table on SQLite and PostgreSQL).
    @Test(arguments: StoreTypesUnderTest.all)
    func manyToManyPrefetchEqualsUnprefetched(storeType: String) throws {
        try Self.withSchool(storeType) { coordinator, _ in
            func walk(prefetching keyPaths: [String]?) throws -> [[String]] {
                let reader = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
                reader.persistentStoreCoordinator = coordinator
                let request = NSFetchRequest<NSManagedObject>(entityName: "Student")
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                request.relationshipKeyPathsForPrefetching = keyPaths
                return try reader.fetch(request).map { student in
                    ((student.value(forKey: "courses") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
                }
            }
            // Walked first: `#expect(try …)` in a closure does not compile.
            let (prefetched, twoSteps, unprefetched) = try (walk(prefetching: ["courses"]), walk(prefetching: ["courses.students"]),
                                                            walk(prefetching: nil))
            #expect(prefetched == [["Art", "Math"], ["Math", "Music"], []])
            #expect(twoSteps == unprefetched)
        }
    }

    @Test func manyToManyThroughTheJoinTable() throws {
        try Self.withSchool(NSSQLiteStoreType) { coordinator, added in
            let store = try #require(added as? SQLiteStore)
            store.rowCache.removeAll()

            let counter = SQLStatementCounter()
            store.sqlLog.addObserver { counter.add($0) }
            let reader = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            reader.persistentStoreCoordinator = coordinator
            let request = NSFetchRequest<NSManagedObject>(entityName: "Student")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            request.relationshipKeyPathsForPrefetching = ["courses"]
            let students = try reader.fetch(request)
            #expect(counter.all.filter { $0.sql.hasPrefix("SELECT") }.count == 2)
            let before = counter.all.count
            let walked = students.map { student in
                ((student.value(forKey: "courses") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
            }
            #expect(walked == [["Art", "Math"], ["Math", "Music"], []])
            #expect(counter.all.count == before)
        }
    }
}
