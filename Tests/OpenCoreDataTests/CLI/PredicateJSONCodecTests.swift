import Testing
@testable import CoreDataCLI
@testable import OpenCoreData

@Suite struct PredicateJSONCodecTests {
    @Test func scalars() throws {
        #expect(try JSONValueCodec.decode("null", source: "t") == nil)
        #expect(try JSONValueCodec.decode("3", source: "t") as? Int == 3)
        #expect(try JSONValueCodec.decode("-3", source: "t") as? Int == -3)
        #expect(try JSONValueCodec.decode("2.5", source: "t") as? Double == 2.5)
        #expect(try JSONValueCodec.decode("2.0", source: "t") as? Double == 2.0)
        #expect(try JSONValueCodec.decode("18446744073709551615", source: "t") as? UInt64 == UInt64.max)
        #expect(try JSONValueCodec.decode("true", source: "t") as? Bool == true)
        #expect(try JSONValueCodec.decode("false", source: "t") as? Bool == false)
        #expect(try JSONValueCodec.decode(#""hi""#, source: "t") as? String == "hi")
    }

    @Test func taggedValues() throws {
        #expect(try JSONValueCodec.decode(#"{"$null": true}"#, source: "t") is NSNull)
        let date = try JSONValueCodec.decode(#"{"$date": "2023-01-01T00:00:00Z"}"#, source: "t") as? Date
        #expect(date == Date(timeIntervalSinceReferenceDate: 694224000))
        let fractional = try JSONValueCodec.decode(#"{"$date": "2023-01-01T00:00:00.500Z"}"#, source: "t") as? Date
        #expect(fractional == Date(timeIntervalSinceReferenceDate: 694224000.5))
        let day = try JSONValueCodec.decode(#"{"$date": "2023-01-01"}"#, source: "t") as? Date
        #expect(day == Date(timeIntervalSinceReferenceDate: 694224000))
        let set = try JSONValueCodec.decode(#"{"$set": [1, "a", 1, null]}"#, source: "t") as? Set<AnyHashable>
        let elements = try #require(set)
        #expect(elements.count == 3, "duplicates collapse")
        #expect(elements.contains(1) && elements.contains("a"))
        #expect(elements.contains { $0.base is NSNull })
    }

    @Test func collections() throws {
        let object = try #require(try JSONValueCodec.decode(#"{"a": 1, "b": null, "c": [1, null, {"d": "x"}]}"#, source: "t") as? [String: Any])
        #expect(object["a"] as? Int == 1)
        #expect(object.keys.contains("b") == false, "a null member reads as a missing key")
        let c = try #require(object["c"] as? [Any])
        #expect(c.count == 3)
        #expect(c[1] is NSNull)
        #expect((c[2] as? [String: Any])?["d"] as? String == "x")
        let plain = try JSONValueCodec.decode(#"{"$null": true, "other": 1}"#, source: "t") as? [String: Any]
        #expect(plain?.count == 2, "only a one-key object is a tag")
    }

    @Test func argumentsAndVariables() throws {
        let arguments = try JSONValueCodec.decodeArguments(#"["name", 3, null, {"$set": [1]}]"#, source: "--arguments")
        #expect(arguments.count == 4)
        #expect(arguments[0] as? String == "name")
        #expect(arguments[2] == nil)
        let variables = try JSONValueCodec.decodeVariables(#"{"X": 1, "N": null}"#, source: "--variables")
        #expect(variables["X"] as? Int == 1)
        #expect(variables["N"] is NSNull)
    }

    @Test func errorsNameSourceAndPath() {
        #expect(throws: JSONValueError(source: "--object", path: "$", message: "not valid JSON ({)")) {
            try JSONValueCodec.decode("{", source: "--object")
        }
        #expect(throws: JSONValueError(source: "--arguments", path: "$", message: "expected an array of arguments")) {
            try JSONValueCodec.decodeArguments("{}", source: "--arguments")
        }
        #expect(throws: JSONValueError(source: "--variables", path: "$", message: "expected an object of variables")) {
            try JSONValueCodec.decodeVariables("[]", source: "--variables")
        }
        #expect(throws: JSONValueError(source: "t", path: "$.when", message: "$date needs an ISO 8601 string, not yesterday")) {
            try JSONValueCodec.decode(#"{"when": {"$date": "yesterday"}}"#, source: "t")
        }
        #expect(throws: JSONValueError(source: "t", path: "$[0]", message: "$set needs an array, not 1")) {
            try JSONValueCodec.decode(#"[{"$set": 1}]"#, source: "t")
        }
        #expect(throws: JSONValueError(source: "t", path: "$.$set[0]",
                                       message: "a set element must be a string, number, Boolean, date or null")) {
            try JSONValueCodec.decode(#"{"$set": [[1]]}"#, source: "t")
        }
        let error = JSONValueError(source: "line 2", path: "$.object", message: "bad")
        #expect(error.description == "invalid JSON in line 2 at $.object: bad")
    }
}
