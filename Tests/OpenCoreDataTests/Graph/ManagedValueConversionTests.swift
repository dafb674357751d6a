import Foundation
import Testing
@testable import OpenCoreData

@Suite("Managed values: conversion to attribute types and typed reads")
struct ManagedValueConversionTests {
    struct Case: Sendable, CustomStringConvertible {
        let type: NSAttributeType
        let input: @Sendable () -> Any
        let check: @Sendable (Any?) -> Bool
        var description: String { type.xcodeName }
    }

    static let cases: [Case] = [
        Case(type: .integer16AttributeType, input: { 7 }, check: { $0 as? Int16 == 7 }),
        Case(type: .integer32AttributeType, input: { Int8(7) }, check: { $0 as? Int32 == 7 }),
        Case(type: .integer64AttributeType, input: { NSNumber(value: 7) }, check: { $0 as? Int64 == 7 }),
        Case(type: .doubleAttributeType, input: { 2 }, check: { $0 as? Double == 2 }),
        Case(type: .floatAttributeType, input: { 2.5 }, check: { $0 as? Float == 2.5 }),
        Case(type: .decimalAttributeType, input: { 3 }, check: { $0 as? Decimal == 3 }),
        Case(type: .booleanAttributeType, input: { NSNumber(value: 1) }, check: { $0 as? Bool == true }),
        Case(type: .booleanAttributeType, input: { false }, check: { $0 as? Bool == false }),
        Case(type: .stringAttributeType, input: { NSString(string: "s") }, check: { $0 as? String == "s" }),
        Case(type: .dateAttributeType, input: { Date(timeIntervalSinceReferenceDate: 5) }, check: { ($0 as? Date)?.timeIntervalSinceReferenceDate == 5 }),
        Case(type: .binaryDataAttributeType, input: { NSData(bytes: [1, 2] as [UInt8], length: 2) }, check: { $0 as? Data == Data([1, 2]) }),
        Case(type: .UUIDAttributeType, input: { UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")! },
             check: { ($0 as? UUID)?.uuidString == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F" }),
        Case(type: .URIAttributeType, input: { URL(string: "https://example.com")! }, check: { ($0 as? URL)?.host == "example.com" }),
        Case(type: .transformableAttributeType, input: { ["a": 1] }, check: { ($0 as? [String: Int]) == ["a": 1] }),
    ]

    @Test(arguments: cases)
    func valuesAreCoercedToTheAttributeType(_ testCase: Case) {
        let attribute = GraphTestModel.attribute("value", testCase.type)
        #expect(testCase.check(PropertyValueCoercion.stored(testCase.input(), for: attribute)))
    }

    @Test(arguments: [NSAttributeType.integer32AttributeType, .dateAttributeType, .UUIDAttributeType, .binaryDataAttributeType])
    func unfittingValuesAreKeptAsGiven(_ type: NSAttributeType) {
        let attribute = GraphTestModel.attribute("value", type)
        #expect(PropertyValueCoercion.stored("text", for: attribute) as? String == "text")
        guard case .wrongType = PropertyValueCoercion.check("text", for: attribute) else {
            Issue.record("\(type.xcodeName) accepted a String"); return
        }
    }

    @Test func outOfRangeIntegersAreKeptNotTruncated() {
        let attribute = GraphTestModel.attribute("value", .integer16AttributeType)
        #expect(PropertyValueCoercion.stored(70000, for: attribute) as? Int == 70000)
        #expect(PropertyValueCoercion.stored(Int64(-70000), for: attribute) as? Int64 == -70000)
        guard case .invalid(let code, _) = PropertyValueCoercion.check(70000, for: attribute) else {
            Issue.record("70000 fitted an Integer 16 attribute"); return
        }
        #expect(code == NSValidationNumberTooLargeError)
    }

    @Test(arguments: [NSAttributeType.integer16AttributeType, .integer32AttributeType, .integer64AttributeType])
    func integerAttributesRefuseBoolAndFractions(_ type: NSAttributeType) {
        let attribute = GraphTestModel.attribute("value", type)
        for value: Any in [true, 2.5, Decimal(3)] {
            guard case .wrongType = PropertyValueCoercion.check(value, for: attribute) else {
                Issue.record("\(type.xcodeName) accepted \(value)"); continue
            }
            // Kept as given, for validation to report at save.
            let stored = PropertyValueCoercion.stored(value, for: attribute)
            #expect(Swift.type(of: stored) == Swift.type(of: value) && "\(stored)" == "\(value)")
        }
    }

    @Test func typedReadsConvertNumbersAndOptionals() {
        #expect(ManagedValueConversion.cast(Int32(5), to: Int.self) == 5)
        #expect(ManagedValueConversion.cast(Int32(5), to: Double.self) == 5.0)
        #expect(ManagedValueConversion.cast(Int16(5), to: Int?.self) == .some(5))
        #expect(ManagedValueConversion.cast(nil, to: Int?.self) == .some(nil))
        #expect(ManagedValueConversion.cast(nil, to: Int.self) == nil)
        #expect(ManagedValueConversion.cast(2.5, to: Int.self) == nil)
        #expect(ManagedValueConversion.cast(1, to: Bool.self) == true)
    }
}

@Suite("Relationship proxies")
struct ManagedSetTests {
    @Test func setOperations() {
        let context = GraphTestModel.context()
        let klass = GraphTestModel.insert("ClassEntity", context)
        let students = (0..<4).map { _ in GraphTestModel.insert("StudentEntity", context) }
        let proxy = klass.mutableSetValue(forKey: "students")
        proxy.setSet(students)
        #expect(proxy.count == 4 && proxy.set == Set(students))
        proxy.intersect(students.prefix(2))
        #expect(proxy.set == Set(students.prefix(2)))
        #expect(students[3].value(forKey: "inClass") == nil && students[0].value(forKey: "inClass") as? NSManagedObject === klass)
        proxy.removeAllObjects()
        #expect(proxy.count == 0 && students[0].value(forKey: "inClass") == nil)
    }

    @Test func orderedOperations() {
        let context = GraphTestModel.context()
        let list = GraphTestModel.insert("Playlist", context)
        let tracks = (0..<3).map { _ in GraphTestModel.insert("Track", context) }
        let proxy = list.mutableOrderedSetValue(forKey: "tracks")
        tracks.forEach(proxy.add)
        proxy.replaceObject(at: 1, with: tracks[2])
        #expect(proxy.array == [tracks[0], tracks[2]])
        #expect(tracks[1].value(forKey: "playlist") == nil)
        #expect(proxy[1] === tracks[2] && proxy.object(at: 0) === tracks[0])
        #expect(proxy.index(of: tracks[1]) == NSNotFound && !proxy.contains(tracks[1]))
        proxy.removeAllObjects()
        #expect(proxy.count == 0 && proxy.set.isEmpty)
    }

    @Test func collectionConstantsInPredicatesBecomeIDsForTheStore() throws {
        let context = try GraphTestModel.storedContext()
        let one = GraphTestModel.insert("ClassEntity", context, ["name": "一"])
        let two = GraphTestModel.insert("ClassEntity", context, ["name": "二"])
        _ = GraphTestModel.insert("StudentEntity", context, ["inClass": one])
        _ = GraphTestModel.insert("StudentEntity", context, ["inClass": two])
        _ = GraphTestModel.insert("StudentEntity", context)
        try context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "StudentEntity")
        request.predicate = NSPredicate(format: "inClass IN %@ OR NOT (inClass.name == %@)", [one, two], "x")
        #expect(try context.count(for: request) == 3)
        request.predicate = NSPredicate(format: "inClass IN %@", [one.objectID])
        #expect(try context.count(for: request) == 1)
        _ = GraphTestModel.insert("StudentEntity", context, ["inClass": one])
        #expect(try context.count(for: request) == 2)
    }
}
