import Foundation
import Testing
@testable import OpenCoreData

/// `NSPersistentStoreDescription` and adding a store from one.
@Suite struct PersistentStoreDescriptionTests {
    @Test func defaultsMatchApple() {
        let description = NSPersistentStoreDescription()
        #expect(description.type == NSSQLiteStoreType)
        #expect(description.url == nil)
        #expect(description.configuration == nil)
        #expect(!description.isReadOnly)
        #expect(!description.shouldAddStoreAsynchronously)
        #expect(description.shouldMigrateStoreAutomatically)
        #expect(description.shouldInferMappingModelAutomatically)
        #expect(description.sqlitePragmas.isEmpty)
        let url = URL(fileURLWithPath: "/tmp/a.sqlite")
        #expect(NSPersistentStoreDescription(url: url).url == url)
    }

    @Test func settingsLiveInOptions() {
        let description = NSPersistentStoreDescription()
        description.isReadOnly = true
        description.timeout = 5
        description.shouldMigrateStoreAutomatically = false
        description.setOption(NSString(string: "x"), forKey: "Custom")
        description.setValue(NSString(string: "WAL"), forPragmaNamed: "journal_mode")
        #expect((description.options[NSReadOnlyPersistentStoreOption] as? NSNumber)?.boolValue == true)
        #expect((description.options[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue == 5)
        #expect(description.timeout == 5)
        #expect(!description.shouldMigrateStoreAutomatically)
        #expect(description.options["Custom"] as? NSString == "x")
        #expect(description.sqlitePragmas["journal_mode"] as? NSString == "WAL")
        #expect(description.options[NSSQLitePragmasOption] != nil)
        description.setValue(nil, forPragmaNamed: "journal_mode")
        #expect(description.options[NSSQLitePragmasOption] == nil)
        description.setOption(nil, forKey: "Custom")
        #expect(description.options["Custom"] == nil)
    }

    @Test func copiesAreEqualAndIndependent() throws {
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/tmp/b.sqlite"))
        description.configuration = "Staff"
        let copy = try #require(description.copy() as? NSPersistentStoreDescription)
        #expect(copy == description)
        copy.isReadOnly = true
        #expect(copy != description)
        #expect(!description.isReadOnly)
    }

    @Test func addsAStoreFromADescription() throws {
        let fixture = CompanyFixture()
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        description.configuration = "Projects"
        description.isReadOnly = true
        var reported: (NSPersistentStoreDescription, Error?)?
        fixture.coordinator.addPersistentStore(with: description) { reported = ($0, $1) }
        #expect(reported?.0 === description)
        #expect(reported?.1 == nil)
        let store = try #require(fixture.coordinator.persistentStores.first)
        #expect(store.configurationName == "Projects")
        #expect(store.isReadOnly)

        let bad = NSPersistentStoreDescription()
        bad.type = "Nonsense"
        var error: Error?
        fixture.coordinator.addPersistentStore(with: bad) { error = $1 }
        #expect((error as NSError?)?.code == NSPersistentStoreInvalidTypeError)
    }
}
