import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// A copy of an Apple-written fixture store given what real iOS/macOS stores carry besides the
/// model's tables: persistent-history and CloudKit tables with their `Z_PRIMARYKEY` rows
/// (numbered above 15000), their indexes, a derived-attribute trigger calling Core Data's SQL
/// functions, and more `Z_METADATA` keys. The store opens read-only and read-write, fetches and
/// saves, leaves Apple's rows and schema alone and adds its own transactions to the history.
@Suite struct SQLiteAppleAncillaryTablesTests {
    /// Apple's persistent-history and CloudKit tables, in the shape Apple's stores show them.
    static let ancillaryDDL = [
        // One tombstone column: the model's Person.id is preserved after deletion.
        "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB, ZTOMBSTONE0 BLOB )",
        "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
        "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR NOT NULL UNIQUE)",
        "CREATE TABLE ANSCKRECORDMETADATA ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZENTITYID INTEGER, ZENTITYPK INTEGER, ZNEEDSCLOUDDELETE INTEGER, ZRECORDNAME VARCHAR, ZENCODEDRECORD BLOB )",
        "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
        "CREATE INDEX ATRANSACTION_ZTIMESTAMP_INDEX ON ATRANSACTION (ZTIMESTAMP)",
        "CREATE UNIQUE INDEX Z_NSCKRecordMetadata_UNIQUE_entityId_entityPK ON ANSCKRECORDMETADATA (ZENTITYID COLLATE BINARY ASC, ZENTITYPK COLLATE BINARY ASC)",
        "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, 2), (16002, 'TRANSACTION', 0, 1), (16003, 'TRANSACTIONSTRING', 0, 1), (16004, 'NSCKRecordMetadata', 0, 1)",
        "INSERT INTO ATRANSACTIONSTRING VALUES (1, 16003, 1, 'com.example.app')",
        "INSERT INTO ATRANSACTION VALUES (1, 16002, 1, NULL, 1, NULL, NULL, 700000000.5, NULL, NULL, NULL, NULL, NULL)",
        "INSERT INTO ACHANGE VALUES (1, 16001, 1, 0, 4, 1, 1, NULL, NULL), (2, 16001, 1, 1, 1, 3, 1, X'0102', NULL)",
        "INSERT INTO ANSCKRECORDMETADATA VALUES (1, 16004, 1, 4, 1, 0, 'record-1', X'626C6F62')",
        // A derived attribute as Apple writes it: `updatedAt = now()`, kept by a trigger that
        // calls Core Data's functions.
        """
        CREATE TRIGGER IF NOT EXISTS Z_DA_ZPERSON_Person_updatedAt_UPDATE AFTER UPDATE OF Z_OPT ON ZPERSON FOR EACH ROW BEGIN \
        UPDATE ZPERSON SET ZUPDATEDAT = NSCoreDataNow() WHERE Z_PK = NEW.Z_PK; \
        SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZPERSON', Z_ENT, Z_PK, 'updatedAt', ZUPDATEDAT) FROM ZPERSON WHERE Z_PK = NEW.Z_PK; END
        """,
        // A batch-delete history trigger in the shape Apple names (its body is ours).
        """
        CREATE TRIGGER IF NOT EXISTS ZQ_ZCAR_TRIGGER AFTER DELETE ON ZCAR FOR EACH ROW BEGIN \
        SELECT NSCoreDataTriggerUpdateAffectedObjectValue('ZCAR', OLD.Z_ENT, OLD.Z_PK, 'owner', NULL); END
        """,
    ]

    /// The extra `Z_METADATA` keys real stores carry.
    static var extraMetadata: [String: Any] { [
        "NSPersistenceMaximumFrameworkVersion": 1244,
        "NSStoreModelVersionChecksumKey": "bMpud663vz0bXQE24C6Rh4MvJ5jVnzsD2sI3njZkKbc=",
        "NSPersistentHistoryTracking": true,
    ] }

    /// A copy of SampleModel V1 with the ancillary tables, triggers and metadata keys.
    static func makeStore() throws -> (directory: URL, store: URL) {
        let (directory, url) = try SQLiteAppleStoreTests.copy(SQLiteSchemaTests.cases[0].store)
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            for statement in ancillaryDDL { try db.execute(sql: statement) }
            var metadata = try #require(try SQLiteStore.readMetadata(db))
            metadata.merge(extraMetadata) { _, new in new }
            try SQLiteStore.writeMetadata(metadata, to: db)
        }
        try queue.close()
        return (directory, url)
    }

    /// Every row of the ancillary tables and Apple's `Z_PRIMARYKEY` rows, as text.
    static func ancillaryRows(_ url: URL) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            var rows: [String] = []
            for table in ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING", "ANSCKRECORDMETADATA"] {
                rows += try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY Z_PK").map { "\(table) \($0)" }
            }
            rows += try Row.fetchAll(db, sql: "SELECT * FROM Z_PRIMARYKEY WHERE Z_ENT > 15000 ORDER BY Z_ENT").map { "Z_PRIMARYKEY \($0)" }
            rows += try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master WHERE name LIKE 'A%' OR name LIKE 'Z_DA_%' OR name LIKE 'ZQ_%' OR name LIKE 'Z_NSCK%' ORDER BY name").map { "\($0)" }
            return rows
        }
    }

    @Test(arguments: [true, false])
    func opensAndFetches(readOnly: Bool) throws {
        let (directory, url) = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.ancillaryRows(url)
        #expect(before.count > 10)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try SQLiteAppleStoreTests.model(0))
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                       options: [NSReadOnlyPersistentStoreOption: readOnly, NSPersistentHistoryTrackingKey: true])
        #expect(store.isReadOnly == readOnly)
        #expect(try SQLiteAppleStoreTests.count(coordinator, "Car") == 125)
        #expect(try SQLiteAppleStoreTests.count(coordinator, "Person") == 20)
        #expect(store.metadata["NSPersistenceMaximumFrameworkVersion"] as? Int == 1244)
        #expect(store.metadata["NSStoreModelVersionChecksumKey"] as? String == "bMpud663vz0bXQE24C6Rh4MvJ5jVnzsD2sI3njZkKbc=")
        #expect(store.metadata["_NSAutoVacuumLevel"] as? String == "2")
        let info = try #require(store as? SQLiteStore)
        #expect(try info.openDatabase().read { db in info.schemaDifference(catalog: try SQLiteStoreCatalog.read(db)) } == nil)
        try coordinator.remove(store)
        // Opening (with NSPersistentHistoryTrackingKey) adds nothing to Apple's tables.
        let after = try Self.ancillaryRows(url)
        #expect(after == before, "added \(after.filter { !before.contains($0) }), removed \(before.filter { !after.contains($0) })")
    }

    @Test func savesRunApplesTriggersAndLeaveTheTablesAlone() throws {
        let (directory, url) = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.ancillaryRows(url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try SQLiteAppleStoreTests.model(0))
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                       options: [NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSPredicate(format: "firstName == %@ AND lastName == %@", "Victoria", "Coster")
        let victoria = try #require(try context.fetch(request).first)
        let oldDate = try #require(victoria.value(forKey: "updatedAt") as? Date)
        victoria.setValue("Vicky", forKey: "firstName")
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        person.setValue("Ada", forKey: "firstName")
        person.setValue("Lovelace", forKey: "lastName")
        person.setValue(UUID(), forKey: "id")
        person.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "updatedAt")
        let cars = NSFetchRequest<NSManagedObject>(entityName: "Car")
        cars.predicate = NSPredicate(format: "owner == nil")
        let someCar = try #require(try context.fetch(cars).first)
        context.delete(someCar)
        let savedAt = Date()
        try context.save()
        try coordinator.remove(store)

        // Apple's rows, indexes and triggers are unchanged (the history counters in
        // Z_PRIMARYKEY moved on); its trigger ran on our update; the save is one more
        // transaction in Apple's history, with its three changes.
        let after = try Self.ancillaryRows(url)
        #expect(before.filter { !$0.hasPrefix("Z_PRIMARYKEY") }.allSatisfy(after.contains))
        #expect(after.filter { $0.hasPrefix("ATRANSACTION ") }.count == 2)
        #expect(after.filter { $0.hasPrefix("ACHANGE ") }.count == 5)
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        try queue.read { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            let updated = try #require(try Double.fetchOne(db, sql: "SELECT ZUPDATEDAT FROM ZPERSON WHERE ZFIRSTNAME = 'Vicky'"))
            #expect(updated > oldDate.timeIntervalSinceReferenceDate)
            #expect(updated >= savedAt.timeIntervalSinceReferenceDate - 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZPERSON") == 21)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZCAR") == 124)
            #expect(try Int.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 4") == 21)
        }

        // It reopens, with the metadata keys kept.
        let again = NSPersistentStoreCoordinator(managedObjectModel: try SQLiteAppleStoreTests.model(0))
        let reopened = try again.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                    options: [NSReadOnlyPersistentStoreOption: true])
        #expect(reopened.metadata["NSPersistenceMaximumFrameworkVersion"] as? Int == 1244)
        #expect(reopened.metadata["NSPersistentHistoryTracking"] as? Bool == true)
        #expect(try SQLiteAppleStoreTests.count(again, "Person") == 21)
    }

    /// Apple's rule: a store with history rows opened for writing without
    /// `NSPersistentHistoryTrackingKey` is forced read-only; with empty history tables it is not.
    @Test func withoutTheHistoryKeyAStoreWithHistoryIsReadOnly() throws {
        let (directory, url) = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try SQLiteAppleStoreTests.model(0))
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        #expect(store.isReadOnly)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let person = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).first)
        person.setValue("Changed", forKey: "firstName")
        let error = #expect(throws: NSError.self) { try context.save() }
        #expect(error?.localizedDescription.contains("read-only") == true)
        try coordinator.remove(store)

        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: "DELETE FROM ACHANGE")
            try db.execute(sql: "DELETE FROM ATRANSACTION")
        }
        try queue.close()
        let again = NSPersistentStoreCoordinator(managedObjectModel: try SQLiteAppleStoreTests.model(0))
        let writable = try again.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        #expect(!writable.isReadOnly, "empty history tables leave the store writable")
    }

    @Test func anEntityRowBelowApplesRangeStillCounts() throws {
        let (directory, url) = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        // An unknown entity numbered like a model's is a different model, as before.
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (5, 'Garage', 0, 0)")
            var metadata = try #require(try SQLiteStore.readMetadata(db))
            metadata[NSStoreModelVersionHashesKey] = ["Car": Data([1])]
            try SQLiteStore.writeMetadata(metadata, to: db)
        }
        try queue.close()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try SQLiteAppleStoreTests.model(0))
        let error = #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                               options: [NSReadOnlyPersistentStoreOption: true])
        }
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(error?.localizedDescription.contains("Garage") == true)
    }

    /// Apple's unique indexes (`Z_Person_UNIQUE_firstName_lastName`) hold for our saves: a save
    /// that breaks one fails whole — nothing of it is written — with
    /// `NSManagedObjectConstraintMergeError` (133021) and an `NSConstraintConflict` naming the
    /// stored row, as Apple's.
    @Test func applesUniqueIndexesHoldForOurSaves() throws {
        let (directory, url) = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try SQLiteAppleStoreTests.model(0))
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                       options: [NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let fine = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        fine.setValue("Grace", forKey: "firstName")
        fine.setValue("Hopper", forKey: "lastName")
        let twin = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        twin.setValue("Victoria", forKey: "firstName")
        twin.setValue("Coster", forKey: "lastName")
        for person in [fine, twin] {
            person.setValue(UUID(), forKey: "id")
            person.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "updatedAt")
        }
        let error = #expect(throws: NSError.self) { try context.save() }
        #expect(error?.code == NSManagedObjectConstraintMergeError)
        let conflicts = error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict]
        #expect(conflicts?.count == 1)
        #expect(conflicts?.first?.databaseObject != nil)
        #expect(Set(conflicts?.first?.constraint ?? []) == ["firstName", "lastName"])
        #expect(error?.localizedDescription.contains("Coster") == true, "\(error?.localizedDescription ?? "")")
        try coordinator.remove(store)
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        // (Z_MAX may have moved: keys are allocated before the save, as Apple's are.)
        let (people, grace) = try queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZPERSON"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZPERSON WHERE ZFIRSTNAME = 'Grace'"))
        }
        #expect(people == 20 && grace == 0, "nothing of the failed save was written")
    }

    @Test func appleTriggerFunctionsAreRegistered() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            SQLFunctions.register(on: db)
            let before = Date().timeIntervalSinceReferenceDate
            let now = try #require(try Double.fetchOne(db, sql: "SELECT NSCoreDataNow()"))
            #expect(now >= before - 1 && now <= Date().timeIntervalSinceReferenceDate + 1)
            for function in SQLFunctions.appleTriggerFunctions {
                let arguments = Array(repeating: "1", count: function.arguments ?? 3).joined(separator: ", ")
                #expect(try DatabaseValue.fetchOne(db, sql: "SELECT \(function.name)(\(arguments))") == .null, "\(function.name)")
            }
        }
    }
}
