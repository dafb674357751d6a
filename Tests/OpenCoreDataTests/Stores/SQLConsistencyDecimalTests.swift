import Testing
@testable import OpenCoreData

/// Decimal columns hold REAL, or the exact text in a blob when REAL would lose digits
/// (``SQLConsistencyFixture/preciseDecimal``): sorts, `min:`/`max:` and `@min`/`@max` order
/// them by value, as the in-memory store does, not by SQLite storage class (numbers before blobs).
@Suite struct SQLConsistencyDecimalTests {
    @Test func sortsByDecimalValue() throws {
        let fixture = try SQLConsistencyFixture()
        for ascending in [true, false] {
            let request = fixture.request("Item", nil, sort: [NSSortDescriptor(key: "amount", ascending: ascending)])
            #expect(fixture.check(request) == .agreed, "ascending: \(ascending)")
        }
        let byParentAmount = fixture.request("Item", nil, sort: [NSSortDescriptor(key: "parent.amount", ascending: false)])
        #expect(fixture.check(byParentAmount) == .agreed)
    }

    @Test func extremesAreTheExactDecimals() throws {
        let fixture = try SQLConsistencyFixture()
        let request = fixture.request("Item", NSPredicate(format: "amount > 8"))
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["min:", "max:"].map { SQLConsistencyFixture.aggregate($0 + "amount", $0, "amount") }
        try fixture.expectSameDictionaries(request)
        let memory = try fixture.memoryDictionaries(request)
        #expect(memory.first?["max:amount"] as? Decimal == 100)
        #expect(memory.first?["min:amount"] as? Decimal == Decimal(string: "12.25"))

        request.predicate = NSPredicate(format: "amount < 50")
        let low = try fixture.memoryDictionaries(request)
        #expect(low.first?["max:amount"] as? Decimal == SQLConsistencyFixture.preciseDecimal)
        #expect(try fixture.sqlDictionaries(request).first?["max:amount"] as? Decimal == SQLConsistencyFixture.preciseDecimal)
        #expect(try fixture.sqliteStoreDictionaries(request).first?["max:amount"] as? Decimal == SQLConsistencyFixture.preciseDecimal)

        for format in ["items.@max.amount > 50", "items.@max.amount == %@", "items.@min.amount < 13", "items.@max.amount > 12.3456789"] {
            let predicate = NSPredicate(format: format, argumentArray: [SQLConsistencyFixture.preciseDecimal])
            #expect(fixture.check(fixture.request("Item", predicate)) == .agreed, "\(format)")
        }
    }
}
