/// Which Swift class represents an entity's objects.
///
/// An entity's class is, in order: the class registered with
/// ``NSManagedObjectModel/register(_:forEntityName:)`` (each entity is registered on its own: a
/// superentity's registration does not apply to its subentities), else the class named by
/// `managedObjectClassName` (`representedClassName` in Xcode) when the runtime can find it, else
/// `NSManagedObject`. Swift class names must be module-qualified (`MyApp.Run`), because Linux has
/// no Objective-C class table to find an unqualified Swift class in.
enum ManagedObjectClasses {
    /// The class whose instances represent `entity`'s objects.
    static func managedObjectClass(for entity: NSEntityDescription) -> NSManagedObject.Type {
        if let registered = entity.managedObjectClass { return registered }
        if let name = entity.managedObjectClassName, name != "NSManagedObject", let found = lookUp(name) {
            entity.managedObjectClass = found
            return found
        }
        return NSManagedObject.self
    }

    /// The entity of `model` represented by `type`, for `init(context:)`.
    static func entity(for type: NSManagedObject.Type, in model: NSManagedObjectModel) -> NSEntityDescription? {
        let all = model.entities
        if let registered = all.first(where: { $0.managedObjectClass == type }) { return registered }
        let qualified = String(reflecting: type)
        let plain = String(describing: type)
        return all.first { entity in
            guard let name = entity.managedObjectClassName else { return false }
            return name == qualified || name == plain || name.split(separator: ".").last.map(String.init) == plain
        }
    }

    /// Finds a class by name through the Swift runtime.
    static func lookUp(_ name: String) -> NSManagedObject.Type? {
        if let type = _typeByName(name) as? NSManagedObject.Type { return type }
        if let type = NSClassFromString(name) as? NSManagedObject.Type { return type }
        return nil
    }
}

extension NSManagedObjectModel {
    /// Registers `type` as the class of the objects of entity `entityName`: fetching the entity
    /// and `object(with:)` return instances of `type`, and `type.init(context:)` finds the entity.
    ///
    /// Not in Apple's API, where the Objective-C runtime finds `representedClassName`. Allowed
    /// on a model in use (the class is not part of the schema). Traps for an unknown entity.
    public func register(_ type: NSManagedObject.Type, forEntityName entityName: String) {
        guard let entity = entitiesByName[entityName] else {
            preconditionFailure("register(_:forEntityName:): the model has no entity named '\(entityName)'")
        }
        entity.managedObjectClass = type
    }
}

extension NSEntityDescription {
    /// The entity named `entityName` in the model of `context`'s coordinator, or `nil`.
    public class func entity(forEntityName entityName: String, in context: NSManagedObjectContext) -> NSEntityDescription? {
        context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entityName]
    }

    /// Creates an object of the entity named `entityName` (of its registered class) and inserts
    /// it into `context`. Traps when the context's model has no such entity, as Apple raises.
    public class func insertNewObject(forEntityName entityName: String, into context: NSManagedObjectContext) -> NSManagedObject {
        guard let entity = entity(forEntityName: entityName, in: context) else {
            preconditionFailure("insertNewObject(forEntityName:into:): no entity named '\(entityName)' in the context's model")
        }
        let type = ManagedObjectClasses.managedObjectClass(for: entity)
        return type.init(entity: entity, insertInto: context)
    }
}
