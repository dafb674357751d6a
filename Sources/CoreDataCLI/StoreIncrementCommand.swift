import ArgumentParser
import Dispatch
import Foundation
import OpenCoreData

/// `coredata store increment STORE [--type T] [--times N] [--contexts N]` (hidden): the child process of the
/// many-processes stress test (`SQLiteSharedStoreTests`). It is not part of the stable command forms.
///
/// It opens the SQLite (or PostgreSQL) store with ``CounterModel`` and, in each of `contexts`
/// private contexts at once, `times` times, adds 1 to the `value` of the store's one `Counter`
/// in a read-modify-write save, retrying a save that conflicts
/// (133020) after refreshing the counter. It writes `done N` when it has made N increments.
struct StoreIncrementCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "increment",
        abstract: "Increment a shared counter with retries (the many-processes stress test's child).",
        shouldDisplay: false)

    @Argument(help: "The store file.")
    var store: String

    @Option(name: .customLong("type"), help: "The store's type: sqlite or postgresql.")
    var storeType: String = "sqlite"

    @Option(help: "How many increments to make.")
    var times: Int = 100

    @Option(help: "How many private contexts increment at once, each `times` times.")
    var contexts: Int = 1

    func run() throws {
        try StoreCommandError.reporting {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CounterModel.make())
            try coordinator.addPersistentStore(ofType: StoreCommand.storeType(storeType), configurationName: nil,
                                               at: StoreCommand.storeURL(store), options: nil)
            let group = DispatchGroup()
            let outcomes = (0..<max(1, contexts)).map { _ in IncrementOutcome() }
            for outcome in outcomes {
                let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                context.persistentStoreCoordinator = coordinator
                group.enter()
                context.perform {
                    defer { group.leave() }
                    outcome.result = Result {
                        let request = NSFetchRequest<NSManagedObject>(entityName: "Counter")
                        guard let counter = try context.fetch(request).first else {
                            throw ValidationError("The store at \(store) holds no Counter.")
                        }
                        for _ in 0..<times { try CounterModel.increment(counter, in: context) }
                        return times
                    }
                }
            }
            group.wait()
            var made = 0
            for outcome in outcomes { made += try outcome.result?.get() ?? 0 }
            FileHandle.standardOutput.write(Data("done \(made)\n".utf8))
        }
    }
}

/// What one context of ``StoreIncrementCommand`` did; written on its queue before the group
/// is left, read after `group.wait()`.
// @unchecked Sendable: `result` is written once on the context's queue, then read after the
// dispatch group's wait, which orders the two.
private final class IncrementOutcome: @unchecked Sendable {
    var result: Result<Int, Error>?
}

/// The model of ``StoreIncrementCommand``: one entity `Counter` (`value` Integer 64).
enum CounterModel {
    static func make() -> NSManagedObjectModel {
        let counter = NSEntityDescription()
        counter.name = "Counter"
        let value = NSAttributeDescription()
        value.name = "value"
        value.attributeType = .integer64AttributeType
        value.defaultValue = Int64(0)
        counter.properties = [value]
        let model = NSManagedObjectModel()
        model.entities = [counter]
        return model
    }

    /// Adds 1 to `counter`'s `value` and saves, on `context`'s queue; a save that conflicts
    /// (`NSManagedObjectMergeError`) is rolled back, the counter refreshed from the store and
    /// the increment tried again. Returns how many saves conflicted.
    @discardableResult
    static func increment(_ counter: NSManagedObject, in context: NSManagedObjectContext) throws -> Int {
        var conflicts = 0
        while true {
            context.refresh(counter, mergeChanges: false)
            let value = (counter.value(forKey: "value") as? Int64) ?? 0
            counter.setValue(value + 1, forKey: "value")
            do {
                try context.save()
                return conflicts
            } catch let error as NSError where error.domain == NSCocoaErrorDomain && error.code == NSManagedObjectMergeError {
                context.rollback()
                conflicts += 1
            }
        }
    }
}
