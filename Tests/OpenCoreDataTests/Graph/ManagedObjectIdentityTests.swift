import Foundation
import Testing
@testable import OpenCoreData

/// Managed objects are equal only to themselves (`isEqual(_:)`, `hash`), however the other value
/// is boxed: sets and dictionaries of objects rely on it.
@Suite struct ManagedObjectIdentityTests {
    @Test func equalOnlyToItselfInEveryWrapping() {
        let context = GraphTestModel.context()
        let student = GraphTestModel.insert("StudentEntity", context, ["name": "A"])
        let other = GraphTestModel.insert("StudentEntity", context, ["name": "A"])
        let classEntity = GraphTestModel.insert("ClassEntity", context)

        #expect(student.isEqual(student))
        #expect(student.isEqual(student as NSObject))
        #expect(student.isEqual(student as NSManagedObject))
        #expect(student.isEqual(Optional(student) as Any))
        #expect(student.isEqual(AnyHashable(student)))
        #expect(!student.isEqual(other), "same values, another object")
        #expect(!student.isEqual(other as NSObject))
        #expect(!student.isEqual(Optional(other) as Any))
        #expect(!student.isEqual(classEntity))
        #expect(!student.isEqual(classEntity as NSObject))
        #expect(!student.isEqual(nil))
        #expect(!student.isEqual(NSObject()))
        #expect(!student.isEqual(student.objectID))
        // A value whose bits equal the object's address is no object.
        #expect(!student.isEqual(UInt(bitPattern: ObjectIdentifier(student))))
        #expect(!student.isEqual(Int(bitPattern: ObjectIdentifier(student))))

        #expect(student.hash == student.hash)
        #expect(student.hash != other.hash)
    }

    @Test func setsAndDictionariesOfObjects() {
        let context = GraphTestModel.context()
        let students = (0..<200).map { GraphTestModel.insert("StudentEntity", context, ["age": Int16($0)]) }
        let classes = (0..<50).map { _ in GraphTestModel.insert("ClassEntity", context) }
        let all: [NSManagedObject] = students + classes + students
        let set = Set(all)
        #expect(set.count == 250)
        for object in students + classes { #expect(set.contains(object)) }
        #expect(!set.contains(GraphTestModel.insert("StudentEntity", context)))

        var counts: [NSManagedObject: Int] = [:]
        for object in all { counts[object, default: 0] += 1 }
        #expect(counts.count == 250)
        #expect(students.allSatisfy { counts[$0] == 2 })
        #expect(classes.allSatisfy { counts[$0] == 1 })
    }
}
