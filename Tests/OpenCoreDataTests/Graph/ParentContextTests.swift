import Foundation
import Testing
@testable import OpenCoreData

/// A root context on a coordinator (company model, standard data) and a child context of it.
final class ParentScenario {
    let fixture: CompanyFixture
    let root: NSManagedObjectContext
    let child: NSManagedObjectContext
    let annID: NSManagedObjectID
    let bobID: NSManagedObjectID
    let eveID: NSManagedObjectID
    let salesID: NSManagedObjectID

    init(storeType: String) throws {
        let fixture = CompanyFixture(storeType: storeType)
        self.fixture = fixture
        try fixture.addStore()
        try fixture.insertStandardData()
        func id(_ entity: String, _ name: String) throws -> NSManagedObjectID {
            try #require(try fixture.snapshots(fixture.request(entity, "name == %@", name)).first).objectID
        }
        annID = try id("Employee", "Ann")
        bobID = try id("Employee", "Bob")
        eveID = try id("Employee", "Eve")
        salesID = try id("Department", "Sales")
        root = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        root.persistentStoreCoordinator = fixture.coordinator
        child = Self.child(of: root)
    }

    static func child(of parent: NSManagedObjectContext) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.parent = parent
        return context
    }

    /// The names of the employees `context` fetches with `format`, sorted.
    func names(in context: NSManagedObjectContext, _ format: String = "TRUEPREDICATE") throws -> [String] {
        try context.performAndWait {
            let request = fixture.request("Employee", format, sort: [("name", true)])
            return try context.fetch(request).map { ($0 as? NSManagedObject)?.value(forKey: "name") as? String ?? "?" }
        }
    }

    /// The names of the employees in the store, sorted.
    func storedNames() throws -> [String] {
        try fixture.names(fixture.request("Employee", sort: [("name", true)]))
    }

    func storedSalary(_ id: NSManagedObjectID) throws -> Int64? {
        try fixture.coordinator.snapshots(for: [id], fresh: true)[id]?.values["salary"] as? Int64
    }

    /// Inserts an employee in `context` (on its queue) and returns it.
    func insertEmployee(_ name: String, salary: Int64, in context: NSManagedObjectContext) -> NSManagedObject {
        context.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
            object.setValue(name, forKey: "name")
            object.setValue(salary, forKey: "salary")
            return object
        }
    }
}

@Suite("Parent and child contexts")
struct ParentContextTests {
    @Test(arguments: StoreTypesUnderTest.all)
    func anObjectSavedThroughTheParentIsChangedInTheChildAndSavedAgain(storeType: String) throws {
        let s = try ParentScenario(storeType: storeType)
        let zed = s.insertEmployee("Zed", salary: 10, in: s.child)
        try s.child.performAndWait { try s.child.save() }
        try s.root.performAndWait { try s.root.save() }
        #expect(s.child.performAndWait { zed.objectID.isTemporaryID }, "the child's object keeps its temporary ID, as Apple's")

        // Changed and saved again through the child: the parent knows the object by its
        // permanent ID now, and still takes the child's change.
        try s.child.performAndWait {
            zed.setValue(Int64(77), forKey: "salary")
            try s.child.save()
        }
        try s.root.performAndWait { try s.root.save() }
        let stored = try s.root.performAndWait { () -> Int64? in
            let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            request.predicate = NSPredicate(format: "name == 'Zed'")
            return try s.root.fetch(request).first?.value(forKey: "salary") as? Int64
        }
        #expect(stored == 77)
        #expect(try s.storedNames() == ["Ann", "Bob", "Cid", "Dee", "Eve", "Zed"])

        // And deleted through the child.
        try s.child.performAndWait {
            s.child.delete(zed)
            try s.child.save()
        }
        try s.root.performAndWait { try s.root.save() }
        #expect(try s.storedNames() == ["Ann", "Bob", "Cid", "Dee", "Eve"])
    }

    /// A parent's save that fails after giving a child's inserted object a permanent ID (a
    /// conflict on another object) gives it back its temporary ID, and the parent still knows
    /// it by the child's ID: the child's later change reaches the store.
    @Test(arguments: StoreTypesUnderTest.all)
    func aChildsObjectSurvivesTheParentsFailedSave(storeType: String) throws {
        let s = try ParentScenario(storeType: storeType)
        // The parent changes Ann, whom another context changes and saves meanwhile.
        try s.root.performAndWait { try s.root.existingObject(with: s.annID).setValue(Int64(200), forKey: "salary") }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = s.fixture.coordinator
        try other.performAndWait {
            try other.existingObject(with: s.annID).setValue(Int64(300), forKey: "salary")
            try other.save()
        }
        let zed = s.insertEmployee("Zed", salary: 10, in: s.child)
        try s.child.performAndWait { try s.child.save() }
        let failed = s.root.performAndWait { () -> Bool in
            do { try s.root.save(); return false } catch { return true }
        }
        #expect(failed, "the error policy refuses the conflict on Ann")
        #expect(try s.storedNames() == ["Ann", "Bob", "Cid", "Dee", "Eve"])
        try s.root.performAndWait {
            s.root.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            try s.root.save()
        }
        #expect(try s.storedNames() == ["Ann", "Bob", "Cid", "Dee", "Eve", "Zed"])
        // Changed through the child, which still names it by its temporary ID.
        try s.child.performAndWait {
            zed.setValue(Int64(77), forKey: "salary")
            try s.child.save()
        }
        try s.root.performAndWait { try s.root.save() }
        let stored = try s.root.performAndWait { () -> [Int64] in
            let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            request.predicate = NSPredicate(format: "name == 'Zed'")
            return try s.root.fetch(request).compactMap { $0.value(forKey: "salary") as? Int64 }
        }
        #expect(stored == [77])
        #expect(try s.storedNames() == ["Ann", "Bob", "Cid", "Dee", "Eve", "Zed"])
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func childSaveReachesTheParentNotTheStore(storeType: String) throws {
        let s = try ParentScenario(storeType: storeType)
        let zed = s.insertEmployee("Zed", salary: 10, in: s.child)
        let zedID = try s.child.performAndWait {
            zed.setValue(try s.child.existingObject(with: s.salesID), forKey: "department")
            try s.child.existingObject(with: s.annID).setValue(Int64(111), forKey: "salary")
            s.child.delete(try s.child.existingObject(with: s.eveID))
            try s.child.save()
            #expect(!s.child.hasChanges)
            return zed.objectID
        }
        #expect(zedID.isTemporaryID)
        // The parent has the changes, unsaved; the store has none of them.
        try s.root.performAndWait {
            #expect(s.root.hasChanges)
            let parentZed = try #require(s.root.registeredObject(for: zedID))
            #expect(s.root.insertedObjects.contains(parentZed))
            #expect(parentZed.value(forKey: "name") as? String == "Zed")
            #expect((parentZed.value(forKey: "department") as? NSManagedObject)?.objectID == s.salesID)
            #expect(try s.root.existingObject(with: s.annID).value(forKey: "salary") as? Int64 == 111)
            #expect(s.root.deletedObjects.map(\.objectID) == [s.eveID])
        }
        #expect(try s.storedNames() == ["Ann", "Bob", "Cid", "Dee", "Eve"])
        #expect(try s.storedSalary(s.annID) == 100)
        // The parent's save reaches the store; the child's object keeps its temporary ID.
        try s.root.performAndWait { try s.root.save() }
        #expect(try s.storedNames() == ["Ann", "Bob", "Cid", "Dee", "Zed"])
        #expect(try s.storedSalary(s.annID) == 111)
        #expect(s.child.performAndWait { zed.objectID.isTemporaryID })
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func obtainPermanentIDsInAChildReachesTheCoordinatorAndTheParent(storeType: String) throws {
        let s = try ParentScenario(storeType: storeType)
        let early = s.insertEmployee("Early", salary: 1, in: s.child)
        let late = s.insertEmployee("Late", salary: 2, in: s.child)
        // Before the child's save: only the child's object changes ID.
        try s.child.performAndWait { try s.child.obtainPermanentIDs(for: [early]) }
        let earlyID = s.child.performAndWait { early.objectID }
        #expect(!earlyID.isTemporaryID)
        try s.child.performAndWait { try s.child.save() }
        let lateTemporary = s.child.performAndWait { late.objectID }
        #expect(lateTemporary.isTemporaryID)
        // After it: the parent's object of the same temporary ID takes the same permanent ID.
        try s.child.performAndWait { try s.child.obtainPermanentIDs(for: [late]) }
        let lateID = s.child.performAndWait { late.objectID }
        #expect(!lateID.isTemporaryID)
        s.root.performAndWait {
            #expect(s.root.registeredObject(for: earlyID)?.value(forKey: "name") as? String == "Early")
            #expect(s.root.registeredObject(for: lateID)?.value(forKey: "name") as? String == "Late")
            #expect(s.root.registeredObject(for: lateTemporary) == nil)
        }
        try s.root.performAndWait { try s.root.save() }
        let stored = try s.fixture.coordinator.snapshots(for: [earlyID, lateID])
        #expect(stored[earlyID]?.values["name"] as? String == "Early")
        #expect(stored[lateID]?.values["name"] as? String == "Late")
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func childFetchSeesTheParentsPendingChangesThenItsOwn(storeType: String) throws {
        let s = try ParentScenario(storeType: storeType)
        _ = s.insertEmployee("Yan", salary: 500, in: s.root)
        try s.root.performAndWait {
            try s.root.existingObject(with: s.annID).setValue(Int64(999), forKey: "salary")
            s.root.delete(try s.root.existingObject(with: s.bobID))
        }
        #expect(try s.names(in: s.child, "salary >= 300") == ["Ann", "Cid", "Dee", "Yan"])
        let counted = try s.child.performAndWait { try s.child.count(for: s.fixture.request("Employee", "salary >= 300")) }
        #expect(counted == 4)
        let rows = try s.child.performAndWait {
            let request = s.fixture.request("Employee", "salary >= 300", sort: [("name", true)], resultType: .dictionaryResultType)
            request.propertiesToFetch = ["name", "salary"]
            return try s.child.fetch(request).compactMap { $0 as? NSDictionary }
        }
        #expect(rows.map { $0["name"] as? String } == ["Ann", "Cid", "Dee", "Yan"])
        #expect(rows.first?["salary"] as? Int64 == 999)
        // The child's own pending changes come on top of the parent's.
        try s.child.performAndWait {
            let cid = try s.child.fetch(s.fixture.request("Employee", "name == 'Cid'"))
            s.child.delete(try #require(cid.first as? NSManagedObject))
            try s.child.existingObject(with: s.eveID).setValue(Int64(301), forKey: "salary")
        }
        #expect(try s.names(in: s.child, "salary >= 300") == ["Ann", "Dee", "Eve", "Yan"])
        let ids = try s.child.performAndWait {
            try s.child.fetch(s.fixture.request("Employee", "salary >= 300", resultType: .managedObjectIDResultType)).count
        }
        #expect(ids == 4)
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func childFaultFiresThroughTheParent(storeType: String) throws {
        let s = try ParentScenario(storeType: storeType)
        try s.root.performAndWait { try s.root.existingObject(with: s.annID).setValue(Int64(777), forKey: "salary") }
        let (wasFault, salary, department) = s.child.performAndWait {
            let ann = s.child.object(with: s.annID)
            let wasFault = ann.isFault
            return (wasFault, ann.value(forKey: "salary") as? Int64,
                    (ann.value(forKey: "department") as? NSManagedObject)?.value(forKey: "name") as? String)
        }
        #expect(wasFault)
        #expect(salary == 777)
        #expect(department == "Sales")
        // A to-many relationship read through the parent includes its unsaved insert.
        let yan = s.insertEmployee("Yan", salary: 5, in: s.root)
        let rootStaff = try s.root.performAndWait {
            let sales = try s.root.existingObject(with: s.salesID)
            _ = sales.value(forKey: "employees")
            yan.setValue(sales, forKey: "department")
            return ((sales.value(forKey: "employees") as? Set<NSManagedObject>) ?? []).count
        }
        #expect(rootStaff == 4)
        // (A new child: the first one already loaded Sales, and keeps what it read, as in Apple.)
        let reader = ParentScenario.child(of: s.root)
        let staff = reader.performAndWait {
            let sales = reader.object(with: s.salesID)
            return ((sales.value(forKey: "employees") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
        #expect(staff == ["Ann", "Bob", "Cid", "Yan"])
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func grandchildSavesLevelByLevel(storeType: String) throws {
        let s = try ParentScenario(storeType: storeType)
        let grandchild = ParentScenario.child(of: s.child)
        #expect(grandchild.persistentStoreCoordinator === s.fixture.coordinator)
        #expect(s.child.persistentStoreCoordinator === s.fixture.coordinator)
        try s.root.performAndWait { try s.root.existingObject(with: s.annID).setValue(Int64(5), forKey: "salary") }
        let annSalary = try grandchild.performAndWait { try grandchild.existingObject(with: s.annID).value(forKey: "salary") as? Int64 }
        #expect(annSalary == 5)
        _ = s.insertEmployee("Zed", salary: 1, in: grandchild)
        try grandchild.performAndWait {
            try grandchild.existingObject(with: s.annID).setValue("Annie", forKey: "name")
            try grandchild.save()
        }
        #expect(s.child.performAndWait { s.child.hasChanges })
        #expect(try s.names(in: s.child) == ["Annie", "Bob", "Cid", "Dee", "Eve", "Zed"])
        #expect(try s.names(in: s.root) == ["Ann", "Bob", "Cid", "Dee", "Eve"])
        try s.child.performAndWait { try s.child.save() }
        #expect(try s.names(in: s.root) == ["Annie", "Bob", "Cid", "Dee", "Eve", "Zed"])
        #expect(try s.storedNames() == ["Ann", "Bob", "Cid", "Dee", "Eve"])
        try s.root.performAndWait { try s.root.save() }
        #expect(try s.storedNames() == ["Annie", "Bob", "Cid", "Dee", "Eve", "Zed"])
        #expect(try s.storedSalary(s.annID) == 5)
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func childMergesTheParentsSaveAutomatically(storeType: String) throws {
        let s = try ParentScenario(storeType: storeType)
        s.child.automaticallyMergesChangesFromParent = true
        let changed = Captured<Set<NSManagedObjectID>>()
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: s.child, queue: nil) { note in
            let refreshed = note.userInfo?[NSRefreshedObjectsKey] as? Set<NSManagedObject> ?? []
            changed.value = Set(refreshed.map(\.objectID))
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let ann = try s.child.performAndWait { try s.child.existingObject(with: s.annID) }
        #expect(s.child.performAndWait { ann.value(forKey: "salary") as? Int64 } == 100)
        try s.root.performAndWait {
            try s.root.existingObject(with: s.annID).setValue(Int64(150), forKey: "salary")
            try s.root.save()
        }
        // The merge was enqueued on the child's queue before this block.
        let salary = s.child.performAndWait { ann.value(forKey: "salary") as? Int64 }
        #expect(salary == 150)
        #expect(s.child.performAndWait { changed.value } == [s.annID])
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func rootContextMergesASiblingsSaveThroughTheCoordinator(storeType: String) throws {
        let s = try ParentScenario(storeType: storeType)
        let sibling = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        sibling.persistentStoreCoordinator = s.fixture.coordinator
        s.root.automaticallyMergesChangesFromParent = true
        let ann = try s.root.performAndWait { try s.root.existingObject(with: s.annID) }
        try sibling.performAndWait {
            try sibling.existingObject(with: s.annID).setValue("Anna", forKey: "name")
            try sibling.save()
        }
        #expect(s.root.performAndWait { ann.value(forKey: "name") as? String } == "Anna")
        // A child's save into its parent is not a save through the coordinator.
        let grandchild = ParentScenario.child(of: sibling)
        try grandchild.performAndWait {
            try grandchild.existingObject(with: s.annID).setValue("Anne", forKey: "name")
            try grandchild.save()
        }
        #expect(s.root.performAndWait { ann.value(forKey: "name") as? String } == "Anna")
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func conflictWithTheParentFailsWithTheErrorPolicy(storeType: String) throws {
        let s = try ParentScenario(storeType: storeType)
        let ann = try s.child.performAndWait { try s.child.existingObject(with: s.annID) }
        try s.root.performAndWait { try s.root.existingObject(with: s.annID).setValue(Int64(150), forKey: "salary") }
        let error = s.child.performAndWait { () -> NSError? in
            ann.setValue("Anna", forKey: "name")
            _ = s.insertEmployee("Zed", salary: 1, in: s.child)
            do { try s.child.save() } catch { return error as NSError }
            return nil
        }
        let failure = try #require(error)
        #expect(failure.code == NSManagedObjectMergeError)
        let conflicts = try #require(failure.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        #expect(conflicts.map(\.sourceObjectID) == [s.annID])
        #expect(conflicts.first?.persistedSnapshot?["salary"] as? Int64 == 150)
        // Nothing was written into the parent; the child keeps its changes.
        try s.root.performAndWait {
            let theirs = try s.root.existingObject(with: s.annID)
            #expect(theirs.value(forKey: "name") as? String == "Ann")
            #expect(s.root.insertedObjects.isEmpty)
        }
        #expect(s.child.performAndWait { s.child.hasChanges })
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func conflictWithTheParentMergesWithObjectTrump(storeType: String) throws {
        let s = try ParentScenario(storeType: storeType)
        s.child.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        let hired = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let ann = try s.child.performAndWait { try s.child.existingObject(with: s.annID) }
        try s.root.performAndWait {
            let theirs = try s.root.existingObject(with: s.annID)
            theirs.setValue(Int64(150), forKey: "salary")
            theirs.setValue(hired, forKey: "hired")
        }
        try s.child.performAndWait {
            ann.setValue("Anna", forKey: "name")
            ann.setValue(Int64(120), forKey: "salary")
            try s.child.save()
        }
        try s.root.performAndWait {
            let theirs = try s.root.existingObject(with: s.annID)
            #expect(theirs.value(forKey: "name") as? String == "Anna")
            #expect(theirs.value(forKey: "salary") as? Int64 == 120)
            #expect(theirs.value(forKey: "hired") as? Date == hired)
        }
        #expect(s.child.performAndWait { ann.value(forKey: "hired") as? Date } == hired)
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func updatingAnObjectTheParentDeletedConflicts(storeType: String) throws {
        let s = try ParentScenario(storeType: storeType)
        let ann = try s.child.performAndWait { try s.child.existingObject(with: s.annID) }
        try s.root.performAndWait { s.root.delete(try s.root.existingObject(with: s.annID)) }
        let error = s.child.performAndWait { () -> NSError? in
            ann.setValue("Anna", forKey: "name")
            do { try s.child.save() } catch { return error as NSError }
            return nil
        }
        let conflicts = try #require(error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        #expect(error?.code == NSManagedObjectMergeError)
        #expect(conflicts.map(\.sourceObjectID) == [s.annID])
        #expect(conflicts.first?.persistedSnapshot == nil)
    }

    @Test func childrenOnSeveralQueuesSaveIntoOneParent() throws {
        let s = try ParentScenario(storeType: NSInMemoryStoreType)
        let children = (0..<4).map { _ in ParentScenario.child(of: s.root) }
        let group = DispatchGroup()
        let failures = Captured<Int>()
        let lock = NSLock()
        for (index, child) in children.enumerated() {
            group.enter()
            child.perform {
                for number in 0..<5 {
                    let object = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: child)
                    object.setValue("C\(index)-\(number)", forKey: "name")
                }
                do { try child.save() } catch { lock.withLock { failures.value = (failures.value ?? 0) + 1 } }
                group.leave()
            }
        }
        group.wait()
        #expect(failures.value == nil)
        #expect(s.root.performAndWait { s.root.insertedObjects.count } == 20)
        try s.root.performAndWait { try s.root.save() }
        #expect(try s.storedNames().count == 25)
    }

    @Test func parentOrCoordinatorNotBoth() throws {
        let fixture = CompanyFixture()
        try fixture.addStore()
        let root = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        root.persistentStoreCoordinator = fixture.coordinator
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        #expect(root.backingAssignmentProblem(parent: other)?.contains("already has a coordinator") == true)
        let child = ParentScenario.child(of: root)
        #expect(child.backingAssignmentProblem(coordinator: fixture.coordinator)?.contains("already has a parent") == true)
        #expect(child.backingAssignmentProblem(parent: child)?.contains("own parent") == true)
        #expect(child.persistentStoreCoordinator === fixture.coordinator)
        #expect(child.parent === root)
        #expect(root.parent == nil)
        // Replacing the backing once the context holds objects is refused too.
        let id = try fixture.insert("Employee", ["name": "Ann"]).objectID
        let held = try child.performAndWait { try child.existingObject(with: id) }
        #expect(child.backingAssignmentProblem(parent: other)?.contains("can't be replaced") == true)
        #expect(child.backingAssignmentProblem(parent: root) == nil)
        withExtendedLifetime(held) {}
    }
}

@Suite("Parent and child contexts: the container")
struct ParentContextContainerTests {
    @Test func viewContextMergesABackgroundContextsSave() async throws {
        let container = NSPersistentContainer(name: "Company", managedObjectModel: CompanyModel.make())
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        container.loadPersistentStores { _, error in #expect(error == nil) }
        let view = container.viewContext
        view.automaticallyMergesChangesFromParent = true
        let background = container.newBackgroundContext()
        let id = try await background.perform {
            let ann = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: background)
            ann.setValue("Ann", forKey: "name")
            try background.save()
            return ann.objectID
        }
        // The view context holds Ann (registered objects are not retained by their context).
        let held = Captured<NSManagedObject>()
        let before = try await view.perform {
            held.value = try view.existingObject(with: id)
            return held.value?.value(forKey: "name") as? String
        }
        #expect(before == "Ann")
        try await background.perform {
            try background.existingObject(with: id).setValue("Anna", forKey: "name")
            try background.save()
        }
        // The merge was enqueued on the main queue before this block.
        let name = await view.perform { held.value?.value(forKey: "name") as? String }
        #expect(name == "Anna")
    }
}
