import Foundation
@testable import OpenCoreData

/// The models and mappings of the migration tests.
///
/// V1: `Person` (`name`, `age`, `nick`, `notes` ↔ `Note.owner`), `Note` (`text`), `Legacy` (`code`).
/// V2: `Person` (`firstName`, `lastName`, `years`, `ageNextYear`, `notes`, `tags` ↔ `Tag.person`),
/// `Note` (`text`, `owner`), `Tag` (`label`); `Legacy` is gone.
enum MigrationTestModels {
    static func v1() -> NSManagedObjectModel {
        let person = GraphTestModel.entity("Person"), note = GraphTestModel.entity("Note"), legacy = GraphTestModel.entity("Legacy")
        let notes = GraphTestModel.relationship("notes", to: note, toMany: true), owner = GraphTestModel.relationship("owner", to: person)
        GraphTestModel.pair(notes, owner)
        person.properties = [GraphTestModel.attribute("name", .stringAttributeType), GraphTestModel.attribute("age", .integer64AttributeType),
                             GraphTestModel.attribute("nick", .stringAttributeType), notes]
        note.properties = [GraphTestModel.attribute("text", .stringAttributeType), owner]
        legacy.properties = [GraphTestModel.attribute("code", .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [person, note, legacy]
        return model
    }

    static func v2(lastNameRequired: Bool = false) -> NSManagedObjectModel {
        let person = GraphTestModel.entity("Person"), note = GraphTestModel.entity("Note"), tag = GraphTestModel.entity("Tag")
        let notes = GraphTestModel.relationship("notes", to: note, toMany: true), owner = GraphTestModel.relationship("owner", to: person)
        GraphTestModel.pair(notes, owner)
        let tags = GraphTestModel.relationship("tags", to: tag, toMany: true), tagged = GraphTestModel.relationship("person", to: person)
        GraphTestModel.pair(tags, tagged)
        person.properties = [GraphTestModel.attribute("firstName", .stringAttributeType),
                             GraphTestModel.attribute("lastName", .stringAttributeType, optional: !lastNameRequired),
                             GraphTestModel.attribute("years", .integer64AttributeType),
                             GraphTestModel.attribute("ageNextYear", .integer64AttributeType), notes, tags]
        note.properties = [GraphTestModel.attribute("text", .stringAttributeType), owner]
        tag.properties = [GraphTestModel.attribute("label", .stringAttributeType), tagged]
        let model = NSManagedObjectModel()
        model.entities = [person, note, tag]
        return model
    }

    static func entityMapping(_ name: String, _ type: NSEntityMappingType, source: String?, destination: String?,
                              attributes: [(String, String)] = [], relationships: [(String, String)] = [],
                              policy: String? = nil) -> NSEntityMapping {
        let mapping = NSEntityMapping()
        mapping.name = name
        mapping.mappingType = type
        mapping.sourceEntityName = source
        mapping.destinationEntityName = destination
        mapping.attributeMappings = attributes.map { NSPropertyMapping(name: $0.0, valueExpression: NSExpression(format: $0.1)) }
        mapping.relationshipMappings = relationships.map { NSPropertyMapping(name: $0.0, valueExpression: NSExpression(format: $0.1)) }
        mapping.entityMigrationPolicyClassName = policy
        return mapping
    }

    /// V1 → V2: a custom Person mapping (split name through `FUNCTION($entityPolicy…)`, renamed
    /// and computed attributes, tags made by the policy), a copy of Note, an add of Tag and a
    /// remove of Legacy.
    static func mapping(policy: String = String(reflecting: SplitNamePolicy.self)) -> NSMappingModel {
        let mapping = NSMappingModel()
        mapping.entityMappings = [
            entityMapping("PersonToPerson", .customEntityMappingType, source: "Person", destination: "Person",
                          attributes: [("firstName", "FUNCTION($entityPolicy, 'firstPartOf:', $source.name)"),
                                       ("lastName", "FUNCTION($entityPolicy, 'lastPartOf:', $source.name)"),
                                       ("years", "$source.age"), ("ageNextYear", "$source.age + 1")],
                          relationships: [("notes", "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'NoteToNote', $source.notes)")],
                          policy: policy),
            entityMapping("NoteToNote", .copyEntityMappingType, source: "Note", destination: "Note"),
            entityMapping("TagToTag", .addEntityMappingType, source: nil, destination: "Tag"),
            entityMapping("LegacyToNothing", .removeEntityMappingType, source: "Legacy", destination: nil),
        ]
        return mapping
    }

    /// Writes a V1 store of `type` at `url`: Ada Lovelace (two notes), Alan Turing (one note),
    /// `extraPerson` if given, and one Legacy row. Returns the store's UUID.
    @discardableResult
    static func writeV1Store(_ type: NSPersistentStore.StoreType, at url: URL, extraPerson: String? = nil) throws -> String {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v1())
        let store = try coordinator.addPersistentStore(type: type, at: url)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        func person(_ name: String, _ age: Int64, _ nick: String, notes: [String]) {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue(name, forKey: "name")
            person.setValue(age, forKey: "age")
            person.setValue(nick, forKey: "nick")
            for text in notes {
                let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
                note.setValue(text, forKey: "text")
                note.setValue(person, forKey: "owner")
            }
        }
        person("Ada Lovelace", 36, "Countess", notes: ["engine", "poetry"])
        person("Alan Turing", 41, "Prof", notes: ["machines"])
        if let extraPerson { person(extraPerson, 80, "Sage", notes: []) }
        NSEntityDescription.insertNewObject(forEntityName: "Legacy", into: context).setValue("L1", forKey: "code")
        try context.save()
        let uuid = store.identifier ?? ""
        try coordinator.remove(store)
        return uuid
    }

    /// A context reading the store of `type` at `url` with `model`.
    static func open(_ type: NSPersistentStore.StoreType, at url: URL, model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static func fetch(_ entity: String, in context: NSManagedObjectContext, sortedBy key: String) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        return try context.fetch(request)
    }

    /// The bytes of the file at `url` and its SQLite companions.
    static func bytes(_ url: URL) -> [Data?] {
        ["", "-wal", "-shm"].map { FileManager.default.contents(atPath: url.path + $0) }
    }
}

/// Splits `name` into a first and last part for `FUNCTION($entityPolicy, …)`, and makes a Tag
/// (from the source's `nick`) for each migrated person by overriding `createDestinationInstances`.
final class SplitNamePolicy: NSEntityMigrationPolicy, @unchecked Sendable {
    override func respondsToPredicateFunction(_ selector: String) -> Bool {
        selector == "firstPartOf:" || selector == "lastPartOf:"
    }

    override func performPredicateFunction(_ selector: String, arguments: [Any?]) throws -> Any? {
        guard let name = arguments.first as? String else { return nil }
        let parts = name.split(separator: " ", maxSplits: 1).map(String.init)
        return selector == "firstPartOf:" ? parts.first : (parts.count > 1 ? parts[1] : nil)
    }

    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping,
                                             manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        guard let person = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first,
              let nick = sInstance.value(forKey: "nick") as? String else { return }
        let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: manager.destinationContext)
        tag.setValue(nick, forKey: "label")
        tag.setValue(person, forKey: "person")
    }
}
