import Testing
@testable import OpenCoreData

/// Archived predicates in compiled models are read recursively: a cyclic or absurdly deep
/// archive is refused with an error, never a stack overflow.
@Suite struct AppleArchivedPredicateDepthTests {
    private static func uid(_ index: Int) -> [String: Any] { ["CF$UID": index] }

    /// A keyed archive whose root is an AND predicate listing itself as its own subpredicate.
    private static func cyclicArchive() throws -> KeyedArchive {
        let objects: [Any] = [
            "$null",
            ["$class": uid(3), "NSCompoundPredicateType": 1, "NSSubpredicates": uid(2)] as [String: Any],
            ["$class": uid(4), "NS.objects": [uid(1)]] as [String: Any],
            ["$classname": "NSCompoundPredicate", "$classes": ["NSCompoundPredicate", "NSPredicate", "NSObject"]] as [String: Any],
            ["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]] as [String: Any],
        ]
        let plist: [String: Any] = ["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": uid(1)], "$objects": objects]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        return try KeyedArchive(data: data)
    }

    @Test func aCyclicArchivedPredicateIsRefused() throws {
        let archive = try Self.cyclicArchive()
        let reader = AppleArchivedPredicate(file: URL(fileURLWithPath: "/tmp/Model.mom"), element: "fetch request 'F'")
        let error = try #require(throws: ManagedObjectModelError.self) { try reader.predicate(try archive.topNode()) }
        #expect(error.kind == .invalidCompiledModel)
        #expect(error.message.contains("levels deep"))
        #expect(error.element == "fetch request 'F'")
    }
}
