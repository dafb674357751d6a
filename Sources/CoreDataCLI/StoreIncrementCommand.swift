import ArgumentParser
import OpenCoreData

/// `coredata store increment STORE [--times N]` (hidden): the child process of the
/// many-processes stress test (`SQLiteSharedStoreTests`). It is not part of the stable command forms.
///
/// It opens the SQLite store with ``CounterModel`` and, `times` times, adds 1 to the `value` of
/// the store's one `Counter` in a read-modify-write save, retrying a save that conflicts
/// (133020) after refreshing the counter. It writes `done N` when it has made N increments.
struct StoreIncrementCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "increment",
        abstract: "Increment a shared counter with retries (the many-processes stress test's child).",
        shouldDisplay: false)

    @Argument(help: "The store file.")
    var store: String

    @Option(help: "How many increments to make.")
    var times: Int = 100

    func run() throws {
        try StoreCommandError.reporting {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CounterModel.make())
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
                                               at: URL(fileURLWithPath: store), options: nil)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let made = try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Counter")
                guard let counter = try context.fetch(request).first else {
                    throw ValidationError("The store at \(store) holds no Counter.")
                }
                var made = 0
                for _ in 0..<times {
                    try CounterModel.increment(counter, in: context)
                    made += 1
                }
                return made
            }
            FileHandle.standardOutput.write(Data("done \(made)\n".utf8))
        }
    }
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
