import Testing
@testable import OpenCoreData

/// Key-value coding calls that real code (JSON mappers such as Groot, exporters) makes on
/// managed objects and on their to-many relationship proxies.
@Suite struct KeyValueCollectionShapeTests {
    @Test func dictionaryWithValuesAndSetValuesForKeys() {
        let context = GraphTestModel.context()
        let student = GraphTestModel.insert("StudentEntity", context)
        student.setValuesForKeys(["name": "Li", "age": 12, "nickname": NSNull()])
        #expect(student.value(forKey: "name") as? String == "Li")
        #expect(student.value(forKey: "nickname") == nil)
        let values = student.dictionaryWithValues(forKeys: ["name", "age", "nickname"])
        #expect(values["name"] as? String == "Li")
        #expect(values["age"] as? Int16 == 12)
        #expect(values["nickname"] is NSNull)
        #expect(values.count == 3)
    }

    @Test func addObjectsFromArrayOnSetAndOrderedProxies() {
        let context = GraphTestModel.context()
        let classEntity = GraphTestModel.insert("ClassEntity", context)
        let students = (0..<3).map { GraphTestModel.insert("StudentEntity", context, ["name": "s\($0)", "age": Int16($0 * 10)]) }
        classEntity.mutableSetValue(forKey: "students").addObjects(from: students)
        #expect(classEntity.mutableSetValue(forKey: "students").count == 3)
        #expect(students.allSatisfy { $0.value(forKey: "inClass") as? NSManagedObject === classEntity })

        let playlist = GraphTestModel.insert("Playlist", context)
        let tracks = ["a", "b", "c"].map { GraphTestModel.insert("Track", context, ["title": $0]) }
        let ordered = playlist.mutableOrderedSetValue(forKey: "tracks")
        ordered.addObjects(from: [tracks[2], tracks[0]])
        ordered.addObjects(from: [tracks[1]])
        #expect(ordered.array.map { $0.value(forKey: "title") as? String } == ["c", "a", "b"])
    }

    @Test func proxiesFilterWithOurPredicate() {
        let context = GraphTestModel.context()
        let classEntity = GraphTestModel.insert("ClassEntity", context)
        let students = (0..<4).map { GraphTestModel.insert("StudentEntity", context, ["name": "s\($0)", "age": Int16($0 * 10)]) }
        let set = classEntity.mutableSetValue(forKey: "students")
        set.addObjects(from: students)
        let adults = NSPredicate(format: "age >= 18")
        #expect(set.filtered(using: adults) == Set([AnyHashable(students[2]), AnyHashable(students[3])]))
        set.filter(using: adults)
        #expect(set.set == [students[2], students[3]])
        #expect(students[0].value(forKey: "inClass") == nil)

        let playlist = GraphTestModel.insert("Playlist", context)
        let tracks = ["ab", "b", "ac"].map { GraphTestModel.insert("Track", context, ["title": $0]) }
        let ordered = playlist.mutableOrderedSetValue(forKey: "tracks")
        ordered.addObjects(from: tracks)
        let filtered = ordered.filtered(using: NSPredicate(format: "title BEGINSWITH 'a'"))
        #expect(filtered.array.compactMap { $0 as? NSManagedObject } == [tracks[0], tracks[2]])
    }
}
