import Foundation
import GRDB
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData

/// `coredata store dump --type sqlite` on stores as they are copied off a device: with a live
/// `-wal` and `-shm`, Apple's ancillary tables and externally stored binary data.
@Suite struct StoreDumpSQLiteTests {
    /// The bytes of each file of the store (`-wal`, `-shm` included) and of the external data.
    static func contents(_ url: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm"] {
            let path = url.path + suffix
            guard FileManager.default.fileExists(atPath: path) else { continue }
            result[suffix] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        let external = url.deletingLastPathComponent().appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: external.path)) ?? [] {
            result[name] = try Data(contentsOf: external.appendingPathComponent(name))
        }
        return result
    }

    /// Copies `url` and its `-wal`/`-shm` to `directory` while `queue` (in WAL mode, without
    /// checkpoints) is still open: the copy has its last changes only in the `-wal`.
    static func copyLive(_ url: URL, to directory: URL) throws -> URL {
        let target = directory.appendingPathComponent(url.lastPathComponent)
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: target.path + suffix)
        }
        let support = url.deletingLastPathComponent().appendingPathComponent(".Photos_SUPPORT")
        if FileManager.default.fileExists(atPath: support.path) {
            try FileManager.default.copyItem(at: support, to: directory.appendingPathComponent(".Photos_SUPPORT"))
        }
        return target
    }

    @Test func dumpReadsTheWALAndExternalDataAndChangesNoByte() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("device")
        let copy = directory.appendingPathComponent("copy")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        let (url, model) = try SQLiteExternalDataTests.makeStore(in: source, photos: [("external", nil, nil), ("inline", Data([5, 6]), nil)])
        let bytes = Data((0..<140_000).map { UInt8($0 % 233) })
        try SQLiteExternalDataTests.storeExternally(bytes, name: "external", in: url, fileName: "0D1C2B3A-4958-6776-8594-A3B2C1D0E0F1")

        var configuration = Configuration()
        configuration.prepareDatabase { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        }
        let live = try DatabaseQueue(path: url.path, configuration: configuration)
        try live.write { db in try db.execute(sql: "UPDATE ZPHOTO SET ZNAME = 'inline, in the WAL' WHERE ZNAME = 'inline'") }
        let snapshot = try Self.copyLive(url, to: copy)
        try live.close()

        let before = try Self.contents(snapshot)
        #expect(before.keys.contains("-wal") && before.keys.contains("-shm"))
        let command = try #require(try CoreDataCommand.parseAsRoot(["store", "dump", snapshot.path, "--model", model.path, "--type", "sqlite"])
                                   as? StoreDumpCommand)
        let json = try command.dump()
        #expect(json.contains("\"name\": \"inline, in the WAL\""), "the -wal is read")
        #expect(json.contains("\"image\": \"\(bytes.base64EncodedString())\""), "the external file's bytes")
        #expect(json.contains("\"image\": \"\(Data([5, 6]).base64EncodedString())\""), "the inline bytes without their marker")
        #expect(try Self.contents(snapshot) == before, "dump changes no byte of the store, its -wal, -shm or external data")

        // `store info` reads the metadata and Z_PRIMARYKEY the same way.
        #expect(try SQLiteStore.entityTable(at: snapshot).map(\.name) == ["Photo"])
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: snapshot)[NSStoreTypeKey] as? String == "SQLite")
        #expect(try Self.contents(snapshot) == before, "store info changes no byte either")
    }

    @Test func dumpOpensAStoreWithApplesAncillaryTablesWithoutChangingIt() throws {
        let (directory, url) = try SQLiteAppleAncillaryTablesTests.makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.contents(url)
        let model = Fixtures.coreDataPlus(SQLiteSchemaTests.cases[0].model)
        let command = try #require(try CoreDataCommand.parseAsRoot(["store", "dump", url.path, "--model", model.path, "--type", "sqlite"])
                                   as? StoreDumpCommand)
        let dump = try #require(try JSONSerialization.jsonObject(with: Data(try command.dump().utf8)) as? [String: Any])
        let entities = try #require(dump["entities"] as? [String: [String: Any]])
        #expect(entities["Car"]?["count"] as? Int == 115)
        #expect(entities["Person"]?["count"] as? Int == 20)
        let table = try SQLiteStore.entityTable(at: url)
        #expect(table.map(\.entityNumber) == [1, 2, 3, 4, 16001, 16002, 16003, 16004])
        #expect(try Self.contents(url) == before)
    }
}
