import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Small models with the shapes whose SQLite names Apple chooses in ways the model alone does
/// not predict, and the store round trips the naming tests share.
enum SQLiteNamingSupport {
    static func attribute(_ name: String) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = .stringAttributeType
        return attribute
    }

    static func relationship(_ name: String, _ destination: NSEntityDescription, toMany: Bool = true, ordered: Bool = false) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        relationship.destinationEntity = destination
        relationship.maxCount = toMany ? 0 : 1
        relationship.isOrdered = ordered
        return relationship
    }

    static func pair(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription) {
        a.inverseRelationship = b
        b.inverseRelationship = a
    }

    static func entity(_ name: String) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        return entity
    }

    static func model(_ entities: [NSEntityDescription]) -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        model.entities = entities
        return model
    }

    /// Roots whose byte order and case-insensitive order differ, with subentities `Zeta` and
    /// `alpha` (the same for siblings).
    static func numberingModel() -> NSManagedObjectModel {
        let settings = entity("SyncableSettingsMetadata"), feature = entity("SyncFeatureEntity")
        let zeta = entity("Zeta"), alpha = entity("alpha")
        settings.properties = [attribute("key")]
        feature.properties = [attribute("name")]
        zeta.properties = [attribute("z")]
        alpha.properties = [attribute("a")]
        feature.subentities = [zeta, alpha]
        return model([feature, zeta, alpha, settings])
    }

    /// `Person.friends` ↔ `Person.friendOf`: a self-referencing many-to-many.
    static func selfReferencingModel() -> NSManagedObjectModel {
        let person = entity("Person")
        let friends = relationship("friends", person), friendOf = relationship("friendOf", person)
        pair(friends, friendOf)
        person.properties = [attribute("name"), friends, friendOf]
        return model([person])
    }

    /// `Group.users` ↔ `User.groups` and `Team.users` ↔ `User.teams`: two join columns `Z_3USERS`.
    static func twoManyToManyModel() -> NSManagedObjectModel {
        let group = entity("Group"), team = entity("Team"), user = entity("User")
        let groupUsers = relationship("users", user), userGroups = relationship("groups", group)
        let teamUsers = relationship("users", user), userTeams = relationship("teams", team)
        pair(groupUsers, userGroups)
        pair(teamUsers, userTeams)
        group.properties = [attribute("name"), groupUsers]
        team.properties = [attribute("name"), teamUsers]
        user.properties = [attribute("name"), userGroups, userTeams]
        return model([group, team, user])
    }

    /// `Recipe.modifiers` (unordered) and `Playlist.tracks` (ordered), both without an inverse.
    static func inverselessModel() -> NSManagedObjectModel {
        let modifier = entity("Modifier"), playlist = entity("Playlist"), recipe = entity("Recipe"), track = entity("Track")
        modifier.properties = [attribute("name")]
        track.properties = [attribute("title")]
        recipe.properties = [attribute("name"), relationship("modifiers", modifier)]
        playlist.properties = [attribute("name"), relationship("tracks", track, ordered: true)]
        return model([modifier, playlist, recipe, track])
    }

    /// A coordinator with the SQLite store at `url` and a main-queue context on it.
    static func open(_ model: NSManagedObjectModel, _ url: URL, options: [AnyHashable: Any]? = nil) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static func insert(_ entity: String, _ values: [String: Any], into context: NSManagedObjectContext) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    /// Every object of `entity` (subentities included) by the string value of `key`.
    static func objects(_ entity: String, by key: String, in context: NSManagedObjectContext) throws -> [String: NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        var result: [String: NSManagedObject] = [:]
        for object in try context.fetch(request) { result[object.value(forKey: key) as? String ?? "?"] = object }
        return result
    }

    /// The string values of `key` of a to-many relationship's destinations, sorted.
    static func names(_ object: NSManagedObject?, _ relationship: String, _ key: String = "name") -> [String] {
        ((object?.value(forKey: relationship) as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: key) as? String }.sorted()
    }

    /// Runs raw SQL on the store file (the store must not be open).
    static func execute(_ url: URL, _ sql: String) throws {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        try queue.writeWithoutTransaction { db in try db.execute(sql: sql) }
    }

    /// A new store file path in a new temporary directory.
    static func newStore(_ name: String = "store.sqlite") throws -> (directory: URL, url: URL) {
        let directory = try Fixtures.temporaryDirectory()
        return (directory, directory.appendingPathComponent(name))
    }
}
