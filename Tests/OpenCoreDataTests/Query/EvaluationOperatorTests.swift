import Testing
@testable import OpenCoreData

/// Every comparison operator with every option, on the object below.
@Suite struct EvaluationOperatorTests {
    static var object: [String: Any] { [
        "name": "Éclair", "word": "hello", "age": 30, "score": 2.5, "flag": true,
        "tags": ["red", "Green", "blue"], "set": Set(["x", "y"]), "nothing": NSNull(),
        "date": Date(timeIntervalSinceReferenceDate: 100), "empty": [Int](),
        "dict": ["a": 1, "b": 2],
    ] }

    static let cases: [(String, Bool)] = [
        // Ordered comparisons and equality on numbers, strings and dates.
        ("age == 30", true), ("age = 30", true), ("age != 30", false), ("age <> 31", true),
        ("age < 31", true), ("age < 30", false), ("age <= 30", true), ("age =< 29", false),
        ("age > 29", true), ("age > 30", false), ("age >= 30", true), ("age => 31", false),
        ("score == 2.5", true), ("score > 2", true), ("age == 30.0", true), ("flag == 1", true), ("flag == YES", true),
        ("word == 'hello'", true), ("word == 'HELLO'", false), ("word ==[c] 'HELLO'", true),
        ("word < 'help'", true), ("word >[c] 'HELL'", true), ("word <=[c] 'HELLO'", true), ("word >=[c] 'HELLO'", true),
        ("word !=[c] 'HELLO'", false), ("word <[c] 'HELLO'", false),
        ("name == 'Eclair'", false), ("name ==[d] 'Eclair'", true), ("name ==[cd] 'ECLAIR'", true),
        ("name ==[c] 'ÉCLAIR'", true), ("name ==[n] 'Éclair'", true), ("name ==[cdn] 'eclair'", false),
        ("date == CAST(100, 'NSDate')", true), ("date < CAST(101, 'NSDate')", true), ("date > CAST(101, 'NSDate')", false),
        // BEGINSWITH, ENDSWITH, CONTAINS on strings.
        ("word BEGINSWITH 'he'", true), ("word BEGINSWITH 'HE'", false), ("word BEGINSWITH[c] 'HE'", true),
        ("name BEGINSWITH[d] 'Ec'", true), ("name BEGINSWITH[cd] 'EC'", true), ("name BEGINSWITH[n] 'Éc'", true),
        ("word ENDSWITH 'llo'", true), ("word ENDSWITH 'LLO'", false), ("word ENDSWITH[c] 'LLO'", true),
        ("name ENDSWITH[d] 'air'", true), ("name ENDSWITH[cd] 'AIR'", true),
        ("word CONTAINS 'ell'", true), ("word CONTAINS 'ELL'", false), ("word CONTAINS[c] 'ELL'", true),
        ("name CONTAINS[d] 'Ecl'", true), ("name CONTAINS[cd] 'ECL'", true), ("word CONTAINS ''", false), ("word BEGINSWITH ''", false), ("word ENDSWITH ''", false), ("'' IN word", false),
        ("'' LIKE ''", true), ("'' LIKE '*'", true), ("'' MATCHES ''", true),
        ("age BEGINSWITH '3'", false), ("word CONTAINS 3", false), ("nothing BEGINSWITH 'a'", false),
        // LIKE with * and ?, escapes and options.
        ("word LIKE 'h*o'", true), ("word LIKE 'h?llo'", true), ("word LIKE 'h?lo'", false), ("word LIKE '*'", true),
        ("word LIKE 'H*'", false), ("word LIKE[c] 'H*'", true), ("name LIKE[d] 'E*r'", true), ("name LIKE[cd] 'e*R'", true),
        ("word LIKE '*l*l*'", true), ("word LIKE 'hello?'", false), ("word LIKE '**o'", true),
        ("'a*b' LIKE 'a\\\\*b'", true), ("'axb' LIKE 'a\\\\*b'", false), ("'a\\\\' LIKE 'a\\\\'", true),
        // MATCHES is an ICU regex on the whole string.
        ("word MATCHES 'h.*o'", true), ("word MATCHES 'ell'", false), ("word MATCHES 'h|hello'", true),
        ("word MATCHES 'HEL+O'", false), ("word MATCHES[c] 'HEL+O'", true), ("name MATCHES[d] 'Ecl.*'", true),
        ("name MATCHES[cd] 'ecl.*'", true), ("word MATCHES[n] 'hel+o'", true), ("age MATCHES '3.*'", false),
        // CONTAINS on collections is membership.
        ("tags CONTAINS 'red'", true), ("tags CONTAINS 'green'", false), ("tags CONTAINS[c] 'green'", true),
        ("set CONTAINS 'x'", true), ("dict CONTAINS 2", true), ("nothing CONTAINS 'x'", false), ("age CONTAINS 3", false),
        // IN: membership in a collection, or a substring of a string.
        ("'red' IN tags", true), ("'RED' IN tags", false), ("'RED' IN[c] tags", true), ("age IN {1, 30}", true),
        ("age IN {1, 2}", false), ("'y' IN set", true), ("2 IN dict", true), ("'ell' IN word", true),
        ("'ELL' IN[c] word", true), ("'zz' IN word", false), ("age IN word", false), ("age IN nothing", false),
        ("'Ecl' IN[d] name", true),
        // BETWEEN.
        ("age BETWEEN {30, 40}", true), ("age BETWEEN {10, 29}", false), ("score BETWEEN {2, 3}", true),
        ("word BETWEEN {'a', 'z'}", true), ("word BETWEEN[c] {'A', 'I'}", true),
        // Modifiers.
        ("ANY tags == 'blue'", true), ("ANY tags == 'pink'", false), ("SOME tags BEGINSWITH[c] 'g'", true),
        ("ALL tags LIKE '*e*'", true), ("ALL tags CONTAINS 'r'", false), ("NONE tags == 'pink'", true),
        ("NONE tags == 'red'", false), ("ANY empty == 1", false), ("ALL empty == 1", true), ("NONE empty == 1", true),
        ("ANY tags ==[c] 'GREEN'", true), ("ANY tags ==[cd] 'grëen'", true), ("ALL tags != 'pink'", true),
        ("ANY tags LIKE[c] 'G*'", true), ("ANY tags MATCHES '[a-z]+'", true), ("ALL tags MATCHES '[a-z]+'", false),
        ("ANY tags ENDSWITH[c] 'EN'", true), ("ANY tags CONTAINS[c] 'LU'", true), ("ANY tags < 'b'", true),
        ("ANY tags BETWEEN {'a', 'c'}", true), ("ALL tags BETWEEN {'a', 'c'}", false), ("ANY nothing == 1", false), ("ALL nothing == 1", true), ("ANY set == 'x'", true), ("ANY tags IN {'blue', 'x'}", true),
        // A to-many key path without a modifier is compared as a whole.
        ("tags == 'red'", false), ("tags == {'red', 'Green', 'blue'}", true), ("tags.@count == 3", true),
        // Compound predicates, constants.
        ("age > 1 AND word == 'hello'", true), ("age > 100 AND word == 'hello'", false), ("age > 100 OR word == 'hello'", true),
        ("age > 100 OR word == 'x'", false), ("NOT age > 100", true), ("!(age == 30)", false),
        ("TRUEPREDICATE", true), ("FALSEPREDICATE", false), ("age > 100 AND nosuchkey.x == 1", false),
        ("age == 30 OR nosuchkey.x == 1", true),
    ]

    @Test(arguments: cases)
    func evaluates(_ format: String, _ expected: Bool) throws {
        #expect(try Eval.test(format, Self.object) == expected, "\(format)")
    }

    @Test func membershipInEveryCollectionKind() throws {
        #expect(try Eval.test("2 IN %@", nil, NSOrderedSet(array: [1, 2])))
        #expect(try Eval.test("2 IN %@", nil, NSSet(array: [1, 2])))
        #expect(try Eval.test("2 IN %@", nil, NSArray(array: [1, 2])))
        #expect(try Eval.test("2.0 IN %@", nil, Set([Int32(1), Int32(2)])))
        #expect(try Eval.test("'v' IN %@", nil, ["k": "v"]))
        #expect(try !Eval.test("'k' IN %@", nil, ["k": "v"]))
        #expect(try Eval.test("%@ CONTAINS 2", nil, NSOrderedSet(array: [1, 2])))
        #expect(try Eval.test("nil IN {1, nil}"))
        #expect(try Eval.test("ANY %@ == 2", nil, NSOrderedSet(array: [1, 2])))
    }

    @Test func compoundPredicatesShortCircuit() throws {
        let person = KVCPerson(name: "Ann", age: 1)
        #expect(try !Eval.test("age > 100 AND wings == 1", person))
        #expect(try Eval.test("age == 1 OR wings == 1", person))
        #expect(Eval.error("age == 1 AND wings == 1", person)
                == .keyValueCoding(.unknownKey(key: "wings", owner: "type KVCPerson"), keyPath: "wings"))
        #expect(Eval.error("age > 100 OR wings == 1", person) != nil)
        #expect(Eval.error("NOT wings == 1", person) != nil)
    }

    @Test func compoundPredicatesBuiltInCode() throws {
        let yes = NSPredicate(value: true), no = NSPredicate(value: false)
        #expect(NSCompoundPredicate(andPredicateWithSubpredicates: []).evaluate(with: nil))
        #expect(!NSCompoundPredicate(orPredicateWithSubpredicates: []).evaluate(with: nil))
        #expect(NSCompoundPredicate(orPredicateWithSubpredicates: [no, yes]).evaluate(with: nil))
        #expect(!NSCompoundPredicate(andPredicateWithSubpredicates: [yes, no]).evaluate(with: nil))
        #expect(NSCompoundPredicate(notPredicateWithSubpredicate: no).evaluate(with: nil))
    }

    @Test func blockPredicatesSeeObjectAndVariables() throws {
        let predicate = NSPredicate { object, bindings in
            (object as? Int) == (bindings?["want"] as? Int)
        }
        #expect(predicate.evaluate(with: 3, substitutionVariables: ["want": 3]))
        #expect(!predicate.evaluate(with: 4, substitutionVariables: ["want": 3]))
    }

    @Test func operatorErrors() {
        #expect(Eval.error("ANY age == 1", Self.object) == .notACollection(construct: "ANY", typeName: "Int"))
        #expect(Eval.error("ALL word == 1", Self.object) == .notACollection(construct: "ALL", typeName: "String"))
        #expect(Eval.error("1 IN age", Self.object) == .notACollection(construct: "IN", typeName: "Int"))
        #expect(Eval.error("age BETWEEN {1}", Self.object) == .invalidBetweenBounds(typeName: "Array<Any>"))
        #expect(Eval.error("age BETWEEN 3", Self.object) == .invalidBetweenBounds(typeName: "Int"))
        #expect(Eval.error("word MATCHES '('", Self.object).map {
            if case .invalidRegularExpression(let pattern, _) = $0 { return pattern == "(" } else { return false }
        } == true)
        let custom = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "a"), rightExpression: NSExpression(forKeyPath: "b"),
                                           modifier: .direct, type: .lessThan)
        #expect(throws: Never.self) { try custom.evaluateThrowing(with: ["a": 1, "b": 2]) }
    }

    @Test func comparisonsAcrossEveryNumberWidth() throws {
        let values: [Any] = [Int(7), Int8(7), Int16(7), Int32(7), Int64(7), UInt(7), UInt8(7), UInt16(7), UInt32(7),
                             UInt64(7), Float(7), Double(7), CGFloat(7), Decimal(7), NSNumber(value: 7),
                             NSDecimalNumber(value: 7), NSNumber(value: UInt64(7)), NSNumber(value: Float(7))]
        for left in values {
            for right in values {
                #expect(try Eval.test("%@ == %@", nil, left, right), "\(type(of: left)) == \(type(of: right))")
                #expect(try Eval.test("%@ < %@", nil, left, Double(7.5)))
                #expect(try !Eval.test("%@ > %@", nil, left, right))
            }
        }
        #expect(try Eval.test("%@ == %@", nil, NSDecimalNumber(string: "0.3"), Decimal(string: "0.3")!))
        #expect(try Eval.test("%@ != %@", nil, NSDecimalNumber(string: "0.3"), Decimal(string: "0.30000001")!))
        #expect(try Eval.test("%@ == -3", nil, NSNumber(value: Int8(-3))))
        #expect(try Eval.test("%@ == 2.5", nil, NSNumber(value: 2.5)))
        #expect(try Eval.test("%@ > %@", nil, NSNumber(value: UInt64.max), Int64.max))
        #expect(try Eval.test("%@ == 1", nil, NSNumber(value: true)))
        #expect(try Eval.test("%@ == 1", nil, true))
        #expect(try Eval.test("%@ == 2.5", nil, Float16(2.5)))
        #expect(try Eval.test("%@ == 0", nil, NSNumber(value: false)))
        #expect(try Eval.test("%@ > %@", nil, UInt64.max, Int64.max))
        #expect(try Eval.test("%@ < %@", nil, Int64.min, UInt64.max))
        #expect(try Eval.test("%@ > %@", nil, UInt64.max, UInt64.max - 1))
        #expect(try Eval.test("%@ < %@", nil, Int64.max - 1, Int64.max))
        #expect(try Eval.test("%@ > %@", nil, Decimal(string: "0.3")!, 0.2))
        #expect(try !Eval.test("%@ == %@", nil, Double.nan, Double.nan))
        #expect(try Eval.test("%@ < %@", nil, Decimal(1), Double.infinity))
        #expect(try Eval.test("%@ > %@", nil, Decimal(1), -1e300))
        #expect(try !Eval.test("%@ == %@", nil, Decimal(1), Double.nan))
        #expect(try !Eval.test("%@ == %@", nil, Decimal.nan, Decimal.nan))
        #expect(try Eval.value("add:to:(%@, %@)", nil, Decimal(1), Double.infinity) as? Double == .infinity)
        #expect(try Eval.value("divide:by:(%@, %@)", nil, Decimal(1), 1e300) as? Double == 1e-300)
        #expect(try !Eval.test("%@ <= %@", nil, Double.nan, 1))
        #expect(try !Eval.test("%@ >= %@", nil, Double.nan, 1))
    }

    @Test func nilAndNSNull() throws {
        let object: [String: Any] = ["null": NSNull(), "n": 1]
        #expect(try Eval.test("missing == nil", object))
        #expect(try Eval.test("null == nil", object))
        #expect(try Eval.test("null == %@", object, NSNull()))
        #expect(try Eval.test("missing == %@", object, NSNull()))
        #expect(try !Eval.test("n == nil", object))
        #expect(try Eval.test("n != nil", object))
        #expect(try !Eval.test("null != nil", object))
        #expect(try !Eval.test("missing < 1", object))
        #expect(try !Eval.test("missing >= 1", object))
        #expect(try !Eval.test("missing <= nil", object))
        #expect(try !Eval.test("nil BETWEEN {0, 2}", object))
        #expect(try Eval.test("ANY %@ == nil", object, [NSNull(), 1] as [Any]))
    }

    @Test func otherValueTypes() throws {
        let uuid = UUID(), other = UUID()
        #expect(try Eval.test("%@ == %@", nil, uuid, uuid))
        #expect(try !Eval.test("%@ == %@", nil, uuid, other))
        let ordered = uuid.uuidString < other.uuidString
        #expect(try Eval.test("%@ < %@", nil, uuid, other) == ordered)
        #expect(try Eval.test("%@ == %@", nil, Data([1, 2]), Data([1, 2])))
        #expect(try Eval.test("%@ < %@", nil, Data([1, 2]), Data([1, 3])))
        #expect(try Eval.test("%@ < %@", nil, Data([1]), Data([1, 0])))
        #expect(try !Eval.test("%@ > %@", nil, Data([1, 2]), Data([1, 2])))
        let url = URL(string: "https://a.example/x")!
        #expect(try Eval.test("%@ == %@", nil, url, URL(string: "https://a.example/x")!))
        #expect(try Eval.test("%@ < %@", nil, url, URL(string: "https://b.example")!))
        #expect(try !Eval.test("%@ == 'https://a.example/x'", nil, url))
        #expect(try !Eval.test("'3' == 3"))
        #expect(try !Eval.test("'3' < 4"))
        #expect(try !Eval.test("%@ == 1", nil, Date(timeIntervalSinceReferenceDate: 1)))
        #expect(try Eval.test("%@ == %@", nil, ["a": 1], ["a": 1.0]))
        #expect(try !Eval.test("%@ == %@", nil, ["a": 1], ["a": 2]))
        #expect(try !Eval.test("%@ == %@", nil, ["a": 1], ["b": 1]))
        #expect(try Eval.test("%@ == %@", nil, Set([1, 2]), Set([2, 1])))
        #expect(try !Eval.test("%@ == %@", nil, [1, 2], [2, 1]))
        #expect(try !Eval.test("%@ < %@", nil, [1], [2]))
        #expect(try Eval.test("%@ == %@", nil, NSString(string: "s"), "s"))
        #expect(try Eval.test("%@ == %@", nil, KVCPerson(name: "a", age: 1), KVCPerson(name: "a", age: 1)) == false)
        let dog = KVCDog(breed: "x")
        #expect(try Eval.test("%@ == %@", nil, dog, dog) == false)
        let object = NSObject()
        #expect(try Eval.test("%@ == %@", nil, object, object))
        #expect(try Eval.test("%@ == %@", nil, AnyHashable("k"), "k"))
    }
}
