import ArgumentParser
import OpenCoreData

/// `coredata store migrate SOURCE --model MODEL --from-type T --to DEST --to-type U`: copies every
/// object of the store at SOURCE into a new store of type U at DEST, with
/// `migratePersistentStore(_:to:options:type:)`. The source is opened read-only and left as it
/// was; DEST must not exist yet. Prints one line: how many objects were copied where.
struct StoreMigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy a store into a new store of another type (migratePersistentStore).")

    @Argument(help: "The store file to read.")
    var source: String

    @Option(help: "The model of the store (.xcdatamodeld, .xcdatamodel, .momd, .mom or a compiled model folder).")
    var model: String

    @Option(name: .customLong("from-type"), help: "The source store's type: xml, binary, sqlite (or a type string).")
    var fromType: String

    @Option(name: .customLong("to"), help: "The store file to create.")
    var destination: String

    @Option(name: .customLong("to-type"), help: "The new store's type: xml, binary, sqlite (or a type string).")
    var toType: String

    func run() throws {
        let summary = try StoreCommandError.reporting { try migrate() }
        print(summary)
    }

    /// Migrates and returns the line to print.
    func migrate() throws -> String {
        let destinationURL = StoreCommand.storeURL(destination)
        if StoreCommand.storeExists(at: destinationURL) {
            throw ValidationError("\(destination) already exists; migrate writes a new store.")
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try StoreCommand.loadModel(model))
        let store = try coordinator.addPersistentStore(
            ofType: StoreCommand.storeType(fromType), configurationName: nil, at: StoreCommand.storeURL(source),
            options: [NSReadOnlyPersistentStoreOption: true])
        let migrated = try coordinator.migratePersistentStore(store, to: destinationURL, options: nil,
                                                              type: StoreCommand.storeType(toType))
        let count = try StoreDump.objectCount(of: migrated, model: coordinator.managedObjectModel)
        return "Migrated \(count) objects from the \(store.type) store at \(source) to the \(migrated.type) store at \(destination)."
    }
}
