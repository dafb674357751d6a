import Foundation
import Testing
@testable import OpenCoreData

/// The entries `DictionaryEntries.forEach(in:_:)` hands out, as text, keyed by key (values
/// compared by their description, which tells an `Int64` 7 from a `String` "7" by type too).
private func entries(_ dictionary: [String: Any]) -> [String: String] {
    var seen: [String: String] = [:]
    var visits = 0
    DictionaryEntries.forEach(in: dictionary) { key, value in
        visits += 1
        seen[key.pointee] = "\(type(of: value.pointee)) \(value.pointee)"
    }
    #expect(visits == dictionary.count)
    return seen
}

private func expected(_ dictionary: [String: Any]) -> [String: String] {
    var result: [String: String] = [:]
    for (key, value) in dictionary { result[key] = "\(type(of: value)) \(value)" }
    return result
}

@Suite("Reading a dictionary's entries in place")
struct DictionaryEntriesTests {
    @Test("The standard library's dictionary storage has the layout the in-place reading expects")
    func layoutIsRecognized() {
        // Otherwise batch inserts silently take the slower, copying path.
        #expect(DictionaryEntries.layoutMatches)
    }

    @Test("Every entry is visited once, with its own value, whatever the size and the kinds of keys and values",
          arguments: [0, 1, 2, 10, 63, 64, 65, 300])
    func everyEntryOnce(size: Int) {
        var dictionary: [String: Any] = [:]
        for index in 0..<size {
            let key = index % 3 == 0 ? "a\(index)" : "a key far too long to be kept inside the string itself, number \(index)"
            switch index % 5 {
            case 0: dictionary[key] = Int64(index)
            case 1: dictionary[key] = "text \(index)"
            case 2: dictionary[key] = Double(index) / 4
            case 3: dictionary[key] = NSNumber(value: index)
            default: dictionary[key] = Optional<Int>.none as Any
            }
        }
        #expect(entries(dictionary) == expected(dictionary))
    }

    @Test("Removed entries are not visited; copies, reserved room and shrunk dictionaries read as they are")
    func removalsCopiesAndCapacity() {
        var dictionary: [String: Any] = [:]
        dictionary.reserveCapacity(500)
        for index in 0..<200 { dictionary["k\(index)"] = Int64(index) }
        let copy = dictionary
        for index in stride(from: 0, to: 200, by: 3) { dictionary.removeValue(forKey: "k\(index)") }
        #expect(entries(dictionary) == expected(dictionary))
        #expect(entries(copy) == expected(copy))
        #expect(entries(copy).count == 200)

        dictionary.removeAll(keepingCapacity: true)
        #expect(entries(dictionary).isEmpty)
        let literal: [String: Any] = ["a0": Int64(1), "a1": "one"]
        #expect(entries(literal) == expected(literal))
    }

    @Test("A dictionary bridged from Foundation reads like any other")
    func fromFoundation() {
        let bridged = NSDictionary(dictionary: ["a0": 1, "name": "Ann"]) as? [String: Any] ?? [:]
        #expect(bridged.count == 2)
        #expect(entries(bridged) == expected(bridged))
    }

    @Test("A value is read in place as its exact type, and only as that type")
    func exactValueInPlace() {
        let values: [Any] = [Int64(42), "text", 2.5, Int32(7)]
        values.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { Issue.record("no storage"); return }
            #expect(ValueComparison.exact(at: base + 0, as: Int64.self) == 42)
            #expect(ValueComparison.exact(at: base + 1, as: String.self) == "text")
            #expect(ValueComparison.exact(at: base + 2, as: Double.self) == 2.5)
            #expect(ValueComparison.exact(at: base + 3, as: Int64.self) == nil)
            #expect(ValueComparison.exact(at: base + 0, as: String.self) == nil)
        }
    }
}
