import Foundation
import Testing
@testable import OpenCoreData

/// A save that spans several stores is all-or-nothing also when a Transformable value can't be
/// stored: the coordinator turns every such value into data before any store writes.
@Suite struct CoordinatorTransformableSaveTests {
    /// `Note` (a string) in the configuration "Notes", `Blob` (a Transformable) in "Blobs".
    private static func model() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = true
            return attribute
        }
        let note = NSEntityDescription()
        note.name = "Note"
        note.properties = [attribute("title", .stringAttributeType)]
        let blob = NSEntityDescription()
        blob.name = "Blob"
        blob.properties = [attribute("payload", .transformableAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [note, blob]
        model.setEntities([note], forConfigurationName: "Notes")
        model.setEntities([blob], forConfigurationName: "Blobs")
        return model
    }

    @Test func anUnstorableValueFailsTheSaveBeforeAnyStoreWrites() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("OpenCoreDataTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let notesURL = directory.appendingPathComponent("notes.xml")
        let model = Self.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        // The notes store comes first, so it would be written before the blobs store fails.
        _ = try coordinator.addPersistentStore(ofType: NSXMLStoreType, configurationName: "Notes", at: notesURL)
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: "Blobs", at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let error: NSError? = context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue("Ann", forKey: "title")
            // Decimal is no class the secure unarchiving transformer can archive on Linux.
            NSEntityDescription.insertNewObject(forEntityName: "Blob", into: context).setValue(Decimal(1), forKey: "payload")
            do {
                try context.save()
                return nil
            } catch {
                return error as NSError
            }
        }
        #expect(error?.code == NSPersistentStoreSaveError)
        #expect(error?.localizedDescription.contains("Blob.payload") == true, "\(String(describing: error))")

        let reader = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try reader.addPersistentStore(ofType: NSXMLStoreType, configurationName: "Notes", at: notesURL)
        let readContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        readContext.persistentStoreCoordinator = reader
        let count = try readContext.performAndWait { try readContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) }
        #expect(count == 0, "the notes store wrote nothing")
    }
}
