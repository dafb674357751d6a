import Foundation
import Testing
@testable import OpenCoreData

/// A typed subclass that logs the access hooks and answers `value(forKey:)` itself.
final class HookedStudent: NSManagedObject {
    var log: [String] = []
    var age: Int {
        get { managedValue(forKey: "age") }
        set { setManagedValue(newValue, forKey: "age") }
    }
    var name: String? {
        get { managedValue(forKey: "name") }
        set { setManagedValue(newValue, forKey: "name") }
    }
    override func willAccessValue(forKey key: String?) { log.append("will \(key ?? "")") }
    override func didAccessValue(forKey key: String?) { log.append("did \(key ?? "")") }
    override func value(forKey key: String) -> Any? {
        key == "age" ? 99 : super.value(forKey: key)
    }
}

/// Typed accessors (`managedValue(forKey:)`, what `@Managed` expands to) read as Apple's
/// generated accessors do: the access hooks around the stored value, not `value(forKey:)`.
@Suite struct TypedAccessTests {
    @Test func typedReadsCallTheHooksAndReadTheStoredValue() throws {
        let model = GraphTestModel.make()
        let entity = try #require(model.entitiesByName["StudentEntity"])
        let student = HookedStudent(entity: entity, insertInto: nil)
        student.age = 20
        student.name = "Ann"
        student.log.removeAll()

        #expect(student.age == 20)                        // the stored Int16, converted; not the override's 99
        #expect(student.log == ["will age", "did age"])
        #expect(student.name == "Ann")
        // Key-value coding still goes through the override.
        #expect(student.value(forKey: "age") as? Int == 99)
        student.name = nil
        #expect(student.name == nil)
    }

    /// A typed read of a fault fires it; later reads take the loaded object's path and see
    /// every change, and a refreshed object (a fault again) fires once more.
    @Test func typedReadsOfFaultsAndLoadedObjectsAgree() throws {
        let model = GraphTestModel.make()
        model.register(HookedStudent.self, forEntityName: "StudentEntity")
        let context = GraphTestModel.context(model: model)
        _ = try context.persistentStoreCoordinator?.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let student = try #require(NSEntityDescription.insertNewObject(forEntityName: "StudentEntity", into: context) as? HookedStudent)
        student.name = "Ann"
        try context.save()
        context.refresh(student, mergeChanges: false)
        #expect(student.isFault)
        student.log.removeAll()

        #expect(student.name == "Ann")
        #expect(!student.isFault)
        #expect(student.name == "Ann")
        #expect(student.log == ["will name", "did name", "will name", "did name"])
        student.setValue("Bea", forKey: "name")
        #expect(student.name == "Bea")
        context.refresh(student, mergeChanges: false)
        #expect(student.isFault)
        #expect(student.name == "Ann")
    }
}
