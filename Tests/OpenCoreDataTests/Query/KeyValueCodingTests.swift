import Foundation
import Testing
@testable import OpenCoreData

@Suite struct KeyValueCodingTests {
    let people: [[String: Any]] = [
        ["name": "Ann", "age": 30, "pets": ["cat", "dog"]],
        ["name": "Bob", "age": 20, "pets": ["dog"]],
        ["name": "Cy", "pets": [String]()],
    ]

    @Test func dictionariesReturnEntriesAndNilForMissingKeys() throws {
        let object: [String: Any] = ["a": ["b": 3]]
        #expect(try KeyValueAccess.value(forKeyPath: "a.b", of: object) as? Int == 3)
        #expect(try KeyValueAccess.value(forKeyPath: "a.missing", of: object) == nil)
        #expect(try KeyValueAccess.value(forKeyPath: "missing.deeper", of: object) == nil)
        #expect(try KeyValueAccess.value(forKey: "a.b", of: ["a.b": 1]) as? Int == 1)
        let nsDictionary = NSDictionary(dictionary: ["k": 5])
        #expect(try KeyValueAccess.value(forKey: "k", of: nsDictionary) as? Int == 5)
        let anyHashable: [AnyHashable: Any] = ["k": 6, 7: "ignored"]
        #expect(try KeyValueAccess.value(forKey: "k", of: anyHashable) as? Int == 6)
        #expect(try KeyValueAccess.value(forKey: "@count", of: object) as? Int == 1)
    }

    @Test func selfNilAndNSNull() throws {
        #expect(try KeyValueAccess.value(forKey: "self", of: 5) as? Int == 5)
        #expect(try KeyValueAccess.value(forKeyPath: "a.self", of: ["a": "x"]) as? String == "x")
        #expect(try KeyValueAccess.value(forKey: "anything", of: nil) == nil)
        #expect(try KeyValueAccess.value(forKey: "anything", of: NSNull()) == nil)
        #expect(throws: KeyValueCodingError.unknownKey(key: "", owner: "type Int")) {
            try KeyValueAccess.value(forKeyPath: "", of: 3)
        }
    }

    @Test func arraysMapWithNSNullForNil() throws {
        let names = try #require(try KeyValueAccess.value(forKeyPath: "name", of: people) as? [Any])
        #expect(names.count == 3)
        let ages = try #require(try KeyValueAccess.value(forKeyPath: "age", of: people) as? [Any])
        #expect(ages[2] is NSNull)
        // Key by key: `pets.@count` on the array of arrays counts the outer array, as Apple's KVC does.
        #expect(try KeyValueAccess.value(forKeyPath: "pets.@count", of: people) as? Int == 3)
        let ordered = NSOrderedSet(array: ["a", "bb"])
        let lengths = try KeyValueAccess.value(forKey: "length", of: ordered)
        #expect(lengths is NSOrderedSet)
        #expect(Eval.same(lengths, [1, 2]))
    }

    @Test func setsMapToSetsWithoutNil() throws {
        let set: Set<AnyHashable> = [["n": 1] as [String: Int], ["n": 2], ["m": 3]]
        let values = try #require(try KeyValueAccess.value(forKey: "n", of: set) as? Set<AnyHashable>)
        #expect(values == [1, 2])
        let nsSet = NSSet(array: [NSDictionary(dictionary: ["n": 1]), NSDictionary(dictionary: ["n": 1])])
        #expect((try KeyValueAccess.value(forKey: "n", of: nsSet) as? Set<AnyHashable>)?.count == 1)
    }

    @Test func mirrorReadsStructsClassesAndOptionals() throws {
        let ann = KVCPerson(name: "Ann", age: 30, nickname: nil, friends: [KVCPerson(name: "Bob", age: 20)])
        #expect(try KeyValueAccess.value(forKey: "name", of: ann) as? String == "Ann")
        #expect(try KeyValueAccess.value(forKey: "nickname", of: ann) == nil)
        #expect((try KeyValueAccess.value(forKeyPath: "friends.name", of: ann) as? [Any])?.first as? String == "Bob")
        let dog = KVCDog(breed: "collie")
        #expect(try KeyValueAccess.value(forKey: "legs", of: dog) as? Int == 4)
        #expect(try KeyValueAccess.value(forKey: "breed", of: dog) as? String == "collie")
        #expect(throws: KeyValueCodingError.unknownKey(key: "wings", owner: "type KVCDog")) {
            try KeyValueAccess.value(forKey: "wings", of: dog)
        }
        #expect(throws: KeyValueCodingError.unknownKey(key: "x", owner: "type Int")) {
            try KeyValueAccess.value(forKey: "x", of: 3)
        }
    }

    @Test func propertyWrappersAreUnwrapped() throws {
        @propertyWrapper struct Box { var wrappedValue: Int }
        struct Wrapped { @Box var count: Int }
        #expect(try KeyValueAccess.value(forKey: "count", of: Wrapped(count: 7)) as? Int == 7)
    }

    @Test func protocolAdoptersAnswerAndReportUnknownKeys() throws {
        let record = KVCRecord(values: ["title": "T", "child": KVCRecord(values: ["n": 2])])
        #expect(try record.valueThrowing(forKeyPath: "child.n") as? Int == 2)
        #expect(throws: KeyValueCodingError.unknownKey(key: "nope", owner: "entity KVCRecord")) {
            try record.valueThrowing(forKeyPath: "nope")
        }
        #expect("\(KeyValueCodingError.unknownKey(key: "nope", owner: "entity KVCRecord"))" == "entity KVCRecord has no property 'nope'")
        struct Lenient: KeyValueCoding { func value(forKey key: String) -> Any? { key.count } }
        #expect(try Lenient().valueThrowing(forKey: "abc") as? Int == 3)
    }

    @Test func countSumAvgMinMax() throws {
        #expect(try KeyValueAccess.value(forKeyPath: "@count", of: people) as? Int == 3)
        #expect(try KeyValueAccess.value(forKeyPath: "@sum.age", of: people) as? Int == 50)
        #expect(Eval.same(try KeyValueAccess.value(forKeyPath: "@avg.age", of: people), 50.0 / 3))
        #expect(try KeyValueAccess.value(forKeyPath: "@min.age", of: people) as? Int == 20)
        #expect(try KeyValueAccess.value(forKeyPath: "@max.age", of: people) as? Int == 30)
        #expect(try KeyValueAccess.value(forKeyPath: "@max.name", of: people) as? String == "Cy")
        #expect(Eval.same(try KeyValueAccess.value(forKeyPath: "@sum.self", of: [1.5, 2]), 3.5))
        #expect(Eval.same(try KeyValueAccess.value(forKeyPath: "@sum.self", of: [Decimal(1), 2]), Decimal(3)))
        #expect(try KeyValueAccess.value(forKeyPath: "@sum.self", of: [Int]()) as? Int == 0)
        #expect(try KeyValueAccess.value(forKeyPath: "@avg.self", of: [Int]()) == nil)
        #expect(try KeyValueAccess.value(forKeyPath: "@max.self", of: [Int]()) == nil)
        #expect(try KeyValueAccess.value(forKeyPath: "@min.self", of: [Date(timeIntervalSince1970: 5), Date(timeIntervalSince1970: 1)])
                as? Date == Date(timeIntervalSince1970: 1))
        #expect(try KeyValueAccess.value(forKeyPath: "list.@count", of: ["list": NSNull()]) as? Int == 0)
        #expect(try KeyValueAccess.value(forKeyPath: "list.@sum.x", of: [String: Any]()) == nil)
    }

    @Test func operatorBeforeTheCollectionKey() throws {
        let order: [String: Any] = ["items": [["price": 400], ["price": 500]]]
        #expect(try KeyValueAccess.value(forKeyPath: "@sum.items.price", of: order) as? Int == 900)
        #expect(try Eval.test("@sum.items.price < 1000", order))
        #expect(try KeyValueAccess.value(forKeyPath: "@count", of: order) as? Int == 1)
        #expect(throws: KeyValueCodingError.notACollection(collectionOperator: "@sum", typeName: "Dictionary<String, Int>")) {
            try KeyValueAccess.value(forKeyPath: "@sum.price", of: ["price": 3])
        }
        #expect(throws: KeyValueCodingError.notACollection(collectionOperator: "@sum", typeName: "Int")) {
            try KeyValueAccess.value(forKeyPath: "@sum.price.x", of: ["price": 3])
        }
    }

    @Test func unionOperators() throws {
        let objects: [[String: Any]] = [["k": 1], ["k": 2], ["k": 1], [:]]
        #expect((try KeyValueAccess.value(forKeyPath: "@unionOfObjects.k", of: objects) as? [Any])?.count == 3)
        #expect((try KeyValueAccess.value(forKeyPath: "@distinctUnionOfObjects.k", of: objects) as? [Any])?.count == 2)
        let setResult = try KeyValueAccess.value(forKeyPath: "@unionOfObjects.k", of: Set<AnyHashable>([["k": 1] as [String: Int], ["k": 2]]))
        #expect((setResult as? Set<AnyHashable>) == [1, 2])
        let nested: [[Any]] = [[["k": 1], ["k": 2]], [["k": 2]]]
        #expect((try KeyValueAccess.value(forKeyPath: "@unionOfArrays.k", of: nested) as? [Any])?.count == 3)
        #expect((try KeyValueAccess.value(forKeyPath: "@distinctUnionOfArrays.k", of: nested) as? [Any])?.count == 2)
        #expect((try KeyValueAccess.value(forKeyPath: "@unionOfSets.self", of: [Set([1, 2]), Set([2, 3])]) as? Set<AnyHashable>) == [1, 2, 3])
        #expect((try KeyValueAccess.value(forKeyPath: "@distinctUnionOfSets.self", of: [Set([1]), Set([1])]) as? Set<AnyHashable>) == [1])
    }

    @Test func collectionOperatorErrors() {
        #expect(throws: KeyValueCodingError.unknownCollectionOperator("@median")) {
            try KeyValueAccess.value(forKeyPath: "@median.x", of: [1])
        }
        #expect(throws: KeyValueCodingError.missingKeyPath(collectionOperator: "@sum")) {
            try KeyValueAccess.value(forKeyPath: "@sum", of: [1])
        }
        #expect(throws: KeyValueCodingError.notACollection(collectionOperator: "@sum", typeName: "Int")) {
            try KeyValueAccess.value(forKeyPath: "@sum.self", of: 3)
        }
        #expect(throws: KeyValueCodingError.notANumber(collectionOperator: "@avg", typeName: "String")) {
            try KeyValueAccess.value(forKeyPath: "@avg.self", of: ["a"])
        }
        #expect(throws: KeyValueCodingError.incomparable(collectionOperator: "@max", typeNames: ["Int", "String"])) {
            try KeyValueAccess.value(forKeyPath: "@max.self", of: [1, "a"] as [Any])
        }
        #expect(throws: KeyValueCodingError.notACollection(collectionOperator: "@unionOfArrays", typeName: "Int")) {
            try KeyValueAccess.value(forKeyPath: "@unionOfArrays.self", of: [1])
        }
        for error in [KeyValueCodingError.unknownCollectionOperator("@x"), .missingKeyPath(collectionOperator: "@sum"),
                      .notACollection(collectionOperator: "@sum", typeName: "Int"), .notANumber(collectionOperator: "@sum", typeName: "String"),
                      .incomparable(collectionOperator: "@max", typeNames: ["A", "B"])] {
            #expect(!"\(error)".isEmpty)
        }
    }
}
