import Testing
@testable import OpenCoreData

/// `UTI-CONFORMS-TO`, `UTI-EQUALS`, the bitwise operators, `<null>` and MATCHES's validation.
@Suite struct OperatorExtensionTests {
    // MARK: UTI

    @Test(arguments: [
        ("SELF UTI-CONFORMS-TO 'public.image'", "public.jpeg", true),
        ("SELF UTI-CONFORMS-TO 'public.image'", "public.png", true),
        ("SELF UTI-CONFORMS-TO 'public.image'", "com.compuserve.gif", true),
        ("SELF UTI-CONFORMS-TO 'public.image'", "public.heic", true),
        ("SELF UTI-CONFORMS-TO 'public.image'", "public.mpeg-4", false),
        ("SELF UTI-CONFORMS-TO 'public.data'", "public.utf8-plain-text", true),
        ("SELF UTI-CONFORMS-TO 'public.content'", "com.adobe.pdf", true),
        ("SELF UTI-CONFORMS-TO 'public.text'", "com.adobe.pdf", false),
        ("SELF UTI-CONFORMS-TO 'public.audio'", "public.mpeg-4-audio", true),
        ("SELF UTI-CONFORMS-TO 'public.movie'", "public.mpeg-4-audio", true),
        ("SELF UTI-CONFORMS-TO 'public.audio'", "public.mp3", true),
        ("SELF UTI-CONFORMS-TO 'public.item'", "public.jpeg", true),
        ("SELF UTI-CONFORMS-TO 'public.jpeg'", "public.image", false),
        ("SELF UTI-CONFORMS-TO 'com.example.doc'", "com.example.doc", true),
        ("SELF uti-conforms-to 'PUBLIC.IMAGE'", "public.JPEG", true),
        ("SELF NOT UTI-CONFORMS-TO 'public.image'", "public.png", false),
        ("SELF UTI-EQUALS 'public.png'", "public.png", true),
        ("SELF UTI-EQUALS 'public.image'", "public.png", false),
    ])
    func typeIdentifiers(format: String, type: String, expected: Bool) throws {
        #expect(try Eval.test(format, type) == expected)
    }

    @Test func typeIdentifierOperatorsPrintAsAppleAndRoundTrip() throws {
        let conforms = try NSPredicate(validatingFormat: "SELF UTI-CONFORMS-TO %@", "public.image")
        #expect(conforms.predicateFormat == #"SELF UTI-CONFORMS-TO "public.image""#)
        #expect((conforms as? NSComparisonPredicate)?.predicateOperatorType == .utiConformsTo)
        #expect(try NSPredicate(validatingFormat: conforms.predicateFormat) == conforms)
        let equals = try NSPredicate(validatingFormat: "type UTI-EQUALS 'public.png'")
        #expect(equals.predicateFormat == #"type UTI-EQUALS "public.png""#)
        #expect(try NSPredicate(validatingFormat: equals.predicateFormat) == equals)
        #expect(try !Eval.test("SELF UTI-CONFORMS-TO 'public.image'", 3), "not a string: false")
        // Spaces split the operator: it is then `UTI - CONFORMS …`, not an operator.
        #expect(parseError("SELF UTI - CONFORMS - TO 'public.image'") != nil)
    }

    // MARK: Bitwise

    @Test(arguments: [
        ("flags & 4 == 4", true), ("(flags & 4) != 0", true), ("flags & 8 == 0", true), ("flags & %d == 0", false),
        ("flags | 8 == 14", true), ("flags ^ 2 == 4", true), ("~flags == -7", true), ("flags << 2 == 24", true),
        ("flags >> 1 == 3", true), ("flags >> 1 & 1 == 1", true), ("1 | 2 & 4 == 1", true), ("flags ^ 6 | 1 == 1", true),
        ("flags & 2 + 2 == 4", true), ("bitwiseAnd:with:(flags, 2) == 2", true), ("flags & nil == nil", true),
    ])
    func bitwiseOperators(format: String, expected: Bool) throws {
        #expect(try Eval.test(format, ["flags": 6], 4) == expected)
    }

    @Test func bitwiseOperatorsBuildApplesFunctionsAndRoundTrip() throws {
        let predicate = try NSPredicate(validatingFormat: "%K & %d == 0 AND (flags | 1) << 2 != ~mask ^ 3 >> 1", "flags", 4)
        #expect(predicate.predicateFormat
            == "bitwiseAnd:with:(flags, 4) == 0 AND leftshift:by:(bitwiseOr:with:(flags, 1), 2) != bitwiseXor:with:(onesComplement:(mask), rightshift:by:(3, 1))")
        #expect(try NSPredicate(validatingFormat: predicate.predicateFormat) == predicate)
        #expect(try NSPredicate(validatingFormat: "a == 1 && b == 2 || c == 3") == NSPredicate(format: "a == 1 AND b == 2 OR c == 3"), "&& and || stay logical")
        #expect(Eval.error("flags & 1.5 == 0", ["flags": 6]) != nil, "a non-integer operand is an error")
    }

    // MARK: <null>

    @Test func nullConstantPrintsAsAppleAndParsesBack() throws {
        let predicate = try NSPredicate(validatingFormat: "name == %@", NSNull())
        #expect(predicate.predicateFormat == "name == <null>")
        let reparsed = try NSPredicate(validatingFormat: predicate.predicateFormat)
        #expect(reparsed == predicate)
        #expect(try reparsed.evaluateThrowing(with: ["name": NSNull()]))
        #expect(try NSPredicate(validatingFormat: "name IN %@", [1, NSNull()]).predicateFormat == "name IN {1, <null>}")
    }

    // MARK: MATCHES

    @Test func invalidPatternsAreErrorsNamingThePattern() {
        for pattern in ["a)|(b", "(", "[a-", "a{2,1}", "*"] {
            let error = Eval.error("'abc' MATCHES %@", nil, pattern)
            guard case .invalidRegularExpression(let named, _)? = error else {
                Issue.record("\(pattern): expected an invalid-pattern error, got \(String(describing: error))")
                continue
            }
            #expect(named == pattern)
            #expect(error?.description.contains("'\(pattern)'") == true)
        }
    }

    @Test(arguments: [
        ("'abc' MATCHES 'a|abc'", true), ("'abc' MATCHES 'ab'", false), ("'abc' MATCHES 'b'", false),
        ("'abc' MATCHES '(a)(b)(c)'", true), ("'a)|(b' MATCHES '\\\\Qa)|(b'", true), ("'a)|(bx' MATCHES '\\\\Qa)|(b'", false),
        ("'abc' MATCHES '\\\\Qab\\\\Ec'", true), ("'' MATCHES ''", true), ("'x' MATCHES ''", false),
        ("'ab\nc' MATCHES 'ab.c'", false), ("'abc' MATCHES '(?i)ABC'", true),
    ])
    func matchesCoversTheWholeString(format: String, expected: Bool) throws {
        #expect(try Eval.test(format) == expected)
    }
}
