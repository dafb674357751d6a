import CoreDataTutorial
import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// The tutorial on its default store: `CoreDataTutorial.sqlite` is a valid Core Data store.
@Suite struct SQLiteTutorialTests {
    @Test func tutorialWritesAValidCoreDataStore() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var output: [String] = []
        try RunTutorial(directory: directory, storeType: .sqlite, processID: 11).perform { _ in }
        try RunTutorial(directory: directory, storeType: .sqlite, processID: 22).perform { output.append($0) }
        #expect(output.contains { $0.hasSuffix("as process ID 22") })
        let url = directory.appendingPathComponent("CoreDataTutorial.sqlite")
        try SQLiteStoreTests.inspect(url) { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZRUN") == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Run'") == 2)
            #expect(try [Int].init(Int.fetchAll(db, sql: "SELECT ZPROCESSID FROM ZRUN ORDER BY Z_PK")) == [11, 22])
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url, options: nil)
        #expect(metadata[NSStoreTypeKey] as? String == NSSQLiteStoreType)
        #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Any])?["Run"] is Data)
    }
}
