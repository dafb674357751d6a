import ArgumentParser
import Foundation
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData

/// `coredata store info STORE` over an Apple-written store.
@Suite struct SQLiteStoreInfoTests {
    @Test func parsesAsAStoreSubcommand() throws {
        let command = try #require(try CoreDataCommand.parseAsRoot(["store", "info", "S.sqlite"]) as? StoreInfoCommand)
        #expect(command.store == "S.sqlite")
    }

    @Test func reportsMetadataAndEntityTableWithoutChangingTheFile() throws {
        let (directory, url) = try SQLiteAppleStoreTests.copy(SQLiteSchemaTests.cases[0].store)
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Data(contentsOf: url)
        let report = try StoreInfoCommand.report(for: url)
        #expect(try Data(contentsOf: url) == before)
        #expect(report["storeType"] as? String == "SQLite")
        #expect(report["uuid"] as? String == "753753D3-A961-4901-AB05-8CC48B1D3853")
        #expect(report["versionHashesVersion"] as? Int == 3)
        #expect(report["modelVersionIdentifiers"] as? [String] == ["1"])
        let hashes = try #require(report["versionHashes"] as? [String: String])
        #expect(hashes.keys.sorted() == ["Car", "ExpensiveSportCar", "Person", "SportCar"])
        #expect(hashes["Car"].flatMap { Data(base64Encoded: $0) }?.count == 32)
        let entities = try #require(report["entities"] as? [[String: Any]])
        #expect(entities.map { "\($0["entity"]!) \($0["name"]!) \($0["super"]!) \($0["max"]!)" }
                == ["1 Car 0 125", "2 SportCar 1 0", "3 ExpensiveSportCar 2 0", "4 Person 0 20"])
        // The report is valid JSON.
        #expect(JSONSerialization.isValidJSONObject(report))
    }

    @Test func aMissingStoreIsAnError() throws {
        #expect(throws: NSError.self) { try StoreInfoCommand.report(for: URL(fileURLWithPath: "/nonexistent/none.sqlite")) }
    }
}
