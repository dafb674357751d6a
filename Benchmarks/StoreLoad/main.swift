// coredata-store-bench: how fast the atomic file stores load.
//
// Builds a store of N objects (default 100 000; `--objects N`), writes it as an XML store and
// as a binary store (with migratePersistentStore), then times adding each store to a fresh
// coordinator (reading and decoding the whole file), best of R runs (`--runs R`, default 3).
// Prints one line per store type and the XML/binary ratio; exits 1 when the binary store loads
// less than 5 times faster than the XML store (issue 5's requirement).
//
//   swift run -c release coredata-store-bench [--objects N] [--runs R]
import Foundation
import OpenCoreData

func option(_ name: String, default value: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let parsed = Int(arguments[index + 1]) else { return value }
    return parsed
}

let objectCount = option("--objects", default: 100_000)
let runs = max(1, option("--runs", default: 3))

/// `Run` (`date`, `processID`, `note`; `group` → `Group`) and `Group` (`name`; `runs`).
func makeModel() -> NSManagedObjectModel {
    func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = true
        return attribute
    }
    let run = NSEntityDescription(), group = NSEntityDescription()
    run.name = "Run"
    group.name = "Group"
    let toGroup = NSRelationshipDescription(), runs = NSRelationshipDescription()
    toGroup.name = "group"
    toGroup.maxCount = 1
    toGroup.destinationEntity = group
    runs.name = "runs"
    runs.maxCount = 0
    runs.destinationEntity = run
    toGroup.inverseRelationship = runs
    runs.inverseRelationship = toGroup
    run.properties = [attribute("date", .dateAttributeType), attribute("processID", .integer32AttributeType),
                      attribute("note", .stringAttributeType), toGroup]
    group.properties = [attribute("name", .stringAttributeType), runs]
    let model = NSManagedObjectModel()
    model.entities = [group, run]
    return model
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let model = makeModel()
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-store-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

// Build the objects in memory, then write them once per file store type.
let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
var store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
context.persistentStoreCoordinator = coordinator
let buildTime = try seconds {
    var groups: [NSManagedObject] = []
    for index in 0..<100 {
        let group = NSEntityDescription.insertNewObject(forEntityName: "Group", into: context)
        group.setValue("Group \(index)", forKey: "name")
        groups.append(group)
    }
    for index in 0..<max(0, objectCount - groups.count) {
        let run = NSEntityDescription.insertNewObject(forEntityName: "Run", into: context)
        run.setValue(Date(timeIntervalSinceReferenceDate: 300_000_000 + Double(index) * 1.25), forKey: "date")
        run.setValue(Int32(index % 30_000 + 1), forKey: "processID")
        run.setValue("run number \(index)", forKey: "note")
        run.setValue(groups[index % groups.count], forKey: "group")
    }
    try context.save()
}
print("built \(objectCount) objects in \(String(format: "%.2f", buildTime)) s")

var loadTimes: [String: Double] = [:]
for (type, fileName) in [(NSXMLStoreType, "Bench.xml"), (NSBinaryStoreType, "Bench.binary")] {
    let url = directory.appendingPathComponent(fileName)
    let writeTime = try seconds { store = try coordinator.migratePersistentStore(store, to: url, options: nil, type: type) }
    let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
    var best = Double.infinity
    for _ in 0..<runs {
        let reader = NSPersistentStoreCoordinator(managedObjectModel: model)
        best = min(best, try seconds {
            try reader.addPersistentStore(ofType: type, configurationName: nil, at: url,
                                          options: [NSReadOnlyPersistentStoreOption: true])
        })
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Run")
        let check = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        check.persistentStoreCoordinator = reader
        let count = try check.count(for: request)
        guard count == objectCount - 100 else { fatalError("\(type) store holds \(count) runs, not \(objectCount - 100)") }
    }
    loadTimes[type] = best
    print("\(type): wrote \(size) bytes in \(String(format: "%.3f", writeTime)) s; loads in \(String(format: "%.3f", best)) s (best of \(runs))")
}
let ratio = loadTimes[NSXMLStoreType]! / loadTimes[NSBinaryStoreType]!
print("binary loads \(String(format: "%.1f", ratio))× faster than XML (required: 5×)")
exit(ratio >= 5 ? 0 : 1)
