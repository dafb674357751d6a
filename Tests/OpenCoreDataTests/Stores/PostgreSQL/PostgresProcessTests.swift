import Foundation
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData
@testable import OpenCoreDataPostgres

/// Several processes on one PostgreSQL store, through the `coredata` executable: concurrent
/// read-modify-write saves lose nothing, another process's save is posted as a remote change,
/// and a process killed among its saves leaves only whole saves.
@Suite("PostgreSQL store: many processes", .serialized, .enabled(if: PostgresTestServer.unavailableReason == nil,
                                                                Comment(rawValue: PostgresTestServer.unavailableReason ?? "")))
struct PostgresProcessTests {
    /// Starts `coredata` with `arguments`; returns the process and its output and error pipes.
    static func start(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = try #require(CrashSafetyTests.coredataExecutable, "the coredata executable is built")
        process.arguments = arguments
        let output = Pipe(), errorOutput = Pipe()
        process.standardOutput = output
        process.standardError = errorOutput
        try process.run()
        return (process, output, errorOutput)
    }

    /// Waits for `process` and returns its output and error text.
    static func finish(_ child: (Process, Pipe, Pipe)) -> (output: String, errors: String) {
        let output = String(decoding: child.1.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: child.2.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.0.waitUntilExit()
        return (output, errors)
    }

    @Test func fourProcessesOfTwoContextsLoseNoIncrement() throws {
        let url = try PostgresRemoteChangeTests.freshURL()
        let coordinator = try PostgresRemoteChangeTests.coordinator(url, watched: false)
        let id = try #require(PostgresRemoteChangeTests.insertCounters(1, coordinator).first.flatMap { coordinator.managedObjectID(forURIRepresentation: $0) })
        // The counter starts at 1.
        let times = 20
        let children = try (0..<4).map { _ in
            try Self.start(["store", "increment", url.absoluteString, "--type", "postgresql", "--times", "\(times)", "--contexts", "2"])
        }
        for child in children {
            let (output, errors) = Self.finish(child)
            #expect(child.0.terminationStatus == 0, "child failed: \(errors)")
            #expect(output.contains("done \(2 * times)"), "child output: \(output) \(errors)")
        }
        #expect(try SQLiteSharedStoreTests.value(of: id, coordinator) == Int64(1 + 4 * 2 * times), "no increment is lost")
    }

    @Test func anotherProcesssSaveIsPostedWithItsIDs() throws {
        let url = try PostgresRemoteChangeTests.freshURL()
        let watched = try PostgresRemoteChangeTests.coordinator(url, watched: true)
        let id = try #require(PostgresRemoteChangeTests.insertCounters(1, watched).first.flatMap { watched.managedObjectID(forURIRepresentation: $0) })
        let listener = RemoteChangeNotificationTests.Listener(watched)
        let child = try Self.start(["store", "increment", url.absoluteString, "--type", "postgresql", "--times", "1"])
        let (output, errors) = Self.finish(child)
        #expect(child.0.terminationStatus == 0 && output.contains("done 1"), "child: \(output) \(errors)")
        #expect(listener.next(), "the other process's save is posted")
        #expect(listener.last?[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID> == [id])
        #expect(try SQLiteSharedStoreTests.value(of: id, watched) == 2)
    }

    @Test func killedSavesLeaveOnlyWholeSaves() throws {
        PostgresStore.registerStoreClass()
        try CrashSafetyTests.killSavesAndCheck(storeType: NSPostgreSQLStoreType, at: try PostgresRemoteChangeTests.freshURL(), kills: 12)
    }

    @Test func theCLIMigratesASQLiteStoreIntoPostgreSQLAndBackAndReportsIt() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("Pets.sqlite")
        let (model, uuid, _) = try StoreCommandTests.makePetStore(at: source, type: NSSQLiteStoreType)
        let url = try PostgresRemoteChangeTests.freshURL()
        let toPostgres = try #require(try CoreDataCommand.parseAsRoot(["store", "migrate", source.path, "--model", model.path,
            "--from-type", "sqlite", "--to", url.absoluteString, "--to-type", "postgresql"]) as? StoreMigrateCommand)
        #expect(try toPostgres.migrate().hasPrefix("Migrated 3 objects"))
        #expect(throws: (any Error).self, "a schema that holds a store is refused") { try toPostgres.migrate() }
        let back = directory.appendingPathComponent("Back.sqlite")
        let toSQLite = try #require(try CoreDataCommand.parseAsRoot(["store", "migrate", url.absoluteString, "--model", model.path,
            "--from-type", "postgresql", "--to", back.path, "--to-type", "sqlite"]) as? StoreMigrateCommand)
        #expect(try toSQLite.migrate().hasPrefix("Migrated 3 objects"))
        func dump(_ store: String, _ type: String) throws -> String {
            try #require(try StoreDumpCommand.parseAsRoot([store, "--model", model.path, "--type", type]) as? StoreDumpCommand).dump()
        }
        func storeUUID(of url: URL, _ type: String) throws -> String {
            try #require(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)[NSStoreUUIDKey] as? String)
        }
        let expected = try StoreCommandTests.namingObjects(dump(source.path, "sqlite"), uuid: uuid)
        #expect(try StoreCommandTests.namingObjects(dump(url.absoluteString, "postgresql"), uuid: storeUUID(of: url, NSPostgreSQLStoreType)) == expected)
        #expect(try StoreCommandTests.namingObjects(dump(back.path, "sqlite"), uuid: storeUUID(of: back, NSSQLiteStoreType)) == expected)

        let info = try StoreInfoCommand.report(for: url, type: NSPostgreSQLStoreType)
        #expect(info["storeType"] as? String == NSPostgreSQLStoreType)
        let entities = try #require(info["entities"] as? [[String: Any]])
        #expect(Set(entities.compactMap { $0["name"] as? String }) == ["Pet", "User"])
        #expect(entities.contains { $0["name"] as? String == "User" && ($0["max"] as? Int64 ?? 0) >= 2 })
    }
}
