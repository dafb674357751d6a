import Foundation
@testable import OpenCoreData

/// Models and helpers shared by the object-graph tests.
enum GraphTestModel {
    static func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil,
                          transient: Bool = false) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        attribute.defaultValue = defaultValue
        attribute.isTransient = transient
        return attribute
    }

    static func relationship(_ name: String, to destination: NSEntityDescription, toMany: Bool = false, ordered: Bool = false,
                             rule: NSDeleteRule = .nullifyDeleteRule) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        relationship.destinationEntity = destination
        relationship.maxCount = toMany ? 0 : 1
        relationship.isOrdered = ordered
        relationship.deleteRule = rule
        return relationship
    }

    static func entity(_ name: String, className: String? = nil) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        if let className { entity.managedObjectClassName = className }
        return entity
    }

    static func pair(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription) {
        a.inverseRelationship = b
        b.inverseRelationship = a
    }

    /// The test model:
    /// - `ClassEntity` (`name` default "XX班", `students` ↔ `StudentEntity.inClass`, `monitor` to-one without inverse);
    /// - `StudentEntity` (`name` default "学生甲", `age` Int16, `nickname` transient, `inClass`);
    /// - `Person.passport` ↔ `Passport.owner` (one-to-one);
    /// - `Author.books` ↔ `Book.authors` (many-to-many);
    /// - `Playlist.tracks` (ordered) ↔ `Track.playlist`;
    /// - `Owner` with one to-many per delete rule to `Item`, and `Item.children` cascading to `Item`;
    /// - `Run` (`date`, `processID` Int32 default -1);
    /// - `Animal` (`name`, `legs`) with subentity `Dog` (`breed`).
    static func make() -> NSManagedObjectModel {
        let classEntity = entity("ClassEntity")
        let student = entity("StudentEntity")
        let students = relationship("students", to: student, toMany: true)
        let inClass = relationship("inClass", to: classEntity)
        pair(students, inClass)
        classEntity.properties = [attribute("name", .stringAttributeType, defaultValue: "XX班"), students,
                                  relationship("monitor", to: student)]
        student.properties = [attribute("name", .stringAttributeType, defaultValue: "学生甲"),
                              attribute("age", .integer16AttributeType, defaultValue: 0),
                              attribute("nickname", .stringAttributeType, transient: true), inClass]

        let person = entity("Person")
        let passport = entity("Passport")
        let hasPassport = relationship("passport", to: passport)
        let owner = relationship("owner", to: person)
        pair(hasPassport, owner)
        person.properties = [attribute("name", .stringAttributeType), hasPassport]
        passport.properties = [attribute("number", .stringAttributeType), owner]

        let author = entity("Author")
        let book = entity("Book")
        let books = relationship("books", to: book, toMany: true)
        let authors = relationship("authors", to: author, toMany: true)
        pair(books, authors)
        author.properties = [attribute("name", .stringAttributeType), books]
        book.properties = [attribute("title", .stringAttributeType), authors]

        let playlist = entity("Playlist")
        let track = entity("Track")
        let tracks = relationship("tracks", to: track, toMany: true, ordered: true)
        let onPlaylist = relationship("playlist", to: playlist)
        pair(tracks, onPlaylist)
        playlist.properties = [attribute("name", .stringAttributeType), tracks]
        track.properties = [attribute("title", .stringAttributeType), onPlaylist]

        let ownerEntity = entity("Owner")
        let item = entity("Item")
        var ownerProperties: [NSPropertyDescription] = [attribute("name", .stringAttributeType)]
        var itemProperties: [NSPropertyDescription] = [attribute("name", .stringAttributeType)]
        for (name, rule) in [("cascade", NSDeleteRule.cascadeDeleteRule), ("nullify", .nullifyDeleteRule),
                             ("deny", .denyDeleteRule), ("noAction", .noActionDeleteRule)] {
            let items = relationship("\(name)Items", to: item, toMany: true, rule: rule)
            let back = relationship("\(name)Owner", to: ownerEntity)
            pair(items, back)
            ownerProperties.append(items)
            itemProperties.append(back)
        }
        let children = relationship("children", to: item, toMany: true, rule: .cascadeDeleteRule)
        let parent = relationship("parent", to: item)
        pair(children, parent)
        itemProperties += [children, parent]
        ownerEntity.properties = ownerProperties
        item.properties = itemProperties

        let run = entity("Run")
        run.properties = [attribute("date", .dateAttributeType),
                          attribute("processID", .integer32AttributeType, defaultValue: -1)]

        let animal = entity("Animal")
        let dog = entity("Dog")
        animal.properties = [attribute("name", .stringAttributeType), attribute("legs", .integer16AttributeType, defaultValue: 4)]
        dog.properties = [attribute("breed", .stringAttributeType)]
        animal.subentities = [dog]

        let model = NSManagedObjectModel()
        model.entities = [classEntity, student, person, passport, author, book, playlist, track, ownerEntity, item, run, animal, dog]
        return model
    }

    /// A context over a coordinator of a fresh model, without stores.
    static func context(undo: Bool = false, model: NSManagedObjectModel = make()) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        if undo { context.undoManager = UndoManager() }
        return context
    }

    static func insert(_ entityName: String, _ context: NSManagedObjectContext, _ values: [String: Any] = [:]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entityName, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }
}

/// Collects the notifications one object posts.
final class NotificationRecorder: @unchecked Sendable {
    private(set) var notifications: [Notification] = []
    private var tokens: [NSObjectProtocol] = []

    init(_ names: [Notification.Name], object: AnyObject) {
        for name in names {
            tokens.append(NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [weak self] note in
                self?.notifications.append(note)
            })
        }
    }

    func named(_ name: Notification.Name) -> [Notification] { notifications.filter { $0.name == name } }

    deinit { tokens.forEach(NotificationCenter.default.removeObserver) }
}

/// Typed subclasses of the seed's classes and students, with hand-written accessors.
final class StudentEntity: NSManagedObject {
    var name: String? {
        get { managedValue(forKey: "name") }
        set { setManagedValue(newValue, forKey: "name") }
    }
    var age: Int {
        get { managedValue(forKey: "age") }
        set { setManagedValue(newValue, forKey: "age") }
    }
    var inClass: ClassEntity? {
        get { managedValue(forKey: "inClass") }
        set { setManagedValue(newValue, forKey: "inClass") }
    }
}

final class ClassEntity: NSManagedObject {
    var name: String? {
        get { managedValue(forKey: "name") }
        set { setManagedValue(newValue, forKey: "name") }
    }
    var students: Set<StudentEntity> {
        get { managedValue(forKey: "students") }
        set { setManagedValue(newValue, forKey: "students") }
    }
    var monitor: StudentEntity? {
        get { managedValue(forKey: "monitor") }
        set { setManagedValue(newValue, forKey: "monitor") }
    }
    private(set) var awakeCount = 0

    override func awakeFromInsert() {
        awakeCount += 1
    }

    func addStudentsObject(_ value: StudentEntity) {
        mutableSetValue(forKey: "students").add(value)
    }

    /// The seed's rule: removing the monitor from the class clears `monitor`.
    func removeStudentsObject(_ value: StudentEntity) {
        mutableSetValue(forKey: "students").remove(value)
        if monitor === value { monitor = nil }
    }
}

/// A subclass that records its lifecycle hooks.
final class RecordingRun: NSManagedObject {
    private(set) var events: [String] = []

    override func awakeFromInsert() {
        events.append("awakeFromInsert")
        setPrimitiveValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "date")
    }
    override func awakeFromFetch() { events.append("awakeFromFetch") }
    override func awakeFromSnapshotEvents(_ flags: NSSnapshotEventType) { events.append("snapshot(\(flags.rawValue))") }
    override func willSave() { events.append("willSave") }
    override func didSave() { events.append("didSave") }
    override func prepareForDeletion() { events.append("prepareForDeletion") }
    override func willTurnIntoFault() { events.append("willTurnIntoFault") }
    override func didTurnIntoFault() { events.append("didTurnIntoFault") }
    override func willChangeValue(forKey key: String) { events.append("willChange(\(key))") }
    override func didChangeValue(forKey key: String) { events.append("didChange(\(key))") }
    override func willAccessValue(forKey key: String?) { events.append("willAccess(\(key ?? ""))") }
}
