import Foundation
import Testing
@testable import OpenCoreData

/// Many private-queue contexts on one coordinator, saving at the same time.
@Suite("Contexts on queues: concurrent saves on one coordinator")
struct ContextQueueStressTests {
    @Test(arguments: StoreTypesUnderTest.all)
    func eightContextsSavingFiftyTimesLoseNothing(storeType: String) throws {
        let fixture = CompanyFixture(storeType: storeType)
        try fixture.addStore()
        let contexts = (0..<8).map { number in
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = fixture.coordinator
            context.name = "writer \(number)"
            return context
        }
        let failures = QueueLog()
        let group = DispatchGroup()
        for (number, context) in contexts.enumerated() {
            context.perform(group: group) {
                for save in 0..<50 {
                    let employee = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
                    employee.setValue("c\(number)-\(save)", forKey: "name")
                    employee.setValue(Int64(number * 1000 + save), forKey: "salary")
                    do { try context.save() } catch { failures.append(number * 1000 + save) }
                }
            }
        }
        group.wait()
        #expect(failures.recorded.isEmpty)

        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = fixture.coordinator
        let salaries = try reader.performAndWait { () throws -> [Int64] in
            try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee")).compactMap { $0.value(forKey: "salary") as? Int64 }
        }
        let expected = (0..<8).flatMap { number in (0..<50).map { Int64(number * 1000 + $0) } }
        #expect(salaries.sorted() == expected)
        // Every writer's objects got distinct permanent IDs and are clean.
        for context in contexts {
            let clean = context.performAndWait { !context.hasChanges }
            #expect(clean)
        }
    }
}
