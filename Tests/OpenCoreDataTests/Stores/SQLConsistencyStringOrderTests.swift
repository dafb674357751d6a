import Foundation
import Testing
@testable import OpenCoreData

/// Strings the in-memory evaluator and SQLite's BINARY order would disagree on — precomposed
/// and decomposed accents (canonically equivalent), case, `ß`, a supplementary-plane letter
/// against a BMP one above the surrogates (UTF-8 and UTF-16 order them differently), numbers
/// in names — sorted with every selector, grouped, made distinct, and taken the minimum and
/// maximum of, in the in-memory store, the compiled SQL and the SQLite store alike.
@Suite struct SQLConsistencyStringOrderTests {
    static let precomposed = "\u{C9}clair", decomposed = "E\u{301}clair"

    /// Tags `x0`… with these names, some tagging items (for `@min`/`@max` over a to-many).
    static let tags: [(name: String?, item: String?)] = [
        (precomposed, nil), (decomposed, "empty"), ("\u{E9}clair", "cafe"), ("eclair", nil), ("Zebra", nil), ("zebra", "empty"),
        ("stra\u{DF}e", nil), ("strasse", nil), ("\u{1D400}", "none"), ("\u{FF21}", "none"), ("a10", "cafe"), ("a9", "cafe"),
        ("\u{DC}n\u{EF}c\u{F6}d\u{E9}", nil), (nil, nil), ("", nil), ("e\u{301}clair", nil),
    ]

    static func fixture() throws -> SQLConsistencyFixture { try SQLConsistencyFixture(extraTags: tags) }

    @Test(arguments: ["compare:", "caseInsensitiveCompare:", "localizedCompare:", "localizedCaseInsensitiveCompare:", "localizedStandardCompare:"])
    func sortsWithEverySelectorAgree(selector: String) throws {
        let fixture = try Self.fixture()
        for ascending in [true, false] {
            let request = fixture.request("Tag", nil, sort: [NSSortDescriptor(key: "name", ascending: ascending, selector: Selector(selector))])
            #expect(fixture.check(request) == .agreed, "\(selector) ascending: \(ascending)")
        }
        // A to-many aggregate of strings as a sort key.
        let byLargestTag = fixture.request("Item", nil, sort: [NSSortDescriptor(key: "tags.@max.name", ascending: true, selector: Selector(selector))])
        #expect(fixture.check(byLargestTag) == .agreed, "tags.@max.name \(selector)")
    }

    @Test func comparisonsAgree() throws {
        let fixture = try Self.fixture()
        for format in ["name == '\(Self.precomposed)'", "name == '\(Self.decomposed)'", "name < 'b'", "name > '\u{FF21}'",
                       "name BETWEEN {'E', 'f'}", "name ==[cd] 'eclair'", "name IN {'strasse', '\(Self.decomposed)'}"] {
            #expect(fixture.check(fixture.request("Tag", NSPredicate(format: format))) == .agreed, "\(format)")
        }
        for format in ["tags.@min.name == 'a10'", "tags.@max.name == '\u{1D400}'", "tags.@max.name == 'zebra'",
                       "tags.@min.name == '\(Self.precomposed)'", "tags.@max.name > 'swift'", "tags.@min.name == nil",
                       "ANY tags.name == '\(Self.precomposed)'", "SUBQUERY(tags, $t, $t.name < 'b').@count > 0"] {
            #expect(fixture.check(fixture.request("Item", NSPredicate(format: format))) == .agreed, "\(format)")
        }
    }

    private func aggregate(_ name: String, _ function: String, _ keyPath: String) -> NSExpressionDescription {
        SQLConsistencyFixture.aggregate(name, function, keyPath)
    }

    private func expectSame(_ fixture: SQLConsistencyFixture, _ request: NSFetchRequest<NSFetchRequestResult>,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        try fixture.expectSameDictionaries(request, sourceLocation: sourceLocation)
    }

    @Test func groupingAndDistinctUseTheEvaluatorsEquality() throws {
        let fixture = try Self.fixture()
        let grouped = fixture.request("Tag", nil, sort: [NSSortDescriptor(key: "name", ascending: true)])
        grouped.propertiesToFetch = ["name", aggregate("n", "count:", "name")]
        grouped.propertiesToGroupBy = ["name"]
        try expectSame(fixture, grouped)
        let memory = try fixture.memoryDictionaries(grouped)
        let eclair = memory.first { ValueComparison.isEqual($0["name"], Self.precomposed, options: []) }
        #expect(ValueComparison.isEqual(eclair?["n"], 2, options: []), "precomposed and decomposed É form one group: \(memory)")

        let distinct = fixture.request("Tag", nil, sort: [NSSortDescriptor(key: "name", ascending: false, selector: Selector("localizedStandardCompare:"))])
        distinct.propertiesToFetch = ["name"]
        distinct.returnsDistinctResults = true
        try expectSame(fixture, distinct)

        let having = fixture.request("Tag", nil)
        having.propertiesToFetch = ["name", aggregate("n", "count:", "name")]
        having.propertiesToGroupBy = ["name"]
        having.havingPredicate = NSPredicate(format: "n > 1")
        try expectSame(fixture, having)
    }

    @Test func minimumAndMaximumOfStringsAgree() throws {
        let fixture = try Self.fixture()
        let overall = fixture.request("Tag", nil)
        overall.propertiesToFetch = [aggregate("low", "min:", "name"), aggregate("high", "max:", "name")]
        try expectSame(fixture, overall)
        let high = try fixture.memoryDictionaries(overall).first?["high"] as? String
        #expect(high == "\u{1D400}", "the evaluator orders by Unicode scalars, not UTF-16")

        let perStatus = fixture.request("Item", nil, sort: [NSSortDescriptor(key: "status", ascending: true)])
        perStatus.propertiesToFetch = ["status", aggregate("first", "min:", "name"), aggregate("last", "max:", "lastName"),
                                       aggregate("site", "max:", "website")]
        perStatus.propertiesToGroupBy = ["status"]
        try expectSame(fixture, perStatus)
    }

    @Test func untranslatableSortSelectorsAreRefusedByName() throws {
        let fixture = try Self.fixture()
        // (NSSortDescriptor itself rejects selectors other than the five string comparisons.)
        // URLs order only by `compare:` (their absolute strings); the in-memory store traps on
        // a string selector, as Apple raises, and the compiler refuses.
        let url = fixture.request("Item", nil, sort: [NSSortDescriptor(key: "website", ascending: true, selector: Selector("caseInsensitiveCompare:"))])
        let urlError = try #require(throws: SQLCompileError.self) { try fixture.sqlKeys(url) }
        #expect(urlError.description.contains("caseInsensitiveCompare:"), "\(urlError)")
        let byURL = fixture.request("Item", nil, sort: [NSSortDescriptor(key: "website", ascending: false)])
        #expect(fixture.check(byURL) == .agreed)
    }
}
