import Testing
@testable import OpenCoreData

/// Foundation's `filtered(using:)` and `filter(using:)` taking OpenCoreData's `NSPredicate`.
@Suite struct FilteringCollectionTests {
    let people: [[String: Any]] = [
        ["name": "Ann", "age": 31], ["name": "bob", "age": 17], ["name": "Cy", "age": 45], ["name": "dee", "age": 9],
    ]
    let adults = NSPredicate(format: "age >= 18")

    private func names(_ values: [Any]) -> [String] { values.compactMap { ($0 as? [String: Any])?["name"] as? String } }

    @Test func arrayFiltered() {
        let array = NSArray(array: people)
        #expect(names(array.filtered(using: adults)) == ["Ann", "Cy"])
        let none = NSPredicate(value: false)
        #expect(array.filtered(using: none).isEmpty)
        #expect(array.count == 4)
    }

    @Test func bridgedSwiftArraysAndStrings() {
        let words = ["apple", "Banana", "avocado", "cherry"]
        let filtered = (words as NSArray).filtered(using: NSPredicate(format: "SELF BEGINSWITH[c] %@", "a"))
        #expect(filtered.compactMap { $0 as? String } == ["apple", "avocado"])
        let numbers = ([1, 5, 10, 50] as NSArray).filtered(using: NSPredicate(format: "SELF BETWEEN {2, 20}"))
        #expect(numbers.compactMap { $0 as? Int } == [5, 10])
        let set = (Set(words) as NSSet).filtered(using: NSPredicate(format: "SELF CONTAINS 'an'"))
        #expect(set == ["Banana"])
    }

    @Test func mutableArrayFilter() {
        let array = NSMutableArray(array: people)
        array.filter(using: adults)
        #expect(names(array.map { $0 }) == ["Ann", "Cy"])
        array.filter(using: NSPredicate(format: "name == 'Cy'"))
        #expect(names(array.map { $0 }) == ["Cy"])
    }

    @Test func setFiltered() {
        let set = NSSet(array: ["a", "bb", "ccc", "dddd"])
        let long = set.filtered(using: NSPredicate(format: "length > 2"))
        #expect(long == ["ccc", "dddd"])
        let mutable = NSMutableSet(array: ["a", "bb", "ccc", "dddd"])
        mutable.filter(using: NSPredicate(format: "SELF IN %@", ["a", "dddd", "zz"]))
        #expect(Set(mutable.allObjects.compactMap { $0 as? String }) == ["a", "dddd"])
    }

    @Test func orderedSetFiltered() {
        let ordered = NSOrderedSet(array: ["delta", "alpha", "echo", "bravo"])
        let filtered = ordered.filtered(using: NSPredicate(format: "SELF MATCHES '[a-d].*'"))
        #expect(filtered.array.compactMap { $0 as? String } == ["delta", "alpha", "bravo"])
        let mutable = NSMutableOrderedSet(array: ["delta", "alpha", "echo", "bravo"])
        mutable.filter(using: NSPredicate(format: "SELF ENDSWITH 'o'"))
        #expect(mutable.array.compactMap { $0 as? String } == ["echo", "bravo"])
    }

    @Test func managedObjectsFilteredByTheirProperties() {
        let context = GraphTestModel.context()
        let young = GraphTestModel.insert("StudentEntity", context, ["name": "Li", "age": Int16(12)])
        let old = GraphTestModel.insert("StudentEntity", context, ["name": "Wang", "age": Int16(20)])
        let set = NSSet(array: [young, old])
        let teens = set.filtered(using: NSPredicate(format: "age < %d", 18))
        #expect(teens.count == 1 && teens.first?.base as? NSManagedObject === young)
        let array = NSArray(array: [old, young]).filtered(using: NSPredicate(format: "name BEGINSWITH 'W'"))
        #expect(array.count == 1 && array.first as? NSManagedObject === old)
    }

    @Test func setsAndOrderedSetsSortWithOurDescriptors() {
        let byAge = [NSSortDescriptor(key: "age", ascending: true)]
        #expect(names(NSSet(array: people).sortedArray(using: byAge)) == ["dee", "bob", "Ann", "Cy"])
        let ordered = NSMutableOrderedSet(array: people)
        #expect(names(ordered.sortedArray(using: byAge)) == ["dee", "bob", "Ann", "Cy"])
        ordered.sort(using: [NSSortDescriptor(key: "name", ascending: false)])
        #expect(names(ordered.array) == ["dee", "bob", "Cy", "Ann"])
    }
}
