import Foundation
import Testing
@testable import OpenCoreData

@Suite("NSPersistentContainer")
struct NSPersistentContainerTests {
    private static func noteModel() -> NSManagedObjectModel {
        let text = NSAttributeDescription()
        text.name = "text"
        text.attributeType = .stringAttributeType
        let note = NSEntityDescription()
        note.name = "Note"
        note.properties = [text]
        let model = NSManagedObjectModel()
        model.entities = [note]
        return model
    }

    private static func inMemoryContainer(name: String = "Notes") -> NSPersistentContainer {
        let container = NSPersistentContainer(name: name, managedObjectModel: noteModel())
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        return container
    }

    private static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-container-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("init(name:managedObjectModel:) wires the model, the coordinator and the view context")
    func stack() {
        let model = Self.noteModel()
        let container = NSPersistentContainer(name: "Notes", managedObjectModel: model)
        #expect(container.name == "Notes")
        #expect(container.managedObjectModel === model)
        #expect(container.persistentStoreCoordinator.managedObjectModel === model)
        #expect(container.viewContext.persistentStoreCoordinator === container.persistentStoreCoordinator)
        #expect(container.viewContext.concurrencyType == .mainQueueConcurrencyType)
        #expect(!model.isEditable)
    }

    @Test("The default store is one SQLite store at defaultDirectoryURL()/<name>.sqlite")
    func defaultDescription() throws {
        let container = NSPersistentContainer(name: "Notes", managedObjectModel: Self.noteModel())
        let description = try #require(container.persistentStoreDescriptions.first)
        #expect(container.persistentStoreDescriptions.count == 1)
        #expect(description.type == NSSQLiteStoreType)
        #expect(description.url == NSPersistentContainer.defaultDirectoryURL().appendingPathComponent("Notes.sqlite"))
    }

    @Test("defaultDirectoryURL() is $XDG_DATA_HOME/<executable>, else ~/.local/share/<executable>")
    func defaultDirectory() {
        let xdg = NSPersistentContainer.defaultDirectoryURL(
            environment: ["XDG_DATA_HOME": "/data/home", "HOME": "/home/u"], executableName: "tool")
        #expect(xdg.path == "/data/home/tool")
        let fallback = NSPersistentContainer.defaultDirectoryURL(environment: ["HOME": "/home/u"], executableName: "tool")
        #expect(fallback.path == "/home/u/.local/share/tool")
        // The XDG specification says relative paths are invalid and must be ignored.
        let relative = NSPersistentContainer.defaultDirectoryURL(
            environment: ["XDG_DATA_HOME": "relative/dir", "HOME": "/home/u"], executableName: "tool")
        #expect(relative.path == "/home/u/.local/share/tool")
        let empty = NSPersistentContainer.defaultDirectoryURL(
            environment: ["XDG_DATA_HOME": "", "HOME": "/home/u"], executableName: "tool")
        #expect(empty.path == "/home/u/.local/share/tool")
        #expect(NSPersistentContainer.defaultDirectoryURL().lastPathComponent == NSPersistentContainer.executableName)
    }

    @Test("loadPersistentStores adds each described store and reports once per description")
    func loadsStores() throws {
        let container = Self.inMemoryContainer()
        let second = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/memory/second"))
        second.type = NSInMemoryStoreType
        // Refused by the coordinator: reported for this description only, the others load.
        let duplicate = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))
        duplicate.type = "NoSuchStoreType"
        container.persistentStoreDescriptions += [second, duplicate]
        var reports: [(NSPersistentStoreDescription, Error?)] = []
        container.loadPersistentStores { reports.append(($0, $1)) }
        #expect(reports.count == 3)
        #expect(reports.map(\.0) == container.persistentStoreDescriptions)
        #expect(reports[0].1 == nil && reports[1].1 == nil)
        #expect((reports[2].1 as NSError?)?.code == NSPersistentStoreInvalidTypeError)
        #expect(container.persistentStoreCoordinator.persistentStores.count == 2)
        #expect(container.persistentStoreCoordinator.persistentStores.allSatisfy { $0.type == NSInMemoryStoreType })
        #expect(!FileManager.default.fileExists(atPath: "/memory"))
    }

    @Test("An unknown store type fails with Core Data's invalid-store-type error")
    func unknownStoreType() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = NSPersistentContainer(name: "Notes", managedObjectModel: Self.noteModel())
        let description = NSPersistentStoreDescription(url: directory.appendingPathComponent("sub/Notes.store"))
        description.type = "NoSuchStoreType"
        container.persistentStoreDescriptions = [description]
        var failure: NSError?
        container.loadPersistentStores { _, error in failure = error as NSError? }
        #expect(failure?.domain == NSCocoaErrorDomain)
        #expect(failure?.code == NSPersistentStoreInvalidTypeError)
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
        // The store's folder is created before the store is added.
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("sub").path, isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
    }

    @Test("Background contexts share the coordinator and save for the view context")
    func backgroundContexts() throws {
        let container = Self.inMemoryContainer()
        container.loadPersistentStores { _, error in #expect(error == nil) }
        let background = container.newBackgroundContext()
        #expect(background !== container.viewContext)
        #expect(background.concurrencyType == .privateQueueConcurrencyType)
        #expect(background.persistentStoreCoordinator === container.persistentStoreCoordinator)

        let done = DispatchSemaphore(value: 0)
        container.performBackgroundTask { context in
            #expect(context !== container.viewContext)
            #expect(context.concurrencyType == .privateQueueConcurrencyType)
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            note.setValue("from the background", forKey: "text")
            #expect(throws: Never.self) { try context.save() }
            done.signal()
        }
        done.wait()
        let notes = try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
        #expect(notes.map { $0.value(forKey: "text") as? String } == ["from the background"])
    }

    @Test("The async performBackgroundTask returns the block's result")
    func asyncBackgroundTask() async throws {
        let container = Self.inMemoryContainer()
        container.loadPersistentStores { _, error in #expect(error == nil) }
        let count = try await container.performBackgroundTask { context in
            _ = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            try context.save()
            return try context.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Note"))
        }
        #expect(count == 1)
    }
}

@Suite("NSPersistentContainer model lookup")
struct NSPersistentContainerModelLookupTests {
    private static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/CoreDataPlus/SampleModel")

    @Test("The search order: current directory, executable folder, Resources, <name>.resources, other bundles")
    func searchOrder() throws {
        let executable = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-exe-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: executable.appendingPathComponent("Pkg_Target.resources"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: executable) }
        let current = URL(fileURLWithPath: "/work/here", isDirectory: true)
        let folders = NSPersistentContainer.modelSearchDirectories(forName: "M", currentDirectory: current, executableDirectory: executable)
        #expect(folders.map(\.lastPathComponent) == ["here", executable.lastPathComponent, "Resources", "M.resources", "Pkg_Target.resources"])
        #expect(NSPersistentContainer.modelFileNames(forName: "M") == ["M.momd", "M.mom", "M.ocdmom", "M.xcdatamodeld", "M.xcdatamodel"])
    }

    @Test("A compiled model wins over the Xcode model in the same folder")
    func compiledFirst() throws {
        let url = try #require(NSPersistentContainer.modelURL(forName: "SampleModel", in: [Self.fixtures.appendingPathComponent("Fixtures"), Self.fixtures]))
        #expect(url.lastPathComponent == "SampleModel.momd")
        let xcode = try #require(NSPersistentContainer.modelURL(forName: "SampleModel", in: [Self.fixtures]))
        #expect(xcode.lastPathComponent == "SampleModel.xcdatamodeld")
        #expect(NSPersistentContainer.modelURL(forName: "Nope", in: [Self.fixtures]) == nil)
    }

    @Test("init(name:) loads the first model found in the folders searched")
    func initFindsModel() throws {
        let container = NSPersistentContainer(name: "SampleModel", modelSearchDirectories: [URL(fileURLWithPath: "/nonexistent"), Self.fixtures])
        let expected = try NSManagedObjectModel.load(contentsOf: Self.fixtures.appendingPathComponent("SampleModel.xcdatamodeld"))
        #expect(!container.managedObjectModel.entities.isEmpty)
        #expect(container.managedObjectModel.entitiesByName.keys.sorted() == expected.entitiesByName.keys.sorted())
        #expect(container.name == "SampleModel")
    }

    @Test("A missing model throws modelNotFound naming the places searched; init(name:) gets an empty model")
    func missingModel() {
        let name = "NoSuchModel\(UUID().uuidString.prefix(8))"
        #expect {
            try NSPersistentContainer.loadModel(named: name)
        } throws: { error in
            guard case .modelNotFound(let missing, let searched)? = error as? NSPersistentContainerError else { return false }
            return missing == name && searched.first == FileManager.default.currentDirectoryPath
        }
        let container = NSPersistentContainer(name: name)
        #expect(container.managedObjectModel.entities.isEmpty)
    }
}
