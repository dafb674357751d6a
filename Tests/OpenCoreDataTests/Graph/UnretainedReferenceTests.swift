import Dispatch
import Foundation
import Testing
@testable import OpenCoreData

/// Whether the Swift runtime moved `object`'s reference counts into a side table, which the
/// first `weak` reference to an object does, for the rest of its life: bits 63 (UseSlowRC) and
/// 62 (SideTableMark) of the inline count word that follows the object's metadata pointer on
/// 64-bit platforms. (An immortal object sets them too; no object here is immortal.)
private func hasSideTable(_ object: AnyObject) -> Bool {
    withExtendedLifetime(object) {
        let raw = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        return raw.load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt64.self) >> 62 == 0b11
    }
}

private final class Target: @unchecked Sendable {
    let number: Int
    init(_ number: Int) { self.number = number }
}

/// A reference made in a scope of its own, so that the target's only strong reference goes
/// when it returns.
@inline(never)
private func referenceToFreedTarget() -> UnretainedBox<Target> {
    let target = Target(7)
    let box = UnretainedBox(target)
    #expect(box.object === target)
    return box
}

/// The library's back references (an object's context, a property's entity, an entity's model,
/// an ID's store, a store's coordinator) read as `weak` ones do, without `weak`'s side table,
/// which would put every retain and release of the context, the model's descriptions, the
/// stores and the coordinator on the runtime's slow path.
@Suite struct UnretainedReferenceTests {
    @Test func readsItsObjectWhileItLivesAndNilOnceItIsFreed() {
        let target = Target(1)
        let reference = UnretainedReference(target)
        #expect(reference.object === target)
        #expect(reference.object?.number == 1)
        #expect(UnretainedReference<Target>(nil).object == nil)
        // No side table: the reference holds the unowned count, not a weak one.
        #if !canImport(ObjectiveC)
        #expect(!hasSideTable(target))
        #endif
        withExtendedLifetime(target) {}

        let box = referenceToFreedTarget()
        #expect(box.object == nil)
    }

    /// The unretained read gives the object without a retain while it lives, and nil once its
    /// deinitialization has begun (for none, too).
    @Test func readsUnretainedWhileItLivesAndNilOnceItIsFreed() {
        var target: Target? = Target(3)
        let reference = UnretainedReference(target)
        #expect(reference.unretainedObject?.takeUnretainedValue() === target)
        #expect(reference.unretainedObject?._withUnsafeGuaranteedRef { $0.number } == 3)
        // Not retained: dropping the only strong reference frees the object.
        target = nil
        #expect(reference.unretainedObject == nil)
        #expect(reference.object == nil)
        #expect(UnretainedReference<Target>(nil).unretainedObject == nil)
    }

    #if !canImport(ObjectiveC)
    /// The check the next test relies on: a `weak` reference does give its object a side table.
    @Test func aWeakReferenceGivesASideTable() {
        let target = Target(2)
        #expect(!hasSideTable(target))
        weak var weakTarget = target
        #expect(weakTarget === target)
        #expect(hasSideTable(target))
    }

    /// After inserting, saving, fetching, firing faults, following relationships and saving a
    /// change, nothing the objects refer back to has a side table, in every store.
    @Test(arguments: StoreTypesUnderTest.all)
    func theStackKeepsNoSideTables(storeType: String) throws {
        let fixture = CompanyFixture(storeType: storeType)
        try fixture.addStore()
        try fixture.insertStandardData()
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = fixture.coordinator
        let employees = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee"))
        #expect(!employees.isEmpty)
        for employee in employees {
            _ = employee.value(forKey: "name")
            _ = employee.value(forKey: "department")
            #expect(employee.managedObjectContext === context)
        }
        employees[0].setValue(Int64(77), forKey: "salary")
        try context.save()

        #expect(!hasSideTable(context))
        #expect(!hasSideTable(fixture.coordinator))
        #expect(!hasSideTable(fixture.model))
        for store in fixture.coordinator.persistentStores {
            #expect(!hasSideTable(store), "store \(store.type)")
            #expect(store.persistentStoreCoordinator === fixture.coordinator)
        }
        for entity in fixture.model.entities {
            #expect(!hasSideTable(entity), "entity \(entity.name ?? "?")")
            #expect(entity.managedObjectModel === fixture.model)
            for property in entity.properties {
                #expect(!hasSideTable(property), "property \(property.name)")
            }
        }
        #expect(employees[0].objectID.persistentStore === fixture.coordinator.persistentStores.first)
    }
    #endif

    /// A model's descriptions don't keep each other alive: a property whose entity was freed
    /// reads no entity; an entity whose model was freed reads no model.
    @Test func descriptionsOutlivingTheirOwnersReadNil() {
        let (property, entity) = detachedDescriptions()
        #expect(property.entity == nil)
        #expect(entity.managedObjectModel == nil)
    }

    @inline(never)
    private func detachedDescriptions() -> (NSAttributeDescription, NSEntityDescription) {
        let model = NSManagedObjectModel()
        let kept = NSEntityDescription()
        kept.name = "Kept"
        let freed = NSEntityDescription()
        freed.name = "Freed"
        let attribute = NSAttributeDescription()
        attribute.name = "title"
        attribute.attributeType = .stringAttributeType
        freed.properties = [attribute]
        model.entities = [kept]
        #expect(attribute.entity === freed)
        #expect(kept.managedObjectModel === model)
        return (attribute, kept)
    }

    /// An object that outlives its context reads no context, and still takes values (a set
    /// reads its context unretained, and records nothing without one).
    @Test func anObjectOutlivingItsContextReadsNoContext() throws {
        let fixture = CompanyFixture()
        try fixture.addStore()
        let object = insertIntoShortLivedContext(fixture)
        #expect(object.managedObjectContext == nil)
        #expect(object.unretainedContext == nil)
        #expect(object.entity.name == "Department")
        object.setValue("Sales", forKey: "name")
        object.setValue(12.5, forKey: "budget")
        #expect(object.value(forKey: "name") as? String == "Sales")
        #expect(object.value(forKey: "budget") as? Double == 12.5)
    }

    @inline(never)
    private func insertIntoShortLivedContext(_ fixture: CompanyFixture) -> NSManagedObject {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = fixture.coordinator
        return context.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Department", into: context)
            #expect(object.managedObjectContext === context)
            return object
        }
    }

    /// Readers on other threads see the object or nil, never a freed one, while its last strong
    /// reference goes: each reader reads until it sees nil, which it must once the object is
    /// freed. (A read of a freed object would crash or read a wrong number.)
    ///
    /// The readers run on threads of their own, not on Dispatch's global queue: that queue has
    /// as many workers as cores, so on a two-core machine with other tests' work on one worker,
    /// the first reader could spin on the other while the second never started, and the release
    /// that ends the spin waited for the second to start.
    @Test func readsRaceTheLastReleaseSafely() {
        for round in 0..<50 {
            var target: Target? = Target(round)
            let box = UnretainedBox(target)
            let started = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
            let wrongReads = Locked(0)
            for _ in 0..<2 {
                Thread {
                    started.signal()
                    while let seen = box.object {
                        if seen.number != round { wrongReads.withLock { $0 += 1 } }
                    }
                    finished.signal()
                }.start()
            }
            started.wait()
            started.wait()
            target = nil
            finished.wait()
            finished.wait()
            #expect(target == nil && box.object == nil)
            #expect(wrongReads.withLock { $0 } == 0)
        }
    }
}
