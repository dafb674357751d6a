import Testing
import CoreData

@Test func shimExposesNSPredicate() {
    #expect(NSPredicate(value: true).predicateFormat.isEmpty == false)
    let build: () -> NSPredicate = { NSPredicate(format: "age > %d", 3) }
    _ = build
    #expect(throws: PredicateParseError.self) { try NSPredicate(validatingFormat: "age >") }
}
