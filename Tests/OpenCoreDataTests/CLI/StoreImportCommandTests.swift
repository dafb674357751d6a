import ArgumentParser
import Foundation
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData

/// `coredata store import`.
@Suite struct StoreImportCommandTests {
    private static let model = Fixtures.sampleModel3.appendingPathComponent("SampleModel3_v2.xcdatamodel")

    private func command(_ store: URL, _ file: URL, type: String = "sqlite") throws -> StoreImportCommand {
        try #require(try CoreDataCommand.parseAsRoot(["store", "import", store.path, "--model", Self.model.path,
                                                      "--entity", "User", "--from", file.path, "--type", type]) as? StoreImportCommand)
    }

    private func storedNames(_ store: URL, type: String) throws -> [String] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: Self.model))
        try coordinator.addPersistentStore(ofType: StoreCommand.storeType(type), configurationName: nil, at: store, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "User")).map { "\($0.value(forKey: "name") ?? "nil")/\($0.value(forKey: "petName") ?? "-")" }.sorted()
        }
    }

    @Test(arguments: ["sqlite", "binary"])
    func importsEveryLineInOneBatch(type: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("users.jsonl")
        try Data("{\"name\": \"Ann\"}\n\n{\"name\": \"Bob\", \"petName\": \"Rex\"}\n".utf8).write(to: file)
        let store = directory.appendingPathComponent("Users.\(type)")
        #expect(try command(store, file, type: type).importRows() == 2)
        #expect(try storedNames(store, type: type) == ["Ann/-", "Bob/Rex"])
    }

    @Test func aBadLineIsNamedAndNothingIsWritten() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Users.sqlite")
        let wrongType = directory.appendingPathComponent("wrong.jsonl")
        try Data("{\"name\": \"Ann\"}\n{\"name\": \"Bob\"}\n\n{\"name\": 5}\n".utf8).write(to: wrongType)
        let error = #expect(throws: NSError.self) { try command(store, wrongType).importRows() }
        #expect(error?.code == NSManagedObjectValidationError)
        #expect(error?.localizedDescription.contains("line 4") == true, "\(error?.localizedDescription ?? "")")
        #expect(try storedNames(store, type: "sqlite").isEmpty)

        let unknown = directory.appendingPathComponent("unknown.jsonl")
        try Data("{\"name\": \"Ann\", \"colour\": \"red\"}\n".utf8).write(to: unknown)
        let second = #expect(throws: NSError.self) { try command(store, unknown).importRows() }
        #expect(second?.localizedDescription.contains("line 1") == true && second?.localizedDescription.contains("colour") == true)

        let malformed = directory.appendingPathComponent("malformed.jsonl")
        try Data("{\"name\": \"Ann\"}\n{\"name\": \n".utf8).write(to: malformed)
        #expect(throws: (any Error).self) { try command(store, malformed).importRows() }
        #expect(try storedNames(store, type: "sqlite").isEmpty)
    }
}
