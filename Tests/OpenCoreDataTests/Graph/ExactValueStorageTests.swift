import Foundation
import Testing
@testable import OpenCoreData

/// `setValue(_:forKey:)` keeps a value of its attribute's exact Swift type as it is (read in
/// place out of the `Any?`, ``SlotValue/init(_:exactly:)``), and converts the others.
@Suite struct ExactValueStorageTests {
    static let types: [(key: String, type: NSAttributeType)] = [
        ("i64", .integer64AttributeType), ("i32", .integer32AttributeType), ("i16", .integer16AttributeType),
        ("double", .doubleAttributeType), ("float", .floatAttributeType), ("flag", .booleanAttributeType),
        ("date", .dateAttributeType), ("text", .stringAttributeType),
    ]

    static func object() -> NSManagedObject {
        let entity = GraphTestModel.entity("Values")
        entity.properties = types.map { GraphTestModel.attribute($0.key, $0.type) }
        let model = NSManagedObjectModel()
        model.entities = [entity]
        return GraphTestModel.insert("Values", GraphTestModel.context(model: model))
    }

    @Test func exactValuesKeepTheirTypeAndBits() {
        let object = Self.object()
        let date = Date(timeIntervalSinceReferenceDate: -1234.5)
        let text = String(repeating: "long text, kept in a heap buffer ", count: 4)
        let values: [String: Any] = ["i64": Int64.min, "i32": Int32(-7), "i16": Int16.max, "double": -0.25,
                                     "float": Float(3.5), "flag": true, "date": date, "text": text]
        for (key, value) in values { object.setValue(value, forKey: key) }
        #expect(object.value(forKey: "i64") as? Int64 == .min)
        #expect(object.value(forKey: "i32") as? Int32 == -7)
        #expect(object.value(forKey: "i16") as? Int16 == .max)
        #expect(object.value(forKey: "double") as? Double == -0.25)
        #expect(object.value(forKey: "float") as? Float == 3.5)
        #expect(object.value(forKey: "flag") as? Bool == true)
        #expect(object.value(forKey: "date") as? Date == date)
        #expect(object.value(forKey: "text") as? String == text)
        object.setValue(false, forKey: "flag")
        #expect(object.value(forKey: "flag") as? Bool == false)
        #expect(object.changedValues().count == values.count)
    }

    @Test func otherValuesAreConvertedOrKeptAsBefore() {
        let object = Self.object()
        object.setValue(42, forKey: "i64")                      // Int: converted to the attribute's width
        #expect(object.value(forKey: "i64") as? Int64 == 42)
        object.setValue(NSNumber(value: 9), forKey: "i16")
        #expect(object.value(forKey: "i16") as? Int16 == 9)
        object.setValue(Optional(Optional(Int64(5))) as Any, forKey: "i64")   // nested optional: unwrapped
        #expect(object.value(forKey: "i64") as? Int64 == 5)
        object.setValue(nil, forKey: "i64")
        #expect(object.value(forKey: "i64") == nil)
        object.setValue(NSNull(), forKey: "text")
        #expect(object.value(forKey: "text") == nil)
    }

    @Test func inPlaceReadMatchesTheCase() {
        #expect(SlotValue(Optional<Any>.none, exactly: ObjectIdentifier(Int64.self)) == nil)
        #expect(SlotValue(Int(3), exactly: ObjectIdentifier(Int64.self)) == nil, "an Int is not an Int64")
        #expect(SlotValue(Int64(3), exactly: ObjectIdentifier(Double.self)) == nil)
        #expect(SlotValue(Optional(Int64(3)) as Any, exactly: ObjectIdentifier(Int64.self)) == nil, "a nested optional is left to the general path")
        guard case .int64(let value)? = SlotValue(Int64(-3), exactly: ObjectIdentifier(Int64.self)) else {
            Issue.record("an Int64 reads as .int64")
            return
        }
        #expect(value == -3)
        guard case .string(let text)? = SlotValue("abc", exactly: ObjectIdentifier(String.self)) else {
            Issue.record("a String reads as .string")
            return
        }
        #expect(text == "abc")
    }

    /// Object IDs have their own case (a snapshot's to-one destinations), other values a boxed
    /// one, and each comes back out as it went in: a slot stays 24 bytes.
    @Test func idsAndOtherValuesRoundTrip() {
        #expect(MemoryLayout<SlotValue>.stride <= 24, "a slot holds no 32-byte existential inline")
        let object = Self.object()
        let id = object.objectID
        guard case .objectID(let stored) = SlotValue(some: id) else {
            Issue.record("an object ID reads as .objectID")
            return
        }
        #expect(stored === id)
        #expect(SlotValue(some: id).objectID === id)
        #expect(SlotValue.object(object).any() as? NSManagedObject === object)
        #expect(SlotValue.object(object).objectID == nil, "an object is not an ID")
        #expect(SlotValue.object(object).destination === object)
        #expect(SlotValue(some: object).destination === object, "a destination set through init(some:) is found too")
        #expect(SlotValue(some: id).destination == nil, "an ID is not a destination object")
        let data = Data([1, 2, 3])
        guard case .other = SlotValue(some: data) else {
            Issue.record("Data reads as .other")
            return
        }
        #expect(SlotValue(some: data).any() as? Data == data)
        let amount = Decimal(string: "1.25") ?? 0
        #expect(SlotValue(some: amount).any() as? Decimal == amount)
        #expect(SlotValue(some: data).caseType == .other && SlotValue(some: id).caseType == .other)
    }
}
