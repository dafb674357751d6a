import OpenCoreData

/// The seed tutorial's program, apart from argument parsing: record this run and list them all.
public struct RunTutorial: Sendable {
    /// The folder of the store file.
    public var directory: URL
    /// The kind of store.
    public var storeType: TutorialStoreType
    /// The process ID recorded for this run.
    public var processID: Int32

    /// The store file's base name (and the container's name).
    public static let storeName = "CoreDataTutorial"

    public init(directory: URL, storeType: TutorialStoreType, processID: Int32) {
        self.directory = directory
        self.storeType = storeType
        self.processID = processID
    }

    /// Runs the tutorial: prints the model, opens the store, inserts a ``Run`` for
    /// ``processID``, saves, and prints the run history sorted by date. `write` receives each
    /// output line. Throws a ``TutorialError`` (the save's localized validation message when the
    /// process ID is not positive).
    public func perform(write: (String) -> Void) throws {
        let model = RunModel.make()
        write("The managed object model is defined as follows:")
        for line in Self.describe(model) { write(line) }

        let container = NSPersistentContainer(name: Self.storeName, managedObjectModel: model)
        container.persistentStoreDescriptions = [storeType.storeDescription(base: Self.storeName, directory: directory)]
        try container.loadStoresForTutorial(storeType)

        let context = container.viewContext
        let run = Run(context: context)
        run.processID = processID
        do {
            try context.save()
        } catch {
            throw TutorialError.saveFailed(message: (error as NSError).localizedDescription)
        }

        let request = NSFetchRequest<Run>(entityName: "Run")
        request.sortDescriptors = [NSSortDescriptor(key: "date", ascending: true)]
        let runs: [Run]
        do {
            runs = try context.fetch(request)
        } catch {
            throw TutorialError.fetchFailed(message: (error as NSError).localizedDescription)
        }
        write("\(Self.storeName) run history:")
        for run in runs { write(Self.historyLine(run)) }
    }

    /// One line of the history: `On 2026-11-22T03:05:04.123Z as process ID 1234`.
    public static func historyLine(_ run: Run) -> String {
        "On \(format(run.date)) as process ID \(run.processID)"
    }

    /// Dates in ISO 8601, UTC, with milliseconds: stable whatever the locale.
    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// The model's description followed by each entity's and each property's, one per line.
    static func describe(_ model: NSManagedObjectModel) -> [String] {
        var lines = [model.description]
        for entity in model.entities {
            lines.append("  \(entity.description)")
            for property in entity.properties {
                lines.append("    \(property.description)")
            }
        }
        return lines
    }
}
