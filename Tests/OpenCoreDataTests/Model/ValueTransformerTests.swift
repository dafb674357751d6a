import Foundation
import Testing
@testable import OpenCoreData

/// Turns a `[String]` into comma-separated UTF-8 `Data` and back (a custom, reversible transformer).
final class CommaListTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        (value as? [String]).map { Data($0.joined(separator: ",").utf8) }
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        (value as? Data).map { String(decoding: $0, as: UTF8.self).split(separator: ",").map(String.init) }
    }
}

/// Only strings and arrays may be archived (a narrowed secure transformer, as apps subclass it).
final class StringListTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [NSArray.self, NSString.self] }
}

/// The registry and the built-in transformers. The suite registers its transformer in `init()`,
/// as library test suites do in their base class.
@Suite struct ValueTransformerTests {
    static let commaList = NSValueTransformerName("ValueTransformerTests.CommaList")

    init() {
        ValueTransformer.setValueTransformer(CommaListTransformer(), forName: Self.commaList)
    }

    @Test func registeredTransformersAreFoundByNameAndListed() throws {
        let found = try #require(ValueTransformer(forName: Self.commaList))
        #expect(found is CommaListTransformer)
        #expect(CommaListTransformer(forName: Self.commaList) != nil, "lookup through a subclass returns the registered instance")
        #expect(ValueTransformer(forName: Self.commaList) === found, "the registered instance, not a copy")
        #expect(ValueTransformer.valueTransformerNames().contains(Self.commaList))
        #expect(found.transformedValue(["a", "b"]) as? Data == Data("a,b".utf8))
        #expect(found.reverseTransformedValue(Data("x,y".utf8)) as? [String] == ["x", "y"])

        let temporary = NSValueTransformerName("ValueTransformerTests.Temporary")
        ValueTransformer.setValueTransformer(CommaListTransformer(), forName: temporary)
        #expect(ValueTransformer.valueTransformerNames().contains(temporary))
        ValueTransformer.setValueTransformer(nil, forName: temporary)
        #expect(ValueTransformer(forName: temporary) == nil, "nil removes a registration")
        #expect(!ValueTransformer.valueTransformerNames().contains(temporary))
        #expect(ValueTransformer(forName: NSValueTransformerName("NoSuchTransformer")) == nil)
    }

    @Test func builtInTransformersAreRegisteredUnderApplesNames() throws {
        #expect(NSValueTransformerName.negateBooleanTransformerName.rawValue == "NSNegateBoolean")
        #expect(NSValueTransformerName.isNilTransformerName.rawValue == "NSIsNil")
        #expect(NSValueTransformerName.isNotNilTransformerName.rawValue == "NSIsNotNil")
        #expect(NSValueTransformerName.unarchiveFromDataTransformerName.rawValue == "NSUnarchiveFromData")
        #expect(NSValueTransformerName.keyedUnarchiveFromDataTransformerName.rawValue == "NSKeyedUnarchiveFromData")
        #expect(NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue == "NSSecureUnarchiveFromData")
        let names = Set(ValueTransformer.valueTransformerNames())
        for name in [NSValueTransformerName.negateBooleanTransformerName, .isNilTransformerName, .isNotNilTransformerName,
                     .unarchiveFromDataTransformerName, .keyedUnarchiveFromDataTransformerName, .secureUnarchiveFromDataTransformerName] {
            #expect(names.contains(name), "\(name.rawValue) is registered")
        }

        let negate = try #require(ValueTransformer(forName: .negateBooleanTransformerName))
        #expect(negate.transformedValue(true) as? Bool == false)
        #expect(negate.reverseTransformedValue(false) as? Bool == true)
        #expect(type(of: negate).allowsReverseTransformation())
        let isNil = try #require(ValueTransformer(forName: .isNilTransformerName))
        #expect(isNil.transformedValue(nil) as? Bool == true)
        #expect(isNil.transformedValue("x") as? Bool == false)
        #expect(!type(of: isNil).allowsReverseTransformation())
        #expect(isNil.reverseTransformedValue(true) == nil)
        let isNotNil = try #require(ValueTransformer(forName: .isNotNilTransformerName))
        #expect(isNotNil.transformedValue(NSNull()) as? Bool == false)
        #expect(isNotNil.transformedValue(1) as? Bool == true)

        let secure = try #require(ValueTransformer(forName: .secureUnarchiveFromDataTransformerName))
        #expect(secure is NSSecureUnarchiveFromDataTransformer)
        let archived = try #require(secure.reverseTransformedValue(["k": [1, 2]]) as? Data)
        #expect((secure.transformedValue(archived) as? [String: Any])?["k"] as? [Int] == [1, 2])
    }

    @Test func theDefaultBaseClassIsNotReversible() {
        #expect(!ValueTransformer.allowsReverseTransformation(), "Apple's default")
        #expect(ValueTransformer().transformedValue("same") as? String == "same")
        #expect(ValueTransformer().reverseTransformedValue("x") == nil)
    }

    @Test func registrationIsThreadSafe() async {
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let name = NSValueTransformerName("ValueTransformerTests.Concurrent\(index)")
                    for _ in 0..<200 {
                        ValueTransformer.setValueTransformer(CommaListTransformer(), forName: name)
                        _ = ValueTransformer(forName: name)
                        _ = ValueTransformer.valueTransformerNames()
                    }
                    ValueTransformer.setValueTransformer(nil, forName: name)
                }
            }
        }
        #expect(!ValueTransformer.valueTransformerNames().contains { $0.rawValue.hasPrefix("ValueTransformerTests.Concurrent") })
    }
}
