import Foundation
import Testing
@testable import OpenCoreData

/// `NSSecureUnarchiveFromDataTransformer` and the keyed archives behind it: values round-trip,
/// Apple-written archives read back as Apple returns them, and our archives are Apple's bytes.
@Suite struct KeyedArchiveValueTests {
    let secure = NSSecureUnarchiveFromDataTransformer()

    /// Written by Apple's `NSKeyedArchiver` (an Xcode `UserInterfaceState.xcuserstate`, found in a
    /// public repository): `["ActiveScheme": ["IDENameString": "CalculatorApp"]]`, `$top` "root".
    static let appleDictionary = Data(base64Encoded:
        "YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEICVRyb290gAGnCwwVFhwdHlUkbnVsbNMNDg8QEhRXTlMua2V5c1pOUy5vYmplY3RzViRjbGFzc6ERgAKhE4ADgAZcQWN0aXZlU2NoZW1l0w0ODxcZFKEYgAShGoAFgAZdSURFTmFtZVN0cmluZ11DYWxjdWxhdG9yQXBw0h8gISJaJGNsYXNzbmFtZVgkY2xhc3Nlc1xOU0RpY3Rpb25hcnmiISNYTlNPYmplY3QIERokKTI3SUxRU1thaHB7goSGiIqMmaCipKaoqrjGy9bf7O8AAAAAAAABAQAAAAAAAAAkAAAAAAAAAAAAAAAAAAAA+A==")!

    /// Written by Apple's `NSKeyedArchiver` (macOS preferences of a terminal app, found in a public
    /// repository): an `NSMutableArray` of two `NSDictionary`s with a string, a real and a Boolean
    /// (`Identifier`, `Width`, `Hidden`), the strings and `false` shared; `$top` key "Array".
    static let appleMutableArray = Data(base64Encoded: """
        YnBsaXN0MDDUAQIDBAUGNjdYJHZlcnNpb25YJG9iamVjdHNZJGFyY2hpdmVyVCR0b3ASAAGGoK4HCA8aGxwdHh8gJjAxMlUkbnVsbNIJCgsOWk5TLm9iamVjdHNWJGNsYXNz\
        ogwNgAKACoAN0xAJChEVGVdOUy5rZXlzoxITFIADgASABaMWFxiABoAHgAiACVpJZGVudGlmaWVyVVdpZHRoVkhpZGRlblEwI0BowAAAAAAACNIhIiMkWiRjbGFzc25hbWVY\
        JGNsYXNzZXNcTlNEaWN0aW9uYXJ5oiMlWE5TT2JqZWN00xAJCicrGaMSExSAA4AEgAWjLC0YgAuADIAIgAlRMSNAdCGdsi0OVtIhIjM0Xk5TTXV0YWJsZUFycmF5ozM1JVdO\
        U0FycmF5XxAPTlNLZXllZEFyY2hpdmVy0Tg5VUFycmF5gAEACAARABoAIwAtADIANwBGAEwAUQBcAGMAZgBoAGoAbABzAHsAfwCBAIMAhQCJAIsAjQCPAJEAnACiAKkAqwC0\
        ALUAugDFAM4A2wDeAOcA7gDyAPQA9gD4APwA/gEAAQIBBAEGAQ8BFAEjAScBLwFBAUQBSgAAAAAAAAIBAAAAAAAAADoAAAAAAAAAAAAAAAAAAAFM
        """)!

    @Test func appleWrittenArchivesReadBackAsBridgedValues() throws {
        let dictionary = try #require(try secure.unarchivedValue(from: Self.appleDictionary) as? [String: Any])
        #expect((dictionary["ActiveScheme"] as? [String: Any])?["IDENameString"] as? String == "CalculatorApp")
        #expect((secure.transformedValue(Self.appleDictionary) as? [String: [String: String]]) == ["ActiveScheme": ["IDENameString": "CalculatorApp"]])

        let archive = try KeyedArchive(data: Self.appleMutableArray)
        var budget = 1_000
        let array = try #require(try archive.topNode("Array").bridgedValue(allowedClassNames: nil, depth: 0, budget: &budget) as? [[String: Any]])
        #expect(array.count == 2)
        #expect(array.map { $0["Identifier"] as? String } == ["0", "1"])
        #expect(array.map { $0["Width"] as? Double } == [198.0, 322.101])
        #expect(array.map { $0["Hidden"] as? Bool } == [false, false], "plist Booleans come back as Bool")
        #expect(secure.transformedValue(Self.appleMutableArray) == nil, "Apple's transformer reads only the \"root\" key")
    }

    @Test func ourArchiveOfAppleValueIsApplesBytes() throws {
        let value: [String: Any] = ["ActiveScheme": ["IDENameString": "CalculatorApp"]]
        #expect(try secure.archivedData(of: value) == Self.appleDictionary, "byte for byte what Apple's NSKeyedArchiver wrote")
    }

    /// Apple's archive shapes for the classes the two archives above lack, written out as
    /// `plutil -convert xml1` shows an archive: `NSDate` (`NS.time`), `NSURL` (`NS.base`,
    /// `NS.relative`), `NSSet`, `NSNull`, `NSUUID` (`NS.uuidbytes`), `NSMutableString`
    /// (`NS.string`), `NSMutableData` (`NS.data`), numbers inline.
    static let handWrittenArchive = Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>
        <key>$archiver</key><string>NSKeyedArchiver</string>
        <key>$version</key><integer>100000</integer>
        <key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>
        <key>$objects</key><array>
          <string>$null</string>
          <dict><key>NS.objects</key><array>
              <dict><key>CF$UID</key><integer>2</integer></dict><dict><key>CF$UID</key><integer>4</integer></dict>
              <dict><key>CF$UID</key><integer>7</integer></dict><dict><key>CF$UID</key><integer>9</integer></dict>
              <dict><key>CF$UID</key><integer>12</integer></dict><dict><key>CF$UID</key><integer>14</integer></dict>
              <dict><key>CF$UID</key><integer>16</integer></dict><dict><key>CF$UID</key><integer>18</integer></dict>
              <dict><key>CF$UID</key><integer>19</integer></dict><dict><key>CF$UID</key><integer>20</integer></dict>
            </array><key>$class</key><dict><key>CF$UID</key><integer>21</integer></dict></dict>
          <dict><key>NS.time</key><real>700000000.5</real><key>$class</key><dict><key>CF$UID</key><integer>3</integer></dict></dict>
          <dict><key>$classname</key><string>NSDate</string><key>$classes</key><array><string>NSDate</string><string>NSObject</string></array></dict>
          <dict><key>NS.base</key><dict><key>CF$UID</key><integer>0</integer></dict><key>NS.relative</key><dict><key>CF$UID</key><integer>5</integer></dict><key>$class</key><dict><key>CF$UID</key><integer>6</integer></dict></dict>
          <string>https://example.com/a?b=c</string>
          <dict><key>$classname</key><string>NSURL</string><key>$classes</key><array><string>NSURL</string><string>NSObject</string></array></dict>
          <dict><key>NS.objects</key><array><dict><key>CF$UID</key><integer>8</integer></dict></array><key>$class</key><dict><key>CF$UID</key><integer>10</integer></dict></dict>
          <string>member</string>
          <dict><key>$class</key><dict><key>CF$UID</key><integer>11</integer></dict></dict>
          <dict><key>$classname</key><string>NSSet</string><key>$classes</key><array><string>NSSet</string><string>NSObject</string></array></dict>
          <dict><key>$classname</key><string>NSNull</string><key>$classes</key><array><string>NSNull</string><string>NSObject</string></array></dict>
          <dict><key>NS.uuidbytes</key><data>jwteXJo2TkudLg6KTH0bEQ==</data><key>$class</key><dict><key>CF$UID</key><integer>13</integer></dict></dict>
          <dict><key>$classname</key><string>NSUUID</string><key>$classes</key><array><string>NSUUID</string><string>NSObject</string></array></dict>
          <dict><key>NS.string</key><string>mutable</string><key>$class</key><dict><key>CF$UID</key><integer>15</integer></dict></dict>
          <dict><key>$classname</key><string>NSMutableString</string><key>$classes</key><array><string>NSMutableString</string><string>NSString</string><string>NSObject</string></array></dict>
          <dict><key>NS.data</key><data>AQID</data><key>$class</key><dict><key>CF$UID</key><integer>17</integer></dict></dict>
          <dict><key>$classname</key><string>NSMutableData</string><key>$classes</key><array><string>NSMutableData</string><string>NSData</string><string>NSObject</string></array></dict>
          <integer>-42</integer>
          <real>2.5</real>
          <true/>
          <dict><key>$classname</key><string>NSMutableArray</string><key>$classes</key><array><string>NSMutableArray</string><string>NSArray</string><string>NSObject</string></array></dict>
        </array>
        </dict></plist>
        """.utf8)

    @Test func everyFoundationValueClassInApplesShapeReadsBack() throws {
        let items = try #require(try secure.unarchivedValue(from: Self.handWrittenArchive) as? [Any])
        #expect(items.count == 10)
        #expect(items[0] as? Date == Date(timeIntervalSinceReferenceDate: 700000000.5))
        #expect(items[1] as? URL == URL(string: "https://example.com/a?b=c"))
        #expect(items[2] as? Set<AnyHashable> == ["member"])
        #expect(items[3] is NSNull)
        #expect(items[4] as? UUID == UUID(uuidString: "8F0B5E5C-9A36-4E4B-9D2E-0E8A4C7D1B11"))
        #expect(items[5] as? String == "mutable")
        #expect(items[6] as? Data == Data([1, 2, 3]))
        #expect(items[7] as? Int == -42)
        #expect(items[8] as? Double == 2.5)
        #expect(items[9] as? Bool == true)
    }

    @Test func everyValueKindRoundTrips() throws {
        let date = Date(timeIntervalSinceReferenceDate: 445103622.123456789)
        let uuid = UUID()
        func roundTrip(_ value: Any) throws -> Any {
            let data = try secure.archivedData(of: value)
            #expect(data.starts(with: Array("bplist00".utf8)), "a binary property list")
            return try secure.unarchivedValue(from: data)
        }
        #expect(try roundTrip("ünïcödé ✓") as? String == "ünïcödé ✓")
        #expect(try roundTrip("") as? String == "")
        #expect(try roundTrip(Int64.max) as? Int == Int.max)
        #expect(try roundTrip(-7) as? Int == -7)
        #expect(try roundTrip(Int16(300)) as? Int == 300)
        #expect(try roundTrip(0.1 + 0.2) as? Double == 0.1 + 0.2)
        #expect(try roundTrip(true) as? Bool == true)
        #expect(try roundTrip(NSNumber(value: false)) as? Bool == false)
        #expect(try roundTrip(date) as? Date == date)
        #expect(try roundTrip(Data([0, 255, 7])) as? Data == Data([0, 255, 7]))
        #expect(try roundTrip(Data()) as? Data == Data())
        #expect(try roundTrip(URL(string: "https://example.com/x?y=1#z")!) as? URL == URL(string: "https://example.com/x?y=1#z"))
        let relative = URL(string: "b/c.txt", relativeTo: URL(string: "https://example.com/a/"))!
        #expect((try roundTrip(relative) as? URL)?.absoluteString == "https://example.com/a/b/c.txt")
        #expect(try roundTrip(uuid) as? UUID == uuid)
        #expect(try roundTrip(NSNull()) is NSNull)
        #expect(try roundTrip(Set<AnyHashable>(["a", 1])) as? Set<AnyHashable> == Set<AnyHashable>(["a", 1]))
        #expect(try roundTrip(Set(["s", "t"])) as? Set<String> == ["s", "t"], "typed Swift sets archive as NSSet")
        #expect(try roundTrip(["n": 1, "m": 2] as [String: Int]) as? [String: Int] == ["n": 1, "m": 2])
        #expect(throws: TransformableValueError.self, "NSOrderedSet is not among the default allowed classes") {
            try secure.archivedData(of: NSOrderedSet(array: ["x"]))
        }
        let keyed = try #require(ValueTransformer(forName: .keyedUnarchiveFromDataTransformerName) as? NSSecureUnarchiveFromDataTransformer)
        let ordered = try keyed.unarchivedValue(from: try keyed.archivedData(of: NSOrderedSet(array: ["x", "y"])))
        #expect((ordered as? NSOrderedSet)?.array as? [String] == ["x", "y"])
        let nested = try #require(try roundTrip(["list": [1, "two", 3.5, false, NSNull()], "map": ["k": date], "empty": [Any]()]) as? [String: Any])
        let list = try #require(nested["list"] as? [Any])
        #expect(list.count == 5 && list[0] as? Int == 1 && list[1] as? String == "two" && list[2] as? Double == 3.5)
        #expect(list[3] as? Bool == false && list[4] is NSNull)
        #expect((nested["map"] as? [String: Any])?["k"] as? Date == date)
        #expect((nested["empty"] as? [Any])?.isEmpty == true)
        let numericKeys = try #require(try roundTrip([1: "one", 2: "two"] as [AnyHashable: Any]) as? [AnyHashable: Any])
        #expect(numericKeys[1] as? String == "one" && numericKeys[2] as? String == "two")
    }

    @Test func ourArchivesAreReadByFoundationsUnarchiver() throws {
        let data = try secure.archivedData(of: ["name": "x", "items": [1, 2], "when": Date(timeIntervalSinceReferenceDate: 5)] as [String: Any])
        let object = try NSKeyedUnarchiver.unarchivedObject(
            ofClasses: [NSDictionary.self, NSArray.self, NSString.self, NSNumber.self, NSDate.self], from: data)
        let dictionary = try #require(object as? [String: Any])
        #expect(dictionary["name"] as? String == "x")
        #expect((dictionary["items"] as? [Any])?.compactMap { ($0 as? NSNumber)?.intValue } == [1, 2])
        #expect(dictionary["when"] as? Date == Date(timeIntervalSinceReferenceDate: 5))
    }

    @Test func classesOutsideAllowedTopLevelClassesAreRefused() throws {
        let narrow = StringListTransformer()
        #expect(try narrow.unarchivedValue(from: try narrow.archivedData(of: ["a", "b"])) as? [String] == ["a", "b"])
        let dictionaryArchive = try secure.archivedData(of: ["k": "v"])
        let refusal = #expect(throws: TransformableValueError.self) { try narrow.unarchivedValue(from: dictionaryArchive) }
        #expect(refusal?.description.contains("NSDictionary") == true)
        #expect(refusal?.description.contains("not among the allowed classes") == true)
        #expect(narrow.transformedValue(dictionaryArchive) == nil, "transformedValue returns nil, as Apple's does")
        #expect(throws: TransformableValueError.self) { try narrow.archivedData(of: [Date()]) }
        #expect(narrow.reverseTransformedValue([Date()]) == nil)

        // A class Linux can't instantiate: refused by the secure transformer (not allowed), and
        // reported as not decodable by the keyed one.
        let color = Data(String(decoding: Self.handWrittenArchive, as: UTF8.self)
            .replacingOccurrences(of: "<string>NSNull</string><key>$classes</key><array><string>NSNull</string>",
                                  with: "<string>UIColor</string><key>$classes</key><array><string>UIColor</string>").utf8)
        let secureError = #expect(throws: TransformableValueError.self) { try secure.unarchivedValue(from: color) }
        #expect(secureError?.description.contains("UIColor") == true)
        let keyed = try #require(ValueTransformer(forName: .keyedUnarchiveFromDataTransformerName) as? NSSecureUnarchiveFromDataTransformer)
        let keyedError = #expect(throws: TransformableValueError.self) { try keyed.unarchivedValue(from: color) }
        #expect(keyedError?.description.contains("can't be unarchived on this platform") == true)
    }

    @Test func badArchivesAreErrorsNotCrashes() throws {
        #expect(throws: TransformableValueError.self) { try secure.unarchivedValue(from: Data("not an archive".utf8)) }
        #expect(throws: TransformableValueError.self) { try secure.unarchivedValue(from: Data()) }
        #expect(throws: TransformableValueError.self) { try secure.unarchivedValue(from: Self.appleDictionary.prefix(100)) }
        // An array that contains itself.
        let cycle = Data("""
            <plist version="1.0"><dict><key>$archiver</key><string>NSKeyedArchiver</string>
            <key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>
            <key>$objects</key><array><string>$null</string>
            <dict><key>NS.objects</key><array><dict><key>CF$UID</key><integer>1</integer></dict></array><key>$class</key><dict><key>CF$UID</key><integer>2</integer></dict></dict>
            <dict><key>$classname</key><string>NSArray</string><key>$classes</key><array><string>NSArray</string></array></dict>
            </array></dict></plist>
            """.utf8)
        let error = #expect(throws: TransformableValueError.self) { try secure.unarchivedValue(from: cycle) }
        #expect(error?.description.contains("deeper") == true)
        // 40 arrays, each holding the next one twice: 2^40 objects once shared ones are
        // expanded. Unarchiving stops at its budget instead of hanging.
        func uid(_ n: Int) -> String { "<dict><key>CF$UID</key><integer>\(n)</integer></dict>" }
        let arrays = (1...40).map { n in
            "<dict><key>NS.objects</key><array>\(uid(n + 1))\(uid(n + 1))</array><key>$class</key>\(uid(42))</dict>"
        }.joined()
        let bomb = Data("""
            <plist version="1.0"><dict><key>$archiver</key><string>NSKeyedArchiver</string>
            <key>$top</key><dict><key>root</key>\(uid(1))</dict>
            <key>$objects</key><array><string>$null</string>\(arrays)<string>leaf</string>
            <dict><key>$classname</key><string>NSArray</string><key>$classes</key><array><string>NSArray</string></array></dict>
            </array></dict></plist>
            """.utf8)
        let bombError = #expect(throws: TransformableValueError.self) { try secure.unarchivedValue(from: bomb) }
        #expect(bombError?.description.contains("too many objects") == true)
        var deep: Any = "leaf"
        for _ in 0..<300 { deep = [deep] }
        #expect(throws: TransformableValueError.self, "deeper than the documented limit") { try secure.archivedData(of: deep) }
        var nested: Any = "leaf"
        for _ in 0..<200 { nested = [nested] }
        #expect(try secure.unarchivedValue(from: try secure.archivedData(of: nested)) is [Any], "200 levels are fine")
        #expect(throws: TransformableValueError.self) { try secure.archivedData(of: Decimal(1)) }
        #expect(throws: TransformableValueError.self) { try secure.archivedData(of: NSObject()) }
    }
}
