import Testing
@testable import OpenCoreData

/// Every predicate of the real-world corpus prints in a form that parses back to an equal
/// predicate; printing the reparsed predicate gives the same text.
@Suite struct FormatCorpusRoundTripTests {
    /// Samples whose constants have no literal syntax: a `UUID` prints as its bare description.
    static func hasUnprintableConstant(_ sample: Sample) -> Bool {
        sample.arguments.contains { if case .uuid = $0 { return true }; return false }
    }

    @Test(arguments: RealWorldCorpus.samples.filter { !hasUnprintableConstant($0) })
    func corpusRoundTrips(_ sample: Sample) throws {
        let original = try sample.parse()
        let printed = original.predicateFormat
        let reparsed = try NSPredicate(validatingFormat: printed, argumentArray: [])
        #expect(reparsed.isEqual(original), "printed as \(printed)")
        #expect(reparsed.predicateFormat == printed)
    }

    @Test(arguments: RealWorldCorpus.samples.filter(hasUnprintableConstant))
    func uuidsPrintTheirDescription(_ sample: Sample) throws {
        let printed = try sample.parse().predicateFormat
        #expect(printed.contains("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), "printed as \(printed)")
    }

    @Test func datesRoundTrip() throws {
        let samples = RealWorldCorpus.samples.filter { $0.arguments.contains { if case .date = $0 { return true }; return false } }
        #expect(!samples.isEmpty)
        for sample in samples {
            let original = try sample.parse()
            #expect(original.predicateFormat.contains(#"CAST(600000000.000000, "NSDate")"#))
            #expect(try NSPredicate(validatingFormat: original.predicateFormat, argumentArray: []).isEqual(original))
        }
    }
}
