import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Stores hand-built the way Apple names things differently from our generator: the store's
/// own `Z_PRIMARYKEY` and `sqlite_master` decide, and a store the model does not fit is refused
/// (134100), never read as empty.
@Suite struct SQLiteAppleStoreShapesTests {
    typealias S = SQLiteNamingSupport

    /// The numbering model's store, renumbered in byte order (SyncFeatureEntity 1, Zeta 2,
    /// alpha 3, SyncableSettingsMetadata 4), as a store numbered by another rule would be.
    @Test func theStoresNumberingIsUsed() throws {
        let (directory, url) = try S.newStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = S.numberingModel()
        var context = try S.open(model, url)
        _ = S.insert("SyncableSettingsMetadata", ["key": "k1"], into: context)
        _ = S.insert("SyncableSettingsMetadata", ["key": "k2"], into: context)
        _ = S.insert("SyncFeatureEntity", ["name": "f"], into: context)
        _ = S.insert("alpha", ["name": "a1", "a": "A"], into: context)
        _ = S.insert("Zeta", ["name": "z1", "z": "Z"], into: context)
        try context.save()
        context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        try S.execute(url, """
            UPDATE Z_PRIMARYKEY SET Z_ENT = Z_ENT + 100;
            UPDATE Z_PRIMARYKEY SET Z_ENT = CASE Z_NAME WHEN 'SyncFeatureEntity' THEN 1 WHEN 'Zeta' THEN 2 WHEN 'alpha' THEN 3 ELSE 4 END;
            UPDATE Z_PRIMARYKEY SET Z_SUPER = CASE Z_NAME WHEN 'Zeta' THEN 1 WHEN 'alpha' THEN 1 ELSE 0 END;
            UPDATE ZSYNCFEATUREENTITY SET Z_ENT = CASE Z_ENT WHEN 2 THEN 1 WHEN 3 THEN 3 WHEN 4 THEN 2 END;
            UPDATE ZSYNCABLESETTINGSMETADATA SET Z_ENT = 4;
            """)
        context = try S.open(model, url)
        #expect(try S.objects("SyncableSettingsMetadata", by: "key", in: context).keys.sorted() == ["k1", "k2"])
        let features = try S.objects("SyncFeatureEntity", by: "name", in: context)
        #expect(features.keys.sorted() == ["a1", "f", "z1"])
        #expect(features["z1"]?.entity.name == "Zeta" && features["z1"]?.value(forKey: "z") as? String == "Z")
        #expect(features["a1"]?.entity.name == "alpha" && features["a1"]?.value(forKey: "a") as? String == "A")
        let onlyZeta = NSFetchRequest<NSManagedObject>(entityName: "Zeta")
        #expect(try context.fetch(onlyZeta).compactMap { $0.value(forKey: "name") as? String } == ["z1"])
        // New rows get the store's numbers.
        _ = S.insert("Zeta", ["name": "z2"], into: context)
        try context.save()
        try SQLiteStoreTests.inspect(url) { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT Z_ENT FROM ZSYNCFEATUREENTITY WHERE ZNAME = 'z2'") == 2)
        }
    }

    @Test func aSelfReferencingJoinTableNamedAfterTheOtherSide() throws {
        let (directory, url) = try S.newStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = S.selfReferencingModel()
        var context = try S.open(model, url)
        let ada = S.insert("Person", ["name": "Ada"], into: context)
        let bob = S.insert("Person", ["name": "Bob"], into: context)
        ada.setValue(Set([bob]), forKey: "friends")
        try context.save()
        context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        // Apple's other choice: the table named after `friends`, its owner's inverse first.
        try S.execute(url, """
            CREATE TABLE Z_1FRIENDS ( Z_1FRIENDOF INTEGER, Z_1FRIENDS INTEGER, PRIMARY KEY (Z_1FRIENDOF, Z_1FRIENDS) );
            INSERT INTO Z_1FRIENDS (Z_1FRIENDOF, Z_1FRIENDS) SELECT Z_1FRIENDOF, Z_1FRIENDS FROM Z_1FRIENDOF;
            DROP TABLE Z_1FRIENDOF;
            """)
        context = try S.open(model, url)
        var people = try S.objects("Person", by: "name", in: context)
        #expect(S.names(people["Ada"], "friends") == ["Bob"])
        #expect(S.names(people["Bob"], "friendOf") == ["Ada"])
        #expect(S.names(people["Bob"], "friends") == [])
        // Writes go to the store's table.
        let cy = S.insert("Person", ["name": "Cy"], into: context)
        cy.setValue(Set([people["Ada"]!]), forKey: "friends")
        try context.save()
        context = try S.open(model, url)
        people = try S.objects("Person", by: "name", in: context)
        #expect(S.names(people["Ada"], "friendOf") == ["Cy"])
        #expect(S.names(people["Cy"], "friends") == ["Ada"])
        try SQLiteStoreTests.inspect(url) { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Z_1FRIENDS") == 2)
        }
    }

    @Test func joinColumnCountersFromTheStore() throws {
        let (directory, url) = try S.newStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = S.twoManyToManyModel()
        try SQLiteAppleNamingTests.fillGroupsAndTeams(model, url)
        // Apple's order of work gave the counter to the other table.
        try S.execute(url, """
            ALTER TABLE Z_1USERS RENAME COLUMN Z_3USERS TO Z_3USERSX;
            ALTER TABLE Z_2USERS RENAME COLUMN Z_3USERS1 TO Z_3USERS;
            ALTER TABLE Z_1USERS RENAME COLUMN Z_3USERSX TO Z_3USERS1;
            """)
        try SQLiteAppleNamingTests.expectGroupsAndTeams(model, url)
    }

    /// The error of opening `url` with `model`, or `nil` when it opens.
    static func openingError(_ model: NSManagedObjectModel, _ url: URL, options: [AnyHashable: Any]? = nil) -> NSError? {
        do {
            _ = try S.open(model, url, options: options)
            return nil
        } catch {
            return error as NSError
        }
    }

    @Test(arguments: [false, true])
    func aStoreMissingAColumnIsRefused(ignoringVersions: Bool) throws {
        let (directory, url) = try S.newStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = S.inverselessModel()
        _ = try S.open(model, url)
        try S.execute(url, "DROP INDEX ZMODIFIER_Z3MODIFIERS_INDEX; ALTER TABLE ZMODIFIER DROP COLUMN Z3MODIFIERS")
        let error = Self.openingError(model, url, options: [NSIgnorePersistentStoreVersioningOption: ignoringVersions])
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(error?.localizedDescription.contains("ZMODIFIER has no column Z3MODIFIERS") == true, "\(error?.localizedDescription ?? "")")
    }

    @Test func aStoreMissingAnEntityOrJoinTableIsRefused() throws {
        let (directory, url) = try S.newStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = S.twoManyToManyModel()
        try SQLiteAppleNamingTests.fillGroupsAndTeams(model, url)
        try S.execute(url, "DROP TABLE Z_2USERS")
        var error = Self.openingError(model, url)
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(error?.localizedDescription.contains("no join table Z_2USERS or Z_3TEAMS") == true, "\(error?.localizedDescription ?? "")")
        try S.execute(url, "DELETE FROM Z_PRIMARYKEY WHERE Z_NAME = 'Team'")
        error = Self.openingError(model, url)
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(error?.localizedDescription.contains("Z_PRIMARYKEY has no row for entity 'Team'") == true, "\(error?.localizedDescription ?? "")")
    }

    @Test func aRefusedReadOnlyOpeningLeavesNoCopy() throws {
        let name = "refused-\(UUID().uuidString).sqlite"
        let (directory, url) = try S.newStore(name)
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = S.inverselessModel()
        _ = try S.open(model, url)
        try S.execute(url, "DROP INDEX ZMODIFIER_Z3MODIFIERS_INDEX; ALTER TABLE ZMODIFIER DROP COLUMN Z3MODIFIERS")
        #expect(SQLiteStore.readingWritesFiles(url), "a WAL store is read through a private copy")
        let error = Self.openingError(model, url, options: [NSReadOnlyPersistentStoreOption: true])
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        // No private copy of this store is left in the temporary directory.
        let temporary = FileManager.default.temporaryDirectory
        let copies = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
            .filter { $0.hasPrefix("OpenCoreData-readonly-") }
            .filter { FileManager.default.fileExists(atPath: temporary.appendingPathComponent($0).appendingPathComponent(name).path) }
        #expect(copies.isEmpty, "\(copies)")
    }

    @Test(arguments: [
        ("UPDATE Z_PRIMARYKEY SET Z_MAX = 'many' WHERE Z_NAME = 'Modifier'", "Z_PRIMARYKEY.Z_MAX"),
        ("UPDATE Z_PRIMARYKEY SET Z_SUPER = 'none' WHERE Z_NAME = 'Track'", "Z_PRIMARYKEY.Z_SUPER"),
        ("UPDATE Z_PRIMARYKEY SET Z_ENT = 'one' WHERE Z_NAME = 'Recipe'", "Z_PRIMARYKEY.Z_ENT"),
        ("UPDATE Z_PRIMARYKEY SET Z_ENT = NULL WHERE Z_NAME = 'Recipe'", "Z_PRIMARYKEY.Z_ENT"),
        ("UPDATE Z_PRIMARYKEY SET Z_NAME = NULL WHERE Z_NAME = 'Recipe'", "Z_PRIMARYKEY.Z_NAME"),
    ])
    func primaryKeyValuesOfTheWrongTypeAreErrors(update: String, column: String) throws {
        let (directory, url) = try S.newStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = S.inverselessModel()
        _ = try S.open(model, url)
        // Without INTEGER PRIMARY KEY, Z_ENT can hold text or NULL.
        try S.execute(url, """
            CREATE TABLE Z_PK_COPY (Z_ENT INTEGER, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            INSERT INTO Z_PK_COPY SELECT * FROM Z_PRIMARYKEY;
            DROP TABLE Z_PRIMARYKEY;
            ALTER TABLE Z_PK_COPY RENAME TO Z_PRIMARYKEY;
            \(update);
            """)
        let error = Self.openingError(model, url)
        #expect(error?.code == NSFileReadCorruptFileError)
        #expect(error?.localizedDescription.contains(column) == true && error?.localizedDescription.contains(" row ") == true,
                "\(error?.localizedDescription ?? "")")
        #expect(throws: NSError.self) { try SQLiteStore.entityTable(at: url) }
    }
}
