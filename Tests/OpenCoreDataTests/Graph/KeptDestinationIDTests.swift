import Foundation
import Testing
@testable import OpenCoreData

/// Objects whose to-one destinations were already registered when they were loaded keep the
/// snapshot's values as they are, destinations as IDs resolved when read: everything that reads
/// or changes a to-one relationship sees the destination object, as with a destination kept as
/// an object.
@Suite struct KeptDestinationIDTests {
    /// A fresh context of `scenario`'s coordinator, Sales loaded in it, and Sales's employees
    /// fetched (and loaded) after it: the objects under test.
    static func employeesOfSales(_ scenario: MergeScenario, undo: Bool = false)
        throws -> (context: NSManagedObjectContext, sales: NSManagedObject, employees: [NSManagedObject]) {
        let (context, sales) = try loaded(scenario.salesID, named: "Sales", of: scenario)
        if undo { context.undoManager = UndoManager() }
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.predicate = NSPredicate(format: "department == %@", sales)
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let employees = try context.fetch(request)
        #expect(employees.compactMap { $0.value(forKey: "name") as? String } == ["Ann", "Bob", "Cid"])
        return (context, sales, employees)
    }

    /// A fresh context of `scenario`'s coordinator, and the object of `id` loaded in it (its
    /// name read).
    static func loaded(_ id: NSManagedObjectID, named name: String, of scenario: MergeScenario)
        throws -> (context: NSManagedObjectContext, object: NSManagedObject) {
        let context = MergeScenario.context(scenario.fixture.coordinator)
        let object = try context.existingObject(with: id)
        #expect(object.value(forKey: "name") as? String == name)
        return (context, object)
    }

    /// Whether `object`'s values are its committed snapshot's buffer (not a copy with the
    /// destinations resolved).
    static func sharesSnapshot(_ object: NSManagedObject) -> Bool {
        guard let values = object.state?.values, let snapshot = object.committedSnapshot else { return false }
        return values.sharesBuffer(with: snapshot.slots)
    }

    /// A fault fired (no memo of destinations) and a prefetch (with one) both keep the IDs of
    /// registered destinations, and reading the relationship gives the registered object.
    @Test(arguments: StoreTypesUnderTest.all)
    func registeredDestinationsStayIDsAndReadAsObjects(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        let (context, sales, employees) = try Self.employeesOfSales(scenario)
        // Objects do not retain their context.
        defer { withExtendedLifetime(context) {} }
        for employee in employees {
            #expect(Self.sharesSnapshot(employee), "\(employee.objectID)")
            #expect(employee.value(forKey: "department") as? NSManagedObject === sales)
            #expect(employee.primitiveValue(forKey: "department") as? NSManagedObject === sales)
            #expect(employee.objectIDs(forRelationshipNamed: "department") == [scenario.salesID])
            #expect(!employee.hasPersistentChangedValues && employee.changedValues().isEmpty)
            #expect(employee.committedValues(forKeys: ["department"])["department"] as? NSManagedObject === sales)
        }
        #expect((sales.value(forKey: "employees") as? Set<NSManagedObject>) == Set(employees))

        // Prefetched from the department's side: the destination (the department) is registered.
        let prefetching = MergeScenario.context(scenario.fixture.coordinator)
        defer { withExtendedLifetime(prefetching) {} }
        let request = NSFetchRequest<NSManagedObject>(entityName: "Department")
        request.predicate = NSPredicate(format: "name == 'Tech'")
        request.relationshipKeyPathsForPrefetching = ["employees"]
        let tech = try #require(try prefetching.fetch(request).first)
        let staff = try #require(tech.value(forKey: "employees") as? Set<NSManagedObject>)
        #expect(staff.count == 2)
        for employee in staff {
            #expect(!employee.isFault)
            #expect(Self.sharesSnapshot(employee))
            #expect(employee.value(forKey: "department") as? NSManagedObject === tech)
        }
    }

    /// A destination that was not registered is made a fault at the load, as before (the object
    /// holds it, and it is a candidate of batch faulting).
    @Test(arguments: StoreTypesUnderTest.all)
    func unregisteredDestinationsAreMadeFaults(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        let (context, ann) = try Self.loaded(scenario.annID, named: "Ann", of: scenario)
        #expect(!Self.sharesSnapshot(ann))
        #expect(context.registeredObject(for: scenario.salesID) != nil)
        let department = try #require(ann.value(forKey: "department") as? NSManagedObject)
        #expect(department.objectID == scenario.salesID)
        #expect(department.value(forKey: "name") as? String == "Sales")
    }

    /// A weak reference to a managed object.
    final class WeakObject {
        weak var object: NSManagedObject?
        init(_ object: NSManagedObject) { self.object = object }
    }

    /// Runs `load` in a scope of its own and returns the objects it loaded, and a weak reference
    /// to the destination it returned: once `load` returned, only those objects can hold it.
    static func loadObjects(_ load: () throws -> (destination: NSManagedObject, objects: [NSManagedObject]))
        rethrows -> (destination: WeakObject, objects: [NSManagedObject]) {
        let loaded = try load()
        return (WeakObject(loaded.destination), loaded.objects)
    }

    /// Sales's employees, loaded (faults fired) in `context` while only the loading scope
    /// holds Sales (see ``loadObjects(_:)``): they keep its ID.
    static func employeesKeepingSales(of scenario: MergeScenario, in context: NSManagedObjectContext)
        throws -> (sales: WeakObject, employees: [NSManagedObject]) {
        let loaded = try loadObjects {
            let sales = try context.existingObject(with: scenario.salesID)
            #expect(sales.value(forKey: "name") as? String == "Sales")
            let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            request.predicate = NSPredicate(format: "department == %@", scenario.salesID)
            let employees = try context.fetch(request)
            for employee in employees { #expect(employee.value(forKey: "salary") != nil) }
            return (sales, employees)
        }
        #expect(loaded.objects.count == 3 && loaded.objects.allSatisfy(sharesSnapshot))
        return (loaded.destination, loaded.objects)
    }

    /// An object that keeps its destination's ID holds the destination, as a resolved slot
    /// does (and Core Data's objects do), whether a fault fired or a prefetch loaded it;
    /// turning it back into a fault lets it go.
    @Test(arguments: StoreTypesUnderTest.all)
    func keptDestinationIsHeldUntilTheObjectIsRefreshed(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        let context = MergeScenario.context(scenario.fixture.coordinator)
        let (sales, employees) = try Self.employeesKeepingSales(of: scenario, in: context)
        #expect(sales.object != nil, "the employees hold their department")
        #expect(employees.allSatisfy { $0.value(forKey: "department") as? NSManagedObject === sales.object })
        for employee in employees { context.refresh(employee, mergeChanges: false) }
        #expect(sales.object == nil, "faults hold nothing")
        let department = try #require(employees[0].value(forKey: "department") as? NSManagedObject)
        #expect(department.objectID == scenario.salesID && department.value(forKey: "name") as? String == "Sales")

        // Loaded by a prefetch: the objects come from the department's side.
        let (tech, staff) = try Self.loadObjects {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Department")
            request.predicate = NSPredicate(format: "name == 'Tech'")
            request.relationshipKeyPathsForPrefetching = ["employees"]
            let tech = try #require(try context.fetch(request).first)
            return (tech, Array(try #require(tech.value(forKey: "employees") as? Set<NSManagedObject>)))
        }
        #expect(staff.count == 2 && staff.allSatisfy(Self.sharesSnapshot))
        #expect(tech.object != nil, "the employees hold their department")
        #expect(staff.allSatisfy { $0.value(forKey: "department") as? NSManagedObject === tech.object })
    }

    /// Replacing a kept destination lets the old one go, as replacing a resolved one does.
    /// (Primitive sets: `setValue(_:forKey:)` changes the old department's employees, and the
    /// context holds changed objects.) The old values the event recorded go when it ends.
    @Test(arguments: StoreTypesUnderTest.all)
    func replacingAKeptDestinationLetsItGo(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        let context = MergeScenario.context(scenario.fixture.coordinator)
        let tech = try context.existingObject(with: scenario.techID)
        let (sales, employees) = try Self.employeesKeepingSales(of: scenario, in: context)
        #expect(sales.object != nil)
        employees[0].setPrimitiveValue(tech, forKey: "department")
        employees[1].setPrimitiveValue(nil, forKey: "department")
        employees[2].setPrimitiveValue(tech, forKey: "department")
        // The event keeps the old values until it ends.
        context.processPendingChanges()
        #expect(sales.object == nil, "nothing holds the old department")
        #expect(employees.map { $0.value(forKey: "department") as? NSManagedObject } == [tech, nil, tech])
    }

    /// An object a child context inserted, loaded into the parent with its destination kept as
    /// an ID, counts that destination among its changes and saves it.
    @Test(arguments: StoreTypesUnderTest.all)
    func objectInsertedByAChildKeepsItsDestination(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        let (context, sales) = try Self.loaded(scenario.salesID, named: "Sales", of: scenario)
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = context
        let zed = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: child)
        zed.setValue("Zed", forKey: "name")
        zed.setValue(try child.existingObject(with: scenario.salesID), forKey: "department")
        try child.obtainPermanentIDs(for: [zed])
        try child.save()

        let inserted = try #require(context.insertedObjects.first)
        #expect(inserted.objectID == zed.objectID)
        #expect(inserted.value(forKey: "department") as? NSManagedObject === sales)
        #expect(inserted.changedValues()["department"] as? NSManagedObject === sales)
        #expect((sales.value(forKey: "employees") as? Set<NSManagedObject>)?.contains(inserted) == true)
        try context.save()
        let stored = try scenario.fixture.coordinator.snapshots(for: [inserted.objectID], fresh: true)[inserted.objectID]
        #expect(stored?.values["department"] as? NSManagedObjectID == scenario.salesID)
    }

    /// Changing a kept destination: the change, its old value, the inverse on both sides, and
    /// undo all see objects, never the kept ID.
    @Test(arguments: StoreTypesUnderTest.all)
    func changingAKeptDestinationTracksObjects(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        let (context, sales, employees) = try Self.employeesOfSales(scenario, undo: true)
        let ann = try #require(employees.first)
        let tech = try context.existingObject(with: scenario.techID)
        context.processPendingChanges()
        context.undoManager?.removeAllActions()

        ann.setValue(tech, forKey: "department")
        #expect(ann.changedValues()["department"] as? NSManagedObject === tech)
        #expect(ann.changedValuesForCurrentEvent()["department"] as? NSManagedObject === sales)
        #expect(ann.committedValues(forKeys: ["department"])["department"] as? NSManagedObject === sales)
        #expect((sales.value(forKey: "employees") as? Set<NSManagedObject>)?.contains(ann) == false)
        #expect((tech.value(forKey: "employees") as? Set<NSManagedObject>)?.contains(ann) == true)
        #expect(context.updatedObjects.contains(sales) && context.updatedObjects.contains(tech))

        context.processPendingChanges()
        context.undo()
        #expect(ann.value(forKey: "department") as? NSManagedObject === sales)
        #expect((sales.value(forKey: "employees") as? Set<NSManagedObject>)?.contains(ann) == true)
        #expect((tech.value(forKey: "employees") as? Set<NSManagedObject>)?.contains(ann) == false)
        #expect(!ann.hasPersistentChangedValues)

        // Set to the destination it already had: not a change.
        let bob = employees[1]
        bob.setValue(sales, forKey: "department")
        #expect(!bob.hasPersistentChangedValues && bob.changedValues().isEmpty)
    }

    /// A save of an object holding a kept ID writes the same destination; deleting such an
    /// object, or its destination, maintains the other side.
    @Test(arguments: StoreTypesUnderTest.all)
    func savingAndDeletingKeepTheRelationship(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        let (context, sales, employees) = try Self.employeesOfSales(scenario)
        let (ann, bob, cid) = (employees[0], employees[1], employees[2])
        ann.setValue(Int64(101), forKey: "salary")
        context.delete(bob)
        // Delete rules run at the end of the event, as in Core Data.
        context.processPendingChanges()
        #expect((sales.value(forKey: "employees") as? Set<NSManagedObject>) == [ann, cid])
        try context.save()
        let stored = try scenario.fixture.coordinator.snapshots(for: [ann.objectID, cid.objectID], fresh: true)
        #expect(stored[ann.objectID]?.values["salary"] as? Int64 == 101)
        #expect(stored[ann.objectID]?.values["department"] as? NSManagedObjectID == scenario.salesID)
        #expect(stored[cid.objectID]?.values["department"] as? NSManagedObjectID == scenario.salesID)

        // Deleting the department nullifies the employees' side (Employee.department's rule).
        context.delete(sales)
        context.processPendingChanges()
        #expect(ann.value(forKey: "department") == nil && cid.value(forKey: "department") == nil)
        try context.save()
        let after = try scenario.fixture.coordinator.snapshots(for: [ann.objectID, cid.objectID], fresh: true)
        #expect(after[ann.objectID]?.values["department"] == nil && after[cid.objectID]?.values["department"] == nil)
    }

    /// An ID set as a to-one's primitive value reads as its object (Apple returns the ID).
    @Test func primitiveIDOfAToOneReadsAsItsObject() {
        let context = GraphTestModel.context()
        let room = GraphTestModel.insert("ClassEntity", context)
        let student = GraphTestModel.insert("StudentEntity", context)
        student.setPrimitiveValue(room.objectID, forKey: "inClass")
        #expect(student.value(forKey: "inClass") as? NSManagedObject === room)
        #expect(student.objectIDs(forRelationshipNamed: "inClass") == [room.objectID])

        // A temporary ID of another context names nothing here (object(with:) would trap).
        let elsewhere = GraphTestModel.insert("ClassEntity", GraphTestModel.context()).objectID
        student.setPrimitiveValue(elsewhere, forKey: "inClass")
        #expect(student.value(forKey: "inClass") == nil)
        student.setValue(room, forKey: "inClass")
        #expect(student.value(forKey: "inClass") as? NSManagedObject === room)
    }
}
