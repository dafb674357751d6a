import Foundation
import Testing
@testable import OpenCoreData

/// The bytes Swift allocates for an instance of `object`'s class: the 32-bit `InstanceSize`
/// field of its class metadata, at offset 24 where classes have no Objective-C data (Linux);
/// `class_getInstanceSize` where they do. (`malloc_usable_size` of the object said the same
/// until a freed larger chunk served the allocation: it depends on the heap's history.)
private func instanceSize(of object: AnyObject) -> Int {
    #if canImport(ObjectiveC)
    return class_getInstanceSize(type(of: object))
    #else
    let metadata = unsafeBitCast(type(of: object), to: UnsafeRawPointer.self)
    return Int(metadata.load(fromByteOffset: 24, as: UInt32.self))
    #endif
}

/// The context registers unchanged objects without retaining them, as Core Data does; faults
/// are small and carry no values.
@Suite struct WeakRegistrationTests {
    private func context(_ fixture: CompanyFixture) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = fixture.coordinator
        return context
    }

    /// Fetches every employee, reads their names, changes Ann's salary; returns the IDs by name.
    /// The fetched objects go out of scope when it returns.
    @inline(never)
    private func touchEmployees(in context: NSManagedObjectContext) throws -> [String: NSManagedObjectID] {
        let employees = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee"))
        var ids: [String: NSManagedObjectID] = [:]
        for employee in employees {
            let name = employee.value(forKey: "name") as? String ?? "?"
            ids[name] = employee.objectID
            if name == "Ann" { employee.setValue(Int64(150), forKey: "salary") }
        }
        #expect(context.registeredObjects.count >= employees.count)
        return ids
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func unchangedObjectsLeaveTheRegistry(storeType: String) throws {
        let fixture = CompanyFixture(storeType: storeType)
        try fixture.addStore()
        try fixture.insertStandardData()
        let context = context(fixture)
        let ids = try touchEmployees(in: context)
        #expect(ids.count == 5)
        // Ann has a pending change and stays; she holds her department. The others are gone.
        let annID = try #require(ids["Ann"])
        #expect(context.registeredObject(for: annID) != nil)
        #expect(context.registeredObject(for: try #require(ids["Bob"])) == nil)
        #expect(context.registeredObject(for: try #require(ids["Eve"])) == nil)
        let names = Set(context.registeredObjects.compactMap { $0.value(forKey: "name") as? String })
        #expect(names == ["Ann", "Sales"])

        // Uniquing holds for what is alive, and a freed object comes back as a new fault.
        let ann = context.object(with: annID)
        #expect(ann === context.registeredObject(for: annID))
        #expect(ann.value(forKey: "salary") as? Int64 == 150)
        let bob = context.object(with: try #require(ids["Bob"]))
        #expect(bob.isFault)
        #expect(bob === context.object(with: bob.objectID))
        let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee"))
        #expect(fetched.contains { $0 === bob } && fetched.contains { $0 === ann })
        #expect(bob.value(forKey: "name") as? String == "Bob")

        try context.save()
        #expect(context.registeredObject(for: annID) === ann)
    }

    @Test func resetAndRefreshKeepTheirBehaviour() throws {
        let fixture = CompanyFixture(storeType: NSSQLiteStoreType)
        try fixture.addStore()
        try fixture.insertStandardData()
        let context = context(fixture)
        let departments = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Department"))
        #expect(context.registeredObjects.count == 3)
        let first = departments[0]
        _ = first.value(forKey: "name")
        context.refresh(first, mergeChanges: false)
        #expect(first.isFault)
        #expect(first.value(forKey: "name") != nil)
        context.reset()
        #expect(context.registeredObjects.isEmpty)
        #expect(first.managedObjectContext == nil)
    }

    @Test func faultsAreSmallAndCarryNoValues() throws {
        let fixture = CompanyFixture(storeType: NSSQLiteStoreType)
        try fixture.addStore()
        try fixture.insertStandardData()
        let context = context(fixture)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.fetchLimit = 1
        let employee = try #require(try context.fetch(request).first)
        #expect(employee.isFault)
        // A fault holds no values and no defaults; only the snapshot its fetch read, until it fires.
        #expect(employee.hasNoStoredValues && employee.committedSnapshot == nil)
        #expect(employee.fetchedSnapshot?.objectID == employee.objectID)
        // The object header plus ID, context and state: five words, a 40-byte request, which
        // glibc serves from a 48-byte chunk. So is its ID: the header, the entity, the origin
        // and the key's primary-key word (the key's other word is put together from the
        // entity's and the origin's numbers), where a whole key in the ID made it 56 bytes and
        // a 64-byte chunk.
        #expect(instanceSize(of: employee) <= 40)
        #expect(instanceSize(of: employee.objectID) <= 40, "so is its ID")
        #expect(MemoryLayout<ObjectIDKey>.size == 16, "a key is two words")
        #expect(instanceSize(of: NSObject()) == 16, "the metadata field read is the instance size")
        _ = employee.value(forKey: "name")
        #expect(!employee.isFault)
        context.refresh(employee, mergeChanges: false)
        #expect(employee.state == nil, "a refreshed object without transient values is as small as a new fault")
    }

    /// Fetched rows that list one object twice register one object at both positions: a fault
    /// that keeps one of the rows (moved in, last first) and fires into its values, or, when
    /// the request returns no faults, an object loaded once.
    @Test(arguments: [true, false])
    func aRowListedTwiceGivesOneObject(returnsFaults: Bool) throws {
        let fixture = CompanyFixture(storeType: NSSQLiteStoreType)
        try fixture.addStore()
        try fixture.insertStandardData()
        let reader = context(fixture)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Department")
        request.predicate = NSPredicate(format: "name == %@", "Tech")
        let read = try #require(try reader.fetch(request).first)
        _ = read.value(forKey: "name")
        let row = read.persistentSnapshot()

        let context = context(fixture)
        request.returnsObjectsAsFaults = returnsFaults
        let objects = context.register([row, row], request)
        #expect(objects.count == 2 && objects[0] === objects[1])
        #expect(objects[0].objectID == read.objectID)
        #expect(context.registeredObjects.count == 1)
        #expect(objects[0].isFault == returnsFaults)
        if returnsFaults { #expect(objects[0].fetchedSnapshot?.objectID == read.objectID) }
        #expect(objects[0].value(forKey: "name") as? String == "Tech")
        #expect(!objects[0].isFault && objects[0].fetchedSnapshot == nil)
        #expect(objects[0].value(forKey: "budget") as? Double == 5000)
    }

    /// A fetch of more rows than one registration chunk registers them a chunk at a time:
    /// every row gets its object at its position, registered objects stay (one with a pending
    /// change keeps it), new faults keep their rows, and a row listed in two chunks gives one
    /// object at both positions.
    @Test func rowsOfSeveralChunksRegisterAsOneFetch() throws {
        let fixture = CompanyFixture(storeType: NSSQLiteStoreType)
        try fixture.addStore()
        let count = NSManagedObjectContext.registrationChunkSize * 2 + 100
        let names = (0..<count).map { String(format: "e%05d", $0) }
        try fixture.insertDepartment("Big", budget: 1, employees: names.enumerated().map { ($1, Int64($0)) })
        let context = context(fixture)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        request.predicate = NSPredicate(format: "name IN %@", [names[3], names[count - 3]])
        let early = try context.fetch(request)
        #expect(early.count == 2)
        early[0].setValue(Int64(-1), forKey: "salary")
        _ = early[1].value(forKey: "name")

        // In store order (the rows' keys follow the names): sorting in memory, as a fetch does
        // with a pending change, would fire every fault.
        request.predicate = nil
        request.sortDescriptors = nil
        let fetched = try context.fetch(request)
        #expect(fetched.count == count)
        #expect(Set(fetched.map(ObjectIdentifier.init)).count == count)
        #expect(fetched[3] === early[0] && fetched[count - 3] === early[1])
        #expect(fetched[3].value(forKey: "salary") as? Int64 == -1, "the pending change is kept")
        #expect(fetched.allSatisfy { context.registeredObject(for: $0.objectID) === $0 })
        let faults = fetched.enumerated().filter { $0.offset != 3 && $0.offset != count - 3 }.map(\.element)
        #expect(faults.allSatisfy { $0.isFault && $0.fetchedSnapshot?.objectID == $0.objectID })
        #expect(fetched.map { $0.value(forKey: "name") as? String ?? "?" } == names)

        // Rows read by another context, listed again in a later chunk.
        let reader = self.context(fixture)
        var rows = try reader.fetch(request).map { object -> ObjectSnapshot in
            _ = object.value(forKey: "name")
            return object.persistentSnapshot()
        }
        rows[count - 1] = rows[1]
        let fresh = self.context(fixture)
        let objects = fresh.register(rows, request)
        #expect(objects.count == count && objects[1] === objects[count - 1])
        #expect(fresh.registeredObjects.count == count - 1)
        #expect(objects[1].isFault && objects[1].fetchedSnapshot?.objectID == rows[1].objectID)
        #expect(objects[1].value(forKey: "name") as? String == names[1])
        #expect(objects[count - 2].value(forKey: "name") as? String == names[count - 2])
    }

    /// `object(with:)` for more IDs than one registration chunk, as a batched fetch and a
    /// prefetch ask: each ID gets its registered object or one new fault at its position (an ID
    /// repeated in a later chunk gets the fault of its first position), and the new faults fire
    /// with their rows; a batched fetch over the same rows reads every value in order.
    @Test func idsOfSeveralChunksGetOneObjectEach() throws {
        let fixture = CompanyFixture(storeType: NSSQLiteStoreType)
        try fixture.addStore()
        let count = NSManagedObjectContext.registrationChunkSize * 2 + 100
        let names = (0..<count).map { String(format: "e%05d", $0) }
        let (_, employeeIDs) = try fixture.insertDepartment("Big", budget: 1, employees: names.enumerated().map { ($1, Int64($0)) })
        let context = context(fixture)
        let known = context.object(with: employeeIDs[700])
        known.setValue(Int64(-7), forKey: "salary")

        var ids = employeeIDs
        ids[count - 1] = ids[2]
        let objects = context.objects(with: ids)
        #expect(objects.count == count)
        #expect(objects[700] === known && objects[2] === objects[count - 1])
        // The employees, once each (the changed one holds its department too).
        #expect(context.registeredObjects.filter { $0.entity.name == "Employee" }.count == count - 1)
        #expect(objects.indices.allSatisfy { objects[$0].objectID == ids[$0] })
        #expect(objects[1_000].value(forKey: "name") as? String == names[1_000])
        #expect(objects[700].value(forKey: "salary") as? Int64 == -7)

        let reader = self.context(fixture)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.fetchBatchSize = 100
        let batched = try reader.fetch(request)
        #expect(batched.map { $0.value(forKey: "name") as? String ?? "?" } == names)
    }
}
