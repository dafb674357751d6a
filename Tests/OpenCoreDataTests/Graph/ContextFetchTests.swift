import Foundation
import Testing
@testable import OpenCoreData

@Suite("Context fetches over the in-memory store")
struct ContextFetchTests {
    /// Five saved students aged 10…14 in one class.
    private func seeded() throws -> (NSManagedObjectContext, klass: NSManagedObject, students: [NSManagedObject]) {
        let context = try GraphTestModel.storedContext()
        let klass = GraphTestModel.insert("ClassEntity", context, ["name": "一班"])
        let students = (0..<5).map { GraphTestModel.insert("StudentEntity", context, ["name": "s\($0)", "age": 10 + $0, "inClass": klass]) }
        try context.save()
        return (context, klass, students)
    }

    @Test func fetchReturnsRegisteredObjectsAsFaultsSortedAndLimited() throws {
        let (context, _, students) = try seeded()
        let request = NSFetchRequest<NSManagedObject>(entityName: "StudentEntity")
        request.predicate = NSPredicate(format: "age >= 11")
        request.sortDescriptors = [NSSortDescriptor(key: "age", ascending: false)]
        request.fetchLimit = 2
        request.fetchOffset = 1
        let results = try context.fetch(request)
        #expect(results.count == 2 && results[0] === students[3] && results[1] === students[2])

        let other = GraphTestModel.sibling(of: context)
        let fetched = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "StudentEntity"))
        #expect(fetched.count == 5 && fetched.allSatisfy(\.isFault))
        #expect(Set(fetched.compactMap { $0.value(forKey: "name") as? String }) == ["s0", "s1", "s2", "s3", "s4"])
        let again = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "StudentEntity"))
        #expect(Set(again.map(ObjectIdentifier.init)) == Set(fetched.map(ObjectIdentifier.init)))
    }

    @Test func returnsObjectsAsFaultsFalseLoadsAndAwakes() throws {
        let model = GraphTestModel.make()
        model.register(RecordingRun.self, forEntityName: "Run")
        let context = try GraphTestModel.storedContext(model: model)
        _ = RecordingRun(context: context)
        try context.save()
        let other = GraphTestModel.sibling(of: context)
        let request = NSFetchRequest<RecordingRun>(entityName: "Run")
        request.returnsObjectsAsFaults = false
        let runs = try other.fetch(request)
        #expect(runs.count == 1 && !runs[0].isFault && runs[0].events == ["awakeFromFetch"])
    }

    @Test func includesPendingChangesMergesInsertsUpdatesAndDeletes() throws {
        let (context, klass, students) = try seeded()
        students[0].setValue(20, forKey: "age")
        students[4].setValue(1, forKey: "age")
        context.delete(students[3])
        let newcomer = GraphTestModel.insert("StudentEntity", context, ["name": "new", "age": 13, "inClass": klass])
        let request = NSFetchRequest<NSManagedObject>(entityName: "StudentEntity")
        request.predicate = NSPredicate(format: "age > 11")
        request.sortDescriptors = [NSSortDescriptor(key: "age", ascending: true)]
        let merged = try context.fetch(request)
        #expect(merged.map { $0.value(forKey: "name") as? String } == ["s2", "new", "s0"])
        #expect(merged[1] === newcomer)
        #expect(try context.count(for: request) == 3)

        request.fetchLimit = 1
        request.fetchOffset = 1
        #expect(try context.fetch(request).first === newcomer)

        let storeOnly = NSFetchRequest<NSManagedObject>(entityName: "StudentEntity")
        storeOnly.predicate = NSPredicate(format: "age > 11")
        storeOnly.includesPendingChanges = false
        #expect(Set(try context.fetch(storeOnly).compactMap { $0.value(forKey: "name") as? String }) == ["s2", "s3", "s4"])
    }

    @Test func predicatesTakeObjectsOrIDs() throws {
        let (context, klass, _) = try seeded()
        let other = GraphTestModel.insert("ClassEntity", context)
        let moved = GraphTestModel.insert("StudentEntity", context, ["inClass": other])
        for constant in [klass as Any, klass.objectID as Any] {
            let request = NSFetchRequest<NSManagedObject>(entityName: "StudentEntity")
            request.predicate = NSPredicate(format: "inClass == %@", argumentArray: [constant])
            #expect(try context.count(for: request) == 5)
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: "StudentEntity")
        request.predicate = NSPredicate(format: "inClass == %@", other)
        #expect(try context.fetch(request) == [moved])
    }

    @Test func objectIDAndCountResults() throws {
        let (context, _, students) = try seeded()
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "StudentEntity")
        ids.resultType = .managedObjectIDResultType
        ids.sortDescriptors = [NSSortDescriptor(key: "age", ascending: true)]
        #expect(try context.fetch(ids) == students.map(\.objectID))

        let count = NSFetchRequest<NSNumber>(entityName: "StudentEntity")
        count.resultType = .countResultType
        count.predicate = NSPredicate(format: "age < 12")
        #expect(try context.fetch(count) == [NSNumber(value: 2)])
        _ = GraphTestModel.insert("StudentEntity", context, ["age": 3])
        #expect(try context.fetch(count) == [NSNumber(value: 3)])
    }

    @Test func dictionaryResultsAsNSDictionaryOrSwiftDictionaries() throws {
        let (context, _, _) = try seeded()
        let request = NSFetchRequest<NSDictionary>(entityName: "StudentEntity")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["name", "age"]
        request.sortDescriptors = [NSSortDescriptor(key: "age", ascending: true)]
        let rows = try context.fetch(request)
        #expect(rows.count == 5)
        #expect(rows[0]["name"] as? String == "s0")

        let sum = NSExpressionDescription()
        sum.name = "total"
        sum.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "age")])
        sum.expressionResultType = .integer64AttributeType
        let swiftRows = NSFetchRequest<[String: Any]>(entityName: "StudentEntity")
        swiftRows.resultType = .dictionaryResultType
        swiftRows.propertiesToFetch = [sum]
        let totals = try context.fetch(swiftRows)
        #expect(totals.count == 1)
        #expect(NumericValue(totals[0]["total"]).flatMap(\.exactInteger) == 60)
    }

    @Test func requestsOfNSFetchRequestResultTakeEveryResultType() throws {
        let (context, _, students) = try seeded()
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "StudentEntity")
        request.sortDescriptors = [NSSortDescriptor(key: "age", ascending: true)]
        #expect((try context.fetch(request) as? [NSManagedObject]) == students)
        request.resultType = .managedObjectIDResultType
        #expect((try context.fetch(request) as? [NSManagedObjectID]) == students.map(\.objectID))
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["age"]
        #expect((try context.fetch(request) as? [NSDictionary])?.first?["age"] as? Int16 == 10)
        request.resultType = .countResultType
        #expect((try context.fetch(request) as? [NSNumber]) == [5])
    }

    @Test func subentitiesAreIncludedUnlessAsked() throws {
        let context = try GraphTestModel.storedContext()
        _ = GraphTestModel.insert("Animal", context, ["name": "cat"])
        let dog = GraphTestModel.insert("Dog", context, ["name": "rex", "breed": "collie"])
        try context.save()
        _ = GraphTestModel.insert("Dog", context, ["name": "new"])
        let all = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        #expect(try context.count(for: all) == 3)
        all.includesSubentities = false
        #expect(try context.fetch(all).map { $0.value(forKey: "name") as? String } == ["cat"])
        #expect(dog.value(forKey: "legs") as? Int16 == 4)
    }

    @Test func typedSubclassesComeBackFromFetches() throws {
        let model = GraphTestModel.make()
        model.register(StudentEntity.self, forEntityName: "StudentEntity")
        model.register(ClassEntity.self, forEntityName: "ClassEntity")
        let context = try GraphTestModel.storedContext(model: model)
        let klass = ClassEntity(context: context)
        let student = StudentEntity(context: context)
        klass.addStudentsObject(student)
        try context.save()
        let other = GraphTestModel.sibling(of: context)
        let classes = try other.fetch(NSFetchRequest<ClassEntity>(entityName: "ClassEntity"))
        #expect(classes.count == 1)
        #expect(classes[0].students.first?.name == "学生甲")
        #expect(classes[0].students.first?.inClass === classes[0])
        #expect(other.object(with: student.objectID) is StudentEntity)
    }

    @Test func templatesWithSubstitutionVariables() throws {
        let model = GraphTestModel.make()
        let template = NSFetchRequest<NSFetchRequestResult>(entityName: "StudentEntity")
        template.predicate = NSPredicate(format: "age >= $MIN")
        model.setFetchRequestTemplate(template, forName: "olderThan")
        let context = try GraphTestModel.storedContext(model: model)
        for age in [9, 12, 15] { _ = GraphTestModel.insert("StudentEntity", context, ["age": age]) }
        try context.save()
        let request = try #require(model.fetchRequestFromTemplate(withName: "olderThan", substitutionVariables: ["MIN": 12]))
        #expect(try context.count(for: request) == 2)
    }

    @Test func fetchedPropertiesAreEvaluatedLazilyWithFetchSource() throws {
        let model = GraphTestModel.make()
        let classEntity = model.entitiesByName["ClassEntity"]!
        let fetched = NSFetchedPropertyDescription()
        fetched.name = "adults"
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "StudentEntity")
        request.predicate = NSPredicate(format: "inClass == $FETCH_SOURCE AND age >= $FETCHED_PROPERTY.userInfo.minimum AND inClass.name == $FETCH_SOURCE.name")
        fetched.fetchRequest = request
        fetched.userInfo = ["minimum": 18]
        classEntity.properties = classEntity.properties + [fetched]
        let context = try GraphTestModel.storedContext(model: model)
        let klass = GraphTestModel.insert("ClassEntity", context)
        let adult = GraphTestModel.insert("StudentEntity", context, ["age": 20, "inClass": klass])
        _ = GraphTestModel.insert("StudentEntity", context, ["age": 10, "inClass": klass])
        _ = GraphTestModel.insert("StudentEntity", context, ["age": 30])
        try context.save()
        let adults = try #require(klass.value(forKey: "adults") as? [Any])
        #expect(adults.count == 1 && adults.first as? NSManagedObject === adult)
    }

    @Test func executeRunsFetchesAndAsynchronousFetches() throws {
        let (context, _, _) = try seeded()
        let result = try context.execute(NSFetchRequest<NSManagedObject>(entityName: "StudentEntity"))
        #expect((result as? NSAsynchronousFetchResult<NSManagedObject>)?.finalResult?.count == 5)
        final class Box: @unchecked Sendable { var count = -1 }
        let box = Box()
        let asynchronous = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "StudentEntity")) { result in
            box.count = result.finalResult?.count ?? -2
        }
        _ = try context.execute(asynchronous)
        #expect(box.count == 5)
    }

    @Test func twoStoresAssignAndAffectedStores() throws {
        let context = try GraphTestModel.storedContext()
        let coordinator = context.persistentStoreCoordinator!
        let first = coordinator.persistentStores[0]
        let second = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let a = GraphTestModel.insert("Run", context, ["processID": 1])
        let b = GraphTestModel.insert("Run", context, ["processID": 2])
        context.assign(b, to: second)
        try context.save()
        #expect(a.objectID.persistentStore === first && b.objectID.persistentStore === second)
        let reader = GraphTestModel.sibling(of: context)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Run")
        #expect(try reader.count(for: request) == 2)
        request.affectedStores = [second]
        #expect(try reader.fetch(request).map { $0.value(forKey: "processID") as? Int32 } == [2])

        // A run of one entity's objects, some assigned to the second store between others that
        // go to the first (the store found once for the run must not route the assigned ones).
        let runs = (10..<19).map { GraphTestModel.insert("Run", context, ["processID": Int32($0)]) }
        for run in runs where (run.value(forKey: "processID") as? Int32 ?? 0) % 3 == 0 { context.assign(run, to: second) }
        try context.save()
        for run in runs {
            let expected = (run.value(forKey: "processID") as? Int32 ?? 0) % 3 == 0 ? second : first
            #expect(run.objectID.persistentStore === expected, "run \(run.value(forKey: "processID") ?? "?")")
        }
        #expect(try reader.fetch(request).count == 4)
    }

    @Test func unknownEntityThrows() throws {
        let context = try GraphTestModel.storedContext()
        #expect(throws: NSError.self) { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Nope")) }
    }

    @Test func performRunsInlineAndAsync() async throws {
        let context = try GraphTestModel.storedContext()
        let count = try await context.perform {
            _ = GraphTestModel.insert("Run", context)
            return try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Run"))
        }
        #expect(count == 1)
        var ran = false
        context.performAndWait { ran = true }
        #expect(ran)
        #expect(context.tryLock())
        context.unlock()
    }
}
