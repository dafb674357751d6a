import Testing
@testable import OpenCoreData

/// `FUNCTION(receiver, 'selector', …)` with NSString and NSNumber selectors and registered
/// methods, and `distanceToLocation:fromLocation:`.
@Suite struct FunctionSelectorTests {
    @Test(arguments: [
        ("FUNCTION('/tmp/scratch.tiff', 'lastPathComponent')", "scratch.tiff"),
        ("FUNCTION('/tmp/scratch.tiff', 'pathExtension')", "tiff"),
        ("FUNCTION('/tmp/scratch.tiff', 'stringByDeletingPathExtension')", "/tmp/scratch"),
        ("FUNCTION('/tmp/scratch.tiff', 'stringByDeletingLastPathComponent')", "/tmp"),
        ("FUNCTION('/tmp/', 'lastPathComponent')", "tmp"),
        ("FUNCTION('hello', 'substringFromIndex:', 2)", "llo"),
        ("FUNCTION('hello', 'substringToIndex:', 2)", "he"),
        ("FUNCTION('a-b-c', 'stringByReplacingOccurrencesOfString:withString:', '-', '+')", "a+b+c"),
        ("FUNCTION('Hello', 'lowercaseString')", "hello"),
        ("FUNCTION('Hello', 'uppercaseString')", "HELLO"),
        ("FUNCTION('hello world', 'capitalizedString')", "Hello World"),
        ("FUNCTION('héllo', 'length')", "5"),
        ("FUNCTION('42', 'intValue')", "42"),
        ("FUNCTION('42.5', 'doubleValue')", "42.5"),
        ("FUNCTION(42, 'stringValue')", "42"),
        ("FUNCTION(42.9, 'intValue')", "42"),
        ("FUNCTION(7, 'integerValue')", "7"),
        ("FUNCTION(7, 'longLongValue')", "7"),
        ("FUNCTION(2, 'doubleValue')", "2"),
        ("FUNCTION(2.5, 'floatValue')", "2.5"),
        ("FUNCTION(0, 'boolValue')", "0"),
        ("FUNCTION(12, 'description')", "12"),
    ])
    func foundationSelectors(format: String, expected: String) throws {
        let value = try Eval.value(format)
        #expect(BuiltinFunctions.describe(value) == expected, "\(format) gave \(String(describing: value))")
    }

    @Test func unknownSelectorsAndBadIndexesAreErrors() throws {
        #expect(Eval.valueError("FUNCTION('abc', 'frobnicate:', 1)") == .unknownSelector(selector: "frobnicate:", receiverType: "String"))
        #expect(Eval.valueError("FUNCTION('abc', 'substringFromIndex:', 9)") == .indexOutOfRange(index: 9, count: 3))
        #expect(Eval.valueError("FUNCTION('abc', 'substringToIndex:', 'x')") != nil)
        #expect(try Eval.value("FUNCTION(nil, 'lastPathComponent')") == nil, "a message to nil answers nil")
    }

    class Note: @unchecked Sendable {
        let title: String
        init(title: String) { self.title = title }
    }
    final class PinnedNote: Note, @unchecked Sendable {}

    @Test func registeredMethodsAnswerForTheirTypeAndSubclasses() throws {
        PredicateFunctionRegistry.register("shout:", on: Note.self) { note, arguments in
            note.title.uppercased() + String(repeating: "!", count: (arguments.first as? Int) ?? 1)
        }
        defer { PredicateFunctionRegistry.unregister("shout:", on: Note.self) }
        #expect(try Eval.test("FUNCTION(SELF, 'shout:', 2) == 'HI!!'", Note(title: "hi")))
        #expect(try Eval.test("FUNCTION(SELF, 'shout:', 1) == 'PIN!'", PinnedNote(title: "pin")))
        PredicateFunctionRegistry.register("shout:", on: PinnedNote.self) { _, _ in "pinned" }
        defer { PredicateFunctionRegistry.unregister("shout:", on: PinnedNote.self) }
        #expect(try Eval.test("FUNCTION(SELF, 'shout:', 1) == 'pinned'", PinnedNote(title: "pin")), "the latest matching registration wins")
        #expect(try Eval.test("FUNCTION(SELF, 'shout:', 1) == 'A!'", Note(title: "a")))
        #expect(Eval.error("FUNCTION(SELF, 'whisper', 1) == 'a'", Note(title: "a"))
                == .unknownSelector(selector: "whisper", receiverType: "Note"))
    }

    // MARK: Locations

    @Test func distanceBetweenLocations() throws {
        let paris = GeographicCoordinate(latitude: 48.8566, longitude: 2.3522)
        let london = GeographicCoordinate(latitude: 51.5074, longitude: -0.1278)
        let metres = try #require(try Eval.value("distanceToLocation:fromLocation:(%@, %@)", nil, paris, london) as? Double)
        #expect(abs(metres - 343_500) < 1_500, "Paris–London is about 343.5 km (got \(metres))")
        #expect(paris.distance(from: paris) == 0)
        // Anything with a latitude and a longitude: a dictionary, or a `coordinate` holding one.
        let place: [String: Any] = ["latitude": 51.5074, "longitude": -0.1278]
        #expect(try Eval.test("distanceToLocation:fromLocation:(location, %@) < 400000", ["location": paris], place))
        #expect(try Eval.test("distanceToLocation:fromLocation:(location, %@) > 400000", ["location": ["coordinate": paris]],
                              GeographicCoordinate(latitude: 40.7128, longitude: -74.006)))
        #expect(try Eval.value("distanceToLocation:fromLocation:(nil, %@)", nil, paris) == nil)
        #expect(Eval.valueError("distanceToLocation:fromLocation:('Paris', %@)", nil, paris)
                == .wrongArgumentType(function: "distanceToLocation:fromLocation:", argument: 0,
                                      expected: "a location with a latitude and a longitude", typeName: "String"))
        let predicate = try NSPredicate(validatingFormat: "distanceToLocation:fromLocation:(location, %@) < 5000", paris)
        #expect(predicate.predicateFormat.hasPrefix("distanceToLocation:fromLocation:(location, "))
    }
}
