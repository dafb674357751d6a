import ArgumentParser
import Foundation
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData

/// `coredata store history`.
@Suite struct StoreHistoryCommandTests {
    private static let model = Fixtures.sampleModel3.appendingPathComponent("SampleModel3_v2.xcdatamodel")

    private func run(_ store: URL, after: String? = nil) throws -> [String: Any] {
        var arguments = ["store", "history", store.path, "--model", Self.model.path]
        if let after { arguments += ["--after", after] }
        let command = try #require(try CoreDataCommand.parseAsRoot(arguments) as? StoreHistoryCommand)
        let json = try command.history()
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test func printsTransactionsAndResumesAfterAToken() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Users.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: Self.model))
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                       options: [NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let uri = try context.performAndWait {
            context.transactionAuthor = "cli-test"
            let user = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
            user.setValue("Ann", forKey: "name")
            try context.save()
            user.setValue("Anne", forKey: "name")
            try context.save()
            return user.objectID.uriRepresentation().absoluteString
        }
        try coordinator.remove(store)

        let printed = try run(url)
        let transactions = try #require(printed["transactions"] as? [[String: Any]])
        #expect(transactions.count == 2)
        #expect(transactions.allSatisfy { $0["author"] as? String == "cli-test" })
        let changes = transactions.compactMap { ($0["changes"] as? [[String: Any]])?.first }
        #expect(changes.map { $0["type"] as? String } == ["insert", "update"])
        #expect(changes.allSatisfy { $0["object"] as? String == uri })
        #expect(changes.last?["updatedProperties"] as? [String] == ["name"])
        let token = try #require(printed["token"] as? String)
        let firstToken = try #require(transactions.first?["token"] as? String)

        #expect((try run(url, after: token)["transactions"] as? [Any])?.isEmpty == true)
        #expect((try run(url, after: firstToken)["transactions"] as? [[String: Any]])?.map { $0["number"] as? Int } == [2])
        #expect(throws: (any Error).self) { try run(url, after: "not a token") }
    }
}
