import Testing
@testable import OpenCoreData

@Suite struct SortDescriptorTests {
    let people: [[String: Any]] = [
        ["name": "bob", "age": 30, "city": ["zip": 2]],
        ["name": "Alice", "age": Int8(25)],
        ["name": "carol", "age": 30.5, "city": ["zip": 1]],
        ["name": "Émile", "age": Int64(30)],
    ]

    private func names(_ array: [[String: Any]]) -> [String] { array.map { $0["name"] as! String } }

    @Test func apiShape() {
        let d = NSSortDescriptor(key: "name", ascending: true)
        #expect(d.key == "name")
        #expect(d.ascending)
        #expect(d.selector.map(NSStringFromSelector) == "compare:")
        let r = d.reversedSortDescriptor as! NSSortDescriptor
        #expect(r.key == "name" && !r.ascending && r.selector == Selector("compare:"))
        #expect(d.description == "(name, ascending, compare:)")
        #expect(r.description == "(name, descending, compare:)")
        #expect(d.copy() as AnyObject === d)
        #expect(d.isEqual(NSSortDescriptor(key: "name", ascending: true, selector: "compare:")))
        #expect(!d.isEqual(r))
        #expect(!d.isEqual(NSSortDescriptor(key: "name", ascending: true, selector: "localizedCompare:")))
        #expect(!d.isEqual("name"))
        #expect(d.hash == NSSortDescriptor(key: "name", ascending: true).hash)
        d.allowEvaluation()
        let s: Selector = "localizedStandardCompare:"
        #expect(s.description == "localizedStandardCompare:")
        #expect(NSSelectorFromString("compare:") == Selector("compare:"))
    }

    @Test func numbersCompareAcrossWidths() {
        let d = NSSortDescriptor(key: "age", ascending: true)
        #expect(names(people.sortedArray(using: [d])) == ["Alice", "bob", "Émile", "carol"])
        #expect(d.compare(people[0], to: people[3]) == .orderedSame)
        #expect(d.compare(["age": true], to: ["age": 2]) == .orderedAscending)
        #expect(d.compare(["age": UInt64.max], to: ["age": Int64.max]) == .orderedDescending)
        #expect(d.compare(["age": Decimal(2)], to: ["age": Decimal(1)]) == .orderedDescending)
    }

    @Test func stableMultiKeySort() {
        let byCity = NSSortDescriptor(key: "city.zip", ascending: true)
        let byAgeDown = NSSortDescriptor(key: "age", ascending: false)
        // nil (no city) sorts first ascending; ties keep their order.
        #expect(names(people.sortedArray(using: [byCity])) == ["Alice", "Émile", "carol", "bob"])
        #expect(names(people.sortedArray(using: [byCity.reversedSortDescriptor as! NSSortDescriptor]))
                == ["bob", "carol", "Alice", "Émile"])
        #expect(names(people.sorted(using: [byAgeDown, NSSortDescriptor(key: "name", ascending: true)]))
                == ["carol", "Émile", "bob", "Alice"], "compare: orders É as E, before b")
        var copy = people
        copy.sort(using: [byAgeDown])
        #expect(names(copy) == ["carol", "bob", "Émile", "Alice"], "equal ages keep their order")
        #expect(names(people.sortedArray(using: [])) == names(people))
    }

    @Test func stringSelectors() {
        let words: [[String: Any]] = [["w": "b"], ["w": "B"], ["w": "a"], ["w": "file10"], ["w": "file9"], ["w": "é"]]
        func sort(_ selector: Selector) -> [String] {
            words.sortedArray(using: [NSSortDescriptor(key: "w", ascending: true, selector: selector)]).map { $0["w"] as! String }
        }
        #expect(sort("compare:") == ["B", "a", "b", "é", "file10", "file9"])
        #expect(sort("caseInsensitiveCompare:") == ["a", "b", "B", "é", "file10", "file9"])
        let standard = sort("localizedStandardCompare:")
        #expect(standard.firstIndex(of: "file9")! < standard.firstIndex(of: "file10")!, "numeric-aware, like Finder")
        let localized = sort("localizedCompare:")
        #expect(localized.firstIndex(of: "a")! < localized.firstIndex(of: "b")!)
        let localizedCI = sort("localizedCaseInsensitiveCompare:")
        #expect(localizedCI.firstIndex(of: "a")! < localizedCI.firstIndex(of: "B")!)
    }

    @Test func nilAndNullSortFirst() {
        let d = NSSortDescriptor(key: "v", ascending: true)
        let items: [[String: Any]] = [["v": 2], ["v": NSNull()], [:], ["v": 1]]
        let sorted = items.sortedArray(using: [d])
        #expect(sorted.map { $0["v"] as? Int } == [nil, nil, 1, 2])
        #expect(d.compare([:], to: ["v": NSNull()]) == .orderedSame)
        let down = items.sortedArray(using: [NSSortDescriptor(key: "v", ascending: false)])
        #expect(down.map { $0["v"] as? Int } == [2, 1, nil, nil])
    }

    @Test func nilKeyComparesTheObjects() {
        let d = NSSortDescriptor(key: nil, ascending: false)
        #expect([3, 1, 2].sortedArray(using: [d]) == [3, 2, 1])
        #expect(d.description == "(SELF, descending, compare:)")
        let dates = [Date(timeIntervalSince1970: 5), Date(timeIntervalSince1970: 1)]
        #expect(dates.sortedArray(using: [NSSortDescriptor(key: nil, ascending: true)]) == dates.reversed())
        let uuids = [UUID(), UUID()]
        #expect(Set(uuids.sortedArray(using: [NSSortDescriptor(key: nil, ascending: true)])) == Set(uuids))
    }

    @Test func comparatorDescriptors() {
        let byLength = NSSortDescriptor(key: "name", ascending: true) { a, b in
            let (x, y) = ((a as! String).count, (b as! String).count)
            return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
        }
        #expect(byLength.selector == nil)
        #expect(byLength.description == "(name, ascending, compareObject:toObject:)")
        #expect(names(people.sortedArray(using: [byLength])) == ["bob", "Alice", "carol", "Émile"])
        let reversed = byLength.reversedSortDescriptor as! NSSortDescriptor
        #expect(names(people.sortedArray(using: [reversed])) == ["Alice", "carol", "Émile", "bob"])
        #expect(byLength.compare(["name": "x"], to: [:]) == .orderedDescending)
        #expect(byLength.compare([:], to: ["name": "x"]) == .orderedAscending)
        #expect(byLength.compare([:], to: [:]) == .orderedSame)
        #expect(byLength.comparator("ab", "c") == .orderedDescending)
        #expect(!byLength.isEqual(byLength.reversedSortDescriptor))
        let selectorComparator = NSSortDescriptor(key: "x", ascending: true, selector: "caseInsensitiveCompare:").comparator
        #expect(selectorComparator("a", "B") == .orderedAscending)
    }

    struct Version: Comparable {
        let major: Int
        static func < (a: Version, b: Version) -> Bool { a.major < b.major }
    }

    struct Release {
        let version: Version
        let name: String
    }

    @Test func anyComparableValueAndReflectedKeys() {
        let releases = [Release(version: Version(major: 3), name: "c"), Release(version: Version(major: 1), name: "a")]
        let sorted = releases.sortedArray(using: [NSSortDescriptor(key: "version", ascending: true)])
        #expect(sorted.map(\.name) == ["a", "c"])
        let d = NSSortDescriptor(key: "items.@count", ascending: true)
        #expect(d.compare(["items": [1, 2]], to: ["items": [1]]) == .orderedDescending)
    }

    @Test func unknownSelectorTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = NSSortDescriptor(key: "a", ascending: true, selector: "reverseCompare:")
        }
    }

    @Test func incomparableValuesTrap() async {
        await #expect(processExitsWith: .failure) {
            _ = NSSortDescriptor(key: "a", ascending: true).compare(["a": "x"], to: ["a": 1])
        }
        await #expect(processExitsWith: .failure) {
            _ = NSSortDescriptor(key: "a", ascending: true, selector: "caseInsensitiveCompare:").compare(["a": 2], to: ["a": 1])
        }
        await #expect(processExitsWith: .failure) {
            _ = NSSortDescriptor(key: nil, ascending: true).compare(Version(major: 1), to: "x")
        }
    }

    @Test func unknownKeyTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = NSSortDescriptor(key: "missing", ascending: true).compare(Version(major: 1), to: Version(major: 2))
        }
    }

    @Test func foundationArraysAndSortComparatorsStillWork() {
        let array = NSArray(array: [["n": 2], ["n": 1], ["n": 3]] as [[String: Any]])
        let sorted = array.sortedArray(using: [NSSortDescriptor(key: "n", ascending: false)])
        #expect(sorted.map { ($0 as? [String: Any])?["n"] as? Int } == [3, 2, 1])
        let mutable = NSMutableArray(array: ["b", "a", "C"])
        mutable.sort(using: [NSSortDescriptor(key: nil, ascending: true, selector: "caseInsensitiveCompare:")])
        #expect(mutable.compactMap { $0 as? String } == ["a", "b", "C"])
        // Foundation's SortComparator-based sorting is not shadowed.
        #expect([3, 1, 2].sorted(using: KeyPathComparator(\Int.self)) == [1, 2, 3])
        #expect(["b", "a"].sorted(using: String.StandardComparator.lexical) == ["a", "b"])
    }
}
