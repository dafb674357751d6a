// PLACEHOLDER, completed by the object-graph work (helper `graph-core`).
/// An object of the data model, managed by a context.
open class NSManagedObject: NSObject, NSFetchRequestResult, @unchecked Sendable {
    /// The entity of the object.
    public let entity: NSEntityDescription

    /// The object's ID, temporary until the first save.
    public internal(set) var objectID: NSManagedObjectID

    /// The context the object is registered in.
    public internal(set) weak var managedObjectContext: NSManagedObjectContext?

    /// Creates an object of `entity` and inserts it into `context`.
    public required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        self.entity = entity
        self.objectID = NSManagedObjectID(temporaryFor: entity)
        self.managedObjectContext = context
        super.init()
    }

    /// The value of a property.
    open func value(forKey key: String) -> Any? { nil }

    // MARK: Validation hooks (bodies in NSManagedObject+Validation.swift, helper `graph-validation`)

    /// Validates (and may coerce) a value for a property: the model's rules, then `validate<Key>` hooks.
    ///
    /// Differs from Apple: the value is `inout Any?`, since Linux has no `AutoreleasingUnsafeMutablePointer`.
    open func validateValue(_ value: inout Any?, forKey key: String) throws {
        try ObjectValidation.validateValue(&value, forKey: key, of: self)
    }

    /// Validates the object before its first save.
    open func validateForInsert() throws { try ObjectValidation.validate(self, for: .insert) }

    /// Validates the object before a save that changes it.
    open func validateForUpdate() throws { try ObjectValidation.validate(self, for: .update) }

    /// Validates the object before a save that deletes it.
    open func validateForDelete() throws { try ObjectValidation.validate(self, for: .delete) }
}
