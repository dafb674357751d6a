import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Apple's SQLite names for the shapes the model alone does not predict: generated exactly when
/// we create a store, read back exactly through a fresh coordinator.
@Suite struct SQLiteAppleNamingTests {
    typealias S = SQLiteNamingSupport

    static func ddl(_ model: NSManagedObjectModel) -> [String] {
        SQLiteSchema(model: model).createStatements(dialect: SQLiteDialect())
    }

    @Test func entitiesAreNumberedCaseInsensitively() throws {
        let schema = SQLiteSchema(model: S.numberingModel())
        #expect(schema.entities.map(\.name) == ["SyncableSettingsMetadata", "SyncFeatureEntity", "alpha", "Zeta"])
        #expect(schema.entities.map(\.superNumber) == [0, 0, 2, 2])
        // Within a group, columns follow Z_ENT order: alpha's before Zeta's.
        #expect(Self.ddl(S.numberingModel()).contains(
            "CREATE TABLE ZSYNCFEATUREENTITY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZA VARCHAR, ZZ VARCHAR )"))
        // Names equal but for case fall back to byte order.
        #expect(SQLiteSchema.byName(S.entity("Item"), S.entity("item")))
        #expect(!SQLiteSchema.byName(S.entity("item"), S.entity("Item")))
    }

    @Test func numberedStoreReadsBack() throws {
        let (directory, url) = try S.newStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = S.numberingModel()
        let context = try S.open(model, url)
        _ = S.insert("SyncableSettingsMetadata", ["key": "k1"], into: context)
        _ = S.insert("SyncFeatureEntity", ["name": "f"], into: context)
        _ = S.insert("alpha", ["name": "a1", "a": "A"], into: context)
        _ = S.insert("Zeta", ["name": "z1", "z": "Z"], into: context)
        try context.save()
        try SQLiteStoreTests.inspect(url) { (db: Database) throws in
            let rows = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
            #expect(rows.map { "\($0[0] as Int) \($0[1] as String) \($0[2] as Int)" }
                    == ["1 SyncableSettingsMetadata 0", "2 SyncFeatureEntity 0", "3 alpha 2", "4 Zeta 2"])
            #expect(try Int.fetchOne(db, sql: "SELECT Z_ENT FROM ZSYNCFEATUREENTITY WHERE ZNAME = 'z1'") == 4)
        }
        let fresh = try S.open(model, url)
        #expect(try S.objects("SyncableSettingsMetadata", by: "key", in: fresh).keys.sorted() == ["k1"])
        let features = try S.objects("SyncFeatureEntity", by: "name", in: fresh)
        #expect(features.keys.sorted() == ["a1", "f", "z1"])
        #expect(features["a1"]?.entity.name == "alpha" && features["a1"]?.value(forKey: "a") as? String == "A")
        #expect(features["z1"]?.entity.name == "Zeta" && features["z1"]?.value(forKey: "z") as? String == "Z")
    }

    @Test func selfReferencingManyToMany() throws {
        let model = S.selfReferencingModel()
        // Person (1): the side with the lower name owns the table.
        #expect(Self.ddl(model).contains("CREATE TABLE Z_1FRIENDOF ( Z_1FRIENDS INTEGER, Z_1FRIENDOF INTEGER, PRIMARY KEY (Z_1FRIENDS, Z_1FRIENDOF) )"))
        #expect(Self.ddl(model).contains("CREATE INDEX Z_1FRIENDOF_Z_1FRIENDOF_INDEX ON Z_1FRIENDOF (Z_1FRIENDOF, Z_1FRIENDS)"))
        let (directory, url) = try S.newStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = try S.open(model, url)
        let ada = S.insert("Person", ["name": "Ada"], into: context)
        let bob = S.insert("Person", ["name": "Bob"], into: context)
        let cy = S.insert("Person", ["name": "Cy"], into: context)
        ada.setValue(Set([bob, cy]), forKey: "friends")
        cy.setValue(Set([bob]), forKey: "friends")
        try context.save()
        let fresh = try S.open(model, url)
        let people = try S.objects("Person", by: "name", in: fresh)
        #expect(S.names(people["Ada"], "friends") == ["Bob", "Cy"])
        #expect(S.names(people["Cy"], "friends") == ["Bob"])
        #expect(S.names(people["Bob"], "friendOf") == ["Ada", "Cy"])
        #expect(S.names(people["Ada"], "friendOf") == [])
    }

    @Test func twoManyToManyIntoOneEntityGetACounter() throws {
        let model = S.twoManyToManyModel()
        let ddl = Self.ddl(model)
        #expect(ddl.contains("CREATE TABLE Z_1USERS ( Z_1GROUPS INTEGER, Z_3USERS INTEGER, PRIMARY KEY (Z_1GROUPS, Z_3USERS) )"))
        #expect(ddl.contains("CREATE TABLE Z_2USERS ( Z_2TEAMS INTEGER, Z_3USERS1 INTEGER, PRIMARY KEY (Z_2TEAMS, Z_3USERS1) )"))
        let (directory, url) = try S.newStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.fillGroupsAndTeams(model, url)
        try Self.expectGroupsAndTeams(model, url)
    }

    static func fillGroupsAndTeams(_ model: NSManagedObjectModel, _ url: URL) throws {
        let context = try S.open(model, url)
        let users = ["u1", "u2", "u3"].map { S.insert("User", ["name": $0], into: context) }
        S.insert("Group", ["name": "g"], into: context).setValue(Set([users[0], users[1]]), forKey: "users")
        S.insert("Team", ["name": "t"], into: context).setValue(Set([users[1], users[2]]), forKey: "users")
        try context.save()
    }

    static func expectGroupsAndTeams(_ model: NSManagedObjectModel, _ url: URL) throws {
        let context = try S.open(model, url)
        #expect(S.names(try S.objects("Group", by: "name", in: context)["g"], "users") == ["u1", "u2"])
        #expect(S.names(try S.objects("Team", by: "name", in: context)["t"], "users") == ["u2", "u3"])
        let users = try S.objects("User", by: "name", in: context)
        #expect(S.names(users["u2"], "groups") == ["g"] && S.names(users["u2"], "teams") == ["t"])
        #expect(S.names(users["u1"], "teams") == [] && S.names(users["u3"], "groups") == [])
    }

    @Test func toManyWithoutInverseIsAKeyInTheDestinationTable() throws {
        let model = S.inverselessModel()
        let ddl = Self.ddl(model)
        // Modifier 1, Playlist 2, Recipe 3, Track 4.
        #expect(ddl.contains("CREATE TABLE ZMODIFIER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, Z3MODIFIERS INTEGER, ZNAME VARCHAR )"))
        #expect(ddl.contains("CREATE TABLE ZTRACK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, Z2TRACKS INTEGER, Z_FOK_2TRACKS INTEGER, ZTITLE VARCHAR )"))
        #expect(ddl.contains("CREATE INDEX ZMODIFIER_Z3MODIFIERS_INDEX ON ZMODIFIER (Z3MODIFIERS)"))
        #expect(!ddl.contains { $0.hasPrefix("CREATE TABLE Z_") && !$0.hasPrefix("CREATE TABLE Z_PRIMARYKEY") && !$0.hasPrefix("CREATE TABLE Z_METADATA") && !$0.hasPrefix("CREATE TABLE Z_MODELCACHE") },
                "no join table")

        let (directory, url) = try S.newStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        var context = try S.open(model, url)
        let salt = S.insert("Modifier", ["name": "salt"], into: context)
        let pepper = S.insert("Modifier", ["name": "pepper"], into: context)
        _ = S.insert("Modifier", ["name": "sugar"], into: context)
        S.insert("Recipe", ["name": "soup"], into: context).setValue(Set([salt, pepper]), forKey: "modifiers")
        let tracks = ["t1", "t2", "t3"].map { S.insert("Track", ["title": $0], into: context) }
        S.insert("Playlist", ["name": "mix"], into: context).setValue(NSOrderedSet(array: [tracks[2], tracks[0], tracks[1]]), forKey: "tracks")
        try context.save()
        try SQLiteStoreTests.inspect(url) { (db: Database) throws in
            #expect(try String.fetchAll(db, sql: "SELECT ZNAME FROM ZMODIFIER WHERE Z3MODIFIERS IS NOT NULL ORDER BY ZNAME") == ["pepper", "salt"])
            #expect(try String.fetchAll(db, sql: "SELECT ZTITLE FROM ZTRACK ORDER BY Z_FOK_2TRACKS") == ["t3", "t1", "t2"])
        }

        context = try S.open(model, url)
        var soup = try S.objects("Recipe", by: "name", in: context)["soup"]
        #expect(S.names(soup, "modifiers") == ["pepper", "salt"])
        var mix = try S.objects("Playlist", by: "name", in: context)["mix"]
        #expect(((mix?.value(forKey: "tracks") as? NSOrderedSet)?.array as? [NSManagedObject])?.compactMap { $0.value(forKey: "title") as? String } == ["t3", "t1", "t2"])
        // Compiled predicates and prefetching go through the same key.
        let request = NSFetchRequest<NSManagedObject>(entityName: "Recipe")
        request.predicate = NSPredicate(format: "ANY modifiers.name == %@", "pepper")
        request.relationshipKeyPathsForPrefetching = ["modifiers"]
        #expect(try context.fetch(request).compactMap { $0.value(forKey: "name") as? String } == ["soup"])
        request.predicate = NSPredicate(format: "modifiers.@count == 2")
        #expect(try context.fetch(request).count == 1)

        // Change the sets: remove, add, reorder.
        let modifiers = try S.objects("Modifier", by: "name", in: context)
        soup?.setValue(Set([modifiers["pepper"]!, modifiers["sugar"]!]), forKey: "modifiers")
        let byTitle = try S.objects("Track", by: "title", in: context)
        mix?.setValue(NSOrderedSet(array: [byTitle["t1"]!, byTitle["t2"]!]), forKey: "tracks")
        try context.save()
        context = try S.open(model, url)
        soup = try S.objects("Recipe", by: "name", in: context)["soup"]
        #expect(S.names(soup, "modifiers") == ["pepper", "sugar"])
        mix = try S.objects("Playlist", by: "name", in: context)["mix"]
        #expect(((mix?.value(forKey: "tracks") as? NSOrderedSet)?.array as? [NSManagedObject])?.compactMap { $0.value(forKey: "title") as? String } == ["t1", "t2"])

        // Deleting the source clears its keys in the destinations' rows.
        context.delete(soup!)
        try context.save()
        try SQLiteStoreTests.inspect(url) { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZMODIFIER WHERE Z3MODIFIERS IS NOT NULL") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZMODIFIER") == 3)
        }
    }
}
