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
        // Resolved once per name (see `NSEntityDescription.resolvedClassBits`); metatypes live
        // as long as the process, so their bits can be kept.
        switch entity.resolvedClassBits.load(ordering: .acquiring) {
        case 0: break
        case 1: return NSManagedObject.self
        case let bits: return unsafeBitCast(bits, to: NSManagedObject.Type.self)
        }
        let found = entity.managedObjectClassName.flatMap { $0 == "NSManagedObject" ? nil : lookUp($0) }
        entity.resolvedClassBits.store(found.map { unsafeBitCast($0, to: UInt.self) } ?? 1, ordering: .releasing)
        return found ?? NSManagedObject.self
    }

    /// A new instance of `entity`'s class, created through the class's `init(entity:insertInto:)`
    /// (its override runs) and inserted into `context` unless `context` is creating a fault.
    /// The one place the framework instantiates managed objects from a metatype.
    static func instantiate(_ entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) -> NSManagedObject {
        managedObjectClass(for: entity).init(_entity: entity, insertInto: context)
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
        lookUpClass(name, as: NSManagedObject.self)
    }

    /// Finds a subclass of `base` by name through the Swift runtime (module-qualified for Swift
    /// classes): managed object classes, entity migration policies.
    static func lookUpClass<Base: AnyObject>(_ name: String, as base: Base.Type) -> Base.Type? {
        if let type = _typeByName(name) as? Base.Type { return type }
        if let type = NSClassFromString(name) as? Base.Type { return type }
        return nil
    }
}

/// The initializers through which managed objects are created from a metatype:
/// `NSManagedObject` and every subclass conform. Not in Apple's API.
///
/// Apple's Objective-C initializers can be called through any metatype; Swift allows that only
/// for `required` initializers, and a `required` initializer would forbid shapes real code
/// writes (a subclass's `convenience init(context:)` in an extension, a subclass with a
/// designated initializer of its own). So Apple's `init(context:)` is declared on this
/// protocol's extension rather than on the class, and so is a second `init(entity:insertInto:)`,
/// which Swift picks where the class's designated one cannot be used (`T(entity:insertInto:)`
/// with a generic `T`, `Self(...)` in a class method). Both go through the required
/// initializers below, which dispatch to the class's `init(entity:insertInto:)`.
public protocol ManagedObjectInstantiable: AnyObject {
    /// See ``NSManagedObject/init(_entity:insertInto:)``.
    init(_entity entity: NSEntityDescription, insertInto context: NSManagedObjectContext?)
    /// See ``NSManagedObject/init(_context:)``.
    init(_context context: NSManagedObjectContext)
}

extension ManagedObjectInstantiable where Self: NSManagedObject {
    /// Creates an object of the entity whose class is this class, in `context`'s model, and
    /// inserts it.
    ///
    /// The entity is found among the model's entities by the class registered with
    /// `NSManagedObjectModel.register(_:forEntityName:)` or named by `managedObjectClassName`,
    /// for the class the initializer is called on (also through a metatype or a generic type).
    /// The class's `init(entity:insertInto:)` runs. Traps when the context has no coordinator or
    /// no entity uses the class.
    public init(context: NSManagedObjectContext) {
        self.init(_context: context)
    }

    /// ``NSManagedObject/init(entity:insertInto:)`` through a metatype or a generic type: an
    /// instance of the class it is called on, created by that class's `init(entity:insertInto:)`.
    public init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        self.init(_entity: entity, insertInto: context)
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
        guard let entity = entityForInsertion(named: entityName, in: context) else {
            preconditionFailure("insertNewObject(forEntityName:into:): no entity named '\(entityName)' in the context's model")
        }
        return ManagedObjectClasses.instantiate(entity, insertInto: context)
    }

    /// ``entity(forEntityName:in:)``, answered from the context's last insertion when it named
    /// the same entity of the same model and that model is frozen (in use: its entities no
    /// longer change), without hashing the name. Kept here, not in `entity(forEntityName:in:)`:
    /// an insertion runs on the context's queue, which guards the remembered entity, while
    /// `entity(forEntityName:in:)` may be called from any thread, as Apple's may.
    private class func entityForInsertion(named entityName: String, in context: NSManagedObjectContext) -> NSEntityDescription? {
        let model = context.persistentStoreCoordinator?.managedObjectModel
        if let last = context.lastInsertedEntity, last.name == entityName, last.model === model { return last.entity }
        guard let entity = entity(forEntityName: entityName, in: context) else { return nil }
        if let model, model.hasFrozenEntities { context.lastInsertedEntity = (entityName, model, entity) }
        return entity
    }
}

/// The models of the live coordinators, so that `NSManagedObject.entity()` can find a class's
/// entity without being given a model, as Apple's finds it among the models it has loaded.
///
/// The one process-wide registry of the library, because `entity()` takes no argument: a
/// lock-protected list of unretained references (`UnretainedBox`, which leaves the model's
/// retains on the runtime's fast path), added to by every coordinator and never holding a model
/// alive.
final class LoadedModels: @unchecked Sendable {
    static let shared = LoadedModels()

    private let lock = NSLock()
    private var entries: [UnretainedBox<NSManagedObjectModel>] = []

    /// Remembers `model` (once), forgetting models that were freed.
    func add(_ model: NSManagedObjectModel) {
        lock.withLock {
            entries.removeAll { $0.object == nil }
            if !entries.contains(where: { $0.object === model }) { entries.append(UnretainedBox(model)) }
        }
    }

    /// The entities represented by `type` in the loaded models, most recently loaded first,
    /// without repeating an entity that two models share.
    func entities(for type: NSManagedObject.Type) -> [NSEntityDescription] {
        let models = lock.withLock { entries.compactMap(\.object) }
        var result: [NSEntityDescription] = []
        for model in models.reversed() {
            guard let entity = ManagedObjectClasses.entity(for: type, in: model), !result.contains(where: { $0 === entity }) else { continue }
            result.append(entity)
        }
        return result
    }
}

extension NSManagedObject {
    /// The entity whose objects this class represents, found in the models of the live
    /// persistent store coordinators (by registered class or `managedObjectClassName`).
    ///
    /// Differs from Apple, which returns nil and logs when no loaded model has the class: this
    /// traps with a message naming the class. When several loaded models have it, the most
    /// recently loaded one wins, as Apple warns and picks one.
    public class func entity() -> NSEntityDescription {
        guard let entity = LoadedModels.shared.entities(for: self).first else {
            preconditionFailure("\(String(reflecting: self)).entity(): no loaded model has an entity of this class; create a coordinator (or container) with the model first, and register the class or set the entity's managedObjectClassName")
        }
        return entity
    }

    /// A fetch request for ``entity()``, as Apple's `NSManagedObject.fetchRequest()`. Xcode's
    /// generated subclasses declare a typed overload (`NSFetchRequest<Run>`), which works as is.
    public class func fetchRequest() -> NSFetchRequest<NSFetchRequestResult> {
        let entity = entity()
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity.name ?? "")
        request.entity = entity
        return request
    }
}
