import ArgumentParser
import OpenCoreData

/// `coredata store save-loop STORE --type T [--saves N]` (hidden): the child process of the
/// crash-safety test (`CrashSafetyTests`). It is not part of the stable command forms.
///
/// It opens the store with ``SaveLoopModel`` and saves in a loop: save `j` (counting on from the
/// largest `index` already in the store) inserts a `Tick` with `index` j and a payload of a few
/// hundred bytes, and deletes the tick `j - 3`, so that after save `j` the store holds exactly the
/// ticks `max(1, j-2)…j` (``SaveLoopModel/expectedIndexes(afterSave:)``). After each save returns
/// it writes `saved j` (unbuffered), so the parent knows which saves completed before it killed
/// the process.
struct StoreSaveLoopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save-loop",
        abstract: "Save in a loop (the crash-safety test's child process).",
        shouldDisplay: false)

    @Argument(help: "The store file.")
    var store: String

    @Option(name: .customLong("type"), help: "The store's type.")
    var storeType: String

    @Option(help: "How many saves to make before exiting.")
    var saves: Int = 1_000_000

    func run() throws {
        try StoreCommandError.reporting {
            let model = SaveLoopModel.make()
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: StoreCommand.storeType(storeType), configurationName: nil,
                                               at: StoreCommand.storeURL(store), options: nil)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Tick")
                var ticks = Dictionary(uniqueKeysWithValues: try context.fetch(request).map { (($0.value(forKey: "index") as? Int64) ?? 0, $0) })
                let start = (ticks.keys.max() ?? 0) + 1
                for save in start..<(start + Int64(saves)) {
                    let tick = NSEntityDescription.insertNewObject(forEntityName: "Tick", into: context)
                    tick.setValue(save, forKey: "index")
                    tick.setValue(String(repeating: "x", count: Int(save % 7) * 100), forKey: "payload")
                    ticks[save] = tick
                    if let old = ticks.removeValue(forKey: save - 3) { context.delete(old) }
                    try context.save()
                    FileHandle.standardOutput.write(Data("saved \(save)\n".utf8))
                }
            }
        }
    }
}

/// The model of ``StoreSaveLoopCommand``: one entity `Tick` (`index` Integer 64, `payload` String).
enum SaveLoopModel {
    static func make() -> NSManagedObjectModel {
        let tick = NSEntityDescription()
        tick.name = "Tick"
        let index = NSAttributeDescription()
        index.name = "index"
        index.attributeType = .integer64AttributeType
        let payload = NSAttributeDescription()
        payload.name = "payload"
        payload.attributeType = .stringAttributeType
        tick.properties = [index, payload]
        let model = NSManagedObjectModel()
        model.entities = [tick]
        return model
    }

    /// The tick indexes the store holds after save `save` completed (none before the first).
    static func expectedIndexes(afterSave save: Int64) -> Set<Int64> {
        Set(max(1, save - 2)...max(1, save)).filter { save > 0 && $0 <= save }
    }
}
